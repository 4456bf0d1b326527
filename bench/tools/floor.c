/* floor - what the libraries of the finishing stage cost on their own, with
 * none of tingshu's code around them: the least any program that measures
 * loudness with libebur128, resamples with libsoxr and encodes FLAC through
 * libsndfile must spend on a chapter of eSpeak NG's samples.  bench/floor.sh
 * sets these figures beside eSpeak NG's own synthesis time.
 *
 * The WAV file (mono, 16-bit, as eSpeak NG writes it: 22,050 Hz) is read
 * whole into memory first; everything each stage needs (floats, the
 * resampled samples rounded to 16 bits) is made before the timing.  Each
 * stage then hands the library all the samples in blocks of BLOCK, as a
 * streaming program would, and is timed in CPU time of the process (user +
 * system: the kernel's share of writing a file counts).  The stages take
 * turns, REPS rounds of them, and each keeps its best (smallest) time.
 *
 *   ebur128  integrated loudness (mode I, histogram) of the input's samples
 *   meter    the same with tingshu's own meter (src/audio/loudness.c), which
 *            replaced libebur128 in the product
 *   soxr     22,050 -> 44,100 Hz, SOXR_HQ, float32, one thread, flushed
 *   flac     FLAC, 16-bit, 44,100 Hz, libFLAC level 0 (the fastest), of the
 *            resampled samples; sf_open to sf_close
 *   flac22   the same at the input's rate, of the input's samples
 *   wav      a plain 16-bit WAV at the input's rate (what a WAV build writes)
 *
 * Usage: floor [-k REPS] WAV TMPDIR   (REPS default 3; the files are written
 * in TMPDIR and removed).  Prints "STAGE SECONDS SAMPLES" lines on stdout,
 * SAMPLES being what the library was given (soxr: what it made); the
 * loudness measured and the sizes of the files on stderr, to show the work
 * was done.  Exit 0, or 2 with a message on stderr. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, also with -std=c11 */

#include "audio/loudness.h"

#include <ebur128.h>
#include <errno.h>
#include <math.h>
#include <sndfile.h>
#include <soxr.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define BLOCK    4096
#define OUT_RATE 44100

