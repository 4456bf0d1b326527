/* loudness.c - integrated loudness in single precision (see loudness.h).
 *
 * The K-weighting is two biquads, y[i] = b0 x[i] + b1 x[i-1] + b2 x[i-2]
 * - a1 y[i-1] - a2 y[i-2], each run over a chunk of samples in two
 * steps.  The feed-forward part is plain vector arithmetic.  The
 * recursion gives four outputs at a time from four feed-forward values
 * w and the last two outputs:
 *
 *     y[i+k] = sum over j <= k of h[j] w[i+k-j]  +  c1[k] y[i-1]  +  c2[k] y[i-2]
 *
 * h being the impulse response of 1 / (1 + a1 z^-1 + a2 z^-2) and c1, c2
 * what the two outputs before contribute; so four samples cost a few
 * vector operations, with one dependency from each group of four to the
 * next instead of one from each sample to the next.  Both filters run in
 * the same loop, everything in registers, so that the processor works on
 * the second filter's chain while the first one's waits; where the
 * processor has AVX, in the same instructions, one filter in each half of
 * a vector of eight lanes, the high pass a few groups behind the shelf
 * (run_avx).
 * libebur128 filters in double precision one sample at a time; tests
 * check that the two agree within 0.02 LU (speech within 0.0001; the
 * worst seen, 0.011, is a 20 Hz tone at 192 kHz).
 *
 * Denormal numbers (a filter's state decaying in silence) would make
 * every operation many times slower: they are flushed to zero while
 * the meter runs, as libebur128 does. */
#include "audio/loudness.h"
#include "audio/vec.h"

#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE__
#include <xmmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#define LOUD_AVX 1
#include <immintrin.h>
#endif

#define BIN_LU   0.01
#define BIN_LOW  -70.0
#define BINS     10000 /* -70 to +30 LUFS */
#define RATE_MIN 8000
#define RATE_MAX 384000

/* One biquad, four samples at a time. */
typedef struct biquad {
	v4f b0, b1, b2; /* feed-forward (the high pass's is written out in run()) */
	v4f h1, h2, h3; /* the impulse response at 1, 2, 3 (at 0 it is 1) */
	v4f p, sq;      /* lane k: p[k] and k + 1 + q[k], see biquad_init */
	v4f x, y;       /* the last four inputs and outputs */
} biquad;

struct ts_loudness {
	biquad shelf, high;
	int avx;          /* run_avx() */
	float pair[5][8]; /* its h1, h2, h3, p and sq: the shelf's, the high pass's */
	float pend[4];    /* samples waiting for a group of four */
	int npend;
	size_t step_len, step_fill; /* samples in 100 ms; in this step */
	v4f acc;                    /* this step's squares so far */
	double steps[4];            /* the energy of the last four steps */
	uint64_t nsteps;
	uint32_t count[BINS];
	double sum[BINS];
};

/* The recursion is written from the last output y1 and the step d1 =
 * y1 - y2 that led to it:
 *
 *     y[i+k] = sum of h[j] w[i+k-j]  +  y1 + p[k] y1  +  (k + 1 + q[k]) d1
 *
 * where p = c1 + c2 - 1 and q = -c2 - (k+1), c1 and c2 being what y1 and
 * y2 contribute.  For the high pass, whose two poles lie close together
 * near z = 1 (within 0.0012 of it at 192 kHz), p is small and keeps its
 * relative precision in single precision, whereas c1 and c2, near 2 and
 * -1, would each be rounded by about 1e-7: enough to move a double pole
 * by its square root, 3e-4, and the response under 40 Hz by tenths of a
 * dB.  How the filter decays is set by p (and by the differences of p
 * between lanes); the rounding of k + 1 + q moves the poles by far less. */
static void biquad_init(biquad *f, double b0, double b1, double b2, double a1, double a2)
{
	f->b0 = (v4f){0} + (float)b0, f->b1 = (v4f){0} + (float)b1;
	f->b2 = (v4f){0} + (float)b2;
	double h1 = -a1, h2 = -a1 * h1 - a2, h3 = -a1 * h2 - a2 * h1;
	f->h1 = (v4f){0} + (float)h1, f->h2 = (v4f){0} + (float)h2;
	f->h3 = (v4f){0} + (float)h3;
	/* The outputs from y[i-1] = 1 (then y[i-2] = 1) alone. */
	double c1p = 1, c1pp = 0, c2p = 0, c2pp = 1;
	for (int k = 0; k < 4; k++) {
		double c1 = -a1 * c1p - a2 * c1pp, c2 = -a1 * c2p - a2 * c2pp;
		f->p[k] = (float)(c1 + c2 - 1);
		f->sq[k] = (float)-c2;
		c1pp = c1p, c1p = c1, c2pp = c2p, c2p = c2;
	}
}

