/* reading.h - what a book is read with: the voice preset, the language
 * data beside it, and the user's lexicons (a lexicon.txt beside each
 * input, then each --lexicon file), loaded once for a build or for
 * `tingshu text` / `pinyin`. */
#ifndef TS_READING_H
#define TS_READING_H

#include "speech/voice.h"
#include "tingshu.h"
#include "zh/lang.h"

typedef struct ts_reading {
	ts_voice voice;
	ts_lang *lang; /* owned; NULL until loaded */
} ts_reading;

/* Find the voices folder, load the preset o->voice and its language data,
 * then the lexicons beside inputs and o->lexicons (warnings about their
 * lines go to diag).  Returns 0, or TS_EVOICE with err filled.  Free
 * with ts_reading_free(), also after a failure. */
int ts_reading_load(ts_reading *r, const ts_read_opts *o, char *const *inputs, size_t ninputs,
                    ts_diag_fn diag, void *ud, ts_error *err);
void ts_reading_free(ts_reading *r);

/* Find the voices folder as ts_read_opts says into dir: 0, or TS_EVOICE
 * with err saying where it looked. */
int ts_reading_voices_dir(const char *voices_dir, char *dir, size_t sz, ts_error *err);

#endif
