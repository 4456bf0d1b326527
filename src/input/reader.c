/* reader.c - the text of a chapter, read in bounded pieces (see
 * reader.h): blocks of READ_BLOCK bytes from its file, handed out as
 * pieces of at most PIECE_MAX bytes cut at line ends or character
 * boundaries. */
#include "input/reader.h"

#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define READ_BLOCK 65536
#define PIECE_MAX  16384

struct ts_reader {
	ts_book *book; /* owned, for a reader of a whole file: its temporary copies */
	FILE *f;
	long pos, end;
	char *buf;
	size_t len, off; /* buffered bytes and read position */
	char piece[PIECE_MAX + 8];
	int eof;
	/* Boilerplate dropped (ts_reader_set_filter); check NULL: none. */
	ts_boilerplate_check *check;
	ts_dropped_fn dropped;
	void *dropped_ud;
	long line;    /* of the piece to come, from 1 */
	int mid_line; /* the piece to come continues a line */
	size_t skip;  /* the book's next copy of a chapter skipped, not shown */
};

ts_reader *ts_reader_open(const ts_chapter *ch, int *err)
{
	ts_reader *r = calloc(1, sizeof *r);
	if (!r) {
		*err = TS_ENOMEM;
		return NULL;
	}
	r->buf = malloc(READ_BLOCK);
	r->f = fopen(ch->source, "rb");
	if (!r->buf || !r->f) {
		*err = r->buf ? (errno == ENOENT ? TS_ENOENT : TS_EIO) : TS_ENOMEM;
		ts_reader_free(r);
		return NULL;
	}
	if (fseek(r->f, ch->start, SEEK_SET) != 0) {
		*err = TS_EIO;
		ts_reader_free(r);
		return NULL;
	}
	r->pos = ch->start;
	r->end = ch->end;
	r->line = 1;
	return r;
}

int ts_reader_set_filter(ts_reader *r, const ts_boilerplate *bp, unsigned flags, ts_dropped_fn fn,
                         void *ud)
{
	ts_boilerplate_check_free(r->check);
	r->check = NULL;
	if (bp && !(r->check = ts_boilerplate_check_new(bp, flags)))
		return TS_ENOMEM;
	r->dropped = fn;
	r->dropped_ud = ud;
	return 0;
}

/* A whole line in the piece, n bytes: what of it is spoken (see
 * ts_reader_set_filter()). */
static size_t filter_line(ts_reader *r, size_t n)
{
	ts_unspoken u;
	if (!ts_boilerplate_check_line(r->check, r->piece, n, &u))
		return n;
	if (r->dropped)
		r->dropped(r->dropped_ud, r->line, &u, r->piece + u.start, n - u.start);
	n = u.start;
	while (n > 0 && r->piece[n - 1] == ' ')
		n--;
	while (n >= 3 && memcmp(r->piece + n - 3, "\xe3\x80\x80", 3) == 0) /* U+3000 */
		n -= 3;
	return n;
}

/* Is the line to come in a copy of a chapter that a build skips (a
 * reader of a whole file)?  Lines come in order, and so do the copies. */
static int skipped_line(ts_reader *r)
{
	long first, last;
	for (; r->book && r->skip < ts_book_skip_count(r->book); r->skip++) {
		ts_book_skip(r->book, r->skip, &first, &last);
		if (r->line <= last)
			return r->line >= first;
	}
	return 0;
}

static int fill(ts_reader *r)
{
	if (r->off < r->len)
		return 1;
	long want = r->end - r->pos;
	if (want <= 0)
		return 0;
	if (want > READ_BLOCK)
		want = READ_BLOCK;
	size_t got = fread(r->buf, 1, (size_t)want, r->f);
	if (got == 0)
		return ferror(r->f) ? TS_EIO : 0;
	r->pos += (long)got;
	r->len = got;
	r->off = 0;
	return 1;
}

