/* g2p.h - grapheme to phoneme for Chinese: the tone-numbered pinyin of
 * every Han character, decided here so that eSpeak NG says exactly that.
 *
 * Each run of Han characters is segmented into the words of the lexicon
 * by maximum probability (a DAG of the lexicon's words over the run, the
 * path with the largest sum of ln(freq/total), as jieba does); a
 * character takes its reading from its word; where the word leaves it open
 * (a one-character word, or a polyphone the word does not settle) the
 * context rules of the voice decide, and failing them the character's
 * most common reading.  Where a model is set (see ts_g2p_set_model()),
 * it gives a second opinion on those readings the words left open, and
 * overrides the rule or the default when it is sure enough.  Then 一 and
 * 不 get their tone sandhi and the particles their neutral tone.  3-3
 * sandhi is left to eSpeak.
 *
 * A conversion works on one piece of text at a time (a chunk or a line)
 * and sees no context beyond it. */
#ifndef TS_G2P_H
#define TS_G2P_H

#include "zh/g2pm.h"
#include "zh/lexicon.h"
#include "zh/rules.h"
#include "zh/surname.h"
#include "zh/userlex.h"
#include "zh/wordtab.h"
#include "base/util.h"

#include <stddef.h>

typedef struct ts_g2p ts_g2p;

/* New converter using the lexicon lx, the context rules and the user's
 * lexicons (both may be NULL), which must outlive it.  A word of the
 * user's lexicons is read as written, before and instead of anything
 * else.  NULL when out of memory; free with ts_g2p_free(). */
ts_g2p *ts_g2p_new(const ts_lexicon *lx, const ts_rules *rules, const ts_userlex *user);
void ts_g2p_free(ts_g2p *g);

/* Convert text[0..len) (valid UTF-8).  Appends to spoken (may be NULL)
 * the text for eSpeak: every Han character replaced by its syllable
 * ("hang2"), syllables separated by a space, everything else kept as it
 * is.  Appends to tokens (may be NULL) the syllables alone, one per Han
 * character, separated by single spaces (a Han character the lexicon does
 * not know stands for itself in both).  A TS_READ_MARK in text is
 * dropped, and the token of the Han character after it is written in
 * brackets ("[huo4]"): the normalizer said that character for a digit or
 * a symbol.  Returns 0 or TS_ENOMEM. */
int ts_g2p_convert(ts_g2p *g, const char *text, size_t len, ts_buf *spoken, ts_buf *tokens);

/* With explain set, each token says how it was decided:
 * CHAR=SYLLABLE/WORD (read as in this lexicon word), CHAR=SYLLABLE/default
 * (the character's most common reading), /rule:LINE (the context rule on
 * that line of the rules file), /sandhi, /user (a word of the user's
 * lexicons), /surname (a surname starting a personal name: see
 * ts_g2p_set_surnames()).  Where the model was asked and disagreed:
 * CHAR=SYLLABLE/model+MARGIN(HOW=SYLLABLE) when it decided, overriding
 * the reading HOW gave (MARGIN: its logit of its reading less that of
 * ours), and CHAR=SYLLABLE/HOW(model=SYLLABLE+MARGIN) when it was not sure
 * enough.  Tokens never hold a space.
 * For people checking readings, and for the tests. */
void ts_g2p_set_explain(ts_g2p *g, int explain);

/* The stages that run, to measure what each adds (default: all).  Without
 * TS_G2P_WORDS every character is a word of its own. */
enum {
	TS_G2P_WORDS = 1,  /* segmentation into the lexicon's words */
	TS_G2P_RULES = 2,  /* context rules for the readings words leave open */
	TS_G2P_SANDHI = 4, /* 一 and 不 */
	TS_G2P_MODEL = 8,  /* the model's second opinion, when one is set */
	TS_G2P_ALL = 15,
};
void ts_g2p_set_stages(ts_g2p *g, unsigned stages);

/* The model as converters ask it: the model's class of each of the
 * lexicon's syllables and the characters not to ask it about, worked out
 * once (for a voice's data, ts_lang_load() does) and shared by every
 * converter of lx: a converter made for each chapter then looks nothing up
 * again.  skip (may be NULL): frequent characters where the model does not
 * improve on the rules and defaults, and would cost the time of reading
 * their sentence.  lx and m must outlive it.  NULL when out of memory;
 * free with ts_g2p_model_free(). */
typedef struct ts_g2p_model ts_g2p_model;
ts_g2p_model *ts_g2p_model_new(const ts_lexicon *lx, const ts_g2pm *m, const ts_wordtab *skip);
void ts_g2p_model_free(ts_g2p_model *pm);

/* Ask the model of pm (may be NULL: none; made for g's lexicon, and it
 * must outlive g) about the readings of polyphones no word decides.
 * Returns 0, TS_EINVAL (pm made for another lexicon) or TS_ENOMEM. */
int ts_g2p_set_model(ts_g2p *g, const ts_g2p_model *pm);

/* Read the surnames of table (may be NULL: none; in the format of a
 * user's lexicon) with their readings where they start a personal name,
 * as the cues of cues say (see surname.h).  Both must outlive g.  Part of
 * the rules stage (TS_G2P_RULES); the user's words come first.  Returns 0
 * or TS_ENOMEM. */
int ts_g2p_set_surnames(ts_g2p *g, const ts_userlex *table, const ts_wordtab *cues);

#endif
