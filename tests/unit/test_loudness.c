/* test_loudness.c - the single-precision loudness meter against
 * libebur128 (mode I without histogram: every block kept, exact gates),
 * on speech from eSpeak, noise, tones, silence, signals that make the
 * gates matter, odd lengths, odd ways of feeding, at every rate from
 * 8 to 192 kHz. */
#include "check.h"
#include "audio/loudness.h"
#include "speech/synth.h"

#include <ebur128.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOL 0.02 /* LU (the issue asks 0.05); the worst seen, 0.012, is a 20 Hz tone at 192 kHz */

static double worst; /* the largest difference seen */

static double oracle(const float *x, size_t n, int rate)
{
	ebur128_state *st = ebur128_init(1, (unsigned long)rate, EBUR128_MODE_I);
	double l = NAN;
	if (st && ebur128_add_frames_float(st, x, n) == EBUR128_SUCCESS)
		ebur128_loudness_global(st, &l);
	if (st)
		ebur128_destroy(&st);
	return l;
}

/* Ours, fed in pieces of the sizes in sizes[] (cycled), 0: all at once;
 * with the plain four-lane code if plain. */
static double ours1(const float *x, size_t n, int rate, const size_t *sizes, int plain)
{
	ts_loudness *m = ts_loudness_new(rate);
	CHECK(m != NULL);
	if (!m)
		return NAN;
	if (plain)
		ts_loudness_plain(m);
	for (size_t i = 0, k = 0; i < n; k++) {
		size_t step = sizes ? sizes[k % 4] : n;
		if (step > n - i)
			step = n - i;
		ts_loudness_add(m, x + i, step);
		i += step;
	}
	double l = ts_loudness_integrated(m);
	ts_loudness_free(m);
	return l;
}

/* Ours, and the same from the plain code, which must agree to the bit
 * (where the processor has AVX, the meter runs both filters in one
 * vector of eight lanes). */
static double ours(const float *x, size_t n, int rate, const size_t *sizes)
{
	double l = ours1(x, n, rate, sizes, 0), lp = ours1(x, n, rate, sizes, 1);
	CHECK(l == lp || (isnan(l) && isnan(lp)));
	if (!(l == lp || (isnan(l) && isnan(lp))))
		fprintf(stderr, "at %d Hz: %.17g, the plain code %.17g\n", rate, l, lp);
	return l;
}

static void agree(const char *what, const float *x, size_t n, int rate)
{
	static const size_t odd[4] = {1, 1023, 7, 4099};
	double want = oracle(x, n, rate), got = ours(x, n, rate, NULL);
	double got2 = ours(x, n, rate, odd);
	if (isinf(want)) {
		CHECK(isinf(got) && got < 0 && isinf(got2) && got2 < 0);
		if (!(isinf(got) && isinf(got2)))
			fprintf(stderr, "%s at %d Hz: libebur128 -inf, ours %.4f %.4f\n", what,
			        rate, got, got2);
		return;
	}
	double d = fmax(fabs(got - want), fabs(got2 - want));
	if (d > worst)
		worst = d;
	if (!(d <= TOL))
		fprintf(stderr, "%s at %d Hz: libebur128 %.4f, ours %.4f and %.4f\n", what, rate,
		        want, got, got2);
	CHECK(d <= TOL);
}

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static float *noise(size_t n, double amp, unsigned seed)
{
	float *x = malloc(n * sizeof *x);
	for (size_t i = 0; i < n; i++)
		x[i] = (float)(amp * (((rnd(&seed) & 0xFFFF) / 32768.0) - 1));
	return x;
}

static float *tone(size_t n, double f, double amp, int rate)
{
	float *x = malloc(n * sizeof *x);
	for (size_t i = 0; i < n; i++)
		x[i] = (float)(amp * sin(2 * M_PI * f * (double)i / rate));
	return x;
}

/* Loud speech-like bursts, long pauses holding noise at -50 dB, and a
 * stretch of -25 dB: the relative gate keeps some blocks and drops
 * others. */
static float *gated(size_t n, int rate, unsigned seed)
{
	float *x = malloc(n * sizeof *x);
	for (size_t i = 0; i < n; i++) {
		double t = (double)i / rate;
		double amp = fmod(t, 3.0) < 1.2 ? 0.5 : fmod(t, 3.0) < 2.0 ? 0.05 : 0.003;
		double v = sin(2 * M_PI * 180 * t) + 0.5 * sin(2 * M_PI * 900 * t);
		x[i] = (float)(amp * (0.7 * v + 0.3 * (((rnd(&seed) & 0xFFFF) / 32768.0) - 1)));
	}
	return x;
}

