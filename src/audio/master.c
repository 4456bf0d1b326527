/* master.c - loudness, limiter, resampling and encoding (see master.h).
 *
 * Pass 1 (ts_master_write): samples go to a raw temporary file beside the
 * output, through the loudness meter (loudness.c: integrated loudness,
 * flat memory) and into a histogram of energy by peak that foresees what
 * the limiter will take off (loss_model).
 *
 * Pass 2 (ts_master_commit): the file is read back in blocks; each block
 * is scaled by the gain that brings the chapter to the target once the
 * limiter has taken its share, limited, measured again (the loudness
 * meter and the true-peak meter below, one after the other on the same
 * block), resampled by libsoxr when asked, rounded to 16 bits and
 * encoded.  If the result misses the target by more than
 * RETRY_LU, pass 2 runs again with the model scaled to what it measured,
 * up to MAX_PASSES times in all.
 *
 * One pass (o.one_pass): the gain is chosen before the chapter is spoken,
 * on a sample of the voice (ts_master_open_probe), and each block is
 * leveled, limited, measured and written as it comes, besides going to
 * the raw file; the meter of pass 1 and the reading back are saved.  When
 * the output misses the target by more than RETRY_LU, the raw file is
 * measured as pass 1 would have, and pass 2 runs as above.
 *
 * True peak: the signal is oversampled 4x with the interpolation filter
 * of libebur128 (a 49-tap Hann-windowed sinc), as ITU-R BS.1770 asks; the
 * limiter detects peaks with it, and the meter reports them.
 *
 * The limiter works on segments of SEG (16) samples.  Segment s asks for
 * a gain R[s] = min(1, c / peak), peak being the largest true-peak
 * estimate of its samples and of the points between them and next to
 * them.  Boundary b (between segments b-1 and b) asks for Q[b] =
 * min(R[b-1], R[b]).  The gain at boundary k is the mean, over the W+1
 * boundaries up to k, of e[i]: the smallest request in [i, i+W] (held),
 * let up slowly towards 1 (release).  Each of those means is at most
 * Q[k], and the gain moves linearly from one boundary to the next, so
 * every sample of a segment gets at most what the segment asked for: no
 * peak passes the ceiling, and the gain moves smoothly (the look-ahead
 * is W segments, 5 ms), which does not click.  The signal is delayed to
 * see the peaks coming; the delay is taken out, so the output is as long
 * as the input and not shifted.  Where no sample of a segment and its
 * neighbours could reach the ceiling even oversampled, the interpolation
 * is skipped. */
#include "audio/master.h"

#include "audio/finish.h"
#include "audio/loudness.h"
#include "audio/vec.h"

#include "base/file.h"

#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <soxr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE__
#include <xmmintrin.h>
#endif

#define BLOCK        4096
#define TP_TAPS      12 /* taps of each polyphase branch */
#define TP_HIST      (TP_TAPS - 1)
#define TP_DELAY     6 /* the branches' outputs lie between x[i-6] and x[i-5] */
#define LOOKAHEAD_MS 5.0
#define RELEASE_MS   80.0
#define MARGIN_DB    0.2 /* the limiter aims this far under the ceiling */
#define RETRY_LU     0.3 /* a pass this close to the target is kept */
#define MAX_PASSES   4
#define MAX_GAIN_DB  30.0
#define RAW_BUFFER   (256 * 1024) /* stdio buffer of the raw temporary file */
#define OBUF         (16 * BLOCK) /* samples written at a time */

/* ---- true peak ------------------------------------------------------- */

static float tp_coef[3][TP_TAPS];
static float tp_bound; /* largest sum of |coefficients| of a branch */

static void tp_init(void)
{
	if (tp_bound > 0)
		return;
	/* h[j] = sinc((j - 24) / 4) * Hann(j), j = 0..48; branch k (1..3)
	 * gives the value at k/4 of a sample from h[k + 4t], t = 0..11. */
	float bound = 1;
	for (int k = 1; k < 4; k++) {
		float sum = 0;
		for (int t = 0; t < TP_TAPS; t++) {
			int j = k + 4 * t;
			double m = (j - 24) / 4.0;
			double c = sin(M_PI * m) / (M_PI * m);
			c *= 0.5 * (1 - cos(2 * M_PI * j / 48.0));
			tp_coef[k - 1][t] = (float)c;
			sum += fabsf((float)c);
		}
		if (sum > bound)
			bound = sum;
	}
	tp_bound = bound;
}

static inline float max2(float a, float b)
{
	return a > b ? a : b;
}

/* Four floats at a time, with GCC's vector extensions: the compiler's
 * own vectorizer spills this loop to the stack.  Each lane sums in the
 * same order as interp_point() does, so the results are the same to the
 * bit whichever path computes a point. */

static inline v4f abs4(v4f v)
{
	return (v4f)((v4i)v & 0x7fffffff);
}

/* The larger of each pair, for numbers (not NaN). */
static inline v4f max4(v4f a, v4f b)
{
#ifdef __SSE__
	return _mm_max_ps(a, b); /* one instruction, not four */
#else
	v4i m = a > b;
	return (v4f)((m & (v4i)a) | (~m & (v4i)b));
#endif
}

/* The largest magnitude of n samples. */
static float abs_max(const float *x, size_t n)
{
	v4f m4 = {0}, m4b = {0};
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		m4 = max4(m4, abs4(load4(x + i)));
		m4b = max4(m4b, abs4(load4(x + i + 4)));
	}
	m4 = max4(m4, m4b);
	float m = max2(max2(m4[0], m4[1]), max2(m4[2], m4[3]));
	for (; i < n; i++)
		m = max2(m, fabsf(x[i]));
	return m;
}

