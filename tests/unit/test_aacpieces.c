/* test_aacpieces.c - audio/aac: a chapter's AAC in pieces.  A chapter of
 * "sentences" (tones of their own pitch and length) between pauses of
 * exact zeros is cut into several pieces; decoded (libavcodec's AAC
 * decoder), the frame at each join is exact silence and each piece is
 * its samples where the chapter puts them (to the nearest packet: a
 * piece a packet off, or a length that drifts, fails); a sentence made
 * longer in the middle encodes that one piece again and copies every
 * other, those after it moved in time included, and the file is the
 * same byte for byte as the edited chapter encoded from nothing, in one
 * process or two; a previous file of another version or bit rate is not
 * used. */
#include "check.h"
#include "audio/aac.h"

#include <libavcodec/avcodec.h>
#include <math.h>
#include <sndfile.h>
#include <stdint.h>
#include <unistd.h>

#define RATE      22050
#define SENTENCES 30
#define PAUSE     8192 /* samples of zeros between sentences, as eSpeak's */
#define KEY       "0123456789abcdef0123456789abcdef"

static char dir[400];

static uint32_t lcg(uint32_t *s)
{
	return *s = *s * 1664525u + 1013904223u;
}

/* The chapter: SENTENCES tones between pauses, a second of zeros at its
 * end; sentence edited (or -1) made 1,234 samples longer, another pitch,
 * its end into *edit_end (may be NULL).  Its samples into *pcm (the
 * caller frees), written as a WAV at path; its length. */
static size_t chapter(const char *path, int edited, short **pcm, size_t *edit_end)
{
	uint32_t s = 12345;
	size_t cap = (size_t)RATE * 200, n = 0;
	short *x = calloc(cap, sizeof *x);
	n += 3000; /* a short silence first */
	for (int k = 0; k < SENTENCES; k++) {
		double hz = 150 + lcg(&s) % 900, hz2 = 700 + lcg(&s) % 1500;
		size_t len = (size_t)RATE + lcg(&s) % (3 * RATE / 2);
		if (k == edited)
			len += 1234, hz += 37;
		for (size_t i = 0; i < len; i++) {
			double t = (double)i / RATE, env = fmin(1.0, fmin(i, len - i) / 300.0);
			x[n + i] = (short)lrint(
			    env * (6000 * sin(2 * M_PI * hz * t) + 2000 * sin(2 * M_PI * hz2 * t)));
			if (x[n + i] == 0)
				x[n + i] = 1; /* sound is never an exact zero */
		}
		n += len + PAUSE;
		if (k == edited && edit_end)
			*edit_end = n;
	}
	n += RATE - PAUSE; /* a second of zeros at the end */
	SF_INFO info = {
	    .samplerate = RATE, .channels = 1, .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16};
	SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
	CHECK(sf && sf_write_short(sf, x, (sf_count_t)n) == (sf_count_t)n);
	sf_close(sf);
	*pcm = x;
	return n;
}

static uint64_t be64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* The pieces of the AAC file at path (its table, see aac.h): their
 * first samples, first packets and hashes (hash may be NULL) into start,
 * first and hash; how many. */
static size_t pieces(const char *path, uint64_t *start, uint64_t *first, char (*hash)[33],
                     size_t max)
{
	unsigned char b[72];
	ts_aac_info in;
	FILE *f = ts_aac_open(path, KEY, &in, NULL);
	CHECK(f != NULL);
	if (!f)
		return 0;
	size_t n = in.pieces < max ? (size_t)in.pieces : max;
	CHECK(fseek(f, 160, SEEK_SET) == 0);
	for (size_t k = 0; k < n && fread(b, 1, sizeof b, f) == sizeof b; k++) {
		start[k] = be64(b + 32), first[k] = be64(b + 48);
		if (hash) {
			memcpy(hash[k], b, 32);
			hash[k][32] = 0;
		}
	}
	fclose(f);
	return n;
}

