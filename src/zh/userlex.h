/* userlex.h - pronunciation lexicons in plain text: the names lexicon a
 * voice ships (voices/zh/names.txt) and the user's own (--lexicon FILE,
 * lexicon.txt beside the book).  Their words override everything else the
 * g2p stage knows: wherever one appears, it is read as written.
 *
 * Format: UTF-8, one entry a line, "词<TAB>pin1 yin1": a word of Han
 * characters, a tab, one tone-numbered syllable per character (tone 5 =
 * neutral; ü may be written v, u: or ü).  # starts a comment.  An entry
 * written in simplified characters also matches the traditional spelling
 * of the word, and the other way round.  When a word is given twice, the
 * last reading counts; when two entries could read the same text, the one
 * that starts first, then the longer, wins.
 *
 * Bad-input policy: a line that is not an entry is skipped with a warning
 * naming the file and line (the first 20 of a file; the others are
 * counted in one more); the rest of the file is used.  A line longer
 * than 4096 bytes is an error (TS_ETOOLONG): the file is not a lexicon. */
#ifndef TS_USERLEX_H
#define TS_USERLEX_H

#include "zh/lexicon.h"

#include <stddef.h>
#include <stdint.h>

#define TS_USERLEX_MAX_WORD 32 /* characters */

typedef struct ts_userlex ts_userlex;

/* New, empty lexicon; lx (may be NULL) folds traditional characters, so
 * that one entry serves both scripts.  NULL when out of memory; free with
 * ts_userlex_free(). */
ts_userlex *ts_userlex_new(const ts_lexicon *lx);
void ts_userlex_free(ts_userlex *u);

/* Add the entries of the file at path; bad lines are skipped, the first
 * 20 each with a TS_WARNING to diag (may be NULL) with ud: "FILE:LINE:
 * why; line skipped", then one for the others: "FILE: and N more bad
 * lines skipped".  Returns 0, or TS_ENOENT, TS_EIO, TS_ETOOLONG,
 * TS_ENOMEM with err (may be NULL) set. */
int ts_userlex_load(ts_userlex *u, const char *path, ts_diag_fn diag, void *ud, ts_error *err);

/* Add one entry: word (UTF-8, Han only) read as pinyin (syllables
 * separated by spaces).  Returns 0, TS_EINVAL (*why says what is wrong)
 * or TS_ENOMEM. */
int ts_userlex_add(ts_userlex *u, const char *word, size_t wlen, const char *pinyin, size_t plen,
                   const char **why);

size_t ts_userlex_count(const ts_userlex *u);

/* The longest entry the text starts with: cp[0..n) are code points with
 * traditional characters folded (as ts_lexicon_cp(ts_lexicon_key())
 * gives them).  Returns its length in characters, 0 when none, and sets
 * *entry for ts_userlex_syllable(). */
size_t ts_userlex_match(const ts_userlex *u, const uint32_t *cp, size_t n, size_t *entry);

/* The k-th syllable of an entry, NUL-terminated ("hong2"). */
const char *ts_userlex_syllable(const ts_userlex *u, size_t entry, size_t k);

#endif
