/* dialogue.h - who says each quotation of a Chinese novel.
 *
 * Quotations: in a paragraph, “” 「」 『』 ‘’ and ASCII " and ' (paired by
 * alternation; a ' between two Latin letters or digits is an apostrophe)
 * are quotation marks; a quotation opened inside another belongs to the
 * outer one, and one left open ends with its paragraph.  Marks missing or
 * doubled are recovered from (zh/quotes.h): a damaged mark changes at most
 * its own sentence.
 *
 * Speakers: a ts_dialogue reads a book twice.  The first reading
 * (ts_dialogue_learn) collects the names that stand before a speech verb
 * (X道 X曰 X笑道 X问：...), the aliases the book states (刘备字玄德,
 * 姓张名飞，字翼德) and the one-character short forms of names it knows
 * (飞 for 张飞); a cast file adds names and aliases of its own.  The second
 * reading (ts_dialogue_attribute) gives each quotation its speaker: the
 * subject of the clause that introduces it (skipping the listener of X谓Y曰
 * and X对Y说) or of the one after it (“……”X说。), the subject of the
 * sentence before when the clause has none, a person introduced as
 * 一人/一将 and named after (乃X也, 某姓X名Y), the other of two people
 * taking turns, "-" for what no one person says (letters, signs, edicts,
 * poems, a quoted word or title, a crowd speaking at once) and "?" when it
 * cannot be told. */
#ifndef TS_DIALOGUE_H
#define TS_DIALOGUE_H

#include "zh/wordtab.h"

#include "base/error.h"

#include <signal.h>
#include <stddef.h>

/* A quotation of a paragraph, as byte offsets into it. */
typedef struct ts_quote {
	size_t start;                /* its opening mark (text_start when it is missing) */
	size_t end;                  /* just past its closing mark, or the paragraph's end */
	size_t text_start, text_end; /* what is inside the marks */
	int closed;                  /* 0: left open, ended by the paragraph */
} ts_quote;

/* The quotations of paragraph p[0..n) (UTF-8, no line break), in order,
 * outermost only: up to max of them into out.  Returns how many there are
 * (which may be more than max). */
size_t ts_quotes_find(const char *p, size_t n, ts_quote *out, size_t max);

typedef struct ts_dialogue ts_dialogue;

/* A new reader of dialogue with no names known, looking for the words of
 * words: the table of dialogue_words.txt, entries WORD<TAB>KIND, the
 * kinds documented at its top (see ts_lang_words(); it must outlive d;
 * entries of an unknown kind are ignored; NULL: no words, then little is
 * attributed).  NULL when out of memory.  Free with ts_dialogue_free()
 * (NULL does nothing). */
ts_dialogue *ts_dialogue_new(const ts_wordtab *words);
void ts_dialogue_free(ts_dialogue *d);

/* Is every entry of words of a known kind, and every "stop" one
 * character?  0, or TS_EINVAL with err set ("FILE: WORD: why"; file
 * names the table). */
int ts_dialogue_check_words(const ts_wordtab *words, const char *file, ts_error *err);

/* One line of a cast file (no line break): a character's names separated
 * by spaces, a TAB, its voice preset.  Blank lines and # comments are
 * nothing.  Returns 0, TS_ENOMEM, or TS_EINVAL with why (a sentence)
 * written to why[0..sz): no TAB, no name, no voice, a name of another
 * line.  The first name is the one speakers are printed as. */
int ts_dialogue_cast_line(ts_dialogue *d, const char *line, size_t len, char *why, size_t sz);

/* How a cast file is read: voice_ok (may be NULL) says whether a line's
 * voice exists (0, or a negative code with err set, its message what is
 * wrong); cancel (may be NULL) set stops the reading; diag (may be NULL)
 * gets the warnings. */
typedef struct ts_cast_check {
	int (*voice_ok)(void *voice_ud, const char *voice, ts_error *err);
	void *voice_ud;
	volatile sig_atomic_t *cancel;
	ts_diag_fn diag;
	void *ud;
} ts_cast_check;

/* Read a cast file, in time linear in its lines: each bad line is
 * reported to diag as a warning "PATH:LINE: why" and skipped (the first
 * 20, then how many more).  Returns 0, or a negative code with err
 * filled: the file cannot be read, a voice that voice_ok refuses
 * ("PATH:LINE: why"), TS_ECANCELED when *cancel was set. */
int ts_dialogue_cast_file(ts_dialogue *d, const char *path, const ts_cast_check *chk,
                          ts_error *err);

/* The first reading: learn the names of paragraph p[0..n).  0 or
 * TS_ENOMEM. */
int ts_dialogue_learn(ts_dialogue *d, const char *p, size_t n);

/* Between the readings: settle the aliases (short forms to full names). */
void ts_dialogue_settle(ts_dialogue *d);

/* A new chapter: what the chapter before said does not carry over. */
void ts_dialogue_chapter(ts_dialogue *d);

/* The speaker of one quotation. */
typedef struct ts_attribution {
	const char *quote; /* the quotation, marks included */
	size_t quote_len;
	const char *speaker; /* a name, "-" (not one person's speech) or "?" */
	const char *voice;   /* the cast's voice for it, or NULL */
	int female;          /* the book wrote of the speaker as a woman (first reading) */
	int rank;            /* its rank for the pool of voices, or -1 (see below) */
	const char *why;     /* the rule and what it found, for --explain */
} ts_attribution;

typedef int (*ts_attribution_fn)(void *ud, const ts_attribution *a);

/* The rank of a speaker: ts_dialogue_settle() ranks the speakers of the
 * first reading that have no voice in the cast, the men and the women
 * apart, the one with most quotations first (0), so that the voices of a
 * pool (the speech layer's: see ts_voice_cache_pool()) go to them in that
 * turn, and the same book gets the same cast whatever the order its
 * chapters are read in.  A speaker only the second reading finds, or one
 * of the cast, has rank -1 (the pool then chooses by the name). */

/* The second reading: the speaker of each quotation of paragraph p[0..n)
 * to fn, in order (the strings are valid during the call).  Returns 0,
 * TS_ENOMEM, or what fn returned when it was not 0 (which stops it). */
int ts_dialogue_attribute(ts_dialogue *d, const char *p, size_t n, ts_attribution_fn fn, void *ud);

/* The quotation marks of the paragraph last read (ts_dialogue_learn() or
 * ts_dialogue_attribute()), for warnings: *unpaired, how many of its
 * marks did not pair as they stand (missing, doubled, stray: see
 * zh/quotes.h); *left_open, its last quotation was still open at its end
 * (the convention of a quotation over paragraphs, when the next non-blank
 * paragraph opens with a mark: its *continued); a blank paragraph leaves
 * *left_open as it was. */
void ts_dialogue_marks(const ts_dialogue *d, size_t *unpaired, int *left_open, int *continued);

#endif
