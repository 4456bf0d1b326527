/* loudness.h - integrated loudness (ITU-R BS.1770-4, EBU R 128) of a mono
 * stream, in single precision with vector instructions.
 *
 * K-weighting (a high shelf and a high pass, the coefficients libebur128
 * derives for the rate), mean squares of 100 ms steps, gating blocks of
 * 400 ms every 100 ms (75% overlap), the absolute gate at -70 LUFS and
 * the relative gate 10 LU under the loudness of the blocks that pass it.
 * Memory is flat: the blocks are kept as a histogram of 0.01 LU bins,
 * each holding its count and the sum of its blocks' energies, so the
 * result is the exact mean of the gated blocks; only a block within
 * 0.01 LU of the relative gate may be counted on the wrong side.
 * Blocks are counted as libebur128 counts them (samples per 100 ms
 * rounded, a block as soon as 400 ms are in, none for a shorter tail),
 * which tests use as the oracle. */
#ifndef TS_LOUDNESS_H
#define TS_LOUDNESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct ts_loudness ts_loudness;

/* A meter for a stream at rate Hz (8,000 to 384,000); NULL if out of
 * memory or the rate is outside that range. */
ts_loudness *ts_loudness_new(int rate);
void ts_loudness_free(ts_loudness *m);

/* Run the plain four-lane code even where the processor has AVX (the
 * same results; for tests). */
void ts_loudness_plain(ts_loudness *m);

/* Add n samples, floats at full scale 1.0 or 16-bit integers. */
void ts_loudness_add(ts_loudness *m, const float *x, size_t n);
void ts_loudness_add_s16(ts_loudness *m, const int16_t *x, size_t n);

/* The integrated loudness of what was added, in LUFS; -INFINITY when no
 * block passes the gates (silence, or less than 400 ms). */
double ts_loudness_integrated(const ts_loudness *m);

#endif