/* The K-weighting filters for rate, as libebur128 derives them
 * (ebur128_init_filter): the same analogue prototypes, mapped by the
 * bilinear transform.  libebur128 multiplies them into one 4th-order
 * filter; in single precision they are better kept apart. */
static void kweight_init(ts_loudness *m, double rate)
{
	double f0 = 1681.974450955533, g = 3.999843853973347, q = 0.7071752369554196;
	double k = tan(M_PI * f0 / rate);
	double vh = pow(10.0, g / 20.0), vb = pow(vh, 0.4996667741545416);
	double a0 = 1.0 + k / q + k * k;
	biquad_init(&m->shelf, (vh + vb * k / q + k * k) / a0, 2.0 * (k * k - vh) / a0,
	            (vh - vb * k / q + k * k) / a0, 2.0 * (k * k - 1.0) / a0,
	            (1.0 - k / q + k * k) / a0);
	f0 = 38.13547087602444, q = 0.5003270373238773;
	k = tan(M_PI * f0 / rate);
	a0 = 1.0 + k / q + k * k;
	biquad_init(&m->high, 1.0, -2.0, 1.0, 2.0 * (k * k - 1.0) / a0, (1.0 - k / q + k * k) / a0);
}

/* run_avx()'s coefficients: each of the shelf's and the high pass's
 * in a half, the impulse responses zero in the lanes that recurse()'s
 * shifts fill with zeros. */
static void pair_init(ts_loudness *m)
{
	const biquad *f[2] = {&m->shelf, &m->high};
	for (int half = 0; half < 2; half++)
		for (int k = 0; k < 4; k++) {
			int i = 4 * half + k;
			m->pair[0][i] = k >= 1 ? f[half]->h1[k] : 0;
			m->pair[1][i] = k >= 2 ? f[half]->h2[k] : 0;
			m->pair[2][i] = k >= 3 ? f[half]->h3[k] : 0;
			m->pair[3][i] = f[half]->p[k];
			m->pair[4][i] = f[half]->sq[k];
		}
}

void ts_loudness_plain(ts_loudness *m)
{
	m->avx = 0;
}

ts_loudness *ts_loudness_new(int rate)
{
	if (rate < RATE_MIN || rate > RATE_MAX)
		return NULL;
	ts_loudness *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	kweight_init(m, rate);
	pair_init(m);
#ifdef LOUD_AVX
	m->avx = __builtin_cpu_supports("avx");
#endif
	m->step_len = (size_t)(rate + 5) / 10;
	return m;
}

void ts_loudness_free(ts_loudness *m)
{
	free(m);
}

/* Lanes of a and b (4 to 7 for b's), in GCC's and clang's words. */
#ifdef __clang__
#define SHUF(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#else
#define SHUF(a, b, i, j, k, l) __builtin_shuffle(a, b, (v4i){i, j, k, l})
#endif
/* The inputs one and two samples before each of x's, from the group
 * before (prev) and x. */
#define BEFORE1(prev, x) SHUF(prev, x, 3, 4, 5, 6)
#define BEFORE2(prev, x) SHUF(prev, x, 2, 3, 4, 5)

/* The recursion over four feed-forward values w, given the outputs
 * before (y).  Each shift of w brings zeros in: the terms of w from
 * before this group are in y already. */
static inline v4f recurse(const biquad *f, v4f w, v4f y)
{
	const v4f z = {0};
	v4f hw = w + f->h1 * SHUF(z, w, 0, 4, 5, 6) + f->h2 * SHUF(z, w, 0, 1, 4, 5) +
	         f->h3 * SHUF(z, w, 0, 1, 2, 4);
	v4f y1 = SHUF(y, y, 3, 3, 3, 3);
	v4f d1 = y1 - SHUF(y, y, 2, 2, 2, 2);
	return ((hw + y1) + f->p * y1) + f->sq * d1;
}

static int bin_of(double e);

/* A gating block of the last four steps. */
static void block_done(ts_loudness *m)
{
	double e =
	    (m->steps[0] + m->steps[1] + m->steps[2] + m->steps[3]) / (double)(4 * m->step_len);
	int bin = bin_of(e);
	if (bin >= 0) {
		m->count[bin]++;
		m->sum[bin] += e;
	}
}

/* A group of four ends the step after its first `left` samples. */
static void step_done(ts_loudness *m, v4f sq, size_t left)
{
	float head = 0;
	v4f tail = {0};
	for (size_t k = 0; k < 4; k++) {
		if (k < left)
			head += sq[k];
		else
			tail[k] = sq[k];
	}
	v4f a = m->acc;
	m->steps[m->nsteps++ % 4] = (double)((a[0] + a[1]) + (a[2] + a[3])) + head;
	m->acc = tail;
	m->step_fill = 4 - left;
	if (m->nsteps >= 4)
		block_done(m);
}

