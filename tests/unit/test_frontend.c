/* test_frontend.c - the sentences of the text as written, and the chunks
 * spoken of each.
 *
 * Usage: test_frontend LANG_DIR DATA_DIR CASE...  Each DATA_DIR/CASE.txt
 * goes through the front end, and CASE.ok holds each sentence as the
 * front end gives it, followed by its chunks (indented: the break before
 * the chunk, '.' if it ends a sentence for the segmenter, the text).
 * Properties checked on every case:
 * - feeding the text in pieces of any size gives the same output;
 * - every chunk is followed by a sentence; no sentence text is empty,
 *   starts or ends with a space, or is longer than 4 * TS_SENTENCE_MAX;
 * - the sentences, joined, are the cleaned text with lookalikes repaired
 *   (nothing lost, nothing added, spaces aside);
 * - the spoken text is what the normalizer makes of whole lines, and,
 *   except in the cases named long*, whose very long sentences are cut,
 *   the chunks are what the segmenter makes of it: finding the sentences
 *   changes nothing in what is spoken.
 * And DATA_DIR/tokens.txt: the tokens of `tingshu pinyin` (symbols and
 * digits said in Han characters marked), one per Han character of the
 * text as written whatever stands between them, fed whole and in pieces. */
#include "check.h"
#include "text/clean.h"
#include "speech/frontend.h"
#include "zh/lang.h"
#include "zh/normalize.h"
#include "text/segment.h"
#include "base/util.h"

static const char brk_code[] = "NCSPT";

typedef struct dump {
	ts_buf out;     /* golden-format text */
	ts_buf pending; /* chunks not yet followed by their sentence */
	ts_buf chunks;  /* every chunk, one a line */
	ts_buf spoken;  /* the text callback's output */
	ts_buf joined;  /* the sentences, spaces removed */
} dump;

static void strip_spaces(const char *s, size_t n, ts_buf *out)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ')
			ts_buf_putc(out, s[i]);
}

static int on_chunk(void *ud, const ts_chunk *c)
{
	dump *d = ud;
	ts_buf_printf(&d->pending, "\t%c%c %s\n", brk_code[c->brk], c->sentence_end ? '.' : '-',
	              c->text);
	ts_buf_printf(&d->chunks, "%c%c %s\n", brk_code[c->brk], c->sentence_end ? '.' : '-',
	              c->text);
	return 0;
}

static int on_text(void *ud, const char *s, size_t n, int line_end)
{
	dump *d = ud;
	ts_buf_append(&d->spoken, s, n);
	if (line_end)
		ts_buf_putc(&d->spoken, '\n');
	return 0;
}

static int on_sentence(void *ud, const char *text, size_t len)
{
	dump *d = ud;
	CHECK(len > 0);
	CHECK(strlen(text) == len);
	CHECK(text[0] != ' ' && text[len - 1] != ' ');
	CHECK(ts_utf8_count(text, len) <= 4 * TS_SENTENCE_MAX);
	ts_buf_printf(&d->out, "%s\n", text);
	ts_buf_append(&d->out, d->pending.data ? d->pending.data : "", d->pending.len);
	ts_buf_clear(&d->pending);
	strip_spaces(text, len, &d->joined);
	return 0;
}

static void dump_free(dump *d)
{
	ts_buf_free(&d->out);
	ts_buf_free(&d->pending);
	ts_buf_free(&d->chunks);
	ts_buf_free(&d->spoken);
	ts_buf_free(&d->joined);
}

/* The text through the front end, each line in pieces of step bytes. */
static void run(const ts_lang *lang, const char *text, size_t n, size_t step, dump *d)
{
	ts_frontend *f = ts_frontend_new(lang, on_chunk, on_text, d);
	ts_frontend_set_sentence_fn(f, on_sentence);
	const char *p = text, *end = text + n;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t i = 0;
		do {
			size_t k = piece_len(p, len, i, step);
			CHECK(ts_frontend_feed(f, p + i, k, i + k == len) == 0);
			i += k;
		} while (i < len);
		p += len + (nl ? 1 : 0);
	}
	CHECK(d->pending.len == 0); /* every chunk belongs to a sentence */
	ts_frontend_free(f);
}

