/* test_epubin.c - EPUB books in (input/epubread.c through input/epub.c):
 * each CASE.epub that tests/tools/mkepub.py made in DIR is added to a
 * book, and what the build would read - the title, the author, every
 * chapter's title and the lines of its body as the reader gives them to
 * the front end - is compared with CASE.expect, which the script wrote
 * from the text it put in the EPUB.  For a bad EPUB, CASE.expect is
 * "error: PHRASE": the book refuses it with a message naming the file and
 * saying PHRASE, and has no chapter.
 *
 * Usage: test_epubin DIR CASE... */
#include "check.h"
#include "input/reader.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	ts_buf b = {0};
	char block[4096];
	size_t k;
	while (f && (k = fread(block, 1, sizeof block, f)) > 0)
		ts_buf_append(&b, block, k);
	if (f)
		fclose(f);
	ts_buf_putc(&b, '\0');
	return b.data;
}

static void on_diag(void *ud, ts_level level, const char *msg)
{
	(void)level;
	ts_buf_printf(ud, "%s\n", msg);
}

static void run_case(const char *dir, const char *name)
{
	char path[1024], expect_path[1024];
	snprintf(path, sizeof path, "%s/%s.epub", dir, name);
	snprintf(expect_path, sizeof expect_path, "%s/%s.expect", dir, name);
	char *expect = slurp(expect_path);
	ts_buf diags = {0}, got = {0};
	ts_book *b = ts_book_new(on_diag, &diags);
	int rc = ts_book_add(b, path);
	if (expect && strncmp(expect, "error: ", 7) == 0) {
		char *phrase = expect + 7;
		phrase[strcspn(phrase, "\n")] = '\0';
		const char *msg = ts_book_errmsg(b);
		int ok =
		    rc != 0 && ts_book_count(b) == 0 && strstr(msg, path) && strstr(msg, phrase);
		if (!ok)
			fprintf(stderr,
			        "%s: want an error saying \"%s\"; got rc %d, %zu chapters: %s\n",
			        name, phrase, rc, ts_book_count(b), msg);
		CHECK(ok);
		goto out;
	}
	CHECK(rc == 0);
	const char *author = ts_book_author(b);
	ts_buf_printf(&got, "title: %s\nauthor: %s\n", ts_book_title(b), author ? author : "");
	for (size_t i = 0; i < ts_book_count(b); i++) {
		const ts_chapter *c = ts_book_chapter(b, i);
		ts_buf_printf(&got, "chapter: %s\n", c->title);
		int err;
		ts_reader *r = ts_reader_open(c, &err);
		const char *t;
		size_t n;
		int end, at_start = 1;
		while (r && ts_reader_next(r, &t, &n, &end) > 0) {
			(void)at_start;
			ts_buf_append(&got, t, n);
			if (end)
				ts_buf_putc(&got, '\n');
		}
		ts_reader_free(r);
	}
	ts_buf_putc(&got, '\0');
	if (!expect || strcmp(got.data, expect) != 0) {
		fprintf(stderr,
		        "%s: the book read differs from %s\n--- got:\n%s--- diagnostics:\n%s", name,
		        expect_path, got.data, diags.data ? diags.data : "");
		check_failures++;
	}
out:
	ts_book_free(b);
	ts_buf_free(&got);
	ts_buf_free(&diags);
	free(expect);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_epubin DIR CASE...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++)
		run_case(argv[1], argv[i]);
	return check_done("test_epubin");
}
