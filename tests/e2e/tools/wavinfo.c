/* wavinfo.c - print the properties of an audio file, one key=value a line,
 * for the end-to-end tests:
 *
 *   rate=22050            sample rate in Hz
 *   channels=1
 *   frames=123456         sample frames
 *   duration_s=5.598912   frames / rate
 *   major=WAV             container (WAV, FLAC, OGG, MPEG, other)
 *   subtype=PCM_16        sample encoding (PCM_16, PCM_24, FLOAT, VORBIS, ...)
 *   peak=0.812345         largest |sample|, full scale = 1
 *   peak_dbfs=-1.81
 *   rms_dbfs=-21.34       RMS over every sample; -999 for digital silence
 *   silence_max_frames=0  longest run of frames whose samples are all exactly 0
 *   silence_max_s=0.000000
 *   pcm_hash=0123abcd...  FNV-1a (64 bits) of the samples as decoded: the
 *                         same for the same audio, whatever the tags
 *   title=...             the tags libsndfile reads (UTF-8), each line only
 *   artist=...            when the file has it
 *   album=...
 *   track=3/12
 *
 * With --spans, also the stretches of sound, one line each, in frames
 * (half-open): a frame is sound when a sample reaches 32 (TS_SILENCE_LEVEL
 * of finish.h, on the 16-bit scale), and sound less than 10 ms apart is
 * one stretch:
 *
 *   span=6615 34146
 *
 * Usage: wavinfo [--spans] FILE.  Exit 0, or 1 (with a message on stderr)
 * if the file cannot be opened or read as audio, 2 on a usage error. */
#include <math.h>
#include <sndfile.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SOUND_LEVEL (32.0 / 32768.0)
#define SPAN_GAP_MS 10

/* Stretches of sound, printed once the whole file is read. */
typedef struct spans {
	long long (*v)[2];
	size_t n, cap;
	long long start, end; /* the open stretch; end 0: none */
	long long gap;
} spans;

static int spans_close(spans *s)
{
	if (s->end == 0)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		long long(*v)[2] = realloc(s->v, cap * sizeof *v);
		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n][0] = s->start;
	s->v[s->n][1] = s->end;
	s->n++;
	s->end = 0;
	return 0;
}

/* Frame i is sound. */
static int spans_sound(spans *s, long long i)
{
	if (s->end != 0 && i - s->end < s->gap) {
		s->end = i + 1;
		return 0;
	}
	if (spans_close(s))
		return -1;
	s->start = i;
	s->end = i + 1;
	return 0;
}

static const char *major_name(int format)
{
	switch (format & SF_FORMAT_TYPEMASK) {
	case SF_FORMAT_WAV: return "WAV";
	case SF_FORMAT_WAVEX: return "WAVEX";
	case SF_FORMAT_FLAC: return "FLAC";
	case SF_FORMAT_OGG: return "OGG";
	case SF_FORMAT_MPEG: return "MPEG";
	case SF_FORMAT_AIFF: return "AIFF";
	case SF_FORMAT_RAW: return "RAW";
	default: return "other";
	}
}

static const char *subtype_name(int format)
{
	switch (format & SF_FORMAT_SUBMASK) {
	case SF_FORMAT_PCM_S8: return "PCM_S8";
	case SF_FORMAT_PCM_U8: return "PCM_U8";
	case SF_FORMAT_PCM_16: return "PCM_16";
	case SF_FORMAT_PCM_24: return "PCM_24";
	case SF_FORMAT_PCM_32: return "PCM_32";
	case SF_FORMAT_FLOAT: return "FLOAT";
	case SF_FORMAT_DOUBLE: return "DOUBLE";
	case SF_FORMAT_VORBIS: return "VORBIS";
	case SF_FORMAT_OPUS: return "OPUS";
	case SF_FORMAT_MPEG_LAYER_III: return "MPEG_LAYER_III";
	default: return "other";
	}
}

