/* test_dialogue.c - quotations and their speakers (zh/dialogue.h) against
 * golden files: usage: test_dialogue WORDS_FILE DATA_DIR CASE..., with
 * WORDS_FILE the voice's dialogue_words.txt, CASE "quotes" for the
 * quotation marks, the others little books read twice. */
#include "base/util.h"
#include "check.h"
#include "zh/dialogue.h"

#include <string.h>

static const ts_wordtab *words; /* the voice's dialogue_words.txt */

static void quotes_case(const char *dir)
{
	char path[1024], golden[1024];
	size_t n, line = 1;
	snprintf(path, sizeof path, "%s/quotes.txt", dir);
	snprintf(golden, sizeof golden, "%s/quotes.ok", dir);
	char *text = read_file(path, &n);
	CHECK(text != NULL);
	if (!text)
		return;
	ts_buf out = {0};
	for (char *p = text; *p; line++) {
		char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		ts_quote q[8];
		size_t nq = ts_quotes_find(p, len, q, 8);
		for (size_t i = 0; i < nq && i < 8; i++) {
			CHECK(q[i].start <= q[i].text_start && q[i].text_start <= q[i].text_end);
			CHECK(q[i].text_end <= q[i].end && q[i].end <= len);
			ts_buf_printf(&out, "%zu\t%.*s%s\n", line, (int)(q[i].end - q[i].start),
			              p + q[i].start, q[i].closed ? "" : "*");
		}
		p += len + (e != NULL);
	}
	check_golden(golden, out.data ? out.data : "", out.len);
	ts_buf_free(&out);
	free(text);
}

static int on_quote(void *ud, const ts_attribution *a)
{
	ts_buf_printf(ud, "%s\t%.*s\t%s\n", a->speaker, (int)a->quote_len, a->quote, a->why);
	return 0;
}

/* Every line of text[0..n) to the dialogue: learnt, or attributed to out. */
static void each_line(ts_dialogue *d, const char *text, ts_buf *out)
{
	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		CHECK((out ? ts_dialogue_attribute(d, p, len, on_quote, out)
		           : ts_dialogue_learn(d, p, len)) == 0);
		p += len + (e != NULL);
	}
}

static void book_case(const char *dir, const char *name)
{
	char path[1024], golden[1024];
	size_t n;
	snprintf(path, sizeof path, "%s/%s.txt", dir, name);
	snprintf(golden, sizeof golden, "%s/%s.ok", dir, name);
	char *text = read_file(path, &n);
	ts_dialogue *d = ts_dialogue_new(words);
	CHECK(text != NULL && d != NULL);
	if (text && d) {
		ts_buf out = {0};
		each_line(d, text, NULL);
		ts_dialogue_settle(d);
		ts_dialogue_chapter(d);
		each_line(d, text, &out);
		check_golden(golden, out.data ? out.data : "", out.len);
		ts_buf_free(&out);
	}
	ts_dialogue_free(d);
	free(text);
}

/* A cast's lines: the good ones taken, the bad ones said why. */
static void cast_case(void)
{
	ts_dialogue *d = ts_dialogue_new(words);
	char why[256];
	static const char *const bad[] = {"刘备 玄德", "刘备\t", "\tcmn", "玄德\tcmn"};
	CHECK(ts_dialogue_cast_line(d, "刘备 玄德 刘玄德\tcmn-m3", 28, why, sizeof why) == 0);
	CHECK(ts_dialogue_cast_line(d, "# a comment", 11, why, sizeof why) == 0);
	CHECK(ts_dialogue_cast_line(d, "   ", 3, why, sizeof why) == 0);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why[0] = 0;
		CHECK(ts_dialogue_cast_line(d, bad[i], strlen(bad[i]), why, sizeof why) ==
		      TS_EINVAL);
		CHECK(why[0] != 0);
	}
	const char *p = "玄德曰：“吾乃中山靖王之后。”";
	ts_buf out = {0};
	ts_dialogue_settle(d);
	CHECK(ts_dialogue_attribute(d, p, strlen(p), on_quote, &out) == 0);
	CHECK(out.data && strncmp(out.data, "刘备\t", strlen("刘备\t")) == 0);
	ts_buf_free(&out);
	ts_dialogue_free(d);
	ts_dialogue_free(NULL);
}

static int is_female(void *ud, const ts_attribution *a)
{
	ts_buf *out = ud;
	return ts_buf_printf(out, "%s:%d ", a->speaker, a->female);
}

static int pool_of(void *ud, const ts_attribution *a)
{
	return ts_buf_printf(ud, "%s=%d ", a->speaker, a->rank);
}