static int collect_chunk(void *ud, const ts_chunk *c)
{
	ts_buf_printf(ud, "%c%c %s\n", brk_code[c->brk], c->sentence_end ? '.' : '-', c->text);
	return 0;
}

/* The pipeline without sentences: each cleaned paragraph normalized
 * whole, then segmented.  Gives the cleaned text with lookalikes
 * repaired (spaces removed), the normalized text and the chunks. */
static void reference(const ts_lang *lang, const char *text, size_t n, ts_buf *source,
                      ts_buf *spoken, ts_buf *chunks)
{
	ts_cleaner *cl = ts_cleaner_new();
	ts_normalizer *z = ts_normalizer_new(lang);
	ts_segmenter *sg = ts_segmenter_new(collect_chunk, chunks);
	const char *p = text, *end = text + n;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		ts_buf cleaned = {0};
		CHECK(ts_clean_piece(cl, p, len, 1, &cleaned) == 0);
		const char *s = cleaned.data ? cleaned.data : "";
		size_t left = cleaned.len;
		for (;;) {
			const char *br = memchr(s, '\n', left);
			size_t k = br ? (size_t)(br - s) : left;
			for (size_t i = 0; i < k;) {
				uint32_t c;
				int m = ts_utf8_decode((const unsigned char *)s + i, k - i, &c);
				uint32_t std = ts_lang_lookalike(lang, c);
				char u[4];
				if (c != ' ')
					ts_buf_append(source, u,
					              (size_t)ts_utf8_encode(std ? std : c, u));
				i += (size_t)m;
			}
			ts_buf out = {0};
			CHECK(ts_normalize_piece(z, s, k, TS_NORM_LINE_END, &out) == 0);
			if (out.len)
				ts_segmenter_feed(sg, out.data, out.len);
			ts_segmenter_end_paragraph(sg);
			ts_buf_append(spoken, out.data ? out.data : "", out.len);
			ts_buf_putc(spoken, '\n');
			ts_buf_free(&out);
			if (!br)
				break;
			s += k + 1;
			left -= k + 1;
		}
		ts_buf_free(&cleaned);
		p += len + (nl ? 1 : 0);
	}
	ts_cleaner_free(cl);
	ts_normalizer_free(z);
	ts_segmenter_free(sg);
}

static int same(const ts_buf *a, const ts_buf *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static void run_case(const ts_lang *lang, const char *dir, const char *name)
{
	char golden[1024];
	size_t n;
	char *text = read_case(dir, name, golden, sizeof golden, &n);
	if (!text)
		return;
	dump whole = {0};
	run(lang, text, n, 0, &whole);
	check_golden(golden, whole.out.data ? whole.out.data : "", whole.out.len);

	ts_buf source = {0}, spoken = {0}, chunks = {0};
	reference(lang, text, n, &source, &spoken, &chunks);
	if (!same(&source, &whole.joined)) {
		fprintf(stderr, "%s: the sentences, joined, are not the text as written\n", name);
		check_failures++;
	}
	if (!same(&spoken, &whole.spoken)) {
		fprintf(stderr, "%s: the spoken text differs from whole lines normalized\n", name);
		check_failures++;
	}
	if (strncmp(name, "long", 4) != 0 && !same(&chunks, &whole.chunks)) {
		fprintf(stderr, "%s: the chunks differ from those of the segmenter alone\n", name);
		check_failures++;
	}

	static const size_t steps[] = {1, 2, 3, 5, 7, 64};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		dump d = {0};
		run(lang, text, n, steps[i], &d);
		if (!same(&d.out, &whole.out)) {
			fprintf(stderr, "%s: feeding %zu bytes at a time changes the output\n",
			        name, steps[i]);
			check_failures++;
		}
		dump_free(&d);
	}
	dump_free(&whole);
	ts_buf_free(&source);
	ts_buf_free(&spoken);
	ts_buf_free(&chunks);
	free(text);
}

