/* surname.h - a surname that starts a personal name in running text, to
 * be read as a surname: 单先生 shàn, 姓解 xiè, 曾国藩说 zēng, 尉迟恭 yù chí.
 *
 * The surnames and their readings are a table of the language data
 * (voices/zh/surnames.txt, in the format of a user's lexicon), the words
 * that tell a name another (name_cues.txt: a word table whose entries are
 * WORD<TAB>KIND, the kinds documented at its top).  A surname of one
 * character must be a word of its own in the segmentation (so 简单, 单位,
 * 曾经 keep their readings) and is taken for one when
 *   - a "before" cue ends just before it (姓单);
 *   - unless it is "strict" (那, 过, 种 ...: frequent words): when a
 *     "familiar" cue is a word just before it and no Han character or a
 *     "verb" follows it (老单, 老单说);
 *   - and where a name can start there (no Han character before it, a
 *     "notname" one, or the end of a longer word: not 黄佩华先生): when a
 *     "title", a "suffix" or an "office" follows it (单先生, 单某, 单老师;
 *     no office after a "nooffice" surname: 曹操任丞相), or when a given
 *     name of one or two characters, each a word of its own and none a
 *     "notname" one, and then a "title" or a "verb" follow it
 *     (单田芳说, 单田芳大人); the same where the name is a word of the
 *     lexicon that does not say how it is read (单田芳), or the surname
 *     and a title are one (仇先生).
 * A double surname is taken for one wherever it is not part of a longer
 * word.  Everything is decided within the text given: no memory of names
 * across calls, so that a chunk reads the same wherever it is. */
#ifndef TS_SURNAME_H
#define TS_SURNAME_H

#include "zh/sentence.h"
#include "zh/userlex.h"
#include "zh/wordtab.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ts_surnames ts_surnames;

/* Is every entry of cues of a kind named in name_cues.txt?  0, or
 * TS_EINVAL with err set ("FILE: WORD: unknown kind 'KIND'"; file names
 * the table). */
int ts_surnames_check_cues(const ts_wordtab *cues, const char *file, ts_error *err);

/* New finder of the surnames of table with the cues of cues (both must
 * outlive it; cues may be NULL: then only double surnames are found).
 * Entries of cues of an unknown kind (see ts_surnames_check_cues()) are
 * ignored.  NULL when out of
 * memory; free with ts_surnames_free(). */
ts_surnames *ts_surnames_new(const ts_userlex *table, const ts_wordtab *cues);
void ts_surnames_free(ts_surnames *s);

/* The table of surnames s was made with. */
const ts_userlex *ts_surnames_table(const ts_surnames *s);

/* Does a personal name start at x->cp[i] with a surname?  x->open must
 * be set (a name is only taken where no word of the lexicon reads it).  Returns the
 * surname's length in characters (0: no) and sets *entry, for
 * ts_userlex_syllable() of the table, and *given, the length of the given
 * name seen after it (0 when the cue told no given name). */
size_t ts_surname_at(const ts_surnames *s, const ts_sentence *x, size_t i, size_t *entry,
                     size_t *given);

#endif
