/* synth.h - speech synthesis with the eSpeak NG library.
 *
 * eSpeak NG keeps process-wide state, so a process has one synthesizer,
 * started once (eSpeak 1.51 cannot be restarted after a terminate);
 * parallelism is by worker processes.  Audio comes
 * back as 16-bit mono samples at ts_synth_rate(). */
#ifndef TS_SYNTH_H
#define TS_SYNTH_H

#include "base/util.h"
#include "speech/voice.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ts_synth ts_synth;

/* Samples produced for one piece of text; owned by the caller, grown by
 * ts_synth_speak(), released with ts_samples_free(). */
typedef struct ts_samples {
	int16_t *data;
	size_t len, cap;
} ts_samples;

void ts_samples_free(ts_samples *s);

/* Start eSpeak NG with voice v; rate_factor (> 0) scales v->rate.  eSpeak
 * finds its data on its own (Debian's /usr/lib/.../espeak-ng-data).
 * Returns NULL with err (may be NULL) set to TS_ESPEAK (with eSpeak's
 * message), TS_EBUSY or TS_ENOMEM on failure.  Free with ts_synth_free(). */
ts_synth *ts_synth_new(const ts_voice *v, double rate_factor, ts_error *err);
void ts_synth_free(ts_synth *s);

/* Speak with voice v from now on (v's eSpeak voice and variant, Latin
 * voice, pitch, and rate scaled by rate_factor), as if s had been started
 * with it: what dialogue read in the speakers' voices switches between.
 * Returns 0, or TS_ESPEAK (eSpeak's message in ts_synth_errmsg()) with
 * the voice before kept. */
int ts_synth_use(ts_synth *s, const ts_voice *v, double rate_factor);

/* Level the voices to lufs from now on, the current one included: a voice
 * whose preset gives its loudness (loudness_lufs) louder than that is
 * spoken at the eSpeak volume that brings it there (never louder than
 * eSpeak's own, whose samples already reach full scale); NAN: every voice
 * as eSpeak makes it. */
void ts_synth_level(ts_synth *s, double lufs);

int ts_synth_rate(const ts_synth *s);
/* The eSpeak speed actually used, in words per minute. */
int ts_synth_wpm(const ts_synth *s);

/* The version of eSpeak NG ("1.51"), and in *data_path (when not NULL)
 * the folder of its data, without starting it: part of what decides a
 * chapter's sound.  eSpeak's own static storage. */
const char *ts_synth_version(const char **data_path);

/* Speak text (UTF-8, NUL-terminated) and append the samples to out
 * (cleared first).  Returns 0, TS_ENOMEM or TS_ESPEAK. */
int ts_synth_speak(ts_synth *s, const char *text, ts_samples *out);

/* Speak text as ts_synth_speak() does, its samples given to sink as they
 * come (n > 0 each time); a sink's nonzero return (a negative code) stops
 * eSpeak, and is returned.  Returns 0, that code, TS_ESPEAK. */
typedef int (*ts_synth_sink_fn)(void *ud, const int16_t *s, size_t n);
int ts_synth_speak_to(ts_synth *s, const char *text, ts_synth_sink_fn sink, void *ud);

/* If text has Latin-script words, append to out SSML that has eSpeak read
 * them with the voice named latin and the rest with voice, and return 1;
 * else return 0 and leave out alone.  Negative on out of memory. */
int ts_ssml_markup(const char *text, const char *voice, const char *latin, ts_buf *out);

/* eSpeak's phoneme mnemonics for text (what it would say, as
 * `espeak-ng -x` prints them), appended to out, clauses separated by a
 * space.  For checking that eSpeak reads what the front end decided.
 * Returns 0 or TS_ENOMEM. */
int ts_synth_phonemes(ts_synth *s, const char *text, ts_buf *out);

/* eSpeak's message for the last error, or "". */
const char *ts_synth_errmsg(const ts_synth *s);

#endif
