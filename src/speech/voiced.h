/* voiced.h - a chapter read in its speakers' voices (tingshu build
 * --dialogue voices): its text through the front end paragraph by
 * paragraph, each quotation in its speaker's voice (casting.h), and the
 * quotations' audio, spoken first, voice by voice, so that eSpeak NG
 * changes voice once per voice heard rather than twice per quotation
 * (see voiced.c). */
#ifndef TS_VOICED_H
#define TS_VOICED_H

#include "speech/casting.h"
#include "input/reader.h"
#include "zh/lang.h"
#include "base/error.h"
#include "speech/frontend.h"
#include "speech/synth.h"
#include "speech/voice.h"

/* Dialogue read in the speakers' voices (tingshu build --dialogue voices):
 * the book's speakers learnt (both readings of d done once for the whole
 * book, so that each chapter is attributed the same whatever else was
 * read: see ts_dialogue_book()), and the presets they are cast in. */
typedef struct ts_voicing {
	ts_dialogue *dialogue;
	ts_voice_cache *voices;
} ts_voicing;

/* Told the voice and the speaker (NULL: narration) of the text about to
 * be fed. */
typedef void (*ts_voice_fn)(void *ud, const ts_voice *v, const char *speaker);

/* As a plain reading of rd into fe, a paragraph at a time, its quotations
 * in their voices: fn(ud, ...) is told the voice and speaker of each span
 * before it is fed, and a clause ends where either changes, so that no
 * chunk (and no cue) has two.  The chapter's dialogue of vo is started
 * afresh, so that every reading of a chapter is the same.  narrator is
 * the narrator's voice.  Returns 0, the front end's error, or the
 * reader's (TS_EIO). */
int ts_feed_voiced(ts_reader *rd, ts_frontend *fe, const ts_voicing *vo, const ts_voice *narrator,
                   ts_voice_fn fn, void *ud);

/* The audio of one chapter's quotations, spoken first, voice by voice. */
typedef struct ts_quote_audio ts_quote_audio;

/* The quotations' audio of chapter ch, whose narrator is narrator, for
 * its audio at path (the samples wait in that folder): all three must
 * outlive it.  NULL when out of memory; free with ts_quote_audio_free(). */
ts_quote_audio *ts_quote_audio_new(const ts_chapter *ch, const char *path,
                                   const ts_voice *narrator);

/* The first reading of the chapter (ts_feed_chapter(), as the second
 * reads it): its next chunk, text (NUL-terminated) to be spoken in voice
 * v; only a quotation's (v is not the narrator) is kept to be spoken.  0
 * or TS_ENOMEM. */
int ts_quote_audio_list(ts_quote_audio *qa, const ts_voice *v, const char *text);

/* Speak the quotations the first reading listed, voice by voice, with syn
 * (rate_factor scaling each preset's rate) and pcm as scratch; *cur gets
 * the synthesizer's voice.  0, or a code with err filled. */
int ts_quote_audio_speak(ts_quote_audio *qa, ts_synth *syn, double rate_factor, ts_samples *pcm,
                         const ts_voice **cur, ts_error *err);

/* The samples of the second reading's next chunk, in voice want, into
 * pcm: 0 when they were spoken first, 1 for the narrator's chunk, to be
 * spoken now, or a code with err filled. */
int ts_quote_audio_take(ts_quote_audio *qa, const ts_voice *want, ts_samples *pcm, ts_error *err);

/* The second reading is over: 0 when it took every chunk of the first,
 * or an internal error (TS_EINVAL) with err filled. */
int ts_quote_audio_end(const ts_quote_audio *qa, ts_error *err);

/* Closes the file of the samples (nothing is left of it) and frees qa;
 * NULL does nothing. */
void ts_quote_audio_free(ts_quote_audio *qa);

#endif
