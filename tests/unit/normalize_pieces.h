/* normalize_pieces.h - what test_normalize and test_normalize_suite
 * share: a line normalized in pieces, as the front end feeds it. */
#ifndef TS_NORMALIZE_PIECES_H
#define TS_NORMALIZE_PIECES_H

#include "check.h"
#include "zh/normalize.h"

/* Normalize s[0..n) in pieces of step bytes (0: whole, see piece_len())
 * into out. */
static inline void normalize(const ts_lang *lang, const char *s, size_t n, size_t step, ts_buf *out)
{
	ts_normalizer *z = ts_normalizer_new(lang);
	size_t i = 0;
	do {
		size_t k = piece_len(s, n, i, step);
		CHECK(ts_normalize_piece(z, s + i, k, i + k == n, out) == 0);
		i += k;
	} while (i < n);
	ts_normalizer_free(z);
}

#endif
