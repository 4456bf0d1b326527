/* test_clean.c - the clean stage: markup, entities, addresses, decoration,
 * placeholders, invisible characters, full-width folding.
 *
 * Usage: test_clean DATA_DIR CASE...  For each case, DATA_DIR/CASE.txt is
 * cleaned line by line (one cleaner for the file, as for a chapter) and
 * compared with CASE.ok: one output line per input line, a paragraph
 * break inside a line shown as ⏎.  Properties checked on every case: the
 * output is valid UTF-8 with no control characters, no space or break at
 * the edges of a line or next to a break, no two in a row; and feeding
 * each line in pieces of 1, 2, 3, 7 or 64 bytes, or whole followed by an
 * empty last piece, gives the same output as feeding it whole.
 *
 * Then checks that need no golden file: long lines in reader-sized
 * pieces (tags cut by the piece boundary, hostile input, bounded output),
 * comments spanning lines, reset, and the front end turning the
 * cleaner's breaks into paragraphs. */
#include "check.h"
#include "text/clean.h"
#include "speech/frontend.h"
#include "base/util.h"

#define PIECE 16384 /* what ts_reader gives at most */

/* Feed one line in pieces of `step` bytes (moved forward to a character
 * boundary; 0: whole), the last one with line_end; with empty_end, an
 * empty piece carries line_end instead. */
static void feed_line(ts_cleaner *c, const char *s, size_t len, size_t step, int empty_end,
                      ts_buf *out)
{
	size_t i = 0;
	do {
		size_t k = piece_len(s, len, i, step);
		int last = i + k == len;
		CHECK(ts_clean_piece(c, s + i, k, last && !empty_end, out) == 0);
		i += k;
	} while (i < len);
	if (empty_end)
		CHECK(ts_clean_piece(c, "", 0, 1, out) == 0);
}

/* The shape of one line's output, whatever the input: valid UTF-8, no
 * controls, spaces and breaks only between two other characters. */
static void check_shape(const char *name, size_t line, const char *s, size_t n)
{
	int bad = ts_utf8_check(s, n, 1) != n;
	for (size_t i = 0; i < n && !bad; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == ' ' || ch == '\n')
			bad = i == 0 || i + 1 == n || s[i + 1] == ' ' || s[i + 1] == '\n' ||
			      s[i - 1] == ' ' || s[i - 1] == '\n';
		else
			bad = ch < 0x20 || ch == 0x7F;
	}
	if (bad) {
		fprintf(stderr, "%s:%zu: output has a bad space, break or character: %.*s\n", name,
		        line, (int)n, s);
		check_failures++;
	}
}

/* Clean text line by line; each line's output on a line of its own.
 * With a name, check the shape of each line's output. */
static void clean_text(const char *name, const char *text, size_t n, size_t step, int empty_end,
                       ts_buf *out)
{
	ts_cleaner *c = ts_cleaner_new();
	const char *p = text, *end = text + n;
	size_t line = 1;
	ts_buf_reserve(out, 1);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t start = out->len;
		feed_line(c, p, len, step, empty_end, out);
		if (name)
			check_shape(name, line, out->data + start, out->len - start);
		ts_buf_putc(out, '\n');
		p += len + (nl ? 1 : 0);
		line++;
	}
	ts_cleaner_free(c);
}

/* Golden form: a paragraph break inside a line is shown as ⏎. */
static void show_breaks(const char *text, size_t n, size_t step, ts_buf *out)
{
	ts_cleaner *c = ts_cleaner_new();
	const char *p = text, *end = text + n;
	ts_buf line = {0};
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		ts_buf_clear(&line);
		feed_line(c, p, len, step, 0, &line);
		for (size_t i = 0; i < line.len; i++) {
			if (line.data[i] == '\n')
				ts_buf_append(out, "\xE2\x8F\x8E", 3);
			else
				ts_buf_putc(out, line.data[i]);
		}
		ts_buf_putc(out, '\n');
		p += len + (nl ? 1 : 0);
	}
	ts_buf_free(&line);
	ts_cleaner_free(c);
}

static void run_case(const char *dir, const char *name)
{
	char golden[1024];
	size_t n;
	char *text = read_case(dir, name, golden, sizeof golden, &n);
	if (!text)
		return;
	ts_buf shown = {0}, whole = {0};
	show_breaks(text, n, 0, &shown);
	check_golden(golden, shown.data ? shown.data : "", shown.len);

	clean_text(name, text, n, 0, 0, &whole);

	static const size_t steps[] = {1, 2, 3, 7, 64, 0};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		ts_buf got = {0};
		clean_text(NULL, text, n, steps[i], steps[i] == 0, &got);
		if (got.len != whole.len || memcmp(got.data, whole.data, got.len) != 0) {
			fprintf(stderr, "%s: feeding %zu bytes at a time%s changes the output\n",
			        name, steps[i], steps[i] ? "" : " (and an empty last piece)");
			check_failures++;
		}
		ts_buf_free(&got);
	}
	ts_buf_free(&shown);
	ts_buf_free(&whole);
	free(text);
}

