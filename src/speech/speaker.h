/* speaker.h - a long text spoken in pieces, each piece from the same
 * state of eSpeak NG, so that what an edit changes is the piece it is in.
 *
 * eSpeak carries state from one text to the next (its pitch flutter's
 * phase, its filters, rand()): a sentence does not sound the same after
 * other sentences, and one word changed early in a chapter changes the
 * samples of every sentence after it, hence all of the chapter's AAC
 * (audio/aac.h), whose pieces are kept only while their samples are.
 * eSpeak's state cannot be set back (it is in the library's statics), but
 * a process can be made with it.  The spawner is a process forked once,
 * with eSpeak as it is then, that does nothing but fork a process for
 * each piece, which speaks the piece's texts and sends their samples
 * back: the samples of a piece depend on its texts only.  The pieces are
 * forked from a process that writes no memory, not from the one that
 * speaks the chapter, whose pages would all be copied again after each
 * fork.
 *
 * A piece ends before a text that may start one (a paragraph's first)
 * once the piece has TS_SPEAKER_MIN bytes of text and that text's hash is
 * a multiple of TS_SPEAKER_ODDS, or it has TS_SPEAKER_MAX bytes: chosen by
 * what is said, not where, so that the pieces after an edit are cut as
 * they were. */
#ifndef TS_SPEAKER_H
#define TS_SPEAKER_H

#include "base/error.h"
#include "speech/synth.h"

#include <stddef.h>

enum { TS_SPEAKER_MIN = 1200, TS_SPEAKER_ODDS = 4, TS_SPEAKER_MAX = 6000 };

typedef struct ts_spawner ts_spawner;

/* Fork the spawner, with syn's eSpeak as it is now (not to be used by
 * this process to speak from now on, so that a fork of it starts from
 * the same state).  NULL with err set (TS_ECHILD, TS_ENOMEM) on failure. */
ts_spawner *ts_spawner_start(ts_synth *syn, ts_error *err);

/* Is it there to fork pieces?  Not once a piece's process died, or a
 * speaker gave up on one (ts_speaker_speak() failed with TS_ECHILD):
 * stop it and start another. */
int ts_spawner_alive(ts_spawner *z);

/* *z alive, or stopped and started again (*z NULL: started).  0, or a
 * code with err set and *z NULL. */
int ts_spawner_ready(ts_spawner **z, ts_synth *syn, ts_error *err);

/* End the spawner and free z (may be NULL). */
void ts_spawner_stop(ts_spawner *z);

typedef struct ts_speaker ts_speaker;

/* A speaker of texts in pieces forked by z, which it has to itself until
 * ts_speaker_free().  NULL when out of memory. */
ts_speaker *ts_speaker_new(ts_spawner *z);

/* End the piece's process, if any, and free sp (may be NULL). */
void ts_speaker_free(ts_speaker *sp);

/* Speak text (UTF-8, NUL-terminated) into out (cleared first), as
 * ts_synth_speak() does, in the current piece, or first in a new one when
 * text may start one (may_start) and the rule above says so.  Returns 0,
 * TS_ENOMEM, TS_ESPEAK or TS_ECHILD (no process could be made, or it
 * died), with the message in ts_speaker_errmsg(). */
int ts_speaker_speak(ts_speaker *sp, const char *text, int may_start, ts_samples *out);

/* Pieces begun so far. */
size_t ts_speaker_pieces(const ts_speaker *sp);

const char *ts_speaker_errmsg(const ts_speaker *sp);

#endif
