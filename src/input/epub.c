/* epub.c - the EPUB kind of input: a file that epubread.c takes for an
 * EPUB (a zip whose first entry is "mimetype", or a name ending in .epub).
 * Its text is written to a temporary file that the book owns (titles on
 * lines of their own, a paragraph a line), and its chapters are byte
 * ranges of that file, as for a decoded text file; its title, author and
 * cover name the book when no input before did. */
#include "input/kind.h"

#include "input/book.h"
#include "input/decode.h"
#include "input/epubread.h"
#include "input/split.h"
#include "zh/heading.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The EPUB's cover picture, into a temporary file the book owns, for the
 * whole-book files (which take a file, as --cover gives). */
static int keep_cover(ts_book *b, const char *display, const unsigned char *data, size_t n)
{
	FILE *f;
	const char *path;
	int rc = ts_input_temp(b, "cover", display, &f, &path);
	if (rc)
		return rc;
	int e = 0;
	if (fwrite(data, 1, n, f) != n)
		e = errno;
	if (fclose(f) != 0 && !e)
		e = errno;
	if (e) {
		ts_book_diag(b, TS_ERROR, "%s: cannot copy its cover to %s: %s", display, path,
		             strerror(e));
		ts_book_drop_temp(b);
		return ts_input_temp_code(e);
	}
	ts_book_set_cover(b, path);
	return 0;
}

/* Add the chapters of eb to the book.  A part's heading with no text of
 * its own (第一卷) goes before the title of the chapter after it, as in a
 * text file. */
static int epub_chapters(ts_intake *in, const ts_epub_book *eb)
{
	char joined[TS_HEADING_BYTES * 5] = "";
	int rc = 0;
	for (size_t i = 0; !rc && i < eb->chapters; i++) {
		const ts_epub_chapter *c = &eb->chapter[i];
		char title[sizeof joined];
		snprintf(title, sizeof title, "%.600s%s%.600s", joined, joined[0] ? " " : "",
		         c->title);
		joined[0] = '\0';
		if (c->chars == 0 && !c->front && i + 1 < eb->chapters && !eb->chapter[i + 1].front)
			snprintf(joined, sizeof joined, "%s", title);
		else if (c->chars > 0 || !c->front)
			rc = ts_intake_chapter(in, title, 0, c->front, c->start, c->end, c->line,
			                       c->chars);
	}
	if (!rc && in->added == 0)
		ts_intake_warn(in, "%s: no text; skipped", in->display);
	return rc;
}

/* What the EPUB's metadata names, for a book that no input before named:
 * its title (else the file's name), author and cover. */
static int epub_names(ts_book *b, const ts_epub_book *eb, const char *display)
{
	int rc = 0;
	if (!ts_book_titled(b))
		rc = ts_book_set_title(b, eb->title ? eb->title : "");
	if (!rc && !ts_book_title(b)[0]) {
		char *stem = ts_split_stem(display);
		rc = stem ? ts_book_set_title(b, stem) : TS_ENOMEM;
		free(stem);
	}
	if (!rc && !ts_book_author(b) && eb->author)
		rc = ts_book_set_author(b, eb->author);
	if (!rc && !ts_book_cover(b) && eb->cover)
		rc = keep_cover(b, display, eb->cover, eb->cover_len);
	return rc;
}

static int epub_open(ts_book *b, const char *path)
{
	const char *tmp = NULL;
	FILE *out = NULL;
	ts_epub_book eb;
	ts_error err = {0};
	int rc = ts_input_temp(b, "epub", path, &out, &tmp);
	if (rc)
		return rc;
	rc = ts_epub_read(path, path, out, &eb, &err);
	int e = errno;
	if (fclose(out) != 0 && !rc) {
		e = errno;
		rc = ts_error_set(&err, ts_input_temp_code(e),
		                  "%s: cannot write its text to %s: %s", path, tmp, strerror(e));
	}
	if (!rc && ts_book_cancelled(b))
		rc = ts_book_stopped(b, path);
	else if (rc)
		ts_book_diag(b, TS_ERROR, "%s", err.msg);
	ts_intake in = {.book = b, .display = path, .source = tmp};
	if (!rc)
		rc = epub_chapters(&in, &eb);
	size_t added = in.added;
	ts_intake_done(&in, 1);
	if (!rc)
		rc = epub_names(b, &eb, path);
	if (!rc)
		rc = ts_book_set_text_path(b, tmp);
	ts_epub_book_clear(&eb);
	if (rc && added == 0)
		ts_book_drop_temp(b);
	return rc;
}

static int epub_sniff(const char *path, const struct stat *st)
{
	return st && S_ISREG(st->st_mode) && ts_epub_sniff(path);
}

const ts_input_kind ts_input_epub = {"EPUB", NULL, epub_sniff, epub_open};