/* The AAC file at path decoded, its priming left out: *n samples. */
static float *decode(const char *path, size_t *n)
{
	ts_aac_info in;
	unsigned char buf[TS_AAC_PACKET_MAX];
	size_t size, cap = 0, got = 0;
	unsigned duration;
	float *y = NULL;
	FILE *f = ts_aac_open(path, KEY, &in, NULL);
	const AVCodec *dec = avcodec_find_decoder(AV_CODEC_ID_AAC);
	AVCodecContext *c = avcodec_alloc_context3(dec);
	AVPacket *p = av_packet_alloc();
	AVFrame *fr = av_frame_alloc();
	CHECK(f && c && p && fr);
	c->extradata = av_mallocz(in.config_len + AV_INPUT_BUFFER_PADDING_SIZE);
	memcpy(c->extradata, in.config, in.config_len);
	c->extradata_size = (int)in.config_len;
	c->sample_rate = (int)in.rate;
	av_channel_layout_default(&c->ch_layout, 1);
	CHECK(avcodec_open2(c, dec, NULL) == 0);
	for (int more = 1; more;) {
		more = ts_aac_next(f, path, buf, &size, &duration, NULL) == 1;
		if (more) {
			CHECK(av_new_packet(p, (int)size) == 0);
			memcpy(p->data, buf, size);
		}
		CHECK(avcodec_send_packet(c, more ? p : NULL) == 0);
		av_packet_unref(p);
		while (avcodec_receive_frame(c, fr) == 0) {
			if (got + (size_t)fr->nb_samples > cap)
				y = realloc(y,
				            (cap = 2 * cap + (size_t)fr->nb_samples) * sizeof *y);
			memcpy(y + got, fr->data[0], (size_t)fr->nb_samples * sizeof *y);
			got += (size_t)fr->nb_samples;
		}
	}
	CHECK(got >= in.priming + in.samples);
	memmove(y, y + in.priming, (got - in.priming) * sizeof *y);
	*n = got - in.priming;
	av_frame_free(&fr);
	av_packet_free(&p);
	avcodec_free_context(&c);
	fclose(f);
	return y;
}

/* The signal-to-noise ratio (dB) of y[from + shift ..] against x[from ..
 * to). */
static double snr(const short *x, const float *y, size_t from, size_t to, long shift)
{
	double sig = 0, err = 0;
	for (size_t i = from; i < to; i++) {
		double a = x[i] / 32768.0, b = y[(long)i + shift];
		sig += a * a, err += (a - b) * (a - b);
	}
	return 10 * log10(sig / (err + 1e-20));
}

/* Decoded, the pieces join in silence and each is where the chapter
 * puts it. */
static void check_joins(const char *aac, const short *x, size_t n)
{
	uint64_t start[64], first[64];
	size_t m, np = pieces(aac, start, first, NULL, 64);
	float *y = decode(aac, &m);
	CHECK(np >= 3);
	CHECK(m >= n);
	for (size_t k = 0; k < np && m >= n; k++) {
		size_t end = k + 1 < np ? start[k + 1] : n;
		/* The last piece encoded from the packet its first sample is in:
		 * the chapter's end exact. */
		int last = k + 1 == np;
		long shift = (long)(first[k] * TS_AAC_FRAME) - (long)start[k];
		CHECK(last ? first[k] == start[k] / TS_AAC_FRAME : labs(shift) <= TS_AAC_FRAME / 2);
		if (last)
			shift += (long)(start[k] % TS_AAC_FRAME);
		double here = snr(x, y, start[k] + 1024, end - 1024, shift);
		CHECK(here > 20);
		if (start[k] >= 2048)
			CHECK(snr(x, y, start[k] + 1024, end - 1024, shift - TS_AAC_FRAME) <
			      here - 10);
		if (k == 0)
			continue;
		/* The frame before its first packet's: exact silence. */
		int silent = 1;
		for (uint64_t i = (first[k] - 1) * TS_AAC_FRAME; i < first[k] * TS_AAC_FRAME; i++)
			silent &= y[i] == 0.0f;
		CHECK(silent);
	}
	free(y);
}