/* xb holds TP_HIST samples of history, then n new ones (and room for
 * TP_LANES more, read but not used).  q has room for n rounded up to
 * TP_LANES; q[i] gets the largest magnitude
 * between the samples xb[i+5] and xb[i+6] (the inner points of the 4x
 * oversampled signal), or 0 where a group of TP_LANES points cannot
 * pass skip_below. */
#define TP_LANES 16
TS_CLONES static void interp_peaks(const float *xb, size_t n, float *q, float skip_below)
{
	enum { V = TP_LANES / 4 };
	for (size_t i0 = 0; i0 < n; i0 += TP_LANES) {
		/* Oversampling cannot raise a peak above tp_bound times the
		 * largest sample the branches read: skip quiet lanes. */
		if (abs_max(xb + i0, TP_HIST + TP_LANES) * tp_bound <= skip_below) {
			memset(q + i0, 0, TP_LANES * sizeof *q);
			continue;
		}
		v4f best[V] = {0};
		for (int k = 0; k < 3; k++) {
			v4f acc[V] = {0};
			for (int t = 0; t < TP_TAPS; t++) {
				const float *x = xb + TP_HIST + i0 - t;
				float ck = tp_coef[k][t];
				for (int j = 0; j < V; j++)
					acc[j] += ck * load4(x + 4 * j);
			}
			for (int j = 0; j < V; j++)
				best[j] = max4(best[j], abs4(acc[j]));
		}
		memcpy(q + i0, best, sizeof best);
	}
}

/* interp_peaks for the one point between xb[i+5] and xb[i+6], summed in
 * the same order (the same result to the bit). */
static float interp_point(const float *xb, size_t i)
{
	float a = 0, b = 0, c = 0;
	for (int t = 0; t < TP_TAPS; t++) {
		float x = xb[TP_HIST + i - (size_t)t];
		a += tp_coef[0][t] * x;
		b += tp_coef[1][t] * x;
		c += tp_coef[2][t] * x;
	}
	return max2(max2(fabsf(a), fabsf(b)), fabsf(c));
}

/* Running true peak of a stream. */
typedef struct tp_meter {
	float xb[TP_HIST + BLOCK + TP_LANES];
	float q[BLOCK];
	float peak;
} tp_meter;

static void meter_add(tp_meter *m, const float *x, size_t n)
{
	while (n > 0) {
		size_t k = n < BLOCK ? n : BLOCK;
		memcpy(m->xb + TP_HIST, x, k * sizeof *x);
		/* Oversampling cannot raise a peak by more than tp_bound. */
		float top = abs_max(m->xb, TP_HIST + k);
		if (top * tp_bound > m->peak) {
			m->peak = max2(m->peak, top);
			interp_peaks(m->xb, k, m->q, m->peak);
			m->peak = max2(m->peak, abs_max(m->q, k));
		}
		memmove(m->xb, m->xb + k, TP_HIST * sizeof *x);
		x += k;
		n -= k;
	}
}

/* ---- limiter ---------------------------------------------------------- */

/* The gain is decided for segments of SEG samples and moves linearly
 * across each one: the detector and the hold/release/mean run once a
 * segment, and only the multiply runs for every sample. */
#define SEG 16
/* What an edit moves, it moves by whole segments (finish.h). */
_Static_assert(TS_FINISH_ALIGN % SEG == 0, "speech starts on a segment");
#define LIM_CHUNK 4096 /* samples taken into the ring at a time */

typedef struct limiter {
	float c;   /* detector threshold, linear */
	size_t W;  /* look-ahead, in segments */
	float rel; /* release per segment */
	/* the signal: a ring of the last samples */
	float *ring;
	size_t rmask;
	uint64_t n_in;     /* samples taken */
	uint64_t next_seg; /* the next segment to complete */
	uint64_t end;      /* while flushing: the samples to put out */
	/* gain requests of the boundaries below 1 in the window, increasing */
	struct req {
		uint64_t at;
		float r;
	} * dq;
	size_t dq_head, dq_len, dq_mask;
	float r_prev; /* request of the previous segment */
	/* release state and the moving mean of e over W + 1 boundaries */
	float e;
	float *ering;
	double esum, inv_len;
	size_t epos;
	long not_one;     /* e values != 1 in the ring */
	float g_prev;     /* gain at the previous boundary */
	uint64_t n_bound; /* boundaries with a request */
	uint64_t n_out;
	uint64_t limited;
	float own_prev; /* the largest magnitude of the last segment */
	float xb[TP_HIST + SEG + 1 + TP_LANES];
	float q[SEG + 1 + TP_LANES];
} limiter;

static void limiter_free(limiter *l)
{
	if (!l)
		return;
	free(l->ring);
	free(l->dq);
	free(l->ering);
	free(l);
}

static limiter *limiter_new(int rate, double ceiling)
{
	limiter *l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	tp_init();
	l->c = (float)ceiling;
	size_t L = (size_t)lround(LOOKAHEAD_MS * rate / 1000.0);
	l->W = (L + SEG - 1) / SEG;
	if (l->W < 1)
		l->W = 1;
	l->rel = (float)(1 - exp(-1000.0 * SEG / (RELEASE_MS * rate)));
	l->e = 1;
	l->g_prev = 1;
	l->r_prev = 1;
	l->end = UINT64_MAX;
	size_t d = 1;
	while (d < (l->W + 4) * SEG + TP_DELAY + LIM_CHUNK)
		d <<= 1;
	l->rmask = d - 1;
	size_t cap = 1;
	while (cap < l->W + 2)
		cap <<= 1;
	l->dq_mask = cap - 1;
	l->ring = calloc(d, sizeof *l->ring);
	l->dq = malloc(cap * sizeof *l->dq);
	l->ering = malloc((l->W + 1) * sizeof *l->ering);
	if (!l->ring || !l->dq || !l->ering) {
		limiter_free(l);
		return NULL;
	}
	for (size_t i = 0; i <= l->W; i++)
		l->ering[i] = 1;
	l->esum = (double)(l->W + 1);
	l->inv_len = 1.0 / (double)(l->W + 1);
	return l;
}

