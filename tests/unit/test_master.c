/* test_master.c - loudness, limiter, true peak and resampling of the
 * master stage, on synthetic signals, measured with libebur128 apart
 * from the code under test. */
#include "check.h"
#include "audio/master.h"
#include "base/util.h"
#include "audio/write.h"

#include <dirent.h>
#include <ebur128.h>
#include <math.h>
#include <sndfile.h>
#include <sys/stat.h>
#include <unistd.h>

#define RATE 22050

static double db(double x)
{
	return 20 * log10(x);
}

/* libebur128's own view of a float signal. */
static void measure(const float *x, size_t n, int rate, double *lufs, double *tp)
{
	ebur128_state *st =
	    ebur128_init(1, (unsigned long)rate, EBUR128_MODE_I | EBUR128_MODE_TRUE_PEAK);
	ebur128_add_frames_float(st, x, n);
	ebur128_loudness_global(st, lufs);
	ebur128_true_peak(st, 0, tp);
	*tp = db(*tp); /* libebur128 gives it linear */
	ebur128_destroy(&st);
}

/* Something like speech: bursts of a few harmonics and noise with pauses,
 * loud (peaks past full scale when scaled by amp). */
static float *speechlike(size_t n, double amp, unsigned seed)
{
	float *x = calloc(n, sizeof *x);
	for (size_t i = 0; i < n; i++) {
		double t = (double)i / RATE;
		double env = sin(M_PI * fmod(t, 0.25) / 0.25);
		if (fmod(t, 1.0) > 0.75)
			env = 0; /* pauses */
		seed = seed * 1103515245u + 12345u;
		double noise = ((seed >> 8) & 0xFFFF) / 32768.0 - 1;
		double f0 = 140 + 30 * sin(2 * M_PI * 0.7 * t);
		double v = sin(2 * M_PI * f0 * t) + 0.6 * sin(2 * M_PI * 2 * f0 * t) +
		           0.4 * sin(2 * M_PI * 5 * f0 * t) + 0.15 * noise;
		x[i] = (float)(amp * env * env * v);
	}
	return x;
}

static void test_true_peak(void)
{
	/* A sine at a quarter of the rate, sampled 45 degrees off its
	 * crests: every sample is 0.707 of the true peak. */
	size_t n = 4000;
	float *x = malloc(n * sizeof *x);
	for (size_t i = 0; i < n; i++)
		x[i] = (float)(0.5 * sin(M_PI / 2 * (double)i + M_PI / 4));
	double tp = ts_true_peak(x, n), ref, lufs;
	measure(x, n, RATE, &lufs, &ref);
	CHECK(fabs(db(tp) - db(0.5)) < 0.2);
	CHECK(fabs(db(tp) - ref) < 0.05); /* the same estimate as libebur128's */
	free(x);
}

/* The true peak the slow way, in double: the signal (zero outside
 * [0, n)) oversampled 4x with the 49-tap Hann-windowed sinc of
 * libebur128 and BS.1770, every point computed. */
static double true_peak_reference(const float *x, size_t n)
{
	double h[49], peak = 0;
	for (int j = 0; j < 49; j++) {
		double m = (j - 24) / 4.0;
		h[j] =
		    j == 24 ? 1 : sin(M_PI * m) / (M_PI * m) * 0.5 * (1 - cos(2 * M_PI * j / 48.0));
	}
	for (size_t i = 0; i < n; i++)
		peak = fmax(peak, fabs(x[i]));
	for (size_t m = 0; m < n + 12; m++)
		for (int k = 1; k < 4; k++) {
			double v = 0;
			for (int t = 0; t < 12; t++)
				if (m >= (size_t)t && m - (size_t)t < n)
					v += h[k + 4 * t] * x[m - (size_t)t];
			peak = fmax(peak, fabs(v));
		}
	return peak;
}