static void test_signals(int rate)
{
	size_t n = (size_t)rate * 7 + 123; /* not a whole number of steps */
	float *x;
	agree("noise -20 dB", x = noise(n, 0.1, 1), n, rate), free(x);
	agree("noise full scale", x = noise(n, 1.0, 2), n, rate), free(x);
	agree("tone 1 kHz", x = tone(n, 997, 0.5, rate), n, rate), free(x);
	agree("tone 40 Hz", x = tone(n, 40, 0.5, rate), n, rate), free(x);
	agree("tone 20 Hz", x = tone(n, 20, 0.9, rate), n, rate), free(x);
	agree("tone near Nyquist", x = tone(n, rate * 0.45, 0.3, rate), n, rate), free(x);
	agree("gates", x = gated(n * 3, rate, 3), n * 3, rate), free(x);
	/* Near the absolute gate: a tone at about -69 LUFS. */
	agree("quiet tone", x = tone(n, 997, 0.00045, rate), n, rate), free(x);
	x = calloc(n, sizeof *x);
	agree("silence", x, n, rate);
	free(x);
	/* Lengths around one block: 399 ms, 400 ms, one more, 1 sample; and
	 * two blocks, which at 11,025 Hz (1,103 samples a step) end with a
	 * group of four not filled. */
	size_t s100 = (size_t)(rate + 5) / 10;
	size_t lens[] = {4 * s100 - 1, 4 * s100, 4 * s100 + 1, 5 * s100 - 1, 5 * s100, 1, 0};
	x = noise(5 * s100, 0.3, 4);
	for (size_t i = 0; i < sizeof lens / sizeof *lens; i++)
		agree("short", x, lens[i], rate);
	free(x);
}

/* eSpeak's own speech, 16-bit, through both entry points. */
static void test_speech(void)
{
	ts_voice v;
	ts_voice_defaults(&v);
	ts_error err = {0};
	ts_synth *s = ts_synth_new(&v, 1.0, &err);
	if (!s) {
		fprintf(stderr, "cannot start eSpeak: %s\n", ts_error_msg(&err));
		CHECK(0);
		return;
	}
	ts_samples a = {0};
	CHECK(ts_synth_speak(s,
	                     "话说天下大势，分久必合，合久必分。周末七国分争，并入于秦。"
	                     "及秦灭之后，楚、汉分争，又并入于汉。今天天气很好，我们去公园散步吧。",
	                     &a) == 0);
	int rate = ts_synth_rate(s);
	CHECK(a.len > (size_t)rate * 5);
	float *x = malloc(a.len * sizeof *x);
	for (size_t i = 0; i < a.len; i++)
		x[i] = a.data[i] / 32768.0f;
	agree("speech", x, a.len, rate);

	ebur128_state *st = ebur128_init(1, (unsigned long)rate, EBUR128_MODE_I);
	double want = NAN;
	ebur128_add_frames_short(st, a.data, a.len);
	ebur128_loudness_global(st, &want);
	ebur128_destroy(&st);
	ts_loudness *m = ts_loudness_new(rate);
	ts_loudness_add_s16(m, a.data, a.len / 2);
	ts_loudness_add_s16(m, a.data + a.len / 2, a.len - a.len / 2);
	double got = ts_loudness_integrated(m);
	ts_loudness_free(m);
	fprintf(stderr, "speech, %zu samples: libebur128 %.4f LUFS, ours %.4f (16-bit)\n", a.len,
	        want, got);
	CHECK(fabs(got - want) <= TOL);
	free(x);
	ts_samples_free(&a);
	ts_synth_free(s);
}

int main(void)
{
	static const int rates[] = {8000,  11025, 16000, 22050, 24000,
	                            32000, 44100, 48000, 96000, 192000};
	for (size_t i = 0; i < sizeof rates / sizeof *rates; i++)
		test_signals(rates[i]);
	CHECK(ts_loudness_new(7999) == NULL);
	CHECK(ts_loudness_new(384001) == NULL);
	test_speech();
	fprintf(stderr, "largest difference from libebur128: %.5f LU\n", worst);
	return check_done("test_loudness");
}