/* Who is written of as a woman, and the ranks for the pool of voices. */
static void women_case(void)
{
	static const char *const book[] = {
	    "王夫人道：“你来了。”",     "宝玉笑道：“来了。”", "黛玉道：“好。”",
	    "黛玉姑娘听了，低头不语。", "凤姐说：“走吧。”",   "凤姐回过头来，她笑了。",
	};
	ts_dialogue *d = ts_dialogue_new(words);
	for (int pass = 0; pass < 2; pass++) {
		ts_buf out = {0};
		for (size_t i = 0; i < sizeof book / sizeof book[0]; i++) {
			if (pass == 0)
				CHECK(ts_dialogue_learn(d, book[i], strlen(book[i])) == 0);
			else
				CHECK(ts_dialogue_attribute(d, book[i], strlen(book[i]), is_female,
				                            &out) == 0);
		}
		if (pass == 0) {
			ts_dialogue_settle(d);
			continue;
		}
		const char *want = "王夫人:1 宝玉:0 黛玉:1 凤姐:1 ";
		if (!out.data || strcmp(out.data, want) != 0) {
			fprintf(stderr, "women: got \"%s\", want \"%s\"\n",
			        out.data ? out.data : "", want);
			check_failures++;
		}
		ts_buf_free(&out);
	}
	ts_dialogue_free(d);
	/* The ranks, by how much each speaks: 刘备 speaks most. */
	static const char *const three[] = {"刘备曰：“二弟。”关羽曰：“兄长。”",
	                                    "张飞曰：“哥哥。”刘备曰：“三弟。”", "刘备曰：“走。”"};
	d = ts_dialogue_new(words);
	for (size_t i = 0; i < 3; i++)
		CHECK(ts_dialogue_learn(d, three[i], strlen(three[i])) == 0);
	ts_dialogue_settle(d);
	ts_dialogue_chapter(d);
	ts_buf voices = {0};
	for (size_t i = 0; i < 3; i++)
		CHECK(ts_dialogue_attribute(d, three[i], strlen(three[i]), pool_of, &voices) == 0);
	const char *want = "刘备=0 关羽=1 张飞=2 刘备=0 刘备=0 ";
	if (!voices.data || strcmp(voices.data, want) != 0) {
		fprintf(stderr, "pool: got \"%s\", want \"%s\"\n", voices.data ? voices.data : "",
		        want);
		check_failures++;
	}
	ts_buf_free(&voices);
	ts_dialogue_free(d);
}

/* Paragraphs of marks, verbs and names in random order: every one ends
 * (a loop that does not would time the test out), and every quotation
 * given is inside its paragraph. */
static int in_paragraph(void *ud, const ts_attribution *a)
{
	const char *p = ((const char **)ud)[0], *e = ((const char **)ud)[1];
	CHECK(a->quote >= p && a->quote + a->quote_len <= e && a->speaker && a->why);
	return 0;
}

static void noise_case(void)
{
	static const char *const pieces[] = {
	    "“",  "”",  "「", "」", "『", "』",   "‘",  "’",  "\"",   "'",    "，",  "。",
	    "：", "！", "曰", "道", "说", "笑",   "问", "他", "一人", "一个", "乃",  "也",
	    "姓", "名", "字", "众", "、", "我的", "被", " ",  "a",    "张飞", "玄德"};
	ts_dialogue *d = ts_dialogue_new(words);
	unsigned seed = 19;
	ts_buf p = {0};
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < 2000; i++) {
			ts_buf_clear(&p);
			int n = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 120;
			for (int k = 0; k < n; k++) {
				seed = seed * 1103515245u + 12345u;
				const char *w =
				    pieces[(seed >> 16) % (sizeof pieces / sizeof pieces[0])];
				ts_buf_append(&p, w, strlen(w));
			}
			const char *span[2] = {p.data ? p.data : "",
			                       (p.data ? p.data : "") + p.len};
			CHECK((pass ? ts_dialogue_attribute(d, span[0], p.len, in_paragraph, span)
			            : ts_dialogue_learn(d, span[0], p.len)) == 0);
		}
	ts_buf_free(&p);
	ts_dialogue_free(d);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: test_dialogue WORDS_FILE DATA_DIR CASE...\n");
		return 2;
	}
	ts_error err = {0};
	ts_wordtab *t = ts_wordtab_load(argv[1], 1, &err);
	CHECK(t != NULL && ts_dialogue_check_words(t, argv[1], &err) == 0);
	if (!t) {
		fprintf(stderr, "%s\n", err.msg);
		return check_done("test_dialogue");
	}
	words = t;
	cast_case();
	noise_case();
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "quotes") == 0)
			quotes_case(argv[2]);
		else
			book_case(argv[2], argv[i]);
	}
	women_case();
	ts_wordtab_free(t);
	return check_done("test_dialogue");
}
