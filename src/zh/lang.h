/* lang.h - the language data a voice reads, loaded at run time from a
 * data directory under voices/ (for Chinese: voices/zh/).
 *
 * lookalikes.tsv: "variant<TAB>standard" a line, # comments: characters
 * that corrupted web text uses in place of common ones (CJK Extension A
 * lookalikes such as 䦤 for 道), replaced before anything else reads the
 * text.  C code only interprets the tables; the tables are data.
 *
 * lexicon.bin: the pronunciation lexicon (see lexicon.h), made by
 * tools/build-lexicon.py.  Optional: without it the text goes to eSpeak as
 * characters and eSpeak decides the readings.
 *
 * polyphones.txt: context rules for the readings the lexicon leaves open
 * (see rules.h).  Read only with a lexicon; optional.
 *
 * g2pm.bin: the g2pM model (see g2pm.h), made by tools/build-g2pm.py from
 * the published weights (Apache-2.0, LICENSE.g2pm): a second opinion on
 * the readings no word decides.  Read only with a lexicon; optional.
 *
 * names.txt: the names lexicon (people and places: 洪承畴 hong2 cheng2
 * chou2), in the format of a user's lexicon (see userlex.h); optional.
 * Its words, and those of the user's lexicons added with
 * ts_lang_add_lexicon(), override everything else.
 *
 * surnames.txt: surnames read otherwise than their characters usually are
 * (单 shan4, 尉迟 yu4 chi2), in the same format, and name_cues.txt, a word
 * table of the words around them that tell a personal name (see
 * surname.h); both optional.
 *
 * dialogue_words.txt: the words that tell who says a quotation of a novel
 * (speech verbs, pronouns, words of a crowd ...), a word table whose
 * entries are WORD<TAB>KIND (see dialogue.h); optional, but without it
 * little dialogue is attributed.
 *
 * boilerplate.txt: the patterns of the lines of a web-novel file that
 * are the site's or the uploader's, not the story's, and are not spoken
 * (see boilerplate.h); optional: without it every line is spoken.
 *
 * The words the normalizer looks for around numbers and symbols, each
 * file optional (without it, nothing of its kind is recognized), in the
 * formats of wordtab.h and documented at the top of each: measures.txt
 * (2 read 两 before them: 两个), labels.txt (二月, 二号), hotlines.txt
 * (110报警), code_words.txt (房间1024), duration_words.txt (守了1000年),
 * per_words.txt (元/斤), dial_words.txt (拨打120), and the tables of
 * readings units.tsv (km -> 公里), currencies.tsv ($ -> 美元),
 * operators.tsv (+ -> 加) and symbols.tsv (& -> 和); and g2pm_skip.txt,
 * the characters the model is not asked about (see g2p.h). */
#ifndef TS_LANG_H
#define TS_LANG_H

#include "zh/boilerplate.h"
#include "zh/g2p.h"
#include "zh/g2pm.h"
#include "zh/lexicon.h"
#include "zh/rules.h"
#include "zh/userlex.h"
#include "zh/wordtab.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ts_lang ts_lang;

/* Load the data in dir.  Returns NULL with err (may be NULL) set on
 * failure, its message naming the file and line.  Free with
 * ts_lang_free(). */
ts_lang *ts_lang_load(const char *dir, ts_error *err);
void ts_lang_free(ts_lang *l);

/* The standard character for a lookalike, or 0 when cp is not one. */
uint32_t ts_lang_lookalike(const ts_lang *l, uint32_t cp);
size_t ts_lang_lookalike_count(const ts_lang *l);

/* The pronunciation lexicon, or NULL when the data has none.  Owned by
 * the ts_lang. */
const ts_lexicon *ts_lang_lexicon(const ts_lang *l);

/* The g2pM model as the converters of the lexicon ask it (see
 * ts_g2p_set_model()), with the characters of g2pm_skip.txt left out;
 * NULL when the data has no model.  Owned by the ts_lang. */
const ts_g2p_model *ts_lang_g2p_model(const ts_lang *l);

/* The polyphone context rules, or NULL.  Owned by the ts_lang. */
const ts_rules *ts_lang_rules(const ts_lang *l);

/* The names lexicon and the user's lexicons (never NULL for a loaded
 * lang).  Owned by the ts_lang. */
const ts_userlex *ts_lang_userlex(const ts_lang *l);

/* The surnames read as surnames where they start a personal name (empty
 * when the data has none; never NULL for a loaded lang).  Owned by the
 * ts_lang. */
const ts_userlex *ts_lang_surnames(const ts_lang *l);

/* The word tables of the normalizer, of g2p and of the dialogue, one for
 * each file. */
typedef enum ts_words {
	TS_WORDS_MEASURES,    /* measures.txt */
	TS_WORDS_LABELS,      /* labels.txt */
	TS_WORDS_HOTLINES,    /* hotlines.txt */
	TS_WORDS_CODES,       /* code_words.txt */
	TS_WORDS_DURATIONS,   /* duration_words.txt */
	TS_WORDS_PER,         /* per_words.txt */
	TS_WORDS_UNITS,       /* units.tsv */
	TS_WORDS_CURRENCIES,  /* currencies.tsv */
	TS_WORDS_OPERATORS,   /* operators.tsv */
	TS_WORDS_SYMBOLS,     /* symbols.tsv */
	TS_WORDS_DIALS,       /* dial_words.txt */
	TS_WORDS_MODEL_SKIP,  /* g2pm_skip.txt */
	TS_WORDS_NAME_CUES,   /* name_cues.txt */
	TS_WORDS_DIALOGUE,    /* dialogue_words.txt */
	TS_WORDS_BOILERPLATE, /* boilerplate.txt */
	TS_WORDS_N
} ts_words;

/* The table of which, or NULL when l is NULL or its data has no such
 * file (ts_wordtab_words() takes NULL as an empty table).  Owned by the
 * ts_lang. */
const ts_wordtab *ts_lang_words(const ts_lang *l, ts_words which);

/* The patterns of boilerplate.txt (see boilerplate.h), or NULL when l
 * is NULL or its data has none.  Owned by the ts_lang. */
const ts_boilerplate *ts_lang_boilerplate(const ts_lang *l);

/* Add a user's lexicon file (see userlex.h): its words override the
 * voice's.  Bad lines are skipped, each with a TS_WARNING to diag (may be
 * NULL).  Returns 0 or TS_ENOENT, TS_EIO, TS_ETOOLONG, TS_ENOMEM with err
 * (may be NULL) set. */
int ts_lang_add_lexicon(ts_lang *l, const char *path, ts_diag_fn diag, void *ud, ts_error *err);

#endif
