/* g2pm.h - a learned second opinion on polyphones: the inference of g2pM
 * (Park & Lee, Interspeech 2020; kakaobrain/g2pM, Apache-2.0), a
 * bidirectional LSTM over the characters of a sentence that scores the
 * readings of one of them.
 *
 * The model: each character's embedding (64 values; characters it was
 * not trained on share the unknown one), one LSTM layer read forwards and
 * one backwards over the sentence between a begin and an end token (32
 * units each), and at the target the two hidden states through a dense
 * layer with ReLU (64 -> 32) and a dense layer giving one logit for each
 * of its reading classes (876 syllables).  The caller scores only the
 * readings the character has.  It follows the conventions of the CPP
 * benchmark it was trained on: no 一/不 sandhi, full tones where a
 * dictionary often reads a neutral one.
 *
 * The weights come from voices/zh/g2pm.bin, written by tools/build-g2pm.py
 * from the published weights; that script documents the format (version
 * 1).  The file is mapped and used in place, as the lexicon is: worker
 * processes share its pages.  Opening it checks all of it (sizes, offsets,
 * the character table's order and rows, the class names, every weight
 * finite), so inference trusts it.
 *
 * Cost: for each character of the text read, about 8,000 multiply-adds
 * and 320 exponentials; what a character's embedding adds to the gates,
 * 16,000 multiply-adds more, is computed the
 * first time a run of the process sees it and kept in the model (1 KB a
 * character): a model and its runs belong to one thread.  The
 * caller runs it only where its opinion is wanted. */
#ifndef TS_G2PM_H
#define TS_G2PM_H

#include "base/error.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ts_g2pm ts_g2pm;

/* Map the model file at path.  Returns NULL with err (may be NULL) set to
 * TS_ENOENT, TS_EIO (unreadable, or not a regular file), TS_EINVAL (not a
 * model of this version: truncated, corrupted; the message names the file
 * and what is wrong) or TS_ENOMEM.  Free with ts_g2pm_free(). */
ts_g2pm *ts_g2pm_open(const char *path, ts_error *err);
void ts_g2pm_free(ts_g2pm *m);

/* The number of reading classes, and the syllable of class k ("hang2",
 * "lv4"; not NUL-terminated, *len gets its length). */
unsigned ts_g2pm_nclass(const ts_g2pm *m);
const char *ts_g2pm_class(const ts_g2pm *m, unsigned k, size_t *len);

/* The class of the syllable s[0..n), or -1 when the model has none. */
int ts_g2pm_find_class(const ts_g2pm *m, const char *s, size_t n);

/* The readings the model chooses among for the character cp, as classes
 * into cls; their number (2 or more), or 0 when cp is not one of its
 * polyphones: then it has no opinion (it was not trained to have one). */
#define TS_G2PM_MAX_READINGS 6
unsigned ts_g2pm_readings(const ts_g2pm *m, uint32_t cp, int cls[TS_G2PM_MAX_READINGS]);

/* The working memory of one converter: the hidden states of the last
 * sentence encoded.  Not shared between threads. */
typedef struct ts_g2pm_run ts_g2pm_run;

/* New working memory for m, which must outlive it; NULL when out of
 * memory.  Free with ts_g2pm_run_free(). */
ts_g2pm_run *ts_g2pm_run_new(const ts_g2pm *m);
void ts_g2pm_run_free(ts_g2pm_run *r);

/* Run the LSTM over the sentence of code points cp[0..n).  Returns 0 or
 * TS_ENOMEM. */
int ts_g2pm_encode(ts_g2pm_run *r, const uint32_t *cp, size_t n);

/* The logits of the classes cls[0..k) (each below ts_g2pm_nclass()) for
 * character i (< n) of the sentence last encoded, into out[0..k): the
 * largest is the model's choice among them. */
void ts_g2pm_score(const ts_g2pm_run *r, size_t i, const int *cls, size_t k, float *out);

#endif
