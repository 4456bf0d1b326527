/* book.h - a book: the chapters found in its inputs, and what names it.
 *
 * An input is a .txt file (one chapter, or a whole book split at its
 * chapter headings: split.c), an EPUB (its chapters from its table of
 * contents: epub.c, epubread.h), a directory of .txt files (each a
 * chapter, in natural order: folder.c), or "-" for standard input (copied
 * to a temporary file so that workers can read it, and checked as it
 * comes: stdin.c); kind.c picks the kind from one table.  Text in UTF-8
 * (with or without a byte-order mark), UTF-16 or UTF-32 with a byte-order
 * mark, GB18030/GBK/GB2312 or Big5 is recognized (text/encoding.c); a file
 * that is not UTF-8 is decoded once into a UTF-8 temporary file that the
 * book owns, which then stands in for it (decode.c).  Scanning records
 * each chapter as a byte range of its UTF-8 text; the text itself is read
 * later, in bounded pieces, by whoever synthesizes the chapter (reader.h).
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
 * Temporary files are TMPDIR/tingshu-stdin-PID@HOST-XXXXXX (standard
 * input's copy), tingshu-utf8-PID@HOST-XXXXXX, tingshu-epub-PID@HOST-XXXXXX
 * (the text of an EPUB) and tingshu-cover-PID@HOST-XXXXXX (its cover
 * picture): the book removes its own; those of a run of this machine that
 * was killed are removed by the next one (decode.c). */
#ifndef TS_INPUT_BOOK_H
#define TS_INPUT_BOOK_H