/* Does p[0..n) end at a character boundary?  Pieces are cut only there. */
static int ends_char(const char *p, size_t n)
{
	size_t lead = n;
	while (lead > 0 && n - lead < 4 && ((unsigned char)p[lead - 1] & 0xC0) == 0x80)
		lead--;
	if (lead == 0)
		return 1;
	unsigned char c = (unsigned char)p[lead - 1];
	size_t need = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
	return n - (lead - 1) >= need;
}

int ts_reader_next(ts_reader *r, const char **text, size_t *len, int *line_end)
{
	size_t n = 0;
	*line_end = 0;
	for (;;) {
		int rc = fill(r);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			/* End of body: the last line may lack a newline. */
			if (n == 0)
				return 0;
			*line_end = 1;
			break;
		}
		char c = r->buf[r->off];
		if (c == '\n') {
			r->off++;
			*line_end = 1;
			break;
		}
		r->piece[n++] = c;
		r->off++;
		if (n >= PIECE_MAX && ends_char(r->piece, n)) {
			/* Cut here; if the body ends here too, so does the line
			 * (an error is left for the next call). */
			*line_end = fill(r) == 0;
			break;
		}
	}
	if (n > 0 && r->piece[n - 1] == '\r')
		n--;
	if (skipped_line(r)) {
		static const ts_unspoken copy = {.reason = "chapter repeated", .whole = 1};
		if (r->dropped && !r->mid_line && n > 0)
			r->dropped(r->dropped_ud, r->line, &copy, r->piece, n);
		n = 0;
	} else if (r->check && !r->mid_line && *line_end) {
		n = filter_line(r, n);
	}
	r->mid_line = !*line_end;
	r->line += *line_end;
	r->piece[n] = '\0';
	*text = r->piece;
	*len = n;
	return 1;
}

void ts_reader_free(ts_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	ts_boilerplate_check_free(r->check);
	free(r->buf);
	ts_book_free(r->book);
	free(r);
}

/* Where a whole file's warnings go: its errors are the caller's err. */
typedef struct warn_to {
	ts_diag_fn fn;
	void *ud;
} warn_to;

static void warnings_only(void *ud, ts_level level, const char *msg)
{
	const warn_to *w = ud;
	if (level == TS_WARNING && w->fn)
		w->fn(w->ud, level, msg);
}

ts_reader *ts_reader_open_file(const char *path, const char *encoding,
                               volatile sig_atomic_t *cancel, ts_diag_fn diag, void *ud,
                               ts_error *err)
{
	/* Checked and decoded as a book input is; then all of its text is
	 * read, headings and all, but for the copies of chapters skipped. */
	warn_to w = {diag, ud};
	ts_book *b = ts_book_new(warnings_only, &w);
	if (!b) {
		ts_error_set(err, TS_ENOMEM, NULL);
		return NULL;
	}
	ts_book_set_cancel(b, cancel);
	int rc = ts_book_set_encoding(b, encoding);
	if (rc) {
		ts_error_set(err, rc, "%s: unknown encoding", encoding);
		goto fail;
	}
	rc = ts_book_add(b, path);
	ts_book_set_diag(b, NULL, NULL); /* w is gone after the return */
	if (rc) {
		ts_error_set(err, rc, "%s", ts_book_errmsg(b));
		goto fail;
	}
	/* stdin was copied, and text not in UTF-8 decoded: read the copy. */
	const char *src = ts_book_count(b) > 0   ? ts_book_chapter(b, 0)->source
	                  : ts_book_text_path(b) ? ts_book_text_path(b)
	                                         : path;
	FILE *f = fopen(src, "rb");
	if (!f) {
		ts_error_set(err, rc = TS_EIO, "%s: %s", path, strerror(errno));
		goto fail;
	}
	char head[3];
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	long start = (long)ts_utf8_bom(head, fread(head, 1, sizeof head, f));
	fclose(f);
	ts_chapter whole = {
	    .source = (char *)src, .display = (char *)path, .start = start, .end = size};
	ts_reader *r = ts_reader_open(&whole, &rc);
	if (!r) {
		ts_error_set(err, rc, "%s: %s", path, ts_strerror(rc));
		goto fail;
	}
	r->book = b;
	return r;
fail:
	ts_book_free(b);
	return NULL;
}
