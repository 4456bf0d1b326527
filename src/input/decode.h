/* decode.h - a text input as UTF-8 on disk: the encoding policy that
 * decides whether a file is read as it is or decoded first, and the
 * temporary files that hold what an input becomes (decoded text, standard
 * input's copy, an EPUB's text and cover), with the sweep of those that
 * killed runs left behind. */
#ifndef TS_INPUT_DECODE_H
#define TS_INPUT_DECODE_H

#include "input/book.h"

#include <stdio.h>

/* What encoding detection reads of the start of a text. */
#define TS_INPUT_SAMPLE (256 * 1024)

/* Scan the text file at path (called display in messages) into chapters
 * of b, decoding it into a UTF-8 temporary file first when it is not
 * UTF-8 (the policy is written down at the function, in decode.c).
 * book: split it at its headings (a book), else it is one chapter.
 * 0, or a negative code reported to b. */
int ts_input_scan(ts_book *b, const char *path, const char *display, int book);

/* Make a temporary file TMPDIR/tingshu-WHAT-PID@HOST-XXXXXX that b owns
 * (ts_book_free() removes it, ts_book_drop_temp() before), for input
 * display.  *fp is open for writing (the caller closes it); *path is
 * valid until b is freed.  0, or a negative code reported to b. */
int ts_input_temp(ts_book *b, const char *what, const char *display, FILE **fp, const char **path);

/* The code of a failure (errno e) to write a temporary file: the
 * machine's fault, not the input's (TS_ETEMP for an I/O error: the build
 * stops; see ts_plan_new()). */
int ts_input_temp_code(int e);

/* Remove the temporary files that runs of this machine killed before they
 * could remove them left in TMPDIR. */
void ts_input_sweep(void);

#endif
