/* test_casting.c - the voices of a paragraph: narration in the narrator's,
 * quotations in the cast's or the pool's, "-" and "?" in the narrator's;
 * and the pool of cast voices, by rank and by name.
 *
 * Usage: test_casting VOICES_DIR */
#include "check.h"
#include "speech/casting.h"

static void span_is(const ts_casting *c, size_t i, const char *p, const char *text,
                    const char *voice, const char *speaker)
{
	if (i >= c->n) {
		fprintf(stderr, "span %zu: none (%zu spans)\n", i, c->n);
		check_failures++;
		return;
	}
	const ts_voice_span *s = &c->spans[i];
	int ok = s->end - s->start == strlen(text) && !memcmp(p + s->start, text, strlen(text)) &&
	         strcmp(s->voice->name, voice) == 0 &&
	         (speaker ? s->speaker && strcmp(s->speaker, speaker) == 0 : !s->speaker);
	if (!ok) {
		fprintf(stderr, "span %zu: \"%.*s\" %s %s; want \"%s\" %s %s\n", i,
		        (int)(s->end - s->start), p + s->start, s->voice->name,
		        s->speaker ? s->speaker : "(narration)", text, voice,
		        speaker ? speaker : "(narration)");
		check_failures++;
	}
}

/* The shipped pool (voices/cast_pool.txt): by rank, counting round; by
 * the name, the same every time, spread over the pool, female for a
 * woman. */
static void pool_case(ts_voice_cache *vc)
{
	CHECK(strcmp(ts_voice_cache_pool(vc, 0, 0, "x"), "cmn-m1") == 0);
	CHECK(strcmp(ts_voice_cache_pool(vc, 0, 5, "x"), "cmn-m2") == 0);
	CHECK(strcmp(ts_voice_cache_pool(vc, 1, 3, "x"), "cmn-f4") == 0);
	const char *a = ts_voice_cache_pool(vc, 0, -1, "宝玉");
	CHECK(a && strcmp(a, ts_voice_cache_pool(vc, 0, -1, "宝玉")) == 0);
	CHECK(a && strncmp(a, "cmn-m", 5) == 0);
	a = ts_voice_cache_pool(vc, 1, -1, "黛玉");
	CHECK(a && strncmp(a, "cmn-f", 5) == 0);
	int seen[4] = {0};
	static const char *const names[] = {"刘备",   "关羽", "张飞", "曹操", "孙权",
	                                    "诸葛亮", "赵云", "吕布", "周瑜", "貂蝉"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		a = ts_voice_cache_pool(vc, 0, -1, names[i]);
		if (a && a[5] >= '1' && a[5] <= '4')
			seen[a[5] - '1'] = 1;
	}
	CHECK(seen[0] + seen[1] + seen[2] + seen[3] >= 3);
	/* 刘备 and 张飞 hash to one voice: ranks give them two. */
	CHECK(strcmp(ts_voice_cache_pool(vc, 0, -1, "刘备"), "cmn-m3") == 0);
	CHECK(strcmp(ts_voice_cache_pool(vc, 0, -1, "张飞"), "cmn-m3") == 0);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_casting VOICES_DIR\n");
		return 2;
	}
	ts_voice_cache *vc = ts_voice_cache_new(argv[1]);
	ts_error err = {0};
	const ts_voice *narrator = vc ? ts_voice_cache_get(vc, "cmn", &err) : NULL;
	CHECK(narrator != NULL);
	if (!narrator)
		return check_done("test_casting");
	char path[1024];
	snprintf(path, sizeof path, "%s/zh/dialogue_words.txt", argv[1]);
	ts_wordtab *words = ts_wordtab_load(path, 1, &err);
	CHECK(words != NULL);
	ts_dialogue *d = ts_dialogue_new(words);
	char why[256];
	const char *cast = "刘备 玄德\tcmn-m4";
	CHECK(ts_dialogue_cast_line(d, cast, strlen(cast), why, sizeof why) == 0);
	const char *bad = "张飞\tno-such-preset";
	CHECK(ts_dialogue_cast_line(d, bad, strlen(bad), why, sizeof why) == 0);
	static const char *const book[] = {
	    "玄德曰：“吾乃中山靖王之后。”张飞道：“好！”",
	    "王夫人道：“你来了。”众人齐声道：“是。”",
	};
	size_t nb = sizeof book / sizeof book[0];
	for (size_t i = 0; i < nb; i++)
		CHECK(ts_dialogue_learn(d, book[i], strlen(book[i])) == 0);
	ts_dialogue_settle(d);
	ts_dialogue_chapter(d);
	ts_casting c = {0};
	/* 王夫人 takes the pool's first woman's voice; 张飞's cast preset does
	 * not load, so he has the pool's voice for his name. */
	const char *pool_m = ts_voice_cache_pool(vc, 0, -1, "张飞"), *pool_f = "cmn-f1";
	CHECK(pool_m != NULL);

	const char *p = book[0];
	CHECK(ts_casting_paragraph(&c, d, vc, narrator, p, strlen(p)) == 0);
	CHECK(c.n == 4);
	span_is(&c, 0, p, "玄德曰：", "cmn", NULL);
	span_is(&c, 1, p, "“吾乃中山靖王之后。”", "cmn-m4", "刘备");
	span_is(&c, 2, p, "张飞道：", "cmn", NULL);
	/* The cast's preset does not load: the pool's. */
	span_is(&c, 3, p, "“好！”", pool_m, "张飞");

	p = book[1];
	CHECK(ts_casting_paragraph(&c, d, vc, narrator, p, strlen(p)) == 0);
	CHECK(c.n == 4);
	span_is(&c, 1, p, "“你来了。”", pool_f, "王夫人");
	span_is(&c, 3, p, "“是。”", "cmn", "-");
	CHECK(strncmp(pool_f, "cmn-f", 5) == 0);

	/* No quotation: the whole paragraph is narration. */
	p = "天下大势，分久必合。";
	CHECK(ts_casting_paragraph(&c, d, vc, narrator, p, strlen(p)) == 0);
	CHECK(c.n == 1);
	span_is(&c, 0, p, p, "cmn", NULL);
	ts_casting_free(&c);
	ts_dialogue_free(d);
	ts_wordtab_free(words);
	pool_case(vc);
	ts_voice_cache_free(vc);
	return check_done("test_casting");
}
