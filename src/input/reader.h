/* reader.h - the text of a chapter, read in bounded pieces.
 *
 * A chapter (book.h) is a byte range of a UTF-8 file; whoever speaks it
 * reads it here a piece at a time, so that memory does not depend on the
 * length of a chapter or of its lines.  A whole file can be read the same
 * way, checked and decoded as a book's input is (`tingshu text`). */
#ifndef TS_INPUT_READER_H
#define TS_INPUT_READER_H

#include "input/book.h"
#include "zh/boilerplate.h"

#include <signal.h>
#include <stddef.h>

typedef struct ts_reader ts_reader;

/* Open the body of ch; NULL with *err set on failure. */
ts_reader *ts_reader_open(const ts_chapter *ch, int *err);
/* Next piece of text: *text points into the reader's buffer (valid until
 * the next call), *len bytes, cut at a character boundary, at most about
 * 16 KB, with no line ending; *line_end is set when the piece ends a line.
 * Returns 1 for a piece, 0 at the end of the body, or a negative code. */
int ts_reader_next(ts_reader *r, const char **text, size_t *len, int *line_end);
/* From now on, drop the lines of bp (boilerplate.h; NULL: none) with
 * flags (TS_BOILERPLATE_*): a line dropped comes as an empty line, a
 * heading's request is cut off its line, and fn (may be NULL) is told of
 * each with its line, counted from 1 at the start of the body.  Lines
 * longer than a piece are not judged.  0, or TS_ENOMEM. */
int ts_reader_set_filter(ts_reader *r, const ts_boilerplate *bp, unsigned flags, ts_dropped_fn fn,
                         void *ud);
/* Open all of the text of a file (or "-"), checked and decoded like a
 * book input (encoding: an iconv name, or NULL to detect it), headings
 * included, as one body: for showing the text as it will be spoken.  The
 * lines of a chapter's copy that a build skips (split.c) come as empty
 * lines, and the filter's fn is told of them ("chapter repeated"); the
 * input's warnings (that one, a chapter with no text ...) go to diag(ud)
 * (may be NULL), as a build says them.  Reading and decoding stop when
 * *cancel is set (see ts_book_set_cancel(); cancel may be NULL).  NULL
 * with err filled on failure (TS_ECANCELED when stopped).  The temporary
 * copies it needs are removed by ts_reader_free(). */
ts_reader *ts_reader_open_file(const char *path, const char *encoding,
                               volatile sig_atomic_t *cancel, ts_diag_fn diag, void *ud,
                               ts_error *err);
/* ts_reader_free(NULL) does nothing. */
void ts_reader_free(ts_reader *r);

#endif
