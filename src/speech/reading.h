/* reading.h - what a book is read with: the voice preset, the language
 * data beside it, and the user's lexicons (a lexicon.txt beside each
 * input, then each --lexicon file), loaded once for a build or for
 * `tingshu text` / `pinyin`. */
#ifndef TS_READING_H
#define TS_READING_H

#include "base/error.h"
#include "base/util.h"
#include "speech/voice.h"
#include "zh/lang.h"

#include <stddef.h>

enum { TS_LEXICONS_MAX = 64 }; /* --lexicon files */

/* What a text is read with: the voice preset and its language data, the
 * encoding of the inputs, the user's lexicons.  Part of the library's
 * interface: tingshu.h includes this header for it. */
typedef struct ts_read_opts {
	const char *voice;      /* preset name or path to a .voice file; NULL: TS_VOICE_DEFAULT */
	const char *voices_dir; /* NULL: $TINGSHU_VOICES, beside the program, installed */
	const char *encoding;   /* an iconv name, or NULL to detect each input's */
	const char *lexicons[TS_LEXICONS_MAX]; /* the user's, later ones win */
	size_t nlexicons;
	int keep_notes; /* speak the author's notes of a web novel (boilerplate.h) */
} ts_read_opts;

typedef struct ts_reading {
	ts_voice voice;
	ts_lang *lang; /* owned; NULL until loaded */
	/* The lines of a web novel not spoken: the language data's
	 * boilerplate patterns (may be NULL) and TS_BOILERPLATE_* flags. */
	const ts_boilerplate *boilerplate;
	unsigned boilerplate_flags;
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

/* Each preset of the voices folder (voices_dir as in ts_read_opts), in
 * order: fn gets its name and description, or NULL and the reason it
 * cannot be loaded.  Returns the number of presets, or a negative code
 * with err filled when the folder cannot be found or read; none at all
 * is 0 with err's message saying so (its code 0). */
int ts_voices_each(const char *voices_dir,
                   void (*fn)(void *ud, const char *name, const char *description,
                              const char *error),
                   void *ud, ts_error *err);

/* The list of `tingshu voices`: a line a preset, "NAME  DESCRIPTION", the
 * default marked; a preset that cannot be loaded is a warning to diag and
 * counted in *bad; none at all is a warning too.  Returns 0, the code out
 * returned, or a negative code with err filled when the folder cannot be
 * found (TS_EVOICE) or read. */
int ts_voices_print(const char *voices_dir, ts_write_fn out, void *out_ud, ts_diag_fn diag,
                    void *ud, size_t *bad, ts_error *err);

#endif
