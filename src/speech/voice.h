/* voice.h - voice presets: what eSpeak voice to use and how to pace it.
 *
 * A preset is a small text file, NAME.voice, in a voices directory:
 *
 *     # comment
 *     description = Mandarin, male
 *     espeak_voice = cmn-latn-pinyin
 *     variant = f3
 *     rate = 165
 *     ...
 *
 * Unknown keys and bad values are errors that name the file and line, and
 * so are a variant and a latin_voice that eSpeak NG does not have. */
#ifndef TS_VOICE_H
#define TS_VOICE_H

#include "base/error.h"

#include <stddef.h>

/* The preset read when none is asked for (voices/cmn.voice): the one
 * place its name is written. */
#define TS_VOICE_DEFAULT "cmn"

typedef struct ts_voice {
	char name[64];
	char description[160];
	char espeak_voice[64];
	char variant[64];     /* eSpeak variant ("" for none) */
	char latin_voice[64]; /* eSpeak voice for Latin-script words ("en") */
	char language[64];    /* language data directory beside the presets ("zh") */
	int rate;             /* eSpeak words per minute, 80-450 */
	int pitch;            /* 0-100 */
	int pitch_range;      /* 0-100 */
	int clause_pause_ms;  /* between the chunks of a long sentence */
	int sentence_pause_ms;
	int paragraph_pause_ms;
	int title_pause_ms; /* after the spoken chapter title */
	int lead_in_ms;     /* silence at the start of each chapter file */
	int tail_ms;        /* silence at the end */
	/* The loudness of its speech as eSpeak makes it (LUFS, measured by
	 * tools/voice-loudness.sh), or NAN: what --dialogue voices levels
	 * the voices of a book by (ts_synth_level). */
	double loudness_lufs;
} ts_voice;

/* Fill v with the built-in defaults (the default preset's values, named
 * TS_VOICE_DEFAULT). */
void ts_voice_defaults(ts_voice *v);

/* Load a preset file.  Returns 0 or TS_EVOICE / TS_ENOENT / TS_EIO /
 * TS_ETOOLONG (a line over 4096 bytes) with err (may be NULL) set, its
 * message "file:line: what". */
int ts_voice_load(ts_voice *v, const char *path, ts_error *err);

/* Find voice NAME in dir (dir/NAME.voice) and load it; NAME may also be a
 * path to a preset file.  Same returns as ts_voice_load(). */
int ts_voice_find(ts_voice *v, const char *dir, const char *name, ts_error *err);

/* List the presets in dir: fills *names with a sorted array of n names
 * (the caller frees each and the array).  Returns n or a negative code. */
int ts_voice_list(const char *dir, char ***names);

/* Find the voices directory: explicit (if non-NULL), $TINGSHU_VOICES,
 * then beside the executable (../share/tingshu/voices, then voices/ in a
 * build tree), then the install path compiled in.  Writes it to out and
 * returns 0, or TS_ENOENT. */
int ts_voices_dir(const char *explicit_dir, char *out, size_t outsz);

/* The presets a build switches between (the voices of a cast), each
 * loaded once.  A name that failed fails again without a second reading. */
typedef struct ts_voice_cache ts_voice_cache;

/* A cache of the presets in dir (copied); NULL when out of memory.  Free
 * with ts_voice_cache_free() (NULL does nothing). */
ts_voice_cache *ts_voice_cache_new(const char *dir);
void ts_voice_cache_free(ts_voice_cache *c);

/* Preset name (as ts_voice_find()), valid until the cache is freed; NULL
 * with err (may be NULL) set as ts_voice_find() set it, or TS_ENOMEM. */
const ts_voice *ts_voice_cache_get(ts_voice_cache *c, const char *name, ts_error *err);

/* The pool of cast voices: the presets of the speakers a cast gives no
 * voice, in the file cast_pool.txt of the voices directory (a directory
 * of the user's without one uses the shipped one), a word table (see
 * zh/wordtab.h) whose entries are PRESET<TAB>male or PRESET<TAB>female.
 * A speaker of rank r (see ts_attribution.rank) gets the r-th preset of
 * its sex, counting round; one of rank -1 a preset chosen by a hash of
 * its name, the same every time.  Returns the preset's name (valid until
 * the cache is freed), or NULL when the pool has no preset of that sex
 * (or its file cannot be read): then the narrator reads. */
const char *ts_voice_cache_pool(ts_voice_cache *c, int female, int rank, const char *speaker);

#endif
