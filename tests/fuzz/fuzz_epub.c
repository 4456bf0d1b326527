/* fuzz_epub.c - libFuzzer target for the EPUB reader (input/epubread.c):
 * libzip's container, libxml2's XML and HTML parsers, and our walk of
 * the package, the contents and the documents.
 *
 * An input that starts "PK" is the EPUB's bytes as they are; any other is
 * its entries, each after a line "=== NAME", zipped here (with libzip) so
 * that the mutations reach the documents instead of breaking the zip's
 * checksums.  The seeds are the EPUBs tests/tools/mkepub.py makes, in both
 * forms (tests/fuzz/epub_entries.py).
 *
 * Properties beyond "no crash, no sanitizer report": a refused EPUB has a
 * message naming it; a read one has its text in valid UTF-8 with no NUL
 * and no control character but the newline, every chapter's title valid
 * UTF-8 without a newline, and the chapters' byte ranges in order, within
 * the text written and each starting a line. */
#include "fuzz_file.h"
#include "input/epubread.h"
#include "base/util.h"

#include <zip.h>

/* The entries of data ("=== NAME\n" before each) as a zip at path.  0, or
 * -1 when libzip cannot make it (the input is then skipped). */
static int zip_entries(const uint8_t *data, size_t size, const char *path)
{
	int zerr;
	zip_t *z = zip_open(path, ZIP_TRUNCATE | ZIP_CREATE, &zerr);
	if (!z)
		return -1;
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *line = memchr(p, '\n', (size_t)(end - p));
		if (!line || line - p < 4 || memcmp(p, "=== ", 4) != 0)
			break;
		char name[256];
		snprintf(name, sizeof name, "%.*s", (int)(line - p - 4), p + 4);
		const char *body = line + 1, *next = body;
		while (next < end && !(next + 4 <= end && memcmp(next, "=== ", 4) == 0 &&
		                       (next == body || next[-1] == '\n')))
			next++;
		zip_source_t *src = zip_source_buffer(z, body, (zip_uint64_t)(next - body), 0);
		if (!src || zip_file_add(z, name, src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8) < 0)
			zip_source_free(src);
		p = next;
	}
	if (zip_close(z) != 0) {
		zip_discard(z);
		return -1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int text_fd = -1;
	const char *path = fuzz_file(data, size);
	if (!(size >= 2 && data[0] == 'P' && data[1] == 'K') && zip_entries(data, size, path) != 0)
		return 0;
	if (text_fd < 0 && (text_fd = memfd_create("text", 0)) < 0)
		abort();
	if (ftruncate(text_fd, 0) != 0 || lseek(text_fd, 0, SEEK_SET) != 0)
		abort();
	FILE *out = fdopen(dup(text_fd), "w+");
	if (!out)
		abort();
	ts_epub_book b;
	ts_error err = {0};
	int rc = ts_epub_read(path, "fuzz.epub", out, &b, &err);
	fflush(out);
	long n = ftell(out);
	if (rc) {
		if (!strstr(err.msg, "fuzz.epub") && rc != TS_ENOMEM)
			fuzz_fail("an EPUB refused without a message naming it");
	} else {
		char *text = malloc((size_t)n + 1);
		if (!text || pread(text_fd, text, (size_t)n, 0) != n)
			abort();
		if (ts_utf8_check(text, (size_t)n, 1) != (size_t)n)
			fuzz_fail("the text is not valid UTF-8");
		for (long i = 0; i < n; i++)
			if ((unsigned char)text[i] < 0x20 && text[i] != '\n')
				fuzz_fail("a control character in the text");
		long at = 0;
		for (size_t i = 0; i < b.chapters; i++) {
			const ts_epub_chapter *c = &b.chapter[i];
			size_t tl = strlen(c->title);
			if (ts_utf8_check(c->title, tl, 1) != tl || strchr(c->title, '\n'))
				fuzz_fail("a chapter title not valid UTF-8 on one line");
			if (c->start < at || c->end < c->start || c->end > n ||
			    (c->start > 0 && text[c->start - 1] != '\n'))
				fuzz_fail("a chapter's byte range out of order or place");
			at = c->end;
		}
		free(text);
	}
	fclose(out);
	ts_epub_book_clear(&b);
	return 0;
}
