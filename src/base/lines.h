/* lines.h - the one reader of data files (language tables, lexicons,
 * voice presets, rules, word tables, the state of a book): a line at a
 * time, in memory bounded by the longest line the caller allows.
 *
 * A line comes without its newline, without the CR of a CRLF ending and,
 * on the first line, without a UTF-8 byte-order mark.  The reader counts
 * the lines for "FILE:LINE: ..." messages.
 *
 * Every read is bounded.  A data file is a regular file: a FIFO, a
 * device (/dev/zero) or a folder is refused when opened, without waiting
 * for a writer or reading anything.  A file is at most
 * TS_LINES_SIZE_MAX bytes, which is checked when it is opened and again
 * as it is read (a file may grow, and some report no size).  A line
 * longer than the limit is an error naming the file, the line and the
 * limit: a file that is not text (a binary file) fails at once instead of
 * filling memory. */
#ifndef TS_LINES_H
#define TS_LINES_H

#include "base/error.h"

#include <stddef.h>

typedef struct ts_lines ts_lines;

/* The largest data file, in bytes: 64 MB.  The largest file tingshu
 * ships that is read this way is well under 1 MB, and a lexicon of 64 MB
 * holds some 3 million entries (ten times the lexicon of the voice) and
 * takes about 250 MB of memory once loaded: a file larger than that is
 * not a data file written by hand, or is a mistake. */
#define TS_LINES_SIZE_MAX (64L * 1024 * 1024)

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
 * message", TS_EINVAL with "PATH: not a regular file (it is a FIFO ...)"
 * or for a max_len of 0, TS_ETOOLONG with "PATH: too big for a data file
 * (N bytes; the limit is 64 MB)", TS_ENOMEM.  Close the reader with
 * ts_lines_close(). */
int ts_lines_open(ts_lines **r, const char *path, size_t max_len, unsigned flags, ts_error *err);

/* Read the next line.  Returns 1 with *line (NUL-terminated; owned by the
 * reader, which the caller may change in place, valid until the next call)
 * and *len (its length: a NUL byte in the line counts), 0 at the end of
 * the file, or a negative code with ts_lines_errmsg() saying what:
 * TS_ETOOLONG ("FILE:LINE: line too long ...", or "FILE: too big for a
 * data file ..." past TS_LINES_SIZE_MAX bytes) or TS_EIO ("FILE: errno's
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