static int same_files(const char *a, const char *b)
{
	char cmd[2200];
	snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", a, b);
	return system(cmd) == 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_aacpieces SCRATCH_DIR\n");
		return 2;
	}
	snprintf(dir, sizeof dir, "%s/aacpieces_scratch", argv[1]);
	char cmd[4096], wav[600], a[600], b[600], b2[600], old[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	if (system(cmd) != 0)
		return 1;
	snprintf(wav, sizeof wav, "%s/chapter.wav", dir);
	snprintf(a, sizeof a, "%s/a.aac", dir);
	snprintf(b, sizeof b, "%s/b.aac", dir);
	snprintf(b2, sizeof b2, "%s/b2.aac", dir);
	snprintf(old, sizeof old, "%s/old.aac", dir);
	ts_error err = {0};
	short *x;
	size_t reused = 99, n = chapter(wav, -1, &x, NULL), edit_end = 0;
	CHECK(ts_aac_encode(wav, a, KEY, 64000, NULL, 1, NULL, &reused, &err) == 0);
	CHECK(reused == 0);
	check_joins(a, x, n);
	free(x);

	/* A sentence in the middle made longer: the pieces it is in encoded
	 * again (it may move a cut: two), the others copied, those after it
	 * too, moved; the last piece is encoded where its first sample falls
	 * (the chapter's end exact), so it is copied only unmoved. */
	uint64_t start[64], first[64];
	char ha[64][33], hb[64][33];
	size_t na = pieces(a, start, first, ha, 64);
	n = chapter(wav, SENTENCES / 2, &x, &edit_end);
	CHECK(ts_aac_encode(wav, b, KEY, 64000, a, 1, NULL, &reused, &err) == 0);
	size_t np = pieces(b, start, first, hb, 64), same = 0, after = 0;
	for (size_t k = 0; k < np; k++)
		for (size_t j = 0; j < na; j++)
			if (strcmp(hb[k], ha[j]) == 0) {
				same++;
				after += start[k] > edit_end;
				break;
			}
	CHECK(reused == same);
	CHECK(reused + 3 >= np);
	CHECK(after >= 1);
	fprintf(stderr, "test_aacpieces: %zu pieces, %zu copied, %zu after the edit\n", np, reused,
	        after);
	check_joins(b, x, n);
	/* The same file as from nothing. */
	CHECK(ts_aac_encode(wav, b2, KEY, 64000, NULL, 1, NULL, &reused, &err) == 0);
	CHECK(reused == 0);
	CHECK(same_files(b, b2));
	/* In two processes (each about half the pieces to encode): the same
	 * file, from nothing or from the previous one. */
	size_t again = 0;
	unlink(b2);
	CHECK(ts_aac_encode(wav, b2, KEY, 64000, NULL, 2, NULL, &again, &err) == 0);
	CHECK(again == 0 && same_files(b, b2));
	unlink(b2);
	CHECK(ts_aac_encode(wav, b2, KEY, 64000, a, 2, NULL, &again, &err) == 0);
	CHECK(again == same && same_files(b, b2));

	/* A previous file of another bit rate, or of version 1: not used. */
	unlink(b2);
	CHECK(ts_aac_encode(wav, old, KEY, 96000, NULL, 1, NULL, NULL, &err) == 0);
	CHECK(ts_aac_encode(wav, b2, KEY, 64000, old, 1, NULL, &reused, &err) == 0);
	CHECK(reused == 0 && same_files(b, b2));
	unlink(b2);
	snprintf(cmd, sizeof cmd,
	         "cp '%s' '%s' && printf 1 | dd of='%s' bs=1 seek=7 conv=notrunc 2>/dev/null", b,
	         old, old);
	CHECK(system(cmd) == 0);
	CHECK(!ts_aac_ok(old, NULL) && ts_aac_ok(b, NULL));
	CHECK(ts_aac_encode(wav, b2, KEY, 64000, old, 1, NULL, &reused, &err) == 0);
	CHECK(reused == 0 && same_files(b, b2));
	free(x);
	if (err.code)
		fprintf(stderr, "%s\n", err.msg);
	if (check_failures)
		fprintf(stderr, "test_aacpieces: %d check(s) failed\n", check_failures);
	return check_failures != 0;
}
