/* input.h - find the chapters of a book and read their text.
 *
 * An input is a .txt file (one chapter, or a whole book split at its
 * chapter headings), an EPUB (its chapters from its table of contents:
 * see epubread.h), a directory of .txt files (each a chapter, in natural
 * order), or "-" for standard input (spooled to a temporary file so that
 * workers can read it, and checked as it comes: see input.c).  Text in UTF-8 (with or without a
 * byte-order mark), UTF-16 or UTF-32 with a byte-order mark, GB18030/GBK/GB2312 or Big5 is
 * recognized (encoding.c); a file that is not UTF-8 is decoded once into a UTF-8 temporary file
 * that the book owns, which then stands in for it.  Scanning records each chapter as a byte range
 * of its UTF-8 text; the text itself is read later, in bounded pieces, by whoever synthesizes the
 * chapter.
 *
 * Bad-input policy: a file that cannot be read, is not a regular file (a
 * FIFO or a device, which could make reading wait or never end), is
 * binary (NUL bytes outside UTF-16/32, or control bytes and no encoding
 * that fits), is in an encoding we cannot tell, or has a byte sequence
 * that is invalid in its encoding (detected or given) is rejected as a
 * whole with a message that names it and the line and byte of the first
 * fault; other inputs go on.  Standard input is rejected at its first NUL
 * byte that is not text and past TINGSHU_STDIN_MAX bytes (256 MB).  A
 * chapter with no text is skipped with a warning.
 *
 * Temporary files are TMPDIR/tingshu-stdin-PID@HOST-XXXXXX,
 * tingshu-utf8-PID@HOST-XXXXXX, tingshu-epub-PID@HOST-XXXXXX (the text of
 * an EPUB) and tingshu-cover-PID@HOST-XXXXXX (its cover picture): the book removes its own; those
 * of a run of this machine that was killed are removed by the next one. */
#ifndef TS_INPUT_H
#define TS_INPUT_H

#include "base/error.h"

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

typedef struct ts_chapter {
	char *source;     /* path of the UTF-8 file that holds the text: the
	                     input itself, or its decoded temporary copy */
	char *display;    /* name to show the user ("stdin" for -) */
	char *title;      /* heading, file name or book title */
	int title_spoken; /* the title has Chinese text worth speaking */
	int front_matter; /* text before the first heading of a book */
	long start, end;  /* byte range of the body in source */
	long line;        /* line of the heading, or of the first line of text */
	size_t chars;     /* non-space characters of the body (for ETA) */
} ts_chapter;

typedef struct ts_book ts_book;

/* New empty book; NULL when out of memory.  Free with ts_book_free(). */
ts_book *ts_book_new(ts_diag_fn diag, void *ud);
/* Releases the book and removes the temporary files made for stdin and
 * for decoded text (only in the process that made them).
 * ts_book_free(NULL) does nothing. */
void ts_book_free(ts_book *b);

/* Stop reading inputs once *flag is not 0 (a signal handler sets it):
 * ts_book_add() then returns TS_ECANCELED without a diagnostic (the
 * message says "INPUT: interrupted"), having removed the temporary file
 * it was making and undone the file it was scanning; the chapters of
 * inputs added before stay.  NULL (the default) never stops. */
void ts_book_set_cancel(ts_book *b, volatile sig_atomic_t *flag);

/* Read the inputs added after this call in encoding name (an iconv name,
 * e.g. "GB18030", "BIG5", "UTF-16LE") instead of detecting it; NULL goes
 * back to detecting.  Returns 0, or TS_EINVAL when iconv does not know
 * the name (see ts_encoding_known()), or TS_ENOMEM. */
int ts_book_set_encoding(ts_book *b, const char *name);

/* Add an input (file, directory or "-").  Returns 0, or a negative code
 * when the input was rejected; the reason has gone to the diagnostics
 * callback and ts_book_errmsg() keeps the last one.  Chapters found
 * before a fault in a directory are kept.  Standard input past its limit
 * is TS_ETOOLONG, and TS_EINVAL when TINGSHU_STDIN_MAX is not a size.
 * The first call also removes the temporary files that killed runs of
 * this machine left in TMPDIR. */
int ts_book_add(ts_book *b, const char *path);

const char *ts_book_errmsg(const ts_book *b);
/* Path of the UTF-8 text of the last file scanned: the file itself, or
 * its decoded temporary copy.  NULL before a file was scanned; valid
 * until ts_book_free(). */
const char *ts_book_text_path(const ts_book *b);
/* The author an EPUB's metadata names (dc:creator), or NULL. */
const char *ts_book_author(const ts_book *b);
/* The path of a copy of an EPUB's cover picture (the first EPUB's that
 * has one), or NULL.  Valid until ts_book_free(), which removes it. */
const char *ts_book_cover(const ts_book *b);
/* Book title: an EPUB's dc:title, the first line of the front matter, or
 * the name of the first input.  Never NULL once an input was added (""
 * before). */
const char *ts_book_title(const ts_book *b);
size_t ts_book_count(const ts_book *b);
const ts_chapter *ts_book_chapter(const ts_book *b, size_t i);

/* Compare two file names in natural order ("2.txt" before "10.txt"). */
int ts_natural_cmp(const char *a, const char *b);

/* Reading a chapter's body in pieces. */
typedef struct ts_reader ts_reader;

/* Open the body of ch; NULL with *err set on failure. */
ts_reader *ts_reader_open(const ts_chapter *ch, int *err);
/* Next piece of text: *text points into the reader's buffer (valid until
 * the next call), *len bytes, cut at a character boundary, at most about
 * 16 KB, with no line ending; *line_end is set when the piece ends a line.
 * Returns 1 for a piece, 0 at the end of the body, or a negative code. */
int ts_reader_next(ts_reader *r, const char **text, size_t *len, int *line_end);
/* Open all of the text of a file (or "-"), checked and decoded like a
 * book input (encoding: an iconv name, or NULL to detect it), headings
 * included, as one body: for showing the text as it will be spoken.
 * Reading and decoding stop when *cancel is set (see
 * ts_book_set_cancel(); cancel may be NULL).  NULL with err filled on
 * failure (TS_ECANCELED when stopped).  The temporary copies it needs are
 * removed by ts_reader_free(). */
ts_reader *ts_reader_open_file(const char *path, const char *encoding,
                               volatile sig_atomic_t *cancel, ts_error *err);
void ts_reader_free(ts_reader *r);

#endif
