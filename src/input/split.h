/* split.h - a UTF-8 text file cut into chapters at its headings.
 *
 * A book (a .txt file of a whole novel) is cut at every line that
 * zh/heading.h takes for a chapter heading; the text before the first is
 * its front matter, whose first short line names the book.  A chapter
 * file (one of a folder) is one chapter, named by its first line when
 * that is a heading, else by its file name.  The file is read once, in
 * blocks, and only byte ranges are kept, so memory does not depend on the
 * length of the file or of its lines. */
#ifndef TS_INPUT_SPLIT_H
#define TS_INPUT_SPLIT_H

#include "input/book.h"

/* Where a TS_SCAN_TRY scan met something that is not UTF-8 text. */
typedef struct ts_utf8_fault {
	long line, offset;
	unsigned char byte; /* the first byte that is not UTF-8 (0 for NUL) */
} ts_utf8_fault;

enum ts_scan_mode {
	TS_SCAN_TRY,    /* the file may not be UTF-8: stop quietly at the first fault */
	TS_SCAN_STRICT, /* the file is UTF-8 (its mark, --encoding or our decoding says so) */
};
#define TS_NOT_UTF8 1 /* ts_split_file() in TS_SCAN_TRY mode: the file is not UTF-8 text */

/* Add the chapters of the UTF-8 file at path (called display in
 * messages) to b.  book: split at headings; else the file is one chapter.
 * In TS_SCAN_TRY mode a byte that is not UTF-8 text (invalid, or NUL)
 * undoes the scan - the chapters it added are dropped, its warnings too -
 * and returns TS_NOT_UTF8 with *fault filled, so that the caller can
 * decode the file and scan again; in TS_SCAN_STRICT mode it is an error
 * (fault may be NULL).  A scan stopped by the caller (TS_ECANCELED) is
 * undone too.  The first file scanned names the book, and the book's
 * text path becomes path.  0, or a negative code reported to b. */
int ts_split_file(ts_book *b, const char *path, const char *display, int book,
                  enum ts_scan_mode mode, ts_utf8_fault *fault);

/* The name of the file at path without its folder and its .txt: what a
 * chapter or a book is called when nothing else names it.  NULL when out
 * of memory; the caller frees it. */
char *ts_split_stem(const char *path);

#endif
