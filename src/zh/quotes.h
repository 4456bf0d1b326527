/* quotes.h - the quotation marks of a paragraph paired up, as text found
 * online has them: straight " and ', curly “”‘’, 「」『』, mixed, some
 * missing or doubled.
 *
 * Marks pair by their kind (a straight one by alternation); a mark after
 * a colon, or after a comma that ends a speech verb (X曰:" X道，“), is a
 * certain opening: what is open there was not closed, and ends with the
 * last sentence before the clause that introduces the new quotation.  A
 * closing mark with nothing open, or an opening one that turns out to
 * close (X道:好。"), closes a quotation opened without its mark after the
 * colon before it, or is dropped.  Two marks alike side by side that
 * would make an empty quotation count once.  So a damaged mark changes at
 * most its own sentence: the pairing starts again at the next certain
 * opening, and always at the next paragraph. */
#ifndef TS_ZH_QUOTES_H
#define TS_ZH_QUOTES_H

#include <stddef.h>
#include <stdint.h>

/* A quotation, as code point positions in its paragraph. */
typedef struct ts_qspan {
	size_t start; /* its opening mark, or its first character when the mark is missing */
	size_t text_start, text_end; /* what is inside the marks */
	size_t end;                  /* just past its closing mark, or where it was ended */
	int closed;                  /* 0: no mark closed it */
} ts_qspan;

/* The closing mark of the opening mark c (” of “, 」 of 「, 』 of 『, ’ of
 * ‘); 0 when c is not one of those. */
uint32_t ts_zh_quote_closer(uint32_t c);

/* The outermost quotations of the paragraph cp[0..n), in order: up to max
 * into out; returns how many there are (which may be more than max).
 * verbs (NULL-terminated UTF-8 words; NULL: none) are the speech verbs a
 * comma may follow before a certain opening.  *unpaired (may be NULL)
 * gets how many marks did not pair as they stand. */
size_t ts_zh_quotes(const uint32_t *cp, size_t n, const char *const *verbs, ts_qspan *out,
                    size_t max, size_t *unpaired);

#endif