int main(int argc, char **argv)
{
	int want_spans = argc == 3 && strcmp(argv[1], "--spans") == 0;
	if (argc != 2 && !want_spans) {
		fprintf(stderr, "usage: wavinfo [--spans] FILE\n");
		return 2;
	}
	const char *path = argv[argc - 1];
	SF_INFO info = {0};
	SNDFILE *sf = sf_open(path, SFM_READ, &info);
	if (!sf) {
		fprintf(stderr, "wavinfo: %s: %s\n", path, sf_strerror(NULL));
		return 1;
	}
	if (info.channels < 1 || info.samplerate < 1) {
		fprintf(stderr, "wavinfo: %s: bad header (%d channels, %d Hz)\n", path,
		        info.channels, info.samplerate);
		sf_close(sf);
		return 1;
	}
	enum { CHUNK = 4096 };
	int ch = info.channels;
	double *buf = malloc(sizeof *buf * (size_t)CHUNK * (size_t)ch);
	if (!buf) {
		fprintf(stderr, "wavinfo: out of memory\n");
		sf_close(sf);
		return 1;
	}
	spans sp = {.gap = (long long)info.samplerate * SPAN_GAP_MS / 1000};
	double peak = 0, sumsq = 0;
	uint64_t hash = 14695981039346656037u;
	long long frames = 0, run = 0, longest = 0;
	sf_count_t k;
	while ((k = sf_readf_double(sf, buf, CHUNK)) > 0) {
		for (sf_count_t i = 0; i < k; i++) {
			int zero = 1, sound = 0;
			for (int c = 0; c < ch; c++) {
				double x = buf[i * ch + c];
				double a = fabs(x);
				if (a > peak)
					peak = a;
				sumsq += x * x;
				uint32_t v = (uint32_t)lrint(x * 32768.0);
				for (int b = 0; b < 32; b += 8)
					hash = (hash ^ ((v >> b) & 0xff)) * 1099511628211u;
				if (x != 0.0)
					zero = 0;
				if (a >= SOUND_LEVEL)
					sound = 1;
			}
			if (want_spans && sound && spans_sound(&sp, frames + i)) {
				fprintf(stderr, "wavinfo: out of memory\n");
				free(buf);
				sf_close(sf);
				return 1;
			}
			if (zero) {
				if (++run > longest)
					longest = run;
			} else {
				run = 0;
			}
		}
		frames += k;
	}
	int err = sf_error(sf);
	if (err != SF_ERR_NO_ERROR) {
		fprintf(stderr, "wavinfo: %s: read error: %s\n", path, sf_error_number(err));
		free(buf);
		sf_close(sf);
		return 1;
	}
	if (info.frames >= 0 && frames != (long long)info.frames) {
		fprintf(stderr, "wavinfo: %s: header says %lld frames, read %lld\n", path,
		        (long long)info.frames, frames);
		free(buf);
		sf_close(sf);
		return 1;
	}
	double n = (double)frames * ch;
	double rms = n > 0 ? sqrt(sumsq / n) : 0;
	printf("rate=%d\n", info.samplerate);
	printf("channels=%d\n", ch);
	printf("frames=%lld\n", frames);
	printf("duration_s=%.6f\n", (double)frames / info.samplerate);
	printf("major=%s\n", major_name(info.format));
	printf("subtype=%s\n", subtype_name(info.format));
	printf("peak=%.6f\n", peak);
	printf("peak_dbfs=%.2f\n", peak > 0 ? 20 * log10(peak) : -999.0);
	printf("rms_dbfs=%.2f\n", rms > 0 ? 20 * log10(rms) : -999.0);
	printf("silence_max_frames=%lld\n", longest);
	printf("silence_max_s=%.6f\n", (double)longest / info.samplerate);
	printf("pcm_hash=%016llx\n", (unsigned long long)hash);
	static const struct {
		int type;
		const char *key;
	} tags[] = {{SF_STR_TITLE, "title"},
	            {SF_STR_ARTIST, "artist"},
	            {SF_STR_ALBUM, "album"},
	            {SF_STR_TRACKNUMBER, "track"}};
	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
		const char *v = sf_get_string(sf, tags[i].type);
		if (v && *v)
			printf("%s=%s\n", tags[i].key, v);
	}
	if (want_spans && spans_close(&sp) == 0)
		for (size_t i = 0; i < sp.n; i++)
			printf("span=%lld %lld\n", sp.v[i][0], sp.v[i][1]);
	free(sp.v);
	free(buf);
	sf_close(sf);
	return 0;
}