/* A sentence cut short ends after ，；、 past TS_SENTENCE_MAX characters,
 * after a Han character past twice that, never within a few characters
 * after ASCII text before four times that. */
typedef struct cuts {
	size_t n, max_chars;
	size_t near_ascii; /* sentences that end within 4 characters after ASCII */
	int last_near;     /* the last one does */
} cuts;

static int on_cut_sentence(void *ud, const char *text, size_t len)
{
	cuts *c = ud;
	size_t chars = ts_utf8_count(text, len);
	c->n++;
	if (chars > c->max_chars)
		c->max_chars = chars;
	/* The last four characters. */
	size_t i = len, k = 0;
	c->last_near = 0;
	while (i > 0 && k < 4) {
		i--;
		if (((unsigned char)text[i] & 0xC0) == 0x80)
			continue;
		k++;
		if ((unsigned char)text[i] < 0x80)
			c->last_near = 1;
	}
	c->near_ascii += (size_t)c->last_near;
	return 0;
}

static void check_hostile(void)
{
	/* A megabyte with no punctuation: memory stays bounded, and the
	 * sentence comes in parts of at most 4 * TS_SENTENCE_MAX characters. */
	cuts c = {0};
	ts_frontend *f = ts_frontend_new(NULL, NULL, NULL, &c);
	ts_frontend_set_sentence_fn(f, on_cut_sentence);
	char piece[3000];
	for (size_t i = 0; i + 3 <= sizeof piece; i += 3)
		memcpy(piece + i, "天", 3);
	for (int i = 0; i < 350; i++)
		CHECK(ts_frontend_feed(f, piece, sizeof piece, i == 349) == 0);
	CHECK(c.max_chars <= 2 * TS_SENTENCE_MAX);
	CHECK(c.n == 350 * 1000 / (2 * TS_SENTENCE_MAX) + 1);
	ts_frontend_free(f);

	/* Digits and Han mixed: no cut just after a digit (the paragraph's
	 * end aside). */
	cuts d = {0};
	f = ts_frontend_new(NULL, NULL, NULL, &d);
	ts_frontend_set_sentence_fn(f, on_cut_sentence);
	const char *s = "他走了3个小时";
	for (int i = 0; i < 1000; i++)
		CHECK(ts_frontend_feed(f, s, strlen(s), 0) == 0);
	CHECK(ts_frontend_feed(f, "", 0, 1) == 0);
	CHECK(d.near_ascii == (size_t)d.last_near);
	CHECK(d.max_chars <= 2 * TS_SENTENCE_MAX + 8);
	CHECK(d.n >= 1000 * 7 / (2 * TS_SENTENCE_MAX + 8));
	ts_frontend_free(f);
}

/* A sentence ending in a number: the number is read in full with its
 * own sentence, not held for the next. */
typedef struct order {
	ts_buf log;
} order;

static int log_chunk(void *ud, const ts_chunk *c)
{
	ts_buf_printf(&((order *)ud)->log, "chunk %s\n", c->text);
	return 0;
}

static int log_sentence(void *ud, const char *text, size_t len)
{
	ts_buf_printf(&((order *)ud)->log, "sentence %.*s\n", (int)len, text);
	return 0;
}