/* One group of four samples through the shelf: its outputs. */
static inline v4f shelf_step(biquad *s, v4f in)
{
	v4f w = s->b0 * in + s->b1 * BEFORE1(s->x, in) + s->b2 * BEFORE2(s->x, in);
	s->x = in;
	return s->y = recurse(s, w, s->y);
}

/* The high pass's feed-forward for a group of the shelf's outputs y: the
 * second difference, taken as differences of close numbers, which are
 * exact (x[i] - 2 x[i-1] would round away what a low tone leaves). */
static inline v4f high_input(biquad *h, v4f y)
{
	v4f u = BEFORE1(h->x, y);
	v4f w = (y - u) - (u - BEFORE2(h->x, y));
	h->x = y;
	return w;
}

/* A group of four of the shelf's outputs through the high pass. */
static inline v4f high_step(biquad *h, v4f y)
{
	v4f w = high_input(h, y);
	return h->y = recurse(h, w, h->y);
}

/* Count a group of four K-weighted outputs y into the step being
 * filled (acc, fill: the step's sum so far and its samples). */
static inline void count(ts_loudness *m, v4f y, v4f *acc, size_t *fill)
{
	v4f sq = y * y;
	if (m->step_len - *fill > 4) {
		*acc += sq;
		*fill += 4;
	} else {
		m->acc = *acc;
		step_done(m, sq, m->step_len - *fill);
		*acc = m->acc, *fill = m->step_fill;
	}
}

/* Filter and count n groups of four samples, x[0..4n). */
static void run_plain(ts_loudness *m, const float *x, size_t n)
{
	biquad s = m->shelf, h = m->high;
	v4f acc = m->acc;
	size_t fill = m->step_fill;
	for (size_t i = 0; i < n; i++)
		count(m, high_step(&h, shelf_step(&s, load4(x + 4 * i))), &acc, &fill);
	m->shelf = s, m->high = h;
	m->acc = acc, m->step_fill = fill;
}

#ifdef LOUD_AVX
/* How many groups the high pass runs behind the shelf in run_avx(). */
#define LAG 4

/* The same with AVX: both recursions in one vector of eight lanes, the
 * shelf's on group i in lanes 0-3 and the high pass's on group i - LAG
 * in lanes 4-7.  (The high pass's input is the shelf's output: were it
 * the group just before, each loop would wait for the one before it to
 * finish both filters.)  Every lane does the operations recurse() does,
 * in its order: the shifts of w that bring zeros in are a permutation
 * within each half times impulse responses that are zero where the zeros
 * would be.  So the results are those of run_plain(), with about half
 * the arithmetic instructions.  n > LAG. */
__attribute__((target("avx"))) static void run_avx(ts_loudness *m, const float *x, size_t n)
{
	biquad s = m->shelf, h = m->high;
	v4f acc = m->acc;
	size_t fill = m->step_fill;
	__m256 h1 = _mm256_loadu_ps(m->pair[0]), h2 = _mm256_loadu_ps(m->pair[1]);
	__m256 h3 = _mm256_loadu_ps(m->pair[2]), p = _mm256_loadu_ps(m->pair[3]);
	__m256 sq = _mm256_loadu_ps(m->pair[4]);
	v4f q[LAG]; /* the shelf's outputs the high pass has still to take */
	for (size_t i = 0; i < LAG; i++)
		q[i] = shelf_step(&s, load4(x + 4 * i));
	__m256 y = _mm256_insertf128_ps(_mm256_castps128_ps256(q[LAG - 1]), h.y, 1);
	for (size_t i = LAG; i < n; i++) {
		v4f in = load4(x + 4 * i);
		v4f ws = s.b0 * in + s.b1 * BEFORE1(s.x, in) + s.b2 * BEFORE2(s.x, in);
		s.x = in;
		v4f wh = high_input(&h, q[0]);
		for (size_t k = 0; k + 1 < LAG; k++)
			q[k] = q[k + 1];
		__m256 w = _mm256_insertf128_ps(_mm256_castps128_ps256(ws), wh, 1);
		__m256 hw =
		    ((w + h1 * _mm256_permute_ps(w, 0x90)) + h2 * _mm256_permute_ps(w, 0x40)) +
		    h3 * _mm256_permute_ps(w, 0x00);
		__m256 y1 = _mm256_permute_ps(y, 0xff);
		__m256 d1 = y1 - _mm256_permute_ps(y, 0xaa);
		y = ((hw + y1) + p * y1) + sq * d1;
		q[LAG - 1] = _mm256_castps256_ps128(y);
		count(m, _mm256_extractf128_ps(y, 1), &acc, &fill);
	}
	s.y = q[LAG - 1];
	h.y = _mm256_extractf128_ps(y, 1);
	for (size_t i = 0; i < LAG; i++)
		count(m, high_step(&h, q[i]), &acc, &fill);
	m->shelf = s, m->high = h;
	m->acc = acc, m->step_fill = fill;
}
#endif

