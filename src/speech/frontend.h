/* frontend.h - the text front end: clean -> normalize -> segment -> g2p on the
 * pieces of lines that a ts_reader gives.  Pure text processing, so it can be
 * tested (and `tingshu text` can show its result) without any audio.
 *
 * Both `build` and `text` go through here, so what `text` prints is
 * exactly what `build` speaks.
 *
 * Sentences.  The front end also finds the sentences of the text as
 * written (after cleaning, with lookalike characters repaired, but before
 * normalization: 2024年 stays 2024年), with the rules of the segmenter
 * (segment.h), and feeds the normalizer and the segmenter one sentence at a
 * time, so that each chunk belongs to exactly one sentence.  A caller that
 * wants them (timing cues) gets each sentence's text after its last chunk.
 *
 * A sentence longer than TS_SENTENCE_MAX characters is given in parts, so
 * that memory stays bounded and a cue stays readable: once it holds
 * TS_SENTENCE_MAX characters it is cut after the next ，；、; at twice that,
 * after any Han character; at four times, anywhere.  A cut never falls
 * within a few characters after a Latin letter, a digit or an ASCII sign,
 * where it could change how a number is read (3个, 2000多年), except at the
 * last limit.  The chunks before a cut end there (the listener hears a
 * clause pause, as at the segmenter's own splits of a long sentence). */
#ifndef TS_FRONTEND_H
#define TS_FRONTEND_H

#include "zh/lang.h"
#include "text/segment.h"
#include "base/util.h"

#include <stddef.h>

/* Receives the processed text paragraph by paragraph, in pieces; line_end
 * is set on the last piece of a paragraph: the end of an input line, or a
 * paragraph break the cleaner found inside one (a <p> or <br> tag), so an
 * input line may give several.  Returns 0 or a negative code to stop. */
typedef int (*ts_text_fn)(void *ud, const char *s, size_t n, int line_end);

/* Receives the text of a sentence as written (not empty; no spaces at its
 * edges), after the last chunk spoken of it.  Returns 0 or a negative
 * code to stop. */
typedef int (*ts_sentence_fn)(void *ud, const char *text, size_t len);

/* The longest sentence text given in one piece, in characters (see above). */
#define TS_SENTENCE_MAX 300

typedef struct ts_frontend ts_frontend;

/* New front end reading lang's tables (may be NULL).  on_chunk (may be
 * NULL) receives the chunks to speak, with their pinyin when lang has a
 * lexicon; on_text (may be NULL) the processed text line by line, each
 * piece after the chunks made from it.  NULL when out of memory; free
 * with ts_frontend_free(). */
ts_frontend *ts_frontend_new(const ts_lang *lang, ts_chunk_fn on_chunk, ts_text_fn on_text,
                             void *ud);
void ts_frontend_free(ts_frontend *f);

/* Give each sentence's text to fn (with the ud of ts_frontend_new; NULL:
 * none).  The sentences are found either way: what is spoken does not
 * depend on it. */
void ts_frontend_set_sentence_fn(ts_frontend *f, ts_sentence_fn fn);

/* With mark set, the Han characters read for digits, signs and symbols
 * (see ts_normalizer_mark_said()) make tokens in brackets, "[huo4]",
 * that tell them from the tokens of the text's own Han characters; the
 * text callback then sees TS_READ_MARK before them.  What eSpeak is
 * given does not change.  For `tingshu pinyin`. */
void ts_frontend_mark_said(ts_frontend *f, int mark);

/* Chunk tokens say how each reading was decided (see ts_g2p_set_explain). */
void ts_frontend_set_explain(ts_frontend *f, int explain);

/* The g2p stages that run (see ts_g2p_set_stages); for measurements. */
void ts_frontend_set_g2p_stages(ts_frontend *f, unsigned stages);

/* Process a piece of a line (valid UTF-8, no newline); line_end is set
 * when the piece ends its line.  Returns 0 or the first negative code a
 * callback returned (or TS_ENOMEM). */
int ts_frontend_feed(ts_frontend *f, const char *text, size_t len, int line_end);

/* End what was fed so far as a long sentence is cut (see above): its
 * chunks are given, the next chunk comes after a clause pause, and the
 * text as written so far is given as a sentence.  For a change of voice
 * inside a paragraph (a quotation read in its speaker's voice).  What
 * the cleaner holds back goes with it (see ts_clean_flush()), but a tag
 * cut by the piece's end, which stays for the next piece.  Nothing fed since the last sentence:
 * does nothing.  Returns 0 or a negative code as ts_frontend_feed(). */
int ts_frontend_end_clause(ts_frontend *f);

/* Characters the voice cannot read seen so far: appends a summary to out
 * and returns their number; the count then starts again from zero. */
size_t ts_frontend_unreadable(ts_frontend *f, ts_buf *out);

#endif
