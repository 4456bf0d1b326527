/* finish.h - stitch pieces of speech into one chapter track.
 *
 * eSpeak pads each piece of speech with its own silence.  The finisher
 * trims that, smooths the cut edges with a short fade (no clicks), and
 * puts exactly the preset's pause before each piece, so that what the
 * listener hears between sentences is what the voice preset says. */
#ifndef TS_FINISH_H
#define TS_FINISH_H

#include "text/segment.h"
#include "speech/voice.h"

#include <stddef.h>
#include <stdint.h>

/* Where the finished samples go. */
typedef int (*ts_sink_fn)(void *ud, const int16_t *s, size_t n);

typedef struct ts_finisher ts_finisher;

/* Each piece of speech starts at a multiple of TS_FINISH_ALIGN samples,
 * its pause a little longer (at most 0.7 ms at 22,050 Hz): what an edit
 * moves, it moves by a multiple of the limiter's segment (master.c), so
 * that the sentences after it are leveled to the same samples as before,
 * and their AAC is kept (aac.h). */
#define TS_FINISH_ALIGN 16

/* New finisher at rate Hz using v's pauses; NULL when out of memory. */
ts_finisher *ts_finish_new(int rate, const ts_voice *v, ts_sink_fn sink, void *ud);
void ts_finish_free(ts_finisher *f);

/* Add one piece of speech that follows a break of kind brk.  A piece with
 * no sound leaves its break pending for the next one (the longer break
 * wins).  *start and *end (if non-NULL) get the sample positions of the
 * speech written, equal when there was none.  Returns 0 or the sink's
 * error. */
int ts_finish_add(ts_finisher *f, const int16_t *s, size_t n, ts_break brk, uint64_t *start,
                  uint64_t *end);

/* End the track: write the closing silence. */
int ts_finish_end(ts_finisher *f);

/* Samples written so far. */
uint64_t ts_finish_position(const ts_finisher *f);

/* Exposed for tests: the trimmed span of s[0..n) as [*a, *b). */
void ts_finish_trim(const int16_t *s, size_t n, size_t *a, size_t *b);

/* Samples below this magnitude count as silence (about -60 dBFS). */
#define TS_SILENCE_LEVEL 32
/* Length of the fade at each cut edge, in milliseconds. */
#define TS_FADE_MS 3

#endif