/* The input and what the stages are given. */
struct job {
	const short *in; /* the WAV's samples */
	const float *fin;
	size_t n;
	int rate;
	const short *out; /* the input resampled to OUT_RATE, rounded */
	size_t nout;
	const char *path; /* the file the writing stages make */
	int first;        /* first round: report what the stage measured */
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("floor: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static double cpu_seconds(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		die("clock_gettime: %s", strerror(errno));
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

static short to_short(float v)
{
	v *= 32768.0f;
	v = v > 32767.0f ? 32767.0f : v;
	v = v < -32768.0f ? -32768.0f : v;
	return (short)lrintf(v);
}

/* ---- the stages ------------------------------------------------------ */

static size_t stage_ebur128(const struct job *j)
{
	ebur128_state *st =
	    ebur128_init(1, (unsigned long)j->rate, EBUR128_MODE_I | EBUR128_MODE_HISTOGRAM);
	if (!st)
		die("ebur128_init failed");
	for (size_t i = 0; i < j->n; i += BLOCK) {
		size_t k = j->n - i < BLOCK ? j->n - i : BLOCK;
		if (ebur128_add_frames_short(st, j->in + i, k) != EBUR128_SUCCESS)
			die("ebur128_add_frames_short failed");
	}
	double lufs;
	if (ebur128_loudness_global(st, &lufs) != EBUR128_SUCCESS)
		die("ebur128_loudness_global failed");
	ebur128_destroy(&st);
	if (j->first)
		fprintf(stderr, "floor: ebur128: integrated loudness %.2f LUFS\n", lufs);
	return j->n;
}

static size_t stage_meter(const struct job *j)
{
	ts_loudness *m = ts_loudness_new(j->rate);
	if (!m)
		die("ts_loudness_new failed");
	for (size_t i = 0; i < j->n; i += BLOCK) {
		size_t k = j->n - i < BLOCK ? j->n - i : BLOCK;
		ts_loudness_add_s16(m, j->in + i, k);
	}
	double lufs = ts_loudness_integrated(m);
	ts_loudness_free(m);
	if (j->first)
		fprintf(stderr, "floor: meter: integrated loudness %.2f LUFS\n", lufs);
	return j->n;
}

/* Resample the input to OUT_RATE in blocks and flush; each block of output
 * is dropped, or rounded into out (room for cap samples) when out is not
 * NULL.  Returns the samples made. */
static size_t resample(const struct job *j, short *out, size_t cap)
{
	soxr_error_t e = NULL;
	soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
	soxr_quality_spec_t q = soxr_quality_spec(SOXR_HQ, 0);
	soxr_runtime_spec_t rt = soxr_runtime_spec(1);
	soxr_t rs = soxr_create(j->rate, OUT_RATE, 1, &e, &io, &q, &rt);
	if (!rs)
		die("soxr_create: %s", e ? e : "failed");
	size_t ocap = (size_t)((double)BLOCK * OUT_RATE / j->rate) + 64, made_all = 0;
	float *obuf = xmalloc(ocap * sizeof *obuf);
	const float *x = j->fin;
	size_t left = j->n;
	for (;;) {
		size_t k = left < BLOCK ? left : BLOCK, used = 0, made = 0;
		/* x == NULL: the input has ended, flush */
		e = soxr_process(rs, left ? x : NULL, k, &used, obuf, ocap, &made);
		if (e)
			die("soxr_process: %s", e);
		if (out) {
			if (made > cap - made_all)
				die("the resampler made more samples than expected");
			for (size_t i = 0; i < made; i++)
				out[made_all + i] = to_short(obuf[i]);
		}
		made_all += made;
		if (left) {
			x += used;
			left -= used;
		} else if (made == 0) {
			break;
		}
	}
	free(obuf);
	soxr_delete(rs);
	return made_all;
}

static size_t stage_soxr(const struct job *j)
{
	return resample(j, NULL, 0);
}

/* Write n samples at rate to j->path as format, in blocks; level >= 0 sets
 * libsndfile's compression level (0: libFLAC's fastest). */
static size_t write_file(const struct job *j, int format, int rate, double level, const short *s,
                         size_t n)
{
	SF_INFO info = {.samplerate = rate, .channels = 1, .format = format};
	SNDFILE *f = sf_open(j->path, SFM_WRITE, &info);
	if (!f)
		die("%s: cannot write: %s", j->path, sf_strerror(NULL));
	if (level >= 0 && !sf_command(f, SFC_SET_COMPRESSION_LEVEL, &level, sizeof level))
		die("%s: cannot set the compression level: %s", j->path, sf_strerror(f));
	for (size_t i = 0; i < n; i += BLOCK) {
		sf_count_t k = (sf_count_t)(n - i < BLOCK ? n - i : BLOCK);
		if (sf_write_short(f, s + i, k) != k)
			die("%s: cannot write: %s", j->path, sf_strerror(f));
	}
	if (sf_close(f))
		die("%s: cannot close: %s", j->path, sf_strerror(NULL));
	return n;
}

static size_t stage_flac(const struct job *j)
{
	return write_file(j, SF_FORMAT_FLAC | SF_FORMAT_PCM_16, OUT_RATE, 0.0, j->out, j->nout);
}

static size_t stage_flac22(const struct job *j)
{
	return write_file(j, SF_FORMAT_FLAC | SF_FORMAT_PCM_16, j->rate, 0.0, j->in, j->n);
}

static size_t stage_wav(const struct job *j)
{
	return write_file(j, SF_FORMAT_WAV | SF_FORMAT_PCM_16, j->rate, -1, j->in, j->n);
}

static const struct stage {
	const char *name;
	size_t (*run)(const struct job *j);
} stages[] = {
    {"ebur128", stage_ebur128}, {"meter", stage_meter},   {"soxr", stage_soxr},
    {"flac", stage_flac},       {"flac22", stage_flac22}, {"wav", stage_wav},
};
#define NSTAGES (sizeof stages / sizeof stages[0])

/* ---- main ------------------------------------------------------------ */

/* Read a mono 16-bit file whole; *n gets its samples, *rate its rate.  The
 * caller frees the samples. */
static short *read_wav(const char *path, size_t *n, int *rate)
{
	SF_INFO info = {0};
	SNDFILE *f = sf_open(path, SFM_READ, &info);
	if (!f)
		die("%s: %s", path, sf_strerror(NULL));
	if (info.channels != 1 || (info.format & SF_FORMAT_SUBMASK) != SF_FORMAT_PCM_16)
		die("%s: not mono 16-bit PCM (%d channels, subtype 0x%x)", path, info.channels,
		    info.format & SF_FORMAT_SUBMASK);
	if (info.frames <= 0)
		die("%s: no samples", path);
	short *s = xmalloc((size_t)info.frames * sizeof *s);
	sf_count_t got = sf_read_short(f, s, info.frames);
	if (got != info.frames)
		die("%s: read %lld of %lld samples: %s", path, (long long)got,
		    (long long)info.frames, sf_strerror(f));
	sf_close(f);
	*n = (size_t)info.frames;
	*rate = info.samplerate;
	return s;
}

int main(int argc, char **argv)
{
	int reps = 3, a = 1;
	if (argc > 2 && strcmp(argv[1], "-k") == 0) {
		char *end;
		long v = strtol(argv[2], &end, 10);
		if (*argv[2] == '\0' || *end != '\0' || v < 1 || v > 1000)
			die("-k wants a number of repetitions from 1 to 1000, not '%s'", argv[2]);
		reps = (int)v;
		a = 3;
	}
	if (argc - a != 2) {
		fprintf(stderr, "usage: floor [-k REPS] WAV TMPDIR\n");
		return 2;
	}

	struct job j = {0};
	size_t n;
	int rate;
	short *in = read_wav(argv[a], &n, &rate);
	float *fin = xmalloc(n * sizeof *fin);
	for (size_t i = 0; i < n; i++)
		fin[i] = (float)in[i] / 32768.0f;
	j.in = in;
	j.fin = fin;
	j.n = n;
	j.rate = rate;

	size_t cap = (size_t)((double)n * OUT_RATE / rate) + BLOCK;
	short *out = xmalloc(cap * sizeof *out);
	j.out = out;
	j.nout = resample(&j, out, cap);

	const char *dir = argv[a + 1];
	size_t plen = strlen(dir) + sizeof "/floor.out";
	char *path = xmalloc(plen);
	snprintf(path, plen, "%s/floor.out", dir);
	j.path = path;
	fprintf(stderr, "floor: %s: %zu samples at %d Hz (%.1f min); %zu at %d Hz; %d rounds\n",
	        argv[a], n, rate, (double)n / rate / 60, j.nout, OUT_RATE, reps);

	double best[NSTAGES];
	size_t count[NSTAGES];
	for (int r = 0; r < reps; r++) {
		j.first = r == 0;
		for (size_t i = 0; i < NSTAGES; i++) {
			double t0 = cpu_seconds();
			size_t c = stages[i].run(&j);
			double t = cpu_seconds() - t0;
			struct stat sb;
			if (stat(path, &sb) == 0) {
				if (j.first)
					fprintf(stderr, "floor: %s: %lld bytes written\n",
					        stages[i].name, (long long)sb.st_size);
				if (remove(path))
					die("%s: cannot remove: %s", path, strerror(errno));
			}
			if (r == 0 || t < best[i])
				best[i] = t;
			count[i] = c;
		}
	}
	for (size_t i = 0; i < NSTAGES; i++)
		printf("%s %.6f %zu\n", stages[i].name, best[i], count[i]);
	if (fflush(stdout) || ferror(stdout))
		die("cannot write the results: %s", strerror(errno));

	free(path);
	free(out);
	free(fin);
	free(in);
	return 0;
}
