/* lines.h - the one reader of data files (language tables, lexicons,
 * voice presets): a line at a time, from a regular file, a pipe or a
 * device alike, in memory bounded by the longest line the caller allows.
 *
 * A line comes without its newline, without the CR of a CRLF ending and,
 * on the first line, without a UTF-8 byte-order mark.  The reader counts
 * the lines for "FILE:LINE: ..." messages.  A line longer than the limit
 * is an error naming the file, the line and the limit: a file that is not
 * text (/dev/zero, a binary file) fails at once instead of filling
 * memory. */
#ifndef TS_LINES_H
#define TS_LINES_H

#include "base/error.h"

#include <stddef.h>

typedef struct ts_lines ts_lines;

/* Flags of ts_lines_open(). */
enum {
	/* Skip blank lines (nothing but spaces, tabs and CRs) and comment
	 * lines (# is the first character that is not one of them). */
	TS_LINES_SKIP_COMMENTS = 1,
};

/* Open the file at path to read lines of at most max_len bytes (not
 * counting the line ending; max_len > 0) with flags (TS_LINES_*).
 * Returns 0 with the reader in *r, or a negative code with *r NULL and
 * err (may be NULL) set: TS_ENOENT or TS_EIO with "PATH: errno's
 * message", TS_ENOMEM, TS_EINVAL for a max_len of 0.  Close the reader
 * with ts_lines_close(). */
int ts_lines_open(ts_lines **r, const char *path, size_t max_len, unsigned flags, ts_error *err);

/* Read the next line.  Returns 1 with *line (NUL-terminated; owned by the
 * reader, which the caller may change in place, valid until the next call)
 * and *len (its length: a NUL byte in the line counts), 0 at the end of
 * the file, or a negative code with ts_lines_errmsg() saying what:
 * TS_ETOOLONG ("FILE:LINE: line too long ...") or TS_EIO ("FILE: errno's
 * message").  After an error every call returns it again.  len may be
 * NULL. */
int ts_lines_next(ts_lines *r, char **line, size_t *len);

/* The number of the line last read (1 for the first), for messages. */
long ts_lines_lineno(const ts_lines *r);

/* The message of the error ts_lines_next() returned, or "". */
const char *ts_lines_errmsg(const ts_lines *r);

/* Close the file and free the reader; NULL does nothing. */
void ts_lines_close(ts_lines *r);

#endif