/* ---- checks without golden files ------------------------------------ */

/* Clean one line given in pieces of `piece` bytes (0: whole), appending
 * the output to out. */
static void clean_long(const char *s, size_t len, size_t piece, ts_buf *out)
{
	ts_cleaner *c = ts_cleaner_new();
	CHECK(c != NULL);
	feed_line(c, s, len, piece, 0, out);
	ts_cleaner_free(c);
}

static void repeat(ts_buf *b, const char *s, size_t times)
{
	for (size_t i = 0; i < times; i++)
		ts_buf_append(b, s, strlen(s));
}

static int count(const char *hay, size_t n, const char *needle)
{
	int k = 0;
	size_t m = strlen(needle);
	for (size_t i = 0; i + m <= n; i++)
		if (memcmp(hay + i, needle, m) == 0)
			k++;
	return k;
}

/* Tags, entities and addresses cut by every 16 KB boundary: a long
 * line cleaned in reader pieces equals the same line cleaned whole. */
static void check_piece_boundaries(void)
{
	static const char *const bits[] = {
	    "<p>",
	    "<div class=\"chapter-content\" id=\"c1\">",
	    "&nbsp;",
	    "&#20013;",
	    "&amp;nbsp;",
	    "<!-- 广告 -->",
	    "www.biquge.com",
	    "http://m.xs.cn/book/1.html",
	    "</p>",
	    "＊＊＊",
	    "１２．５％",
	    "e\xCC\x81",
	};
	for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++) {
		size_t blen = strlen(bits[b]);
		for (size_t shift = 0; shift <= blen; shift++) {
			ts_buf line = {0}, whole = {0}, pieces = {0};
			/* Han text up to just before the boundary, then the bit. */
			while (line.len + 3 <= PIECE - shift)
				ts_buf_append(&line, "\xE5\xAD\x97", 3); /* 字 */
			ts_buf_append(&line, bits[b], blen);
			repeat(&line, "\xE5\xAD\x97", 100);
			clean_long(line.data, line.len, 0, &whole);
			clean_long(line.data, line.len, PIECE, &pieces);
			if (whole.len != pieces.len ||
			    memcmp(whole.data, pieces.data, whole.len) != 0) {
				fprintf(stderr,
				        "\"%s\" cut by a piece boundary changes the output\n",
				        bits[b]);
				check_failures++;
			}
			ts_buf_free(&line);
			ts_buf_free(&whole);
			ts_buf_free(&pieces);
		}
	}
}

/* Hostile lines of a few megabytes: no crash, output no larger than
 * the input (a little more for dash runs), the right gist. */