/* The largest true-peak estimate around segment s: its samples and the
 * oversampled points between them and next to them.  Only whether it
 * passes the ceiling, and by how much, matters: points that cannot pass
 * it are not computed. */
static float segment_peak(limiter *l, uint64_t s)
{
	enum { SPAN = TP_HIST + SEG + 1 }; /* x[s*SEG - 6] .. x[s*SEG + 21] */
	/* The segment's own samples, and a bound of the span's: the
	 * previous segment's largest, and the 8 ring slots after this one
	 * (the span's 6, and 2 that the next samples will fill, holding an
	 * old value now).  A bound is all the test below needs: it only
	 * decides whether the oversampled points are worth computing.  SEG
	 * divides the ring: neither group wraps. */
	const float *xs = l->ring + ((s * SEG) & l->rmask);
	const float *xn = l->ring + (((s + 1) * SEG) & l->rmask);
	v4f a = max4(max4(abs4(load4(xs)), abs4(load4(xs + 4))),
	             max4(abs4(load4(xs + 8)), abs4(load4(xs + 12))));
	v4f b = max4(abs4(load4(xn)), abs4(load4(xn + 4)));
	float own = max2(max2(a[0], a[1]), max2(a[2], a[3]));
	float top = max2(max2(own, l->own_prev), max2(max2(b[0], b[1]), max2(b[2], b[3])));
	l->own_prev = own;
	if (top * tp_bound <= l->c)
		return own;
	uint64_t from = s * SEG - TP_DELAY; /* wraps below 0: the ring's zeros */
	size_t at = (size_t)(from & l->rmask);
	const float *xb = l->ring + at;
	if (at + SPAN > l->rmask + 1) { /* the span wraps round the ring */
		for (size_t i = 0; i < SPAN; i++)
			l->xb[i] = l->ring[(from + i) & l->rmask];
		xb = l->xb;
	}
	/* The 16 points from between x[s*SEG - 1] and x[s*SEG], in one
	 * group of lanes, and the one after the segment on its own. */
	interp_peaks(xb, SEG, l->q, l->c);
	float p = max2(own, abs_max(l->q, SEG));
	if (abs_max(xb + SEG, TP_TAPS) * tp_bound > l->c)
		p = max2(p, interp_point(xb, SEG));
	return p;
}

/* Put out segment s (its samples that are due) with the gain moving from
 * g0 to g1 across it. */
static size_t put_segment(limiter *l, uint64_t s, float g0, float g1, float *y)
{
	size_t n = SEG;
	if (s * SEG + n > l->end)
		n = l->end > s * SEG ? (size_t)(l->end - s * SEG) : 0;
	const float *x = l->ring + ((s * SEG) & l->rmask); /* SEG divides the ring */
	if (g0 == 1 && g1 == 1) {
		if (n == SEG)
			memcpy(y, x, SEG * sizeof *y); /* inlined: a fixed size */
		else
			memcpy(y, x, n * sizeof *y);
	} else {
		float step = (g1 - g0) / SEG;
		size_t i = 0;
		if (n == SEG) /* the same arithmetic, four lanes at a time */
			for (v4f at = {0, 1, 2, 3}; i < SEG; i += 4, at += 4) {
				v4f v = load4(x + i) * (g0 + step * at);
				memcpy(y + i, &v, sizeof v);
			}
		for (; i < n; i++)
			y[i] = x[i] * (g0 + step * (float)i);
		l->limited += n;
	}
	l->n_out += n;
	return n;
}

/* Segment s is complete, with the samples the detector needs after it:
 * its request joins the boundaries', and the segment the look-ahead has
 * passed goes out.  Returns the samples written to y. */
static size_t segment_done(limiter *l, uint64_t s, float *y)
{
	float p = segment_peak(l, s);
	float r = p > l->c ? l->c / p : 1;
	/* Boundary s lies between segments s-1 and s: both must fit. */
	float q = r < l->r_prev ? r : l->r_prev;
	l->r_prev = r;
	uint64_t b = l->n_bound++;
	if (q < 1) {
		while (l->dq_len > 0 && l->dq[(l->dq_head + l->dq_len - 1) & l->dq_mask].r >= q)
			l->dq_len--;
		l->dq[(l->dq_head + l->dq_len) & l->dq_mask] = (struct req){b, q};
		l->dq_len++;
	}
	/* Boundary k: the requests of [k, k + W] are known.  The W
	 * boundaries before the first (k < 0) are worked out too, from the
	 * requests they see: the gain at the start is their mean with the
	 * first ones, and must hold for the peaks there. */
	int64_t k = (int64_t)b - (int64_t)l->W;
	while (l->dq_len > 0 && (int64_t)l->dq[l->dq_head].at < k) {
		l->dq_head = (l->dq_head + 1) & l->dq_mask;
		l->dq_len--;
	}
	float m = l->dq_len ? l->dq[l->dq_head].r : 1;
	float e = l->e;
	if (e < 1) {
		e += (1 - e) * l->rel;
		if (e > 0.99999f)
			e = 1;
	}
	if (m < e)
		e = m;
	l->e = e;
	float old = l->ering[l->epos];
	l->not_one += (e != 1) - (old != 1);
	l->ering[l->epos] = e;
	l->esum += (double)e - old;
	l->epos = l->epos == l->W ? 0 : l->epos + 1;
	float g = 1;
	if (l->not_one == 0)
		l->esum = (double)(l->W + 1); /* no drift */
	else
		g = (float)(l->esum * l->inv_len);
	size_t out = k > 0 ? put_segment(l, (uint64_t)k - 1, l->g_prev, g, y) : 0;
	l->g_prev = g;
	return out;
}

