/* test_normalize.c - numbers, symbols, lookalikes and acronyms.
 *
 * Usage: test_normalize LANG_DIR DATA_DIR CASE...  Each line of
 * DATA_DIR/CASE.txt is normalized; CASE.ok holds "input<TAB>output" a
 * line.  Also checked: feeding a line in pieces (cut anywhere between
 * characters) gives the same text, and the cardinal reader against a
 * table. */
#include "check.h"
#include "normalize_pieces.h"
#include "zh/lang.h"
#include "zh/normalize.h"
#include "base/util.h"

static void run_case(const ts_lang *lang, const char *dir, const char *name)
{
	char golden[1024];
	size_t n;
	char *text = read_case(dir, name, golden, sizeof golden, &n);
	if (!text)
		return;
	ts_buf out = {0};
	for (char *line = text, *nl; line < text + n; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = text + n;
		*nl = '\0';
		ts_buf whole = {0};
		normalize(lang, line, strlen(line), 0, &whole);
		ts_buf_printf(&out, "%s\t%s\n", line, whole.data ? whole.data : "");
		static const size_t steps[] = {1, 2, 3, 5, 8, 20, 31, 50};
		for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
			ts_buf piece = {0};
			normalize(lang, line, strlen(line), steps[i], &piece);
			if (piece.len != whole.len ||
			    memcmp(piece.data, whole.data, whole.len) != 0) {
				fprintf(stderr,
				        "%s: \"%s\" in pieces of %zu gives \"%s\", whole gives "
				        "\"%s\"\n",
				        name, line, steps[i], piece.data ? piece.data : "",
				        whole.data ? whole.data : "");
				check_failures++;
			}
			ts_buf_free(&piece);
		}
		ts_buf_free(&whole);
	}
	check_golden(golden, out.data ? out.data : "", out.len);
	ts_buf_free(&out);
	free(text);
}

static void cardinal_is(const char *digits, const char *want)
{
	ts_buf b = {0};
	ts_read_cardinal(digits, strlen(digits), &b);
	if (!b.data || strcmp(b.data, want) != 0) {
		fprintf(stderr, "cardinal %s = %s, want %s\n", digits, b.data ? b.data : "", want);
		check_failures++;
	}
	ts_buf_free(&b);
}

/* A piece that ends a sentence is read in full, and stays the context of
 * what follows it on the line. */
static void check_sentence_end(const ts_lang *lang)
{
	ts_normalizer *z = ts_normalizer_new(lang);
	ts_buf out = {0};
	CHECK(ts_normalize_piece(z, "共有25", strlen("共有25"), TS_NORM_SENTENCE_END, &out) == 0);
	CHECK(out.data && strcmp(out.data, "共有二十五") == 0);
	ts_buf_clear(&out);
	/* 2章 alone is 两章; after 第 it is 第二章. */
	CHECK(ts_normalize_piece(z, "第", strlen("第"), TS_NORM_SENTENCE_END, &out) == 0);
	CHECK(ts_normalize_piece(z, "2章", strlen("2章"), TS_NORM_LINE_END, &out) == 0);
	CHECK(out.data && strcmp(out.data, "第二章") == 0);
	ts_buf_clear(&out);
	/* ... but a line end forgets it. */
	CHECK(ts_normalize_piece(z, "2章", strlen("2章"), TS_NORM_LINE_END, &out) == 0);
	CHECK(out.data && strcmp(out.data, "两章") == 0);
	ts_normalizer_free(z);
	ts_buf_free(&out);
}

/* Runs of letters or digits longer than what a piece holds back are read
 * once, whatever the pieces: letters as they are; digits digit by digit
 * when whole, and in pieces as the numbers the pieces make of them, so
 * no more than a few characters longer (never twice). */
static void check_long_runs(const ts_lang *lang)
{
	static const char fill[] = {'a', '1'};
	static const size_t steps[] = {1, 7, 64, 100};
	char line[1300];
	for (size_t f = 0; f < sizeof fill; f++) {
		memset(line, fill[f], sizeof line);
		ts_buf whole = {0};
		normalize(lang, line, sizeof line, 0, &whole);
		CHECK(ts_utf8_count(whole.data, whole.len) == sizeof line);
		for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
			ts_buf piece = {0};
			normalize(lang, line, sizeof line, steps[i], &piece);
			size_t got = ts_utf8_count(piece.data, piece.len);
			if (fill[f] == 'a' ? got != sizeof line
			                   : got < sizeof line || got > sizeof line + 50) {
				fprintf(stderr, "%zu × '%c' in pieces of %zu: %zu characters out\n",
				        sizeof line, fill[f], steps[i], got);
				check_failures++;
			}
			ts_buf_free(&piece);
		}
		ts_buf_free(&whole);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_normalize LANG_DIR DATA_DIR CASE...\n");
		return 2;
	}
	cardinal_is("0", "零");
	cardinal_is("7", "七");
	cardinal_is("10", "十");
	cardinal_is("11", "十一");
	cardinal_is("20", "二十");
	cardinal_is("100", "一百");
	cardinal_is("110", "一百一十");
	cardinal_is("1001", "一千零一");
	cardinal_is("1010", "一千零一十");
	cardinal_is("10010", "一万零一十");
	cardinal_is("100000", "十万");
	cardinal_is("150000", "十五万");
	cardinal_is("1000001", "一百万零一");
	cardinal_is("100000000", "一亿");
	cardinal_is("100010000", "一亿零一万");
	cardinal_is("120000000", "一亿二千万");
	cardinal_is("1000000000000", "一万亿");
	cardinal_is("0007", "七");

	ts_error err = {0};
	ts_lang *lang = ts_lang_load(argv[1], &err);
	if (!lang) {
		fprintf(stderr, "%s\n", ts_error_msg(&err));
		return 1;
	}
	CHECK(ts_lang_lookalike_count(lang) >= 373);
	CHECK(ts_lang_lookalike(lang, 0x49A4 /* 䦤 */) == 0x9053 /* 道 */);
	CHECK(ts_lang_lookalike(lang, 0x9053) == 0);

	for (int i = 3; i < argc; i++)
		run_case(lang, argv[2], argv[i]);
	check_sentence_end(lang);
	check_long_runs(lang);

	/* Unreadable characters are counted, and removed where eSpeak
	 * would misread them. */
	ts_normalizer *z = ts_normalizer_new(lang);
	ts_buf out = {0}, sum = {0};
	const char *s = "好𠀀𠀀あ㐀😀";
	CHECK(ts_normalize_piece(z, s, strlen(s), 1, &out) == 0);
	CHECK(strcmp(out.data, "好㐀") == 0);
	CHECK(ts_normalizer_unreadable(z, &sum) == 5);
	CHECK(strstr(sum.data, "U+20000) ×2") != NULL);
	ts_normalizer_reset_counts(z);
	ts_buf_clear(&sum);
	CHECK(ts_normalizer_unreadable(z, &sum) == 0);
	ts_normalizer_free(z);
	ts_buf_free(&out);
	ts_buf_free(&sum);
	ts_lang_free(lang);
	return check_done("test_normalize");
}
