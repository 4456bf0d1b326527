/* clean.h - remove what must not be spoken from a line of text.
 *
 * This stage drops control characters, zero-width characters and byte
 * order marks, and folds runs of spaces (ASCII, no-break, ideographic)
 * into one ASCII space, trimming them at the ends of a paragraph.  It
 * works on pieces of a paragraph, keeping a little state between them. */
#ifndef TS_CLEAN_H
#define TS_CLEAN_H

#include "util.h"

typedef struct ts_cleaner {
	int at_start;       /* nothing kept yet in this paragraph */
	int space_pending;  /* a space to write before the next kept character */
} ts_cleaner;

/* Start a new paragraph. */
void ts_clean_begin(ts_cleaner *c);

/* Clean text[0..len) (valid UTF-8) and append the result to out.
 * Returns 0 or TS_ENOMEM. */
int ts_clean_piece(ts_cleaner *c, const char *text, size_t len, ts_buf *out);

#endif
