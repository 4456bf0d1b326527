/* normalize.h - make text speakable the way a Mandarin narrator reads it.
 *
 * After cleaning and before segmentation: lookalike characters are
 * repaired, numbers and symbols become Chinese words (1234个 ->
 * 一千二百三十四个, 1644年 -> 一六四四年, 3.5 -> 三点五, 25% -> 百分之二十五,
 * 9:05 -> 九点零五分, 3-5天 -> 三到五天, ￥100 -> 一百元, 5kg -> 五公斤,
 * x≥0 -> x大于等于零, 5-3=2 -> 五减三等于二, x² -> x的平方, 110报警 ->
 * 幺幺零报警, 256GB -> 二五六G B, No.1 -> 第一 ...),
 * acronyms are spelled letter by letter, and characters the voice cannot
 * read are counted (and, when eSpeak would misread them, removed) so that
 * the caller can warn about them.  Chinese numerals already in the text
 * are left as they are.
 *
 * The normalizer works on the pieces of a line: a piece may end inside a
 * number, which is then held back until the next piece. */
#ifndef TS_NORMALIZE_H
#define TS_NORMALIZE_H

#include "zh/lang.h"
#include "base/util.h"

#include <stddef.h>

typedef struct ts_normalizer ts_normalizer;

/* New normalizer using lang's tables: lookalikes, measure words, units,
 * currencies and the other words read around numbers (see lang.h).  lang
 * may be NULL: then no lookalike is repaired and none of those words is
 * recognized (numbers are still read).  NULL when out of memory; free
 * with ts_normalizer_free(). */
ts_normalizer *ts_normalizer_new(const ts_lang *lang);
void ts_normalizer_free(ts_normalizer *n);

/* How a piece ends: the end argument of ts_normalize_piece(). */
enum {
	TS_NORM_MORE = 0,     /* the line goes on */
	TS_NORM_LINE_END = 1, /* the last piece of a line */
	/* The piece ends a sentence and the line goes on: all of the piece is
	 * read now, nothing held back, so that the speech of a sentence never
	 * moves into the next one; the piece stays look-behind context for
	 * what follows.  No reading looks ahead past a sentence's terminator,
	 * so the result is what TS_NORM_MORE would have given. */
	TS_NORM_SENTENCE_END = 2,
};

/* Normalize text[0..len) (valid UTF-8, part of one line) and append the
 * result to out; end says how the piece ends (TS_NORM_*; any other
 * non-zero value is a line end).  Returns 0 or TS_ENOMEM. */
int ts_normalize_piece(ts_normalizer *n, const char *text, size_t len, int end, ts_buf *out);

/* With mark set, each Han character the normalizer says for what the
 * text does not write in Han characters (digits, signs, symbols: 或 for
 * "/", 一六四四 for 1644) has TS_READ_MARK before it in the output, for
 * `tingshu pinyin`; the book's own Han characters never have.  Off by
 * default: eSpeak is given the text unmarked. */
void ts_normalizer_mark_said(ts_normalizer *n, int mark);

/* Characters the voice cannot read, seen since the last reset: appends a
 * summary like "𠀀 ×2, あ ×1" to out and returns how many there were. */
size_t ts_normalizer_unreadable(const ts_normalizer *n, ts_buf *out);
void ts_normalizer_reset_counts(ts_normalizer *n);

/* Exposed for tests: the Chinese reading of a non-negative integer given
 * as decimal digits (at most 16), appended to out. */
int ts_read_cardinal(const char *digits, size_t n, ts_buf *out);

#endif