/* The fast meter (vectorized, skipping where no peak can be) agrees with
 * the slow reference on noise and tones of many lengths and levels, and
 * the limiter's output stays under the ceiling by the reference, from its
 * first sample to its last. */
static void test_true_peak_reference(void)
{
	unsigned seed = 7;
	double ceiling = pow(10, -3.0 / 20);
	size_t worst = 0;
	for (int c = 0; c < 40; c++) {
		seed = seed * 1103515245u + 12345u;
		size_t n = 1 + (seed >> 8) % 9000; /* odd lengths: every tail path */
		double amp = 0.05 + (double)(c % 8) * 0.25;
		float *x = malloc(n * sizeof *x);
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			double noise = ((seed >> 8) & 0xFFFF) / 32768.0 - 1;
			/* a loud burst near Nyquist somewhere in the middle */
			double tone = i > n / 3 && i < n / 2 ? sin(2.9 * (double)i + c) : 0;
			x[i] = (float)(amp * (c % 2 ? noise : 0.3 * noise + tone));
		}
		double fast = ts_true_peak(x, n), ref = true_peak_reference(x, n);
		if (!(fabs(fast - ref) <= 1e-5 * ref + 1e-9))
			worst++;
		ts_limit_buffer(x, n, RATE, ceiling);
		/* The points between samples whose gains differ may pass
		 * the ceiling by a hair (the master aims 0.2 dB under it). */
		if (db(true_peak_reference(x, n)) > -3.0 + 0.05)
			worst++;
		free(x);
	}
	CHECK(worst == 0);
}

static void test_limiter(void)
{
	size_t n = (size_t)RATE * 4;
	float *x = speechlike(n, 1.0, 1);
	/* A loud tone near the top of the band, where samples miss peaks. */
	for (size_t i = RATE; i < (size_t)RATE * 3 / 2; i++)
		x[i] += (float)(1.5 * sin(2 * M_PI * 0.45 * (double)i + 0.3));
	float *y = malloc(n * sizeof *y);
	memcpy(y, x, n * sizeof *x);
	double ceiling = pow(10, -3.0 / 20);
	long lim = ts_limit_buffer(y, n, RATE, ceiling);
	CHECK(lim > 0);
	double tp = ts_true_peak(y, n), ref, lufs;
	measure(y, n, RATE, &lufs, &ref);
	CHECK(db(tp) <= -3.0 + 0.05);
	CHECK(ref <= -3.0 + 0.05);
	/* The gain only goes down, and never to silence. */
	size_t wrong = 0;
	for (size_t i = 0; i < n; i++)
		if (fabsf(y[i]) > fabsf(x[i]) + 1e-6f ||
		    (fabsf(x[i]) > 0.01f && fabsf(y[i]) < 0.05f * fabsf(x[i])))
			wrong++;
	CHECK(wrong == 0);
	free(x);
	free(y);

	/* Under the ceiling nothing changes: not a sample, not a delay. */
	x = speechlike(n, 0.3, 2);
	y = malloc(n * sizeof *y);
	memcpy(y, x, n * sizeof *x);
	CHECK(ts_limit_buffer(y, n, RATE, ceiling) == 0);
	CHECK(memcmp(x, y, n * sizeof *x) == 0);
	free(x);
	free(y);
}

static int dir_entries(const char *dir)
{
	int k = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		k += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	if (d)
		closedir(d);
	return k;
}

