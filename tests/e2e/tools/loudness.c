/* loudness - integrated loudness and true peak of an audio file, measured
 * with libebur128 on what libsndfile decodes: the check, after the fact,
 * of what tingshu's master stage says it did.
 *
 * Usage: loudness FILE
 * Prints key=value lines: rate, frames, duration_s, lufs, true_peak_dbtp,
 * sample_peak_dbfs.  Exit 1 when the file cannot be read. */
#include <ebur128.h>
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>

static double db(double x)
{
	return x > 0 ? 20 * log10(x) : -INFINITY;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: loudness FILE\n");
		return 2;
	}
	SF_INFO info = {0};
	SNDFILE *f = sf_open(argv[1], SFM_READ, &info);
	if (!f) {
		fprintf(stderr, "loudness: %s: %s\n", argv[1], sf_strerror(NULL));
		return 1;
	}
	ebur128_state *st = ebur128_init((unsigned)info.channels, (unsigned long)info.samplerate,
	                                 EBUR128_MODE_I | EBUR128_MODE_TRUE_PEAK |
	                                     EBUR128_MODE_SAMPLE_PEAK | EBUR128_MODE_HISTOGRAM);
	float buf[4096 * 2];
	size_t per = 4096 / (size_t)info.channels;
	long long frames = 0;
	sf_count_t got;
	while ((got = sf_readf_float(f, buf, (sf_count_t)per)) > 0) {
		ebur128_add_frames_float(st, buf, (size_t)got);
		frames += got;
	}
	sf_close(f);
	double lufs, tp = 0, sp = 0, v;
	ebur128_loudness_global(st, &lufs);
	for (unsigned c = 0; c < (unsigned)info.channels; c++) {
		if (ebur128_true_peak(st, c, &v) == EBUR128_SUCCESS && v > tp)
			tp = v;
		if (ebur128_sample_peak(st, c, &v) == EBUR128_SUCCESS && v > sp)
			sp = v;
	}
	ebur128_destroy(&st);
	printf("rate=%d\nframes=%lld\nduration_s=%.6f\nlufs=%.3f\ntrue_peak_dbtp=%.3f\n"
	       "sample_peak_dbfs=%.3f\n",
	       info.samplerate, frames, (double)frames / info.samplerate, lufs, db(tp), db(sp));
	return 0;
}
