/* pitch.c - the fundamental frequency of a voice, from a recording of it,
 * for the end-to-end test of the voice presets and for README's table:
 *
 *   median_hz=103.2   median F0 of the voiced frames
 *   q1_hz=93.0        their first and third quartiles
 *   q3_hz=117.9
 *   iqr_st=4.1        the spread between them, in semitones
 *   voiced=904        frames taken as voiced
 *
 * The signal is taken two samples at a time (their mean), cut into frames
 * of 40 ms every 20 ms; a frame is voiced when its RMS reaches a tenth of
 * the whole file's and its normalized autocorrelation peaks at 0.5 or
 * more at a lag of 2 to 20 ms (500 to 50 Hz).  Its F0 is the rate over
 * that lag, refined by a parabola through the peak.
 *
 * Usage: pitch FILE.  Exit 0, 1 if the file cannot be read or has no
 * voiced frame, 2 on a usage error. */
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The F0 of frame x[0..n), lags lo..hi (r: room for hi + 2), or 0 if it
 * is not voiced. */
static double frame_f0(const double *x, size_t n, size_t lo, size_t hi, double rate, double *r)
{
	double r0 = 0;
	for (size_t i = 0; i < n; i++)
		r0 += x[i] * x[i];
	if (r0 <= 0)
		return 0;
	for (size_t k = lo - 1; k <= hi + 1; k++) {
		double s = 0;
		for (size_t i = 0; i + k < n; i++)
			s += x[i] * x[i + k];
		r[k] = s;
	}
	size_t best = lo;
	for (size_t k = lo; k <= hi; k++)
		if (r[k] > r[best])
			best = k;
	if (r[best] / r0 < 0.5)
		return 0;
	double a = r[best - 1], b = r[best], c = r[best + 1];
	double d = a - 2 * b + c, shift = d < 0 ? 0.5 * (a - c) / d : 0;
	return rate / ((double)best + shift);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: pitch FILE\n");
		return 2;
	}
	SF_INFO info;
	memset(&info, 0, sizeof info);
	SNDFILE *f = sf_open(argv[1], SFM_READ, &info);
	if (!f || info.channels != 1 || info.frames < 2) {
		fprintf(stderr, "pitch: %s: %s\n", argv[1],
		        f ? "not a mono recording" : sf_strerror(NULL));
		return 1;
	}
	size_t n = (size_t)info.frames / 2;
	double *x = malloc(2 * n * sizeof *x), rate = info.samplerate / 2.0;
	if (!x || sf_read_double(f, x, (sf_count_t)(2 * n)) != (sf_count_t)(2 * n)) {
		fprintf(stderr, "pitch: %s: cannot read\n", argv[1]);
		return 1;
	}
	sf_close(f);
	double all = 0;
	for (size_t i = 0; i < n; i++) {
		x[i] = 0.5 * (x[2 * i] + x[2 * i + 1]);
		all += x[i] * x[i];
	}
	double floor_rms = 0.1 * sqrt(all / (double)n);
	size_t len = (size_t)(0.04 * rate), hop = (size_t)(0.02 * rate);
	size_t lo = (size_t)(rate / 500), hi = (size_t)(rate / 50);
	double *f0 = malloc((n / hop + 1) * sizeof *f0), *fr = malloc(len * sizeof *fr);
	double *r = malloc((hi + 2) * sizeof *r);
	size_t voiced = 0;
	for (size_t at = 0; f0 && fr && r && at + len <= n; at += hop) {
		double mean = 0, e = 0;
		for (size_t i = 0; i < len; i++)
			mean += x[at + i];
		mean /= (double)len;
		for (size_t i = 0; i < len; i++) {
			fr[i] = x[at + i] - mean;
			e += fr[i] * fr[i];
		}
		if (sqrt(e / (double)len) < floor_rms)
			continue;
		double v = frame_f0(fr, len, lo, hi, rate, r);
		if (v > 0)
			f0[voiced++] = v;
	}
	if (voiced == 0) {
		fprintf(stderr, "pitch: %s: no voiced frame\n", argv[1]);
		return 1;
	}
	qsort(f0, voiced, sizeof *f0, cmp_double);
	double q1 = f0[voiced / 4], med = f0[voiced / 2], q3 = f0[3 * voiced / 4];
	printf("median_hz=%.1f\nq1_hz=%.1f\nq3_hz=%.1f\niqr_st=%.1f\nvoiced=%zu\n", med, q1, q3,
	       12 * log2(q3 / q1), voiced);
	free(r);
	free(fr);
	free(f0);
	free(x);
	return 0;
}
