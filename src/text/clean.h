/* clean.h - remove what must not be spoken from the lines of a text.
 *
 * Web-scraped novels carry HTML tags and entities, site addresses,
 * decorative lines, placeholder boxes, invisible characters and
 * full-width Latin letters and digits.  This stage turns them into plain
 * speakable text: tags become paragraph breaks or nothing, entities
 * become characters, addresses and decoration vanish, full-width ASCII is
 * folded, spaces are folded into one ASCII space.  The policy in detail is
 * at the top of clean.c.
 *
 * The cleaner is streaming: a line may arrive in pieces of any size, cut
 * between characters, and memory stays bounded (a few kilobytes) whatever
 * the length of the line. */
#ifndef TS_CLEAN_H
#define TS_CLEAN_H

#include "base/util.h"

typedef struct ts_cleaner ts_cleaner;

/* New cleaner, at the start of a text.  NULL when out of memory; free
 * with ts_cleaner_free(). */
ts_cleaner *ts_cleaner_new(void);
void ts_cleaner_free(ts_cleaner *c);

/* Forget everything, as for a new text (a new chapter).  Per-line state
 * is reset by line_end anyway; this also ends an open comment, script or
 * style block, which otherwise carries over from line to line. */
void ts_cleaner_reset(ts_cleaner *c);

/* Clean text[0..len) (valid UTF-8, no newline), a piece of a line, and
 * append the result to out; line_end is set on the last piece of a line.
 * Out may receive '\n', meaning "paragraph break here" (from block tags
 * such as <p> or <br>): never at the start or end of a line's output and
 * never two in a row, and no space next to it.  A line's output never
 * starts or ends with a space.  Some text may be held back until the next
 * piece (a tag or address cut by the piece boundary); all of it is out
 * once the piece with line_end has been cleaned.  Returns 0 or
 * TS_ENOMEM. */
int ts_clean_piece(ts_cleaner *c, const char *text, size_t len, int line_end, ts_buf *out);

/* Pass on to out what waits for the next character (the last character,
 * for combining marks after it; an ASCII run, for an address), as an
 * inline tag between the pieces would: for a caller that must have all
 * the text so far (a change of voice).  A tag or entity cut by the last
 * piece, and a run of decoration symbols, still wait.  Returns 0 or
 * TS_ENOMEM. */
int ts_clean_flush(ts_cleaner *c, ts_buf *out);

#endif