static void check_order(const ts_lang *lang)
{
	order o = {{0}};
	ts_frontend *f = ts_frontend_new(lang, log_chunk, NULL, &o);
	ts_frontend_set_sentence_fn(f, log_sentence);
	const char *s = "他们共有25！我们有3";
	CHECK(ts_frontend_feed(f, s, strlen(s), 0) == 0);
	CHECK(ts_frontend_feed(f, "个。", strlen("个。"), 1) == 0);
	const char *want = "chunk 他们共有二十五！\n"
	                   "sentence 他们共有25！\n"
	                   "chunk 我们有三个。\n"
	                   "sentence 我们有3个。\n";
	if (!o.log.data || strcmp(o.log.data, want) != 0) {
		fprintf(stderr, "order of chunks and sentences:\n%s", o.log.data ? o.log.data : "");
		check_failures++;
	}
	ts_buf_free(&o.log);
	ts_frontend_free(f);
}

static int log_brk_chunk(void *ud, const ts_chunk *c)
{
	ts_buf_printf(&((order *)ud)->log, "chunk %c %s\n", brk_code[c->brk], c->text);
	return 0;
}

/* A clause ended by the caller (a quotation in another voice): its chunks
 * and its sentence come at once, and the text after it follows a clause
 * pause. */
static void check_end_clause(const ts_lang *lang)
{
	order o = {{0}};
	ts_frontend *f = ts_frontend_new(lang, log_brk_chunk, NULL, &o);
	ts_frontend_set_sentence_fn(f, log_sentence);
	const char *a = "他有3", *b = "“你好，再见。”", *c = "他走了。";
	CHECK(ts_frontend_end_clause(f) == 0);
	CHECK(ts_frontend_feed(f, a, strlen(a), 0) == 0);
	CHECK(ts_frontend_end_clause(f) == 0);
	CHECK(ts_frontend_end_clause(f) == 0);
	CHECK(ts_frontend_feed(f, b, strlen(b), 0) == 0);
	CHECK(ts_frontend_end_clause(f) == 0);
	CHECK(ts_frontend_feed(f, c, strlen(c), 1) == 0);
	/* The 3 (an ASCII run, a possible address) and the closing mark
	 * (the last character, before possible combining marks) wait in the
	 * cleaner: ending the clause takes them. */
	const char *want = "chunk N 他有三\n"
	                   "sentence 他有3\n"
	                   "chunk C “你好，再见。”\n"
	                   "sentence “你好，再见。”\n"
	                   "chunk S 他走了。\n"
	                   "sentence 他走了。\n";
	if (!o.log.data || strcmp(o.log.data, want) != 0) {
		fprintf(stderr, "clauses ended by the caller:\n%s", o.log.data ? o.log.data : "");
		check_failures++;
	}
	ts_buf_free(&o.log);
	ts_frontend_free(f);
}

/* ---- one token per Han character ----------------------------------- */

static int add_tokens(void *ud, const ts_chunk *c)
{
	ts_buf *b = ud;
	if (c->tokens_len && b->len)
		ts_buf_putc(b, ' ');
	return ts_buf_append(b, c->tokens, c->tokens_len);
}

/* The tokens of line[0..n) fed in pieces of about step bytes. */
static void tokens_of(const ts_lang *lang, const char *line, size_t n, size_t step, ts_buf *out,
                      int mark)
{
	ts_frontend *f = ts_frontend_new(lang, add_tokens, NULL, out);
	CHECK(f != NULL);
	ts_frontend_mark_said(f, mark);
	size_t i = 0;
	do {
		size_t k = piece_len(line, n, i, step);
		CHECK(ts_frontend_feed(f, line + i, k, i + k == n) == 0);
		i += k;
	} while (i < n);
	ts_frontend_free(f);
}

/* Tokens not in brackets, and Han characters of s[0..n). */
static void count_own(const char *tokens, const char *s, size_t n, size_t *own, size_t *han)
{
	*own = *han = 0;
	for (const char *p = tokens; *p;) {
		*own += *p != '[';
		const char *sp = strchr(p, ' ');
		p = sp ? sp + 1 : p + strlen(p);
	}
	for (size_t i = 0; i < n;) {
		uint32_t c;
		int k = ts_utf8_decode((const unsigned char *)s + i, n - i, &c);
		*han += k > 0 && ts_is_han(c);
		i += k > 0 ? (size_t)k : 1;
	}
}