#include "base/error.h"
#include "base/util.h"
#include "zh/boilerplate.h"

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct ts_chapter {
	char *source;     /* path of the UTF-8 file that holds the text: the
	                     input itself, or its decoded temporary copy */
	char *display;    /* name to show the user ("stdin" for -) */
	char *title;      /* heading, file name or book title */
	int title_spoken; /* the title has Chinese text worth speaking */
	size_t spoken_at; /* what is spoken of it is title + spoken_at: a
	                     chapter after its volume's first is titled with
	                     the volume, but does not say it again */
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

/* Cut off the titles of the chapters added after this call the requests
 * that web novels tack on headings (第12章 决战（求月票）: see
 * ts_boilerplate_title()), with bp's patterns (NULL: none, the default)
 * and flags (TS_BOILERPLATE_*); bp is the caller's and must outlive the
 * additions. */
void ts_book_set_boilerplate(ts_book *b, const ts_boilerplate *bp, unsigned flags);
/* Is line[0..len) a line of the site's or the uploader's, not spoken
 * (with the patterns of ts_book_set_boilerplate())?  Such a line does
 * not name a book. */
int ts_book_unspoken(const ts_book *b, const char *line, size_t len);

/* Read the inputs added after this call in encoding name (an iconv name,
 * e.g. "GB18030", "BIG5", "UTF-16LE") instead of detecting it; NULL goes
 * back to detecting.  Returns 0, or TS_EINVAL when iconv does not know
 * the name (see ts_encoding_known()), or TS_ENOMEM. */
int ts_book_set_encoding(ts_book *b, const char *name);

/* Add an input (file, directory or "-"; kind.c tells which).  Returns 0,
 * or a negative code when the input was rejected; the reason has gone to
 * the diagnostics callback and ts_book_errmsg() keeps the last one.
 * Chapters found before a fault in a directory are kept.  Standard input
 * past its limit is TS_ETOOLONG, and TS_EINVAL when TINGSHU_STDIN_MAX is
 * not a size.  The first call also removes the temporary files that
 * killed runs of this machine left in TMPDIR. */
int ts_book_add(ts_book *b, const char *path);

const char *ts_book_errmsg(const ts_book *b);
/* Send the diagnostics from now on to fn(ud) (NULL: nowhere). */
void ts_book_set_diag(ts_book *b, ts_diag_fn fn, void *ud);
/* The chapters skipped as copies of the chapter before them (split.c),
 * as the lines of the file they were in, heading to last line of text:
 * how many, and the i-th's first and last line.  For a reader of one
 * file (ts_reader_open_file()), which does not show them. */
size_t ts_book_skip_count(const ts_book *b);
void ts_book_skip(const ts_book *b, size_t i, long *first, long *last);
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
/* The numbers of b's chapters that pick marks (pick[i] set; all when pick
 * is NULL), the longest first (of the same length, the first in the
 * book): the order in which a pool of workers ends soonest.  *count gets
 * how many; NULL when out of memory, else the caller frees it. */
size_t *ts_book_longest_first(const ts_book *b, const char *pick, size_t *count);
const ts_chapter *ts_book_chapter(const ts_book *b, size_t i);

/* ---- filling a book: for the kinds of input (src/input only) ---- */

/* Report a fault of an input (printf-style): to the diagnostics callback,
 * and, when level is not TS_WARNING, kept for ts_book_errmsg(). */
void ts_book_diag(ts_book *b, ts_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Open the input file at path for reading, a regular file only (a FIFO
 * or a device in a folder of chapters would make the scan wait or never
 * end); on failure report it (naming display), set *rc to TS_ENOENT,
 * TS_EIO or TS_EINVAL and return NULL.  The caller closes the file. */
FILE *ts_book_open_input(ts_book *b, const char *path, const char *display, int *rc);

/* The caller's stop flag (ts_book_set_cancel()), or NULL; and whether it
 * is set. */
volatile sig_atomic_t *ts_book_cancel_flag(const ts_book *b);
int ts_book_cancelled(const ts_book *b);
/* Reading display stopped because it was asked to: no diagnostic (the
 * caller knows why), only the message.  Returns TS_ECANCELED. */
int ts_book_stopped(ts_book *b, const char *display);

/* The encoding given with ts_book_set_encoding(), or NULL: detect it. */
const char *ts_book_encoding(const ts_book *b);
/* The process that made the book: the PID in its temporary files' names. */
pid_t ts_book_owner(const ts_book *b);
/* 1 the first time it is asked of b, then 0: ts_book_add() sweeps the
 * temporary files of killed runs once per book. */
int ts_book_sweep_due(ts_book *b);

/* Has the book a title yet?  Titles, authors and covers are the first
 * input's that has one: callers set them only when there is none. */
int ts_book_titled(const ts_book *b);
/* Set the book's title, author (copies), or cover (path of a temporary
 * file the book owns, see ts_book_keep_temp()); the path of the UTF-8
 * text of the file just scanned (a copy).  0 or TS_ENOMEM. */
int ts_book_set_title(ts_book *b, const char *title);
int ts_book_set_author(ts_book *b, const char *author);
void ts_book_set_cover(ts_book *b, const char *path);
int ts_book_set_text_path(ts_book *b, const char *path);

/* The book takes path (a temporary file, malloc'd) and removes the file
 * when freed, in its owner's process only.  0, or TS_ENOMEM with path
 * not taken. */
int ts_book_keep_temp(ts_book *b, char *path);
/* Remove the temporary file kept last (its text is of no use). */
void ts_book_drop_temp(ts_book *b);

/* Warnings said of one input; the rest are counted in one line (a file
 * of 300,000 empty headings would print 300,000 lines). */
#define TS_INTAKE_WARNINGS_MAX 20

/* One input's chapters as they are added to the book, and its warnings.
 * Fill in book, display and source (and hold), zero the rest; end with
 * ts_intake_done(). */
typedef struct ts_intake {
	ts_book *book;
	const char *display; /* the input's name in messages */
	const char *source;  /* the UTF-8 file the chapters are byte ranges of */
	int hold;            /* the input may be undone: keep its warnings back */
	size_t added;        /* chapters added */
	size_t skipped;      /* copies skipped (ts_intake_skip()) */
	ts_buf held;         /* warnings kept back, NUL-separated */
	size_t warned;       /* warnings of this input, said or not */
} ts_intake;

/* Add a chapter: its title (cut, control characters made spaces) and
 * where in it the heading spoken starts (0: all of it is), the byte range
 * [start, end) of its body in the source, the line it starts on, its
 * non-space characters.  A chapter with no text (but front matter) is
 * skipped with a warning.  0 or TS_ENOMEM. */
int ts_intake_chapter(ts_intake *in, const char *title, size_t spoken_at, int front, long start,
                      long end, long line, size_t chars);
/* A copy of the chapter before it, lines first..last, is skipped (the
 * warning is the caller's).  0 or TS_ENOMEM. */
int ts_intake_skip(ts_intake *in, long first, long last);
/* A warning about the input: said now, or kept back while in->hold. */
void ts_intake_warn(ts_intake *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The input is read.  keep: say the warnings kept back (and how many more
 * there were); else undo it: drop the chapters it added and its
 * warnings.  Frees what in holds either way. */
void ts_intake_done(ts_intake *in, int keep);

#endif