/* Run n samples of x through a master and read the file back. */
static float *master_file(const char *dir, const ts_master_opts *o, const float *x, size_t n,
                          size_t *got, int *rate, ts_master_report *rep)
{
	char path[512];
	snprintf(path, sizeof path, "%s/t.wav", dir);
	ts_error err = {0};
	ts_writer_opts wo = {.expect_frames = n, .quality = TS_QUALITY_DEFAULT, .owner_pid = 4242};
	ts_master *m = ts_master_open(o, RATE, ts_format_find("wav"), path, &wo, &err);
	CHECK(m != NULL);
	if (!m) {
		fprintf(stderr, "%s\n", ts_error_msg(&err));
		return NULL;
	}
	int16_t *s = malloc(n * sizeof *s);
	for (size_t i = 0; i < n; i++) {
		float v = x[i] * 32768;
		s[i] = (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
	}
	for (size_t i = 0; i < n; i += 1000)
		CHECK(ts_master_write(m, s + i, n - i < 1000 ? n - i : 1000) == 0);
	free(s);
	CHECK(ts_master_commit(m, rep, &err) == 0);
	CHECK(dir_entries(dir) == 1); /* no temporary file left */
	SF_INFO info = {0};
	SNDFILE *f = sf_open(path, SFM_READ, &info);
	CHECK(f != NULL);
	float *y = malloc((size_t)info.frames * sizeof *y);
	*got = (size_t)sf_readf_float(f, y, info.frames);
	*rate = info.samplerate;
	sf_close(f);
	unlink(path);
	return y;
}

static void test_master(const char *dir)
{
	size_t n = (size_t)RATE * 20, got;
	int rate;
	float *x = speechlike(n, 0.9, 3);
	ts_master_opts o = {.normalize = 1, .target_lufs = -20, .ceiling_dbtp = -3};
	ts_master_report rep;
	double lufs, tp;

	/* Loud input: brought down, peaks limited. */
	float *y = master_file(dir, &o, x, n, &got, &rate, &rep);
	CHECK(got == n && rate == RATE);
	measure(y, got, rate, &lufs, &tp);
	CHECK(fabs(lufs + 20) <= 0.5);
	CHECK(tp < -3.0);
	CHECK(fabs(rep.output_lufs - lufs) < 0.1);
	CHECK(fabs(rep.true_peak_db - tp) < 0.1);
	free(y);

	/* Quiet input, other targets, resampled to 48 kHz: the same length
	 * in time, the same loudness. */
	for (size_t i = 0; i < n; i++)
		x[i] *= 0.05f;
	o.target_lufs = -16;
	o.ceiling_dbtp = -1;
	o.out_rate = 48000;
	y = master_file(dir, &o, x, n, &got, &rate, &rep);
	CHECK(rate == 48000);
	CHECK(llabs((long long)got - llround((double)n * 48000 / RATE)) <= 1);
	measure(y, got, rate, &lufs, &tp);
	CHECK(fabs(lufs + 16) <= 0.5);
	CHECK(tp < -1.0);
	free(y);

	/* A loud target under a low ceiling: the limiter works all along,
	 * and the level still comes out right. */
	for (size_t i = 0; i < n; i++)
		x[i] *= 5; /* about -19 LUFS, peaks 12 dB above */
	o.target_lufs = -13;
	o.ceiling_dbtp = -3;
	o.out_rate = 0;
	y = master_file(dir, &o, x, n, &got, &rate, &rep);
	measure(y, got, rate, &lufs, &tp);
	CHECK(fabs(lufs + 13) <= 0.5);
	CHECK(tp < -3.0 + 0.05);
	CHECK(rep.limited_s > 1);
	free(y);

	/* Off: the samples as they came, and resampling alone. */
	o.normalize = 0;
	o.out_rate = 0;
	y = master_file(dir, &o, x, n, &got, &rate, &rep);
	CHECK(got == n);
	size_t diff = 0;
	for (size_t i = 0; i < n && y; i++)
		diff += fabsf(y[i] - x[i]) > 1.5f / 32768;
	CHECK(diff == 0);
	free(y);
	o.out_rate = 44100;
	y = master_file(dir, &o, x, n, &got, &rate, &rep);
	CHECK(rate == 44100 && got == 2 * n);
	free(y);
	free(x);

	/* Abort leaves nothing. */
	char path[512];
	snprintf(path, sizeof path, "%s/a.wav", dir);
	o.normalize = 1;
	ts_writer_opts wo = {
	    .expect_frames = 100, .quality = TS_QUALITY_DEFAULT, .owner_pid = 4242};
	ts_master *m = ts_master_open(&o, RATE, ts_format_find("wav"), path, &wo, NULL);
	int16_t s[100] = {1000};
	CHECK(m && ts_master_write(m, s, 100) == 0);
	ts_master_abort(m);
	CHECK(dir_entries(dir) == 0);

	/* A file that cannot be written: the error names it, no file left. */
	ts_error err = {0};
	snprintf(path, sizeof path, "%s/no-such-folder/b.wav", dir);
	CHECK(ts_master_open(&o, RATE, ts_format_find("wav"), path, &wo, &err) == NULL);
	CHECK(err.code == TS_EIO && strstr(err.msg, "no-such-folder/.b.wav.raw.part-4242@") &&
	      strstr(err.msg, ": cannot write: No such file"));
	o.normalize = 0;
	CHECK(ts_master_open(&o, RATE, ts_format_find("wav"), path, &wo, &err) == NULL);
	CHECK(err.code == TS_EAUDIO && strstr(err.msg, "no-such-folder/b.wav: cannot write"));
	CHECK(dir_entries(dir) == 0);
}

/* The gain a probe of x chooses for o's target. */
static double probe_gain(const ts_master_opts *o, const float *x, size_t n, double *lufs)
{
	ts_master *m = ts_master_open_probe(o, RATE, NULL);
	CHECK(m != NULL);
	for (size_t i = 0; i < n; i++) {
		int16_t v = (int16_t)lrintf(x[i] * 32767);
		CHECK(ts_master_write(m, &v, 1) == 0);
	}
	return ts_master_probe_end(m, lufs);
}

/* One pass: a gain chosen on a probe of like speech brings the chapter to
 * its target as it comes; a gain far off is found out, and the chapter is
 * measured and made again from its raw samples. */
static void test_one_pass(const char *dir)
{
	size_t n = (size_t)RATE * 20, got;
	int rate;
	float *x = speechlike(n, 0.9, 3), *sample = speechlike(RATE * 5, 0.9, 7);
	ts_master_opts o = {.normalize = 1, .target_lufs = -20, .ceiling_dbtp = -3};
	ts_master_report rep;
	double lufs, tp, in;
	o.gain_db = probe_gain(&o, sample, RATE * 5, &in);
	CHECK(isfinite(o.gain_db) && o.gain_db < 0 && in > -20);
	o.one_pass = 1;
	o.expect_lufs = in;
	float *y = master_file(dir, &o, x, n, &got, &rate, &rep);
	CHECK(got == n);
	measure(y, got, rate, &lufs, &tp);
	CHECK(rep.passes == 1 && isnan(rep.input_lufs) && rep.level_lufs == in);
	CHECK(fabs(lufs + 20) <= 0.3 && tp < -3.0);
	CHECK(fabs(rep.output_lufs - lufs) < 0.1 && rep.gain_db == o.gain_db);
	free(y);
	/* 4 dB off: a second pass, measured, on target. */
	o.gain_db += 4;
	y = master_file(dir, &o, x, n, &got, &rate, &rep);
	CHECK(got == n);
	measure(y, got, rate, &lufs, &tp);
	CHECK(rep.passes >= 2 && isfinite(rep.input_lufs) && rep.level_lufs == rep.input_lufs);
	CHECK(fabs(lufs + 20) <= 0.3 && tp < -3.0);
	free(y);
	/* Silence chooses no gain. */
	memset(sample, 0, RATE * sizeof *sample);
	CHECK(isnan(probe_gain(&o, sample, RATE, &in)) && isnan(in));
	free(sample);
	free(x);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_master SCRATCH_DIR\n");
		return 2;
	}
	mkdir(argv[1], 0755);
	test_true_peak();
	test_true_peak_reference();
	test_limiter();
	test_master(argv[1]);
	test_one_pass(argv[1]);
	return check_done("test_master");
}