static void check_tokens(const ts_lang *lang, const char *dir)
{
	char path[1024];
	size_t size;
	snprintf(path, sizeof path, "%s/tokens.txt", dir);
	char *text = read_file(path, &size);
	CHECK(text != NULL);
	static const size_t steps[] = {1, 2, 3, 5, 7, 4096};
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n'), *tab = strchr(line, '\t');
		if (nl)
			*nl = '\0';
		if (line[0] != '#' && tab) {
			size_t n = (size_t)(tab - line), own, han;
			for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
				ts_buf got = {0};
				tokens_of(lang, line, n, steps[k], &got, 1);
				const char *g = got.data ? got.data : "";
				count_own(g, line, n, &own, &han);
				if (strcmp(g, tab + 1) != 0 || own != han) {
					fprintf(stderr,
					        "tokens of %.*s (pieces of %zu): %s\n   want %s\n",
					        (int)n, line, steps[k], g, tab + 1);
					check_failures++;
				}
				ts_buf_free(&got);
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	free(text);
}

/* Marking the said characters changes nothing but the brackets: the
 * tokens of each line of the case files, without their brackets, are
 * those made without marks (the same readings, the same chunks); and those
 * not in brackets are one per Han character of the line. */
static void check_marks_change_nothing(const ts_lang *lang, const char *dir, char **cases,
                                       int ncases)
{
	for (int i = 0; i < ncases; i++) {
		char path[1024];
		size_t size;
		snprintf(path, sizeof path, "%s/%s.txt", dir, cases[i]);
		char *text = read_file(path, &size);
		CHECK(text != NULL);
		for (char *line = text; line && *line;) {
			char *nl = strchr(line, '\n');
			size_t n = nl ? (size_t)(nl - line) : strlen(line);
			ts_buf marked = {0}, plain = {0}, stripped = {0};
			tokens_of(lang, line, n, 4096, &marked, 1);
			tokens_of(lang, line, n, 4096, &plain, 0);
			for (size_t k = 0; k < marked.len; k++)
				if (marked.data[k] != '[' && marked.data[k] != ']')
					ts_buf_putc(&stripped, marked.data[k]);
			size_t own, han;
			count_own(marked.data ? marked.data : "", line, n, &own, &han);
			if (own != han) {
				fprintf(stderr,
				        "%.*s: %zu Han characters, %zu tokens not in brackets\n",
				        (int)n, line, han, own);
				check_failures++;
			}
			if (!same(&stripped, &plain)) {
				fprintf(stderr, "marks change the tokens of %.*s:\n  %s\n  %s\n",
				        (int)n, line, stripped.data ? stripped.data : "",
				        plain.data ? plain.data : "");
				check_failures++;
			}
			ts_buf_free(&marked);
			ts_buf_free(&plain);
			ts_buf_free(&stripped);
			line = nl ? nl + 1 : NULL;
		}
		free(text);
	}
}

/* The Han characters of an explained token line that are not in
 * brackets ("银=yin2/银行 [或=huo4/default]" -> "银"), appended to out. */
static void own_chars(const char *tokens, ts_buf *out)
{
	for (const char *p = tokens; *p;) {
		const char *sp = strchr(p, ' '), *eq = strchr(p, '=');
		if (*p != '[' && eq && (!sp || eq < sp))
			ts_buf_append(out, p, (size_t)(eq - p));
		p = sp ? sp + 1 : p + strlen(p);
	}
}

/* Lines of Han characters mixed at random with digits, signs, symbols,
 * units and dates (a fixed seed): the explained tokens not in brackets
 * are the line's Han characters, in order. */
static void check_random_tokens(const ts_lang *lang)
{
	static const char *const han[] = {"银", "行", "长", "大", "了", "年", "月", "日", "号",
	                                  "个", "万", "亿", "千", "十", "点", "零", "一", "二",
	                                  "他", "说", "是", "的", "第", "章", "米", "元"};
	static const char *const other[] = {"0",
	                                    "1",
	                                    "2",
	                                    "5",
	                                    "9",
	                                    "/",
	                                    "&",
	                                    "+",
	                                    "-",
	                                    "~",
	                                    "—",
	                                    "·",
	                                    "…",
	                                    "《",
	                                    "》",
	                                    "<",
	                                    ">",
	                                    "(",
	                                    "（",
	                                    "）",
	                                    "%",
	                                    ":",
	                                    "：",
	                                    ".",
	                                    ",",
	                                    "，",
	                                    "。",
	                                    "！",
	                                    "?",
	                                    "=",
	                                    "×",
	                                    "$",
	                                    "￥",
	                                    "#",
	                                    "@",
	                                    "*",
	                                    "^",
	                                    "|",
	                                    "\\",
	                                    "\"",
	                                    "“",
	                                    "”",
	                                    "℃",
	                                    "°",
	                                    "km",
	                                    "kg",
	                                    "No.",
	                                    "GB",
	                                    "¥",
	                                    " ",
	                                    "x",
	                                    "1/2",
	                                    "3:2",
	                                    "9:05",
	                                    "1.5万",
	                                    "2024-03-05",
	                                    "￥1.5万",
	                                    "1644年",
	                                    "2024年3月5日",
	                                    "No.1",
	                                    "３",
	                                    "／",
	                                    "＆"};
	ts_buf tokens = {0};
	ts_frontend *f = ts_frontend_new(lang, add_tokens, NULL, &tokens);
	CHECK(f != NULL);
	ts_frontend_mark_said(f, 1);
	ts_frontend_set_explain(f, 1);
	uint32_t seed = 12345;
	for (int line = 0; line < 1000; line++) {
		ts_buf text = {0}, want = {0}, got = {0};
		seed = seed * 1103515245u + 12345u;
		int n = 1 + (int)((seed >> 16) % 20);
		for (int k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			uint32_t r = seed >> 8;
			const char *w = r % 100 < 55
			                    ? han[(r / 100) % (sizeof han / sizeof *han)]
			                    : other[(r / 100) % (sizeof other / sizeof *other)];
			ts_buf_append(&text, w, strlen(w));
		}
		for (size_t i = 0; i < text.len;) {
			uint32_t c;
			int k =
			    ts_utf8_decode((const unsigned char *)text.data + i, text.len - i, &c);
			if (ts_is_han(c))
				ts_buf_append(&want, text.data + i, (size_t)k);
			i += (size_t)k;
		}
		ts_buf_clear(&tokens);
		CHECK(ts_frontend_feed(f, text.data, text.len, 1) == 0);
		own_chars(tokens.data ? tokens.data : "", &got);
		if (!same(&got, &want)) {
			fprintf(stderr, "tokens of %s: %s\n", text.data,
			        tokens.data ? tokens.data : "");
			check_failures++;
		}
		ts_buf_free(&text);
		ts_buf_free(&want);
		ts_buf_free(&got);
	}
	ts_frontend_free(f);
	ts_buf_free(&tokens);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_frontend LANG_DIR DATA_DIR CASE...\n");
		return 2;
	}
	ts_error err = {0};
	ts_lang *lang = ts_lang_load(argv[1], &err);
	if (!lang) {
		fprintf(stderr, "%s\n", ts_error_msg(&err));
		return 1;
	}
	for (int i = 3; i < argc; i++)
		run_case(lang, argv[2], argv[i]);
	check_hostile();
	check_order(lang);
	check_end_clause(lang);
	check_tokens(lang, argv[2]);
	check_random_tokens(lang);
	check_marks_change_nothing(lang, argv[2], argv + 3, argc - 3);
	ts_lang_free(lang);
	return check_done("test_frontend");
}