/* Limit n samples of x; writes to y the output due and returns how many
 * (at most n + SEG once the look-ahead is full). */
TS_CLONES static size_t limiter_run(limiter *l, const float *x, size_t n, float *y)
{
	size_t out = 0;
	while (n > 0) {
		size_t k = n < LIM_CHUNK ? n : LIM_CHUNK;
		size_t at = (size_t)(l->n_in & l->rmask), room = l->rmask + 1 - at;
		size_t k1 = k < room ? k : room;
		memcpy(l->ring + at, x, k1 * sizeof *x);
		memcpy(l->ring, x + k1, (k - k1) * sizeof *x);
		l->n_in += k;
		x += k;
		n -= k;
		/* Segment s is complete when the detector has the samples
		 * up to TP_DELAY past its end. */
		while ((l->next_seg + 1) * SEG + TP_DELAY <= l->n_in)
			out += segment_done(l, l->next_seg++, y + out);
	}
	return out;
}

/* Push the last samples out: feed silence until every sample taken has
 * come out; writes at most (W + 3) * SEG samples to y. */
static size_t limiter_flush(limiter *l, float *y)
{
	static const float zero[SEG];
	size_t out = 0;
	l->end = l->n_in;
	while (l->n_out < l->end)
		out += limiter_run(l, zero, SEG, y + out);
	return out;
}

long ts_limit_buffer(float *x, size_t n, int rate, double ceiling)
{
	limiter *l = limiter_new(rate, ceiling);
	float *y = malloc((n + TP_DELAY + 4096) * sizeof *y);
	if (!l || !y) {
		limiter_free(l);
		free(y);
		return TS_ENOMEM;
	}
	size_t k = limiter_run(l, x, n, y);
	k += limiter_flush(l, y + k);
	memcpy(x, y, (k < n ? k : n) * sizeof *x);
	long lim = (long)l->limited;
	limiter_free(l);
	free(y);
	return lim;
}

double ts_true_peak(const float *x, size_t n)
{
	tp_init();
	tp_meter *m = calloc(1, sizeof *m);
	if (!m)
		return NAN;
	static const float zero[TP_HIST];
	meter_add(m, x, n);
	meter_add(m, zero, TP_HIST); /* the peaks after the last sample */
	double p = m->peak;
	free(m);
	return p;
}

/* ---- what the limiter will take ---------------------------------------- */

/* Pass 1 sorts the signal's energy, in blocks of ENV_BLOCK samples (12 ms
 * at 22,050 Hz), by the peak the limiter will see there: the largest
 * sample of the block and of the next one (its look-ahead).  The histogram
 * (0.1 dB bins, flat memory) foresees how much loudness a gain will lose:
 * a block whose peak the gain takes d dB past the threshold loses d dB.
 * That ignores the K-weighting, the gating, true peaks and the limiter's
 * release, which roughly cancel out: on the seeds, at -23 to -14 LUFS
 * under -3 and -1 dBTP, the first pass lands within 0.3 LU of the target.
 * When it does not, the model is scaled to what the pass measured and the
 * gain chosen again (ts_master_commit).  Counting the release as well
 * (the peaks of the blocks before) foresaw too much: up to twice. */
#define ENV_BLOCK 256
#define ENV_RING  2
#define ENV_BINS  1200 /* from -100 dBFS up to +20 */

typedef struct loss_model {
	double energy[ENV_BINS], total;
	int peak[ENV_RING]; /* the last two blocks */
	double e[ENV_RING];
	uint64_t blocks; /* complete blocks */
	int cur_peak;    /* the block being filled */
	int64_t cur_e;
	size_t cur_n;
} loss_model;

/* Put block j (complete, with the one after it if there is one) in the
 * histogram by the larger of their peaks. */
static void model_place(loss_model *lm, uint64_t j)
{
	int p = lm->peak[j % ENV_RING];
	if (j + 1 < lm->blocks && lm->peak[(j + 1) % ENV_RING] > p)
		p = lm->peak[(j + 1) % ENV_RING];
	int bin = 0;
	if (p > 0) {
		double db = 20 * log10(p / 32768.0);
		bin = (int)((db + 100) * 10);
		bin = bin < 0 ? 0 : bin >= ENV_BINS ? ENV_BINS - 1 : bin;
	}
	lm->energy[bin] += lm->e[j % ENV_RING];
	lm->total += lm->e[j % ENV_RING];
}

static void model_block_done(loss_model *lm)
{
	uint64_t j = lm->blocks++;
	lm->peak[j % ENV_RING] = lm->cur_peak;
	lm->e[j % ENV_RING] = (double)lm->cur_e;
	lm->cur_peak = 0, lm->cur_e = 0, lm->cur_n = 0;
	if (j > 0)
		model_place(lm, j - 1);
}