static void check_hostile(void)
{
	static const struct {
		const char *unit;
		const char *expect; /* a substring the output must have, or "" for empty */
	} cases[] = {
	    {"<a ", "<a"},        /* never closed: text */
	    {"<a href=\"", "<a"}, /* open quote */
	    {"&", "&"},
	    {"&amp;", "&"},
	    {"&#", "&#"},
	    {"*", ""},
	    {"-", ""},
	    {"字***", "字字"},
	    {"a", "aaaa"},
	    {"<!--", "!--"}, /* comment never closed: given up now and then */
	    {"http://", ""},
	    {"www.a.com/", ""},
	    {"\xE2\x80\x8B", ""},     /* zero-width space */
	    {"\xCC\x81", "\xCC\x81"}, /* combining marks only */
	    {"e\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81", "\xC3\xA9"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ts_buf line = {0}, out = {0};
		while (line.len < 3 * 1024 * 1024)
			repeat(&line, cases[i].unit, 1);
		clean_long(line.data, line.len, PIECE, &out);
		if (out.len > line.len + 16 ||
		    (cases[i].expect[0] ? !out.data || !count(out.data, out.len, cases[i].expect)
		                        : out.len != 0)) {
			fprintf(stderr, "hostile line of \"%s\": %zu bytes out of %zu: %.60s\n",
			        cases[i].unit, out.len, line.len, out.data ? out.data : "");
			check_failures++;
		}
		ts_buf_free(&line);
		ts_buf_free(&out);
	}
	/* An unclosed comment is given up after a while: the text after it
	 * is spoken again, even on the same line. */
	ts_buf line = {0}, out = {0};
	ts_buf_append(&line, "<!-- ", 5);
	repeat(&line, "\xE5\xAD\x97", 100000); /* 300 KB */
	clean_long(line.data, line.len, PIECE, &out);
	CHECK(out.len > 0 && out.len < line.len);
	ts_buf_free(&line);
	ts_buf_free(&out);
}

static void clean_lines(ts_cleaner *c, const char *const *lines, size_t n, ts_buf *out)
{
	for (size_t i = 0; i < n; i++) {
		CHECK(ts_clean_piece(c, lines[i], strlen(lines[i]), 1, out) == 0);
		ts_buf_putc(out, '|');
	}
}

static void check_multiline_and_reset(void)
{
	static const char *const lines[] = {
	    "第一行<script>", "var a = 1;", "</script>第四行", "开<!-- 跨", "行 -->关",
	};
	ts_cleaner *c = ts_cleaner_new();
	ts_buf out = {0};
	clean_lines(c, lines, 5, &out);
	const char *want = "第一行||第四行|开|关|";
	CHECK(out.len == strlen(want) && memcmp(out.data, want, out.len) == 0);
	/* A reset forgets an open comment. */
	ts_buf_clear(&out);
	CHECK(ts_clean_piece(c, "甲<!--", 7, 1, &out) == 0);
	ts_cleaner_reset(c);
	CHECK(ts_clean_piece(c, "乙", 3, 1, &out) == 0);
	CHECK(out.len == 6 && memcmp(out.data, "甲乙", 6) == 0);
	ts_buf_free(&out);
	ts_cleaner_free(c);
	ts_cleaner_free(NULL);
}

/* The front end makes the cleaner's breaks paragraphs. */
typedef struct fe_dump {
	ts_buf text;
	ts_buf chunks;
} fe_dump;

static int fe_chunk(void *ud, const ts_chunk *c)
{
	static const char brk_code[] = "NCSPT";
	fe_dump *d = ud;
	ts_buf_printf(&d->chunks, "%c %s\n", brk_code[c->brk], c->text);
	return 0;
}

static int fe_text(void *ud, const char *s, size_t n, int line_end)
{
	fe_dump *d = ud;
	ts_buf_append(&d->text, s, n);
	if (line_end)
		ts_buf_putc(&d->text, '\n');
	return 0;
}

static void check_frontend(void)
{
	static const char *const input[] = {
	    "<p>一。</p><p>二。</p>",
	    "",
	    "三<br/>四",
	    "&lt;p&gt;五",
	};
	fe_dump d = {{0}, {0}};
	ts_frontend *fc = ts_frontend_new(NULL, fe_chunk, NULL, &d);
	ts_frontend *ft = ts_frontend_new(NULL, NULL, fe_text, &d);
	for (size_t i = 0; i < sizeof input / sizeof input[0]; i++) {
		size_t len = strlen(input[i]), half = len / 2;
		while (half < len && ((unsigned char)input[i][half] & 0xC0) == 0x80)
			half++;
		CHECK(ts_frontend_feed(fc, input[i], half, 0) == 0);
		CHECK(ts_frontend_feed(fc, input[i] + half, len - half, 1) == 0);
		CHECK(ts_frontend_feed(ft, input[i], half, 0) == 0);
		CHECK(ts_frontend_feed(ft, input[i] + half, len - half, 1) == 0);
	}
	const char *want_chunks = "N 一。\nP 二。\nP 三\nP 四\nP <p>五\n";
	const char *want_text = "一。\n二。\n\n三\n四\n<p>五\n";
	if (!d.chunks.data || strcmp(d.chunks.data, want_chunks) != 0) {
		fprintf(stderr, "front end chunks:\n%s", d.chunks.data ? d.chunks.data : "");
		check_failures++;
	}
	if (!d.text.data || strcmp(d.text.data, want_text) != 0) {
		fprintf(stderr, "front end text:\n%s", d.text.data ? d.text.data : "");
		check_failures++;
	}
	ts_frontend_free(fc);
	ts_frontend_free(ft);
	ts_buf_free(&d.text);
	ts_buf_free(&d.chunks);
}

/* A flush gives what waits (the last character, an ASCII run) as an
 * inline tag would: an address still goes, and the line ends as usual. */
static void check_flush(void)
{
	ts_cleaner *c = ts_cleaner_new();
	ts_buf out = {0};
	CHECK(c && ts_clean_piece(c, "他说ok", strlen("他说ok"), 0, &out) == 0);
	CHECK(out.data && strcmp(out.data, "他说") == 0);
	CHECK(ts_clean_flush(c, &out) == 0);
	CHECK(strcmp(out.data, "他说ok") == 0);
	CHECK(ts_clean_flush(c, &out) == 0 && strcmp(out.data, "他说ok") == 0);
	const char *rest = "，见www.example.com。";
	CHECK(ts_clean_piece(c, rest, strlen(rest), 1, &out) == 0);
	CHECK(strcmp(out.data, "他说ok，见。") == 0);
	ts_buf_free(&out);
	ts_cleaner_free(c);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_clean DATA_DIR CASE...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++)
		run_case(argv[1], argv[i]);
	check_piece_boundaries();
	check_hostile();
	check_multiline_and_reset();
	check_frontend();
	check_flush();
	return check_done("test_clean");
}
