/* rules.h - context rules for the polyphones the lexicon leaves open,
 * loaded from the voice's language data (voices/zh/polyphones.txt).
 *
 * A rule says: read this character so when its context is so.  One rule a
 * line:
 *
 *     CHAR<TAB>SYLLABLE[<TAB>CONDITION...]
 *
 * with the conditions separated by spaces, all of which must hold:
 *
 *     prev=A|B|…   the text just before the character ends with A or B …
 *                  (each a string of characters; ^ stands for "no Han
 *                  character just before")
 *     next=A|B|…   the text just after starts with one of them ($: no Han
 *                  character just after)
 *     !prev=…, !next=…   none of them
 *     alone        the character is a word of its own
 *     prevlen=N, prevlen>=N   the word before it (in the same run of Han
 *                  characters) has N characters, or at least N; 0 when
 *                  there is none
 *
 * The rules of a character are tried in file order and the first that
 * matches decides; a rule without conditions is the character's reading
 * when no earlier rule matched (its reading as a word of its own).  When
 * none matches, the lexicon's most common reading is used.  Rules only
 * decide readings the lexicon leaves open: a character read in a word of
 * the lexicon keeps that word's reading.  # starts a comment.
 *
 * Bad-input policy: a line that is not a rule is an error naming the file
 * and the line; the data ships with the program, so a broken edit must not
 * go unnoticed. */
#ifndef TS_RULES_H
#define TS_RULES_H

#include "zh/lexicon.h"
#include "zh/sentence.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ts_rules ts_rules;

/* Load the rules in path; their syllables must be known to lx.  Returns
 * NULL with err (may be NULL) set to TS_ENOENT, TS_EIO, TS_EINVAL (a bad
 * line: "FILE:LINE: why"), TS_ETOOLONG (a line over 4096 bytes) or
 * TS_ENOMEM.  Free with ts_rules_free(). */
ts_rules *ts_rules_load(const char *path, const ts_lexicon *lx, ts_error *err);
void ts_rules_free(ts_rules *r);

/* The syllable the rules give the character at ctx->cp[i] (a Han
 * character), or -1 when no rule of it matches; a rule sees the text
 * around i and the words of its run (ctx->open is not read).  *line gets
 * the line of the rule (for explanations). */
int ts_rules_apply(const ts_rules *r, const ts_sentence *ctx, size_t i, int *line);

size_t ts_rules_count(const ts_rules *r);

#endif
