/* userlex.h - pronunciation lexicons written by people: the names
 * lexicon a voice ships (voices/zh/names.txt), --lexicon FILE, and a
 * lexicon.txt beside the book.  Their readings override everything the
 * g2p stage would decide, so a name is fixed once for a whole book.
 *
 * Format: UTF-8 text, one entry a line, "词<TAB>pin1 yin1": the word (Han
 * characters), a tab, one tone-numbered syllable per character (tone 1-5,
 * 5 neutral; ü written v or ü).  '#' starts a comment line.  A bad line is
 * a warning naming file and line, and is skipped. */
#ifndef TS_USERLEX_H
#define TS_USERLEX_H

#include "input.h"

#include <stddef.h>

typedef struct ts_userlex ts_userlex;

/* New empty lexicon; NULL when out of memory. */
ts_userlex *ts_userlex_new(void);
/* ts_userlex_free(NULL) does nothing. */
void ts_userlex_free(ts_userlex *u);

/* Add the entries of the file at path; an entry for a word already there
 * replaces it (files loaded later win).  Bad lines go to diag as warnings
 * (level 0).  Returns 0, or TS_ENOENT / TS_EIO / TS_EUTF8 / TS_ENOMEM
 * with the reason passed to diag as an error (level 1). */
int ts_userlex_load(ts_userlex *u, const char *path, ts_diag_fn diag, void *ud);

size_t ts_userlex_count(const ts_userlex *u);

/* The longest entry that text[0..len) starts with: returns its length in
 * bytes and points *syllables at its reading ("hong2 cheng2 chou2",
 * owned by u), or returns 0. */
size_t ts_userlex_match(const ts_userlex *u, const char *text, size_t len, const char **syllables);

#endif
