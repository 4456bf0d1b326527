/* casting.h - the voices of a paragraph when dialogue is read in the
 * speakers' voices (tingshu build --dialogue voices, issue 19).
 *
 * A paragraph is cut into spans that cover it in order: narration, in the
 * narrator's voice, and each quotation, in its speaker's voice: the
 * cast's preset, or without one (or when it does not load) a preset of the
 * pool of cast voices, by its rank or its name (ts_voice_cache_pool():
 * female for a speaker the book writes of as a woman).  A quotation of "-" (no one
 * person's speech) or "?" (cannot be told) is read by the narrator. */
#ifndef TS_CASTING_H
#define TS_CASTING_H

#include "input/book.h"
#include "speech/voice.h"
#include "zh/dialogue.h"

#include <stddef.h>

typedef struct ts_voice_span {
	size_t start, end;     /* byte offsets into the paragraph */
	const ts_voice *voice; /* the narrator's or a speaker's */
	const char *speaker;   /* NULL for narration; a name, "-" or "?" (valid while d is) */
} ts_voice_span;

typedef struct ts_casting {
	ts_voice_span *spans;
	size_t n, cap;
} ts_casting;

/* The spans of paragraph p[0..n) (the second reading of d: see
 * ts_dialogue_attribute()) into c (its spans replaced; free with
 * ts_casting_free()).  Presets come from vc; narrator is the narrator's
 * voice.  Empty narration between quotations makes no span.  Returns 0 or
 * TS_ENOMEM. */
int ts_casting_paragraph(ts_casting *c, ts_dialogue *d, ts_voice_cache *vc,
                         const ts_voice *narrator, const char *p, size_t n);
void ts_casting_free(ts_casting *c);

/* The voice of one quotation, as ts_casting_paragraph() gives it. */
const ts_voice *ts_casting_voice(ts_voice_cache *vc, const ts_voice *narrator,
                                 const ts_attribution *a);

/* The cast file cast (NULL: a cast.txt beside files[0], if there is one)
 * into dl, bad lines as warnings to diag (see ts_dialogue_cast_file()),
 * each voice a preset of voices_dir (as in ts_read_opts; NULL: the
 * default folder).  Returns 1 when a cast file was read, 0 when there is
 * none, or a negative code with err filled when it cannot be read, names
 * a voice that does not exist ("FILE:LINE: ...") or *cancel was set
 * (TS_ECANCELED) (speakers.c). */
int ts_cast_load(ts_dialogue *dl, const char *cast, char *const *files, size_t nfiles,
                 const char *voices_dir, volatile sig_atomic_t *cancel, ts_diag_fn diag, void *ud,
                 ts_error *err);

/* Both readings of the whole book b by dl (learn, settle, attribute), as
 * `tingshu speakers` does: a chapter is then attributed the same whatever
 * other chapters are read after.  The lines of bp (may be NULL) with
 * flags (TS_BOILERPLATE_*) are not read, as they are not spoken.  Each
 * attribution to fn (may be NULL).  0, or a negative code (speakers.c). */
int ts_dialogue_book(ts_dialogue *dl, const ts_book *b, const ts_boilerplate *bp, unsigned flags,
                     ts_attribution_fn fn, void *ud);

#endif
