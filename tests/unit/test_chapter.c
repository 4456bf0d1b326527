/* test_chapter.c - the one reading of a chapter (ts_feed_chapter): the
 * title's chunks, then the body hook, then the body's; the paragraphs of
 * a text that is not in the book; a chapter that cannot be read; and the
 * chapter keys that go by it.  No audio: eSpeak NG is not started. */
#include "book/chapter.h"
#include "book/chapterkey.h"
#include "input/reader.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a reading told, in order: "c:" chunks, "s:" sentences, "body". */
typedef struct told {
	ts_buf log;
} told;

static int on_chunk(void *ud, const ts_chunk *c)
{
	return ts_buf_printf(&((told *)ud)->log, "c:%s|", c->text);
}

static int on_sentence(void *ud, const char *text, size_t len)
{
	return ts_buf_printf(&((told *)ud)->log, "s:%.*s|", (int)len, text);
}

static int on_body(void *ud)
{
	return ts_buf_printf(&((told *)ud)->log, "body|");
}

static void on_diag(void *ud, ts_level sev, const char *msg)
{
	(void)ud, (void)sev, (void)msg;
}

static const char *log_of(const told *t)
{
	return t->log.data ? t->log.data : "";
}

static void test_chapter_reading(const ts_chapter_job *job)
{
	const ts_chapter *ch = ts_book_chapter(job->book, 0);
	told t = {0};
	ts_error err = {0};
	ts_feed f = {
	    .ch = ch, .chunk = on_chunk, .sentence = on_sentence, .body = on_body, .ud = &t};
	CHECK(ch->title_spoken);
	CHECK(ts_feed_chapter(job, &f, &err) == 0);
	const char *log = log_of(&t);
	const char *body = strstr(log, "body|");
	/* The title's chunks, then the body's, each sentence after its
	 * chunks. */
	CHECK(body && strncmp(log, "c:", 2) == 0 && strstr(body, "c:"));
	const char *first = strstr(log, "s:今天天气很好。|");
	const char *second = strstr(log, "s:我们走吧。|");
	CHECK(first && second && body < first && first < second);
	CHECK(!strstr(log, "结束")); /* the next chapter's */
	ts_buf_free(&t.log);
}

static void test_paragraphs(const ts_chapter_job *job)
{
	static const char *const text[] = {"你好。", "再见。"};
	told t = {0};
	ts_error err = {0};
	ts_feed f = {.paragraphs = text,
	             .nparagraphs = 2,
	             .chunk = on_chunk,
	             .sentence = on_sentence,
	             .body = on_body,
	             .ud = &t};
	CHECK(ts_feed_chapter(job, &f, &err) == 0);
	const char *log = log_of(&t);
	CHECK(!strstr(log, "body|"));
	const char *a = strstr(log, "s:你好。|"), *b = strstr(log, "s:再见。|");
	CHECK(a && b && a < b && strncmp(log, "c:", 2) == 0);
	ts_buf_free(&t.log);
}

/* A chunk callback's code stops the reading and comes back. */
static int refuse(void *ud, const ts_chunk *c)
{
	(void)ud, (void)c;
	return TS_ENOSPC;
}

static void test_stop(const ts_chapter_job *job)
{
	ts_error err = {0};
	ts_feed f = {.ch = ts_book_chapter(job->book, 0), .chunk = refuse};
	CHECK(ts_feed_chapter(job, &f, &err) == TS_ENOSPC && err.code == TS_ENOSPC);
}

static void test_keys(ts_chapter_job *job)
{
	char k0[TS_HASH_HEX], again[TS_HASH_HEX], k1[TS_HASH_HEX], slower[TS_HASH_HEX];
	ts_error err = {0};
	CHECK(ts_chapter_key(job, 0, k0, &err) == 0);
	CHECK(ts_chapter_key(job, 0, again, &err) == 0);
	CHECK(ts_chapter_key(job, 1, k1, &err) == 0);
	CHECK(strlen(k0) == TS_HASH_HEX - 1 && strcmp(k0, again) == 0 && strcmp(k0, k1) != 0);
	job->rate_factor = 1.5;
	CHECK(ts_chapter_key(job, 0, slower, &err) == 0);
	CHECK(strcmp(k0, slower) != 0);
	job->rate_factor = 1.0;
}

/* The chapter's file gone: no key, and a message that says so. */
static void test_unreadable(const ts_chapter_job *job, const char *path)
{
	char key[TS_HASH_HEX];
	ts_error err = {0};
	unlink(path);
	CHECK(ts_chapter_key(job, 0, key, &err) < 0);
	CHECK(strstr(err.msg, "cannot read") != NULL);
}

int main(void)
{
	char dir[] = "/tmp/tingshu-test-chapter-XXXXXX", path[64];
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/book.txt", dir);
	FILE *fp = fopen(path, "w");
	if (!fp)
		return 1;
	fputs("第一章 开始\n今天天气很好。我们走吧。\n第二章 结束\n再见。\n", fp);
	fclose(fp);
	ts_book *b = ts_book_new(on_diag, NULL);
	CHECK(b && ts_book_add(b, path) == 0 && ts_book_count(b) == 2);
	if (check_failures)
		return 1;
	ts_voice v;
	ts_voice_defaults(&v);
	char *paths[] = {"out/001.wav", "out/002.wav"};
	ts_chapter_job job = {.book = b,
	                      .voice = &v,
	                      .rate_factor = 1.0,
	                      .format = ts_format_find("wav"),
	                      .paths = paths};
	CHECK(job.format != NULL);
	test_chapter_reading(&job);
	test_paragraphs(&job);
	test_stop(&job);
	test_keys(&job);
	test_unreadable(&job, path);
	ts_book_free(b);
	rmdir(dir);
	if (check_failures)
		fprintf(stderr, "test_chapter: %d failures\n", check_failures);
	return check_failures != 0;
}