TS_CLONES static void model_add(loss_model *lm, const int16_t *s, size_t n)
{
	while (n > 0) {
		size_t k = ENV_BLOCK - lm->cur_n < n ? ENV_BLOCK - lm->cur_n : n;
		int peak = lm->cur_peak;
		int64_t e = 0;
		for (size_t i = 0; i < k; i++) {
			int v = s[i] < 0 ? -s[i] : s[i];
			peak = v > peak ? v : peak;
			e += v * v;
		}
		lm->cur_peak = peak;
		lm->cur_e += e;
		lm->cur_n += k;
		s += k;
		n -= k;
		if (lm->cur_n == ENV_BLOCK)
			model_block_done(lm);
	}
}

/* The last blocks: the one being filled counts as a block. */
static void model_end(loss_model *lm)
{
	if (lm->cur_n > 0)
		model_block_done(lm);
	if (lm->blocks > 0)
		model_place(lm, lm->blocks - 1);
}

/* The loudness (dB) the model says a gain loses to a limiter whose
 * threshold is thresh_db (dBFS). */
static double model_loss(const loss_model *lm, double gain_db, double thresh_db)
{
	if (lm->total <= 0)
		return 0;
	double kept = 0;
	for (int b = 0; b < ENV_BINS; b++) {
		if (lm->energy[b] == 0)
			continue;
		double over = (b + 0.5) / 10 - 100 + gain_db - thresh_db;
		kept += over > 0 ? lm->energy[b] * pow(10, -over / 10) : lm->energy[b];
	}
	return -10 * log10(kept / lm->total);
}

/* The gain that brings input_lufs to target_lufs if the limiter takes
 * scale times what the model says; MAX_GAIN_DB if none does. */
