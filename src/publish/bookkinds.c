/* bookkinds.c - the table of whole-book kinds (see bookkinds.h). */
#include "publish/bookkinds.h"

#include "publish/epub.h"
#include "publish/m4b.h"

#include "base/child.h"
#include "base/util.h"

#include <string.h>

const ts_book_kind ts_book_kinds[] = {
    {"m4b", "m4b", "the whole book as one audio file with chapters", "book.m4b", 0, 1, ts_m4b_make},
    {"epub", "epub", "a read-aloud EPUB 3: the text with the voice", "book.epub", 1, 2,
     ts_epub_make},
};

_Static_assert(sizeof ts_book_kinds / sizeof ts_book_kinds[0] == TS_BOOK_KINDS,
               "TS_BOOK_KINDS is the number of rows of ts_book_kinds");

typedef struct kind_job {
	int k;
	const char *path;
	const ts_bookfile *book;
} kind_job;

static int make_one(void *arg, char *out, size_t outsz)
{
	const kind_job *j = arg;
	(void)outsz;
	return ts_book_kinds[j->k].make(j->path, j->book, (ts_error *)out) ? 1 : 0;
}

void ts_book_kinds_make(unsigned kinds, const char *const paths[TS_BOOK_KINDS],
                        const ts_bookfile *book, ts_error errs[TS_BOOK_KINDS])
{
	ts_child *c[TS_BOOK_KINDS] = {0};
	kind_job j[TS_BOOK_KINDS];
	int last = -1, k;
	for (k = 0; k < TS_BOOK_KINDS; k++)
		last = kinds & 1u << k ? k : last;
	for (k = 0; k < TS_BOOK_KINDS; k++) {
		memset(&errs[k], 0, sizeof errs[k]);
		j[k] = (kind_job){k, paths[k], book};
		if (kinds & 1u << k && k != last)
			c[k] = ts_child_start(make_one, &j[k], (char *)&errs[k], sizeof errs[k]);
	}
	for (k = 0; k < TS_BOOK_KINDS; k++) /* the last, and any no child could make */
		if (kinds & 1u << k && !c[k])
			ts_book_kinds[k].make(paths[k], book, &errs[k]);
	for (k = 0; k < TS_BOOK_KINDS; k++)
		if (c[k] && ts_child_join(c[k], (char *)&errs[k], book->cancel) < 0)
			ts_error_set(&errs[k], TS_ECHILD, "%s: the process making it died",
			             paths[k]);
}

/* The kinds for a message, joined with ", " and, before the last, last:
 * "a (what), b (what) and c (what)" with their descriptions, or "--book a,
 * --book b or --book c" without. */
static int kinds_joined(ts_buf *b, const char *last, int with_what)
{
	int rc = 0;
	for (int k = 0; k < TS_BOOK_KINDS && !rc; k++) {
		const char *sep = k == 0 ? "" : k + 1 < TS_BOOK_KINDS ? ", " : last;
		rc = with_what ? ts_buf_printf(b, "%s%s (%s)", sep, ts_book_kinds[k].name,
		                               ts_book_kinds[k].what)
		               : ts_buf_printf(b, "%s--book %s", sep, ts_book_kinds[k].name);
	}
	return rc;
}

int ts_book_kinds_parse(const char *list, unsigned *bits, ts_error *err)
{
	*bits = 0;
	for (const char *s = list ? list : ""; *s;) {
		size_t len = strcspn(s, ","), k = 0;
		while (k < TS_BOOK_KINDS && !(strlen(ts_book_kinds[k].name) == len &&
		                              memcmp(s, ts_book_kinds[k].name, len) == 0))
			k++;
		if (k < TS_BOOK_KINDS)
			*bits |= 1u << k;
		else if (!(len == 4 && memcmp(s, "none", 4) == 0)) {
			ts_buf known = {0};
			int rc = kinds_joined(&known, " and ", 1)
			             ? ts_error_set(err, TS_ENOMEM, NULL)
			             : ts_error_set(err, TS_EINVAL,
			                            "--book takes a comma-separated list of %s, or "
			                            "none, not '%.*s'",
			                            known.data, (int)len, s);
			ts_buf_free(&known);
			return rc;
		}
		s += len + (s[len] == ',');
	}
	return 0;
}

int ts_book_kinds_need_aac(unsigned kinds, const char *format)
{
	for (int k = 0; k < TS_BOOK_KINDS; k++)
		if ((kinds & 1u << k) &&
		    (ts_book_kinds[k].needs_aac == 1 ||
		     (ts_book_kinds[k].needs_aac == 2 && strcmp(format, "mp3"))))
			return 1;
	return 0;
}

int ts_book_kinds_cover_error(ts_error *err)
{
	ts_buf kinds = {0};
	int rc = kinds_joined(&kinds, " or ", 0)
	             ? ts_error_set(err, TS_ENOMEM, NULL)
	             : ts_error_set(err, TS_EINVAL,
	                            "--cover is the cover of the whole-book files: "
	                            "it goes with %s",
	                            kinds.data);
	ts_buf_free(&kinds);
	return rc;
}
