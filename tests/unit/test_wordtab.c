/* test_wordtab.c - the word tables of the language data: the file format
 * (comments, the entry for # itself, readings that may be empty), refusing
 * broken lines with file and line, and the shipped tables as a ts_lang
 * loads them; also the one character-class helper, ts_char_in().
 *
 * Usage: test_wordtab LANG_DIR SCRATCH_DIR */
#include "check.h"
#include "zh/dialogue.h"
#include "zh/lang.h"
#include "zh/wordtab.h"
#include "base/util.h"

static char scratch[1024];

/* Write text to SCRATCH_DIR/name; returns its path (static buffer). */
static const char *write_file(const char *name, const char *text)
{
	return write_file_in(scratch, name, text);
}

static void check_format(void)
{
	ts_error err = {-1, ""};
	const char *p = write_file("units.tsv", "# a comment\n"
	                                        "\n"
	                                        "km\t公里\r\n"
	                                        "#\t\n"
	                                        "°C\t摄氏度\n");
	ts_wordtab *t = ts_wordtab_load(p, 1, &err);
	CHECK(t != NULL);
	size_t n;
	const ts_word *w = ts_wordtab_words(t, &n);
	CHECK(n == 3);
	if (n == 3) {
		CHECK(strcmp(w[0].text, "km") == 0 && strcmp(w[0].said, "公里") == 0);
		CHECK(w[0].len == 2 && w[0].first == 'k');
		CHECK(strcmp(w[1].text, "#") == 0 && strcmp(w[1].said, "") == 0);
		CHECK(strcmp(w[2].text, "°C") == 0 && w[2].len == 2 && w[2].first == 0xB0);
	}
	ts_wordtab_free(t);

	p = write_file("measures.txt", "# 两\n个\n公里\n");
	t = ts_wordtab_load(p, 0, &err);
	w = ts_wordtab_words(t, &n);
	CHECK(t != NULL && n == 2);
	if (n == 2)
		CHECK(strcmp(w[1].text, "公里") == 0 && w[1].len == 2 &&
		      strcmp(w[1].said, "") == 0);
	ts_wordtab_free(t);

	/* Broken lines are refused, naming the file and line. */
	static const struct {
		const char *text;
		int said;
	} bad[] = {
	    {"km\t公里\nkg\n", 1}, /* no TAB */
	    {"km\t公里\tx\n", 1},  /* two */
	    {"个\t两\n", 0},       /* a TAB in a plain list */
	    {"\t公里\n", 1},       /* no word */
	    {"个 \n", 0},          /* a space after it */
	    {"个\n\xE4\xB8\n", 0}, /* not UTF-8 */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		p = write_file("bad.txt", bad[i].text);
		err.msg[0] = '\0';
		t = ts_wordtab_load(p, bad[i].said, &err);
		CHECK(t == NULL && err.code == TS_EINVAL);
		CHECK(strstr(err.msg, "bad.txt:") != NULL);
	}
	p = write_file("bad.txt", "km\t公里\nkg\n");
	t = ts_wordtab_load(p, 1, &err);
	CHECK(strstr(err.msg, "bad.txt:2:") != NULL);

	char none[1200];
	snprintf(none, sizeof none, "%s/none.txt", scratch);
	t = ts_wordtab_load(none, 0, &err);
	CHECK(t == NULL && err.code == TS_ENOENT);
	CHECK(ts_wordtab_words(NULL, &n) == NULL && n == 0);
}

/* The shipped tables: every one is there and has words. */
static void check_shipped(const char *dir)
{
	ts_error err = {0};
	ts_lang *lang = ts_lang_load(dir, &err);
	CHECK(lang != NULL);
	if (!lang) {
		fprintf(stderr, "%s\n", ts_error_msg(&err));
		return;
	}
	for (int i = 0; i < TS_WORDS_N; i++) {
		size_t n;
		ts_wordtab_words(ts_lang_words(lang, (ts_words)i), &n);
		CHECK(n > 0);
	}
	size_t n;
	const ts_word *w = ts_wordtab_words(ts_lang_words(lang, TS_WORDS_UNITS), &n);
	int km = 0;
	for (size_t i = 0; i < n; i++)
		km |= strcmp(w[i].text, "km") == 0 && strcmp(w[i].said, "公里") == 0;
	CHECK(km);
	CHECK(ts_lang_words(NULL, TS_WORDS_UNITS) == NULL);
	ts_lang_free(lang);
}

/* The dialogue's words: an unknown kind, or a "stop" of more than one
 * character, is an error naming the word. */
static void check_dialogue_words(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"道\tverb\n先生\tspeaker\n", "先生: unknown kind 'speaker'"},
	    {"笑\tstop\n笑道\tstop\n", "笑道: a stop is one character"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ts_error err = {0};
		const char *p = write_file("dialogue_words.txt", cases[i].text);
		ts_wordtab *t = ts_wordtab_load(p, 1, &err);
		CHECK(t != NULL);
		CHECK(ts_dialogue_check_words(t, p, &err) == TS_EINVAL);
		CHECK(strstr(err.msg, cases[i].want) != NULL);
		ts_wordtab_free(t);
	}
}

static void check_char_in(void)
{
	CHECK(ts_char_in(0x7AE0 /* 章 */, "章回节"));
	CHECK(ts_char_in(0x8282 /* 节 */, "章回节"));
	CHECK(!ts_char_in(0x5377 /* 卷 */, "章回节"));
	CHECK(ts_char_in(' ', " \t:"));
	CHECK(ts_char_in(0x3000, "a\u3000b"));
	CHECK(!ts_char_in(0, "章回节"));
	CHECK(!ts_char_in('a', ""));
	CHECK(!ts_char_in(0x110000, "章"));
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_wordtab LANG_DIR SCRATCH_DIR\n");
		return 2;
	}
	snprintf(scratch, sizeof scratch, "%s", argv[2]);
	check_format();
	check_shipped(argv[1]);
	check_dialogue_words();
	check_char_in();
	return check_done("test_wordtab");
}