static double choose_gain(const loss_model *lm, double input_lufs, double target_lufs,
                          double thresh_db, double scale)
{
	double lo = target_lufs - input_lufs, hi = MAX_GAIN_DB;
	if (lo >= hi)
		return hi;
	if (input_lufs + hi - scale * model_loss(lm, hi, thresh_db) < target_lufs)
		return hi;
	for (int i = 0; i < 40; i++) {
		double mid = (lo + hi) / 2;
		if (input_lufs + mid - scale * model_loss(lm, mid, thresh_db) < target_lufs)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* ---- the master -------------------------------------------------------- */

/* A rendering of the samples at a fixed gain: limiter, meters, resampler. */
typedef struct render_run {
	limiter *l;
	tp_meter *tp;
	ts_loudness *meter;
	soxr_t rs;
	float g; /* the gain, over 32768 */
	double gain_db;
} render_run;

struct ts_master {
	ts_master_opts o;
	int in_rate, out_rate;
	const ts_format *fmt;
	char *path;
	ts_writer_opts wo; /* expect_frames at in_rate */
	ts_writer *w;      /* direct mode: open from the start */
	soxr_t rs;         /* direct mode with resampling */
	char *raw_path;    /* normalize mode: the raw samples */
	FILE *raw;
	char *rawbuf;  /* raw's buffer */
	int16_t *obuf; /* samples to write */
	size_t on;     /* in obuf */
	ts_loudness *in_meter;
	uint64_t frames_out;
	/* pass 2 buffers */
	int16_t *ibuf;
	float *fbuf, *ybuf, *rbuf;
	size_t rcap;
	uint64_t frames_in; /* taken by ts_master_write */
	loss_model *model;  /* what the limiter will take */
	render_run *live;   /* one pass: leveled as the samples come */
	ts_master_progress_fn progress;
	void *progress_ud;
	ts_error err; /* what went wrong last */
};

void ts_master_set_progress(ts_master *m, ts_master_progress_fn fn, void *ud)
{
	m->progress = fn;
	m->progress_ud = ud;
}

const char *ts_master_errmsg(const ts_master *m)
{
	return m->err.msg;
}

int ts_master_out_rate(const ts_master_opts *o, const ts_format *fmt, int in_rate)
{
	return ts_format_pick_rate(fmt, o->out_rate > 0 ? o->out_rate : in_rate);
}

static int fail(ts_master *m, int rc, const char *what)
{
	return ts_error_set(&m->err, rc, "%s: %s", m->path, what);
}

/* A resampler from the input's rate to the output's; NULL with the
 * reason in *err. */
static soxr_t resampler_new(ts_master *m, ts_error *err)
{
	soxr_error_t e = NULL;
	soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
	soxr_quality_spec_t q = soxr_quality_spec(SOXR_HQ, 0);
	soxr_runtime_spec_t rt = soxr_runtime_spec(1);
	soxr_t s = soxr_create(m->in_rate, m->out_rate, 1, &e, &io, &q, &rt);
	if (!s)
		ts_error_set(err, TS_EAUDIO, "%s: cannot resample to %d Hz: %s", m->path,
		             m->out_rate, e ? e : "libsoxr failed");
	return s;
}

static ts_writer *open_writer(ts_master *m, ts_error *err)
{
	ts_writer_opts o = m->wo;
	o.rate = m->out_rate;
	o.expect_frames = m->wo.expect_frames * (uint64_t)m->out_rate / (uint64_t)m->in_rate + 1;
	return ts_writer_open(m->fmt, m->path, &o, err);
}

/* Write what waits in the output buffer. */
static int emit_flush(ts_master *m)
{
	if (m->on == 0)
		return 0;
	int rc = ts_writer_write(m->w, m->obuf, m->on);
	if (rc)
		return ts_error_set(&m->err, rc, "%s", ts_writer_errmsg(m->w));
	m->frames_out += m->on;
	m->on = 0;
	return 0;
}

/* Round float samples to 16 bits into the output buffer, written when it
 * is full (a system call per OBUF samples, not per BLOCK). */
TS_CLONES static int emit(ts_master *m, const float *y, size_t n)
{
	float t[BLOCK];
	if (!m->obuf && !(m->obuf = malloc(OBUF * sizeof *m->obuf)))
		return fail(m, TS_ENOMEM, "out of memory");
	while (n > 0) {
		size_t k = n < BLOCK ? n : BLOCK;
		if (k > OBUF - m->on)
			k = OBUF - m->on;
		int16_t *s = m->obuf + m->on;
		/* Clamped, then rounded to the nearest integer, ties to even,
		 * as lrintf() does: adding and taking away 1.5 * 2^23 leaves
		 * no fraction.  Two loops, so that both vectorize. */
		for (size_t i = 0; i < k; i++) {
			float v = y[i] * 32768.0f;
			v = v < 32767.0f ? v : 32767.0f;
			t[i] = v > -32768.0f ? v : -32768.0f;
		}
		for (size_t i = 0; i < k; i++)
			s[i] = (int16_t)(int32_t)((t[i] + 12582912.0f) - 12582912.0f);
		m->on += k;
		if (m->on == OBUF) {
			int rc = emit_flush(m);
			if (rc)
				return rc;
		}
		y += k;
		n -= k;
	}
	return 0;
}

/* Resample (if asked) and write n samples; n == 0 with x == NULL
 * flushes the resampler. */
static int resample_emit(ts_master *m, soxr_t rs, const float *x, size_t n)
{
	if (!rs)
		return n ? emit(m, x, n) : emit_flush(m);
	size_t need = (size_t)((double)(n ? n : BLOCK) * m->out_rate / m->in_rate) + 64;
	if (TS_GROW(m->rbuf, m->rcap, need))
		return fail(m, TS_ENOMEM, "out of memory");
	for (;;) {
		size_t used = 0, made = 0;
		soxr_error_t e = soxr_process(rs, x, n, &used, m->rbuf, m->rcap, &made);
		if (e)
			return fail(m, TS_EAUDIO, e);
		int rc = emit(m, m->rbuf, made);
		if (rc)
			return rc;
		if (x) {
			x += used;
			n -= used;
			if (n == 0)
				return 0;
		} else if (made == 0) {
			return emit_flush(m);
		}
	}
}

static void run_free(render_run *r)
{
	if (!r)
		return;
	if (r->rs)
		soxr_delete(r->rs);
	ts_loudness_free(r->meter);
	free(r->tp);
	limiter_free(r->l);
	free(r);
}

/* Start rendering at gain_db: the writer opened, the output counted from
 * 0.  NULL with the message in m->err. */
static render_run *run_new(ts_master *m, double gain_db)
{
	render_run *r = calloc(1, sizeof *r);
	m->frames_out = 0;
	m->on = 0;
	if (!r ||
	    !(r->l = limiter_new(m->in_rate, pow(10, (m->o.ceiling_dbtp - MARGIN_DB) / 20))) ||
	    !(r->tp = calloc(1, sizeof *r->tp)) || !(r->meter = ts_loudness_new(m->in_rate)) ||
	    (!m->fbuf && !(m->fbuf = malloc(BLOCK * sizeof *m->fbuf))) ||
	    (!m->ybuf && !(m->ybuf = malloc((BLOCK + 1024) * sizeof *m->ybuf)))) {
		fail(m, TS_ENOMEM, "out of memory");
		run_free(r);
		return NULL;
	}
	r->gain_db = gain_db;
	r->g = (float)(pow(10, gain_db / 20) / 32768.0);
	if ((m->out_rate != m->in_rate && !(r->rs = resampler_new(m, &m->err))) ||
	    !(m->w = open_writer(m, &m->err))) {
		run_free(r);
		return NULL;
	}
	return r;
}

/* n (at most BLOCK) samples through gain, limiter, meters, resampler and
 * writer; last: the limiter's delay pushed out after them. */
static int run_block(ts_master *m, render_run *r, const int16_t *s, size_t n, int last)
{
	for (size_t i = 0; i < n; i++)
		m->fbuf[i] = s[i] * r->g;
	size_t y_n = limiter_run(r->l, m->fbuf, n, m->ybuf);
	if (last)
		y_n += limiter_flush(r->l, m->ybuf + y_n);
	if (y_n == 0)
		return 0;
	meter_add(r->tp, m->ybuf, y_n);
	ts_loudness_add(r->meter, m->ybuf, y_n);
	return resample_emit(m, r->rs, m->ybuf, y_n);
}

/* The last of the output, and its figures in rep. */
static int run_end(ts_master *m, render_run *r, ts_master_report *rep)
{
	int rc = resample_emit(m, r->rs, NULL, 0);
	if (rc)
		return rc;
	static const float zero[TP_HIST];
	meter_add(r->tp, zero, TP_HIST);
	double lufs = ts_loudness_integrated(r->meter);
	rep->output_lufs = isfinite(lufs) ? lufs : NAN;
	rep->true_peak_db = r->tp->peak > 0 ? 20 * log10(r->tp->peak) : -INFINITY;
	rep->limited_s = (double)r->l->limited / m->in_rate;
	rep->gain_db = r->gain_db;
	return 0;
}

ts_master *ts_master_open(const ts_master_opts *o, int in_rate, const ts_format *fmt,
                          const char *path, const ts_writer_opts *wo, ts_error *err)
{
	ts_master *m = calloc(1, sizeof *m);
	if (!m || !(m->path = ts_strdup(path))) {
		ts_error_set(err, TS_ENOMEM, "%s: out of memory", path);
		free(m);
		return NULL;
	}
	m->o = *o;
	m->in_rate = in_rate;
	m->out_rate = ts_master_out_rate(o, fmt, in_rate);
	m->fmt = fmt;
	m->wo = *wo;
	tp_init();
	if (!o->normalize) {
		if (!(m->w = open_writer(m, err)))
			goto fail;
		if (m->out_rate != in_rate && !(m->rs = resampler_new(m, err)))
			goto fail;
		return m;
	}
	/* The raw samples beside the output, named so that an interrupted
	 * build's sweep removes them (see ts_temp_sweep). */
	ts_buf raw = {0};
	if (ts_buf_printf(&raw, "%s.raw", path) ||
	    !(m->raw_path = ts_temp_name(raw.data, wo->owner_pid))) {
		ts_buf_free(&raw);
		ts_error_set(err, TS_ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	ts_buf_free(&raw);
	m->raw = ts_fcreate_excl(m->raw_path, "w+b");
	if (!m->raw) {
		ts_error_set(err, ts_errno_code(errno), "%s: cannot write: %s", m->raw_path,
		             strerror(errno));
		free(m->raw_path); /* not ours: nothing to remove */
		m->raw_path = NULL;
		goto fail;
	}
	/* A large buffer: reading back, a system call per 256 KB, not per
	 * 8 KB (glibc takes the size of a buffer only with the buffer). */
	if ((m->rawbuf = malloc(RAW_BUFFER)))
		setvbuf(m->raw, m->rawbuf, _IOFBF, RAW_BUFFER);
	m->in_meter = ts_loudness_new(in_rate);
	m->model = calloc(1, sizeof *m->model);
	if (!m->in_meter || !m->model) {
		ts_error_set(err, TS_ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	if (o->one_pass && !(m->live = run_new(m, o->gain_db))) {
		if (err)
			*err = m->err;
		goto fail;
	}
	return m;
fail:
	ts_master_abort(m);
	return NULL;
}

/* Pass 1's measurements of n samples: the loudness meter and the
 * limiter's forecast. */
static void measure(ts_master *m, const int16_t *s, size_t n)
{
	model_add(m->model, s, n);
	ts_loudness_add_s16(m->in_meter, s, n);
}

/* Samples leveled as they come (one pass), BLOCK at a time. */
static int live_write(ts_master *m, const int16_t *s, size_t n)
{
	while (n > 0) {
		size_t k = n < BLOCK ? n : BLOCK;
		int rc = run_block(m, m->live, s, k, 0);
		if (rc)
			return rc;
		s += k;
		n -= k;
	}
	return 0;
}

int ts_master_write(void *ud, const int16_t *s, size_t n)
{
	ts_master *m = ud;
	if (!m->o.normalize) {
		if (!m->rs) {
			int rc = ts_writer_write(m->w, s, n);
			if (rc)
				return ts_error_set(&m->err, rc, "%s", ts_writer_errmsg(m->w));
			m->frames_out += n;
			return 0;
		}
		float f[BLOCK];
		while (n > 0) {
			size_t k = n < BLOCK ? n : BLOCK;
			for (size_t i = 0; i < k; i++)
				f[i] = s[i] / 32768.0f;
			int rc = resample_emit(m, m->rs, f, k);
			if (rc)
				return rc;
			s += k;
			n -= k;
		}
		return 0;
	}
	m->frames_in += n;
	if (m->raw && fwrite(s, sizeof *s, n, m->raw) != n)
		return ts_error_set(&m->err, ts_errno_code(errno), "%s: write failed: %s", m->path,
		                    strerror(errno));
	if (m->live)
		return live_write(m, s, n);
	measure(m, s, n);
	return 0;
}

/* Read the raw file back in blocks to fn(m, ud, block, n, last).  Returns 0
 * or fn's code, or TS_EIO with the message in m->err. */
typedef int (*raw_fn)(ts_master *m, void *ud, const int16_t *s, size_t n, int last);
static int read_raw(ts_master *m, int pass, raw_fn fn, void *ud)
{
	if (!m->ibuf && !(m->ibuf = malloc(BLOCK * sizeof *m->ibuf)))
		return fail(m, TS_ENOMEM, "out of memory");
	rewind(m->raw);
	uint64_t read = 0;
	for (int last = 0; !last;) {
		/* A report every 64 blocks: 12 s of audio at 22,050 Hz. */
		if (m->progress && read % (64 * BLOCK) == 0 && m->frames_in > 0)
			m->progress(m->progress_ud, pass, (double)read / (double)m->frames_in);
		size_t got = fread(m->ibuf, sizeof *m->ibuf, BLOCK, m->raw);
		if (got < BLOCK) {
			if (ferror(m->raw))
				return ts_error_set(&m->err, TS_EIO, "%s: read failed: %s",
				                    m->raw_path, strerror(errno));
			last = 1;
		}
		read += got;
		int rc = fn(m, ud, m->ibuf, got, last);
		if (rc)
			return rc;
	}
	return 0;
}

static int render_block(ts_master *m, void *ud, const int16_t *s, size_t n, int last)
{
	return run_block(m, ud, s, n, last);
}

/* Pass 2 with a gain in dB: read the raw file, level, limit, measure,
 * resample, encode.  Fills rep's output figures; the message of a failure
 * is in m->err. */
static int render(ts_master *m, double gain_db, ts_master_report *rep, int pass)
{
	render_run *r = run_new(m, gain_db);
	if (!r)
		return m->err.code;
	int rc = read_raw(m, pass, render_block, r);
	if (!rc)
		rc = run_end(m, r, rep);
	run_free(r);
	return rc;
}

/* Pass 1 again, from the raw file, when a one-pass rendering missed. */
static int measure_block(ts_master *m, void *ud, const int16_t *s, size_t n, int last)
{
	(void)ud, (void)last;
	measure(m, s, n);
	return 0;
}

/* Pass 1's answer: the input loudness into *in (NAN when it is silence)
 * and the gain for the target, the limiter's share foreseen (NAN for
 * silence). */
static double measured_gain(ts_master *m, double *in)
{
	*in = ts_loudness_integrated(m->in_meter);
	model_end(m->model);
	if (!isfinite(*in)) {
		*in = NAN;
		return NAN;
	}
	return choose_gain(m->model, *in, m->o.target_lufs, m->o.ceiling_dbtp - MARGIN_DB, 1);
}

/* The end of a one-pass rendering: its figures in rep. */
static int live_end(ts_master *m, ts_master_report *rep)
{
	render_run *r = m->live;
	m->live = NULL;
	int rc = run_block(m, r, NULL, 0, 1);
	if (!rc)
		rc = run_end(m, r, rep);
	run_free(r);
	rep->passes = 1;
	rep->level_lufs = m->o.expect_lufs;
	return rc;
}

int ts_master_commit(ts_master *m, ts_master_report *rep, ts_error *err)
{
	ts_master_report dummy;
	int rc = 0;
	if (!rep)
		rep = &dummy;
	*rep = (ts_master_report){.out_rate = m->out_rate,
	                          .input_lufs = NAN,
	                          .level_lufs = NAN,
	                          .output_lufs = NAN,
	                          .true_peak_db = NAN};
	if (!m->o.normalize) {
		if (m->rs && (rc = resample_emit(m, m->rs, NULL, 0))) {
			if (err)
				*err = m->err;
			goto out;
		}
		goto done;
	}
	if (fflush(m->raw) != 0) {
		rc = ts_errno_code(errno);
		ts_error_set(err, rc, "%s: %s", m->raw_path, strerror(errno));
		goto out;
	}
	int first = 0;
	if (m->live) {
		/* Leveled in one pass: kept when it is close enough; else the
		 * raw file is measured and rendered again, as below. */
		if ((rc = live_end(m, rep))) {
			if (err)
				*err = m->err;
			goto out;
		}
		double miss = m->o.target_lufs - rep->output_lufs;
		if (!isfinite(miss) || fabs(miss) <= RETRY_LU)
			goto done;
		ts_writer_abort(m->w);
		m->w = NULL;
		if ((rc = read_raw(m, 0, measure_block, NULL))) {
			if (err)
				*err = m->err;
			goto out;
		}
		first = 1;
	}
	/* The gain: the target's, plus what the limiter is foreseen to take
	 * off (see loss_model); once a pass has shown how much it really
	 * takes, the model is scaled to that, and the gain chosen again. */
	double in, gain = measured_gain(m, &in);
	if (!isfinite(gain))
		gain = 0;
	rep->input_lufs = rep->level_lufs = in;
	double thresh_db = m->o.ceiling_dbtp - MARGIN_DB;
	for (int pass = first;; pass++) {
		rep->passes = pass + 1;
		if ((rc = render(m, gain, rep, pass))) {
			if (err)
				*err = m->err;
			goto out;
		}
		double miss = m->o.target_lufs - rep->output_lufs;
		if (!isfinite(miss) || fabs(miss) <= RETRY_LU || pass + 1 >= MAX_PASSES ||
		    (miss > 0 && gain >= MAX_GAIN_DB))
			break;
		ts_writer_abort(m->w);
		m->w = NULL;
		double lost = in + gain - rep->output_lufs;
		double foreseen = model_loss(m->model, gain, thresh_db);
		double next = gain + miss;
		if (foreseen > 0.01 && lost > 0) {
			double g =
			    choose_gain(m->model, in, m->o.target_lufs, thresh_db, lost / foreseen);
			if (fabs(g - gain) > 0.01)
				next = g;
		}
		gain = fmin(next, MAX_GAIN_DB);
	}
done:
	rep->frames = m->frames_out;
	rc = ts_writer_commit(m->w, err);
	m->w = NULL;
out:
	ts_master_abort(m);
	return rc;
}

void ts_master_abort(ts_master *m)
{
	if (!m)
		return;
	ts_writer_abort(m->w);
	run_free(m->live);
	if (m->rs)
		soxr_delete(m->rs);
	if (m->raw)
		fclose(m->raw);
	free(m->rawbuf);
	free(m->obuf);
	if (m->raw_path)
		unlink(m->raw_path);
	ts_loudness_free(m->in_meter);
	free(m->model);
	free(m->raw_path);
	free(m->path);
	free(m->ibuf);
	free(m->fbuf);
	free(m->ybuf);
	free(m->rbuf);
	free(m);
}

ts_master *ts_master_open_probe(const ts_master_opts *o, int in_rate, ts_error *err)
{
	ts_master *m = calloc(1, sizeof *m);
	if (m) {
		m->o = *o;
		m->in_rate = in_rate;
		m->in_meter = ts_loudness_new(in_rate);
		m->model = calloc(1, sizeof *m->model);
	}
	if (!m || !m->in_meter || !m->model) {
		ts_error_set(err, TS_ENOMEM, "out of memory");
		ts_master_abort(m);
		return NULL;
	}
	return m;
}

double ts_master_probe_end(ts_master *m, double *lufs)
{
	double in, gain = measured_gain(m, &in);
	if (lufs)
		*lufs = in;
	ts_master_abort(m);
	return gain;
}