/* Filter and count n groups of four samples, x[0..4n). */
static void run(ts_loudness *m, const float *x, size_t n)
{
#ifdef LOUD_AVX
	if (m->avx && n > LAG) {
		run_avx(m, x, n);
		return;
	}
#endif
	run_plain(m, x, n);
}

/* The energy of the block that the samples waiting in m->pend complete,
 * or -1 if they complete none: libebur128 counts a step as soon as its
 * last sample is in.  The filters are causal, so the group padded with
 * zeros gives the right outputs for the samples it holds. */
static double pending_block(const ts_loudness *m)
{
	size_t left = m->step_len - m->step_fill;
	if (m->npend == 0 || (size_t)m->npend < left || m->nsteps < 3)
		return -1;
	biquad s = m->shelf, h = m->high;
	v4f in = {0}, acc = m->acc;
	memcpy(&in, m->pend, (size_t)m->npend * sizeof *m->pend);
	v4f y = high_step(&h, shelf_step(&s, in));
	double step = (double)((acc[0] + acc[1]) + (acc[2] + acc[3]));
	for (size_t k = 0; k < left; k++)
		step += y[k] * y[k];
	double e = step;
	for (uint64_t i = 1; i < 4; i++)
		e += m->steps[(m->nsteps - i) % 4];
	return e / (double)(4 * m->step_len);
}

#ifdef __SSE__
#define FTZ_ON                                                                                     \
	unsigned int csr_ = _mm_getcsr();                                                          \
	_mm_setcsr(csr_ | 0x8040) /* flush to zero, denormals are zero */
#define FTZ_OFF _mm_setcsr(csr_)
#else
#define FTZ_ON  (void)0
#define FTZ_OFF (void)0
#endif

/* Samples from x (floats) or s (16-bit), n of them, in groups of four;
 * what does not fill a group waits in m->pend. */
static void add(ts_loudness *m, const float *x, const int16_t *s, size_t n)
{
	FTZ_ON;
	float buf[1024];
	while (n > 0) {
		if (m->npend > 0 || n < 4) {
			m->pend[m->npend++] = x ? *x++ : *s++ * (1.0f / 32768);
			n--;
			if (m->npend == 4) {
				run(m, m->pend, 1);
				m->npend = 0;
			}
			continue;
		}
		size_t k = n < 1024 ? n & ~(size_t)3 : 1024;
		if (x) {
			run(m, x, k / 4);
			x += k;
		} else {
			for (size_t i = 0; i < k; i++)
				buf[i] = s[i] * (1.0f / 32768);
			run(m, buf, k / 4);
			s += k;
		}
		n -= k;
	}
	FTZ_OFF;
}

void ts_loudness_add(ts_loudness *m, const float *x, size_t n)
{
	add(m, x, NULL, n);
}

void ts_loudness_add_s16(ts_loudness *m, const int16_t *x, size_t n)
{
	add(m, NULL, x, n);
}

/* The histogram's bin for a block of energy e, or -1 under the
 * absolute gate. */
static int bin_of(double e)
{
	double lufs = 10 * log10(e) - 0.691;
	if (!(lufs >= BIN_LOW))
		return -1; /* the absolute gate (and silence) */
	double b = floor((lufs - BIN_LOW) / BIN_LU);
	return b < BINS - 1 ? (int)b : BINS - 1;
}

double ts_loudness_integrated(const ts_loudness *m)
{
	double extra = pending_block(m);
	int xbin = extra > 0 ? bin_of(extra) : -1;
	double sum = xbin >= 0 ? extra : 0;
	uint64_t count = xbin >= 0;
	for (int i = 0; i < BINS; i++)
		sum += m->sum[i], count += m->count[i];
	if (count == 0)
		return -INFINITY;
	/* The relative gate: blocks in bins reaching it are counted. */
	double gate = 10 * log10(sum / (double)count * 0.1) - 0.691;
	double g = ceil((gate - BIN_LOW) / BIN_LU) - 1;
	int first = g > 0 ? (g < BINS - 1 ? (int)g : BINS - 1) : 0;
	sum = xbin >= first ? extra : 0;
	count = xbin >= first;
	for (int i = first; i < BINS; i++)
		sum += m->sum[i], count += m->count[i];
	return 10 * log10(sum / (double)count) - 0.691;
}
