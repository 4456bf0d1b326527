/* aacopts - what each option of FFmpeg's AAC encoder costs and gives on a
 * chapter of tingshu's audio: CPU time of the encoding against the
 * quality of the decoded result, for issue 35's question of where CPU is
 * left in the one AAC encoding of a chapter (bench/aacopts.sh runs it,
 * bench/README.md has the figures).
 *
 * The WAV file (a chapter as tingshu writes it: mono, eSpeak NG's 22,050
 * Hz) is read whole into floats first (its first channel, as
 * src/audio/aac.c reads it).  Each configuration then encodes all of it
 * the way src/audio/aac.c does (FLTP frames of the encoder's frame size,
 * the last one short, then a flush; the fast coder unless the
 * configuration names another; the encoder's own rate control at the bit
 * rate unless it names flags=+qscale), timed in CPU time of the process (user +
 * system) from avcodec_open2's context to the last packet.  The
 * configurations take turns, REPS rounds of them; each keeps its best
 * (smallest) time and its median.  The configuration "tingshu" is
 * tingshu's own ts_aac_encode() on the WAV file (reading it included);
 * the last column says whether a configuration's packets are the first
 * configuration's, byte for byte.
 *
 * Quality, of each configuration's packets decoded by libavcodec's AAC
 * decoder, the encoder's priming (initial_padding) dropped, against the
 * input's samples (the lag that best aligns them is printed: it must be 0):
 *   segsnr  segmental SNR, dB: frames of 512 samples whose input is above
 *           -60 dBFS RMS (eSpeak NG's pauses are exact zeros), each
 *           frame's SNR clamped to [-10, 35] dB, averaged
 *   snr     the SNR of all those frames together, dB (not clamped)
 *   lsd     log-spectral distance, dB: frames of 1,024 samples, hop 512,
 *           Hann window, same frames as segsnr's rule; per frame the RMS
 *           over bins 1..511 of 10 log10 of the power ratio (each power
 *           floored at -100 dB of full scale), averaged
 *   peak    the decoded peak and the input's, dBFS
 *   rms     the decoded RMS and the input's over the whole chapter, dBFS
 *   kb/s    the packets' bit rate
 *
 * Usage: aacopts [-k REPS] [-b BITRATE] WAV CONFIG...
 * where CONFIG is NAME or NAME:OPT=VAL,OPT=VAL... (OPT an AVOption of the
 * encoder or codec context, e.g. aac_pns=0, aac_tns=0, aac_coder=twoloop,
 * cutoff=8000, flags=+qscale, global_quality=150; "tingshu" as above).  Prints a header and one
 * line a configuration on stdout.  Exit 0, or 2 with a message on stderr. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, also with -std=c11 */

#include "audio/aac.h"
#include "base/error.h"

#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>

#include <math.h>
#include <sndfile.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXCONF 16
#define MAXREPS 15
#define NFFT    1024

typedef struct conf {
	char name[64];
	char opts[256]; /* OPT=VAL,... or "" */
	double cpu[MAXREPS];
	unsigned char *bytes; /* the packets, each after its 4-byte size */
	size_t len, cap;
	long packets;
	int priming, max_packet;
	unsigned char extra[64];
	int extra_len;
} conf;

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("aacopts: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void keep(conf *c, const unsigned char *p, int size)
{
	if (c->len + (size_t)size + 4 > c->cap) {
		c->cap = (c->len + (size_t)size + 4) * 2;
		if (!(c->bytes = realloc(c->bytes, c->cap)))
			die("out of memory");
	}
	unsigned char *q = c->bytes + c->len;
	q[0] = (unsigned char)(size >> 24), q[1] = (unsigned char)(size >> 16);
	q[2] = (unsigned char)(size >> 8), q[3] = (unsigned char)size;
	memcpy(q + 4, p, (size_t)size);
	c->len += (size_t)size + 4;
	c->packets++;
	c->max_packet = size > c->max_packet ? size : c->max_packet;
}

static void drain(AVCodecContext *ctx, AVPacket *pkt, conf *c, const AVFrame *f)
{
	int ret = avcodec_send_frame(ctx, f);
	while (ret >= 0) {
		ret = avcodec_receive_packet(ctx, pkt);
		if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
			return;
		if (ret < 0)
			break;
		keep(c, pkt->data, pkt->size);
		av_packet_unref(pkt);
	}
	die("%s: cannot encode: %s", c->name, av_err2str(ret));
}

/* c's options into an AVDictionary; the bit rate and cutoff are fields. */
static AVDictionary *options(const conf *c, AVCodecContext *ctx)
{
	AVDictionary *d = NULL;
	av_dict_set(&d, "aac_coder", "fast", 0);
	char buf[256];
	snprintf(buf, sizeof buf, "%s", c->opts);
	for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv;
	     kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq)
			die("%s: '%s' is not OPT=VAL", c->name, kv);
		*eq = 0;
		if (strcmp(kv, "cutoff") == 0)
			ctx->cutoff = atoi(eq + 1);
		else if (strcmp(kv, "b") == 0)
			ctx->bit_rate = atoi(eq + 1);
		else
			av_dict_set(&d, kv, eq + 1, 0);
	}
	return d;
}

/* Encode x (n samples at rate) with c; its CPU seconds. */
static double encode(conf *c, const float *x, long n, int rate, int bit_rate)
{
	c->len = 0, c->packets = 0, c->max_packet = 0;
	double t0 = cpu_now();
	const AVCodec *aac = avcodec_find_encoder(AV_CODEC_ID_AAC);
	AVCodecContext *ctx = avcodec_alloc_context3(aac);
	AVFrame *f = av_frame_alloc();
	AVPacket *pkt = av_packet_alloc();
	if (!ctx || !f || !pkt)
		die("out of memory");
	ctx->sample_fmt = AV_SAMPLE_FMT_FLTP;
	ctx->sample_rate = rate;
	ctx->bit_rate = bit_rate;
	ctx->time_base = (AVRational){1, rate};
	ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
	av_channel_layout_default(&ctx->ch_layout, 1);
	AVDictionary *d = options(c, ctx);
	int ret = avcodec_open2(ctx, aac, &d);
	if (ret < 0)
		die("%s: cannot open the encoder: %s", c->name, av_err2str(ret));
	AVDictionaryEntry *left = av_dict_get(d, "", NULL, AV_DICT_IGNORE_SUFFIX);
	if (left)
		die("%s: the encoder has no option %s", c->name, left->key);
	av_dict_free(&d);
	c->priming = ctx->initial_padding;
	c->extra_len = ctx->extradata_size < 64 ? ctx->extradata_size : 64;
	memcpy(c->extra, ctx->extradata, (size_t)c->extra_len);
	f->nb_samples = ctx->frame_size;
	f->format = AV_SAMPLE_FMT_FLTP;
	f->sample_rate = rate;
	if (av_channel_layout_copy(&f->ch_layout, &ctx->ch_layout) < 0 ||
	    av_frame_get_buffer(f, 0) < 0)
		die("out of memory");
	for (long at = 0; at < n; at += ctx->frame_size) {
		if (av_frame_make_writable(f) < 0)
			die("out of memory");
		long m = n - at < ctx->frame_size ? n - at : ctx->frame_size;
		f->nb_samples = (int)m;
		memcpy(f->data[0], x + at, (size_t)m * sizeof *x);
		f->pts = at;
		drain(ctx, pkt, c, f);
	}
	drain(ctx, pkt, c, NULL);
	avcodec_free_context(&ctx);
	av_frame_free(&f);
	av_packet_free(&pkt);
	return cpu_now() - t0;
}

/* tingshu's own encoder on wav into dir; its packets into c. */
static double encode_tingshu(conf *c, const char *wav, const char *dir, int bit_rate)
{
	char path[4096], key[TS_HASH_HEX];
	snprintf(path, sizeof path, "%s/aacopts-%ld.aac", dir, (long)getpid());
	memset(key, '0', TS_HASH_HEX - 1);
	key[TS_HASH_HEX - 1] = 0;
	unlink(path);
	ts_error err = {0};
	double t0 = cpu_now();
	if (ts_aac_encode(wav, path, key, bit_rate, NULL, 1, NULL, NULL, &err) != 0)
		die("tingshu: %s", ts_error_msg(&err));
	double t = cpu_now() - t0;
	ts_aac_info in;
	FILE *fp = ts_aac_open(path, NULL, &in, &err);
	if (!fp)
		die("tingshu: %s", ts_error_msg(&err));
	static unsigned char buf[TS_AAC_PACKET_MAX];
	size_t size;
	unsigned dur;
	int got;
	c->len = 0, c->packets = 0, c->max_packet = 0;
	while ((got = ts_aac_next(fp, path, buf, &size, &dur, &err)) == 1)
		keep(c, buf, (int)size);
	if (got < 0)
		die("tingshu: %s", ts_error_msg(&err));
	fclose(fp);
	unlink(path);
	c->priming = (int)in.priming;
	c->extra_len = (int)in.config_len;
	memcpy(c->extra, in.config, in.config_len);
	return t;
}

/* c's packets decoded into *out (priming dropped); the count. */
static long decode(const conf *c, int rate, float **out)
{
	const AVCodec *dec = avcodec_find_decoder(AV_CODEC_ID_AAC);
	AVCodecContext *ctx = avcodec_alloc_context3(dec);
	AVFrame *f = av_frame_alloc();
	AVPacket *pkt = av_packet_alloc();
	if (!ctx || !f || !pkt)
		die("out of memory");
	ctx->sample_rate = rate;
	av_channel_layout_default(&ctx->ch_layout, 1);
	ctx->extradata = av_mallocz((size_t)c->extra_len + AV_INPUT_BUFFER_PADDING_SIZE);
	memcpy(ctx->extradata, c->extra, (size_t)c->extra_len);
	ctx->extradata_size = c->extra_len;
	ctx->request_sample_fmt = AV_SAMPLE_FMT_FLTP;
	if (avcodec_open2(ctx, dec, NULL) < 0)
		die("cannot open the AAC decoder");
	long n = 0, cap = 1 << 20, skip = c->priming;
	float *y = malloc((size_t)cap * sizeof *y);
	for (size_t at = 0;;) {
		const AVPacket *send = NULL;
		if (at < c->len) {
			const unsigned char *q = c->bytes + at;
			int size = q[0] << 24 | q[1] << 16 | q[2] << 8 | q[3];
			if (av_new_packet(pkt, size) < 0)
				die("out of memory");
			memcpy(pkt->data, q + 4, (size_t)size);
			send = pkt;
			at += (size_t)size + 4;
		}
		if (avcodec_send_packet(ctx, send) < 0)
			die("%s: cannot decode", c->name);
		while (avcodec_receive_frame(ctx, f) == 0) {
			if (f->format != AV_SAMPLE_FMT_FLTP)
				die("the decoder gave format %d", f->format);
			const float *s = (const float *)f->data[0];
			for (int i = 0; i < f->nb_samples; i++) {
				if (skip > 0) {
					skip--;
					continue;
				}
				if (n == cap && !(y = realloc(y, (size_t)(cap *= 2) * sizeof *y)))
					die("out of memory");
				y[n++] = s[i];
			}
		}
		if (!send)
			break;
		av_packet_unref(pkt);
	}
	avcodec_free_context(&ctx);
	av_frame_free(&f);
	av_packet_free(&pkt);
	*out = y;
	return n;
}

static void fft(float *re, float *im, int n)
{
	for (int i = 1, j = 0; i < n; i++) {
		int bit = n >> 1;
		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
		if (i < j) {
			float t = re[i];
			re[i] = re[j], re[j] = t;
			t = im[i], im[i] = im[j], im[j] = t;
		}
	}
	for (int len = 2; len <= n; len <<= 1) {
		float twr[NFFT / 2], twi[NFFT / 2];
		for (int k = 0; k < len / 2; k++)
			twr[k] = (float)cos(-2 * M_PI * k / len),
			twi[k] = (float)sin(-2 * M_PI * k / len);
		for (int i = 0; i < n; i += len)
			for (int k = 0; k < len / 2; k++) {
				float wr = twr[k], wi = twi[k];
				float *ur = re + i + k, *ui = im + i + k;
				float *vr = re + i + k + len / 2, *vi = im + i + k + len / 2;
				float tr = *vr * wr - *vi * wi, ti = *vr * wi + *vi * wr;
				*vr = *ur - tr, *vi = *ui - ti;
				*ur += tr, *ui += ti;
			}
	}
}

static double rms_db(const float *x, long n)
{
	double e = 0;
	for (long i = 0; i < n; i++)
		e += (double)x[i] * x[i];
	return 10 * log10(e / (double)n + 1e-20);
}

static int loud(const float *x, long n)
{
	return rms_db(x, n) > -60;
}

/* The lag of y against x (y[i + lag] ~ x[i]) in [-max, max] that best
 * matches them over 2 s of x from its first loud 512 samples. */
static int best_lag(const float *x, long nx, const float *y, long ny, int max, int rate)
{
	long from = max;
	while (from + 512 < nx && !loud(x + from, 512))
		from += 512;
	long len = from + 2L * rate < nx - max ? from + 2L * rate : nx - max;
	double best = -1e300;
	int arg = 0;
	for (int lag = -max; lag <= max; lag++) {
		double s = 0;
		for (long i = from; i < len; i++)
			if (i + lag >= 0 && i + lag < ny)
				s += (double)x[i] * y[i + lag];
		if (s > best)
			best = s, arg = lag;
	}
	return arg;
}

typedef struct quality {
	double segsnr, snr, lsd, peak, peak_in, rms, rms_in;
	int lag;
} quality;

static void measure(const float *x, long n, const float *y, long ny, int rate, quality *q)
{
	long m = ny < n ? ny : n;
	q->lag = best_lag(x, n, y, ny, 1100, rate);
	double seg = 0, sig = 0, noise = 0;
	long frames = 0;
	for (long at = 0; at + 512 <= m; at += 512) {
		if (!loud(x + at, 512))
			continue;
		double s = 0, e = 0;
		for (long i = at; i < at + 512; i++)
			s += (double)x[i] * x[i],
			    e += ((double)x[i] - y[i]) * ((double)x[i] - y[i]);
		double db = 10 * log10(s / (e + 1e-20));
		seg += db < -10 ? -10 : db > 35 ? 35 : db;
		sig += s, noise += e, frames++;
	}
	q->segsnr = frames ? seg / (double)frames : 0;
	q->snr = 10 * log10(sig / (noise + 1e-20));
	float xr[NFFT], xi[NFFT], yr[NFFT], yi[NFFT], w[NFFT];
	double wsum = 0;
	for (int i = 0; i < NFFT; i++)
		wsum += w[i] = (float)(0.5 - 0.5 * cos(2 * M_PI * i / NFFT));
	double lsd = 0;
	frames = 0;
	for (long at = 0; at + NFFT <= m; at += NFFT / 2) {
		if (!loud(x + at, NFFT))
			continue;
		for (int i = 0; i < NFFT; i++) {
			xr[i] = x[at + i] * w[i], yr[i] = y[at + i] * w[i];
			xi[i] = yi[i] = 0;
		}
		fft(xr, xi, NFFT);
		fft(yr, yi, NFFT);
		double d2 = 0;
		for (int k = 1; k < NFFT / 2; k++) {
			double px = ((double)xr[k] * xr[k] + (double)xi[k] * xi[k]) / (wsum * wsum);
			double py = ((double)yr[k] * yr[k] + (double)yi[k] * yi[k]) / (wsum * wsum);
			double d = 10 * log10((px + 1e-10) / (py + 1e-10));
			d2 += d * d;
		}
		lsd += sqrt(d2 / (NFFT / 2 - 1));
		frames++;
	}
	q->lsd = frames ? lsd / (double)frames : 0;
	float px = 0, py = 0;
	for (long i = 0; i < n; i++)
		px = fabsf(x[i]) > px ? fabsf(x[i]) : px;
	for (long i = 0; i < ny; i++)
		py = fabsf(y[i]) > py ? fabsf(y[i]) : py;
	q->peak_in = 20 * log10(px + 1e-20), q->peak = 20 * log10(py + 1e-20);
	q->rms_in = rms_db(x, n), q->rms = rms_db(y, m);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int reps = 3, bit_rate = 64000, opt;
	while ((opt = getopt(argc, argv, "k:b:")) != -1)
		if (opt == 'k')
			reps = atoi(optarg);
		else if (opt == 'b')
			bit_rate = atoi(optarg);
		else
			return 2;
	if (reps < 1 || reps > MAXREPS || argc - optind < 2 || argc - optind - 1 > MAXCONF)
		die("usage: aacopts [-k REPS] [-b BITRATE] WAV CONFIG...");
	const char *wav = argv[optind];
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	av_log_set_level(AV_LOG_ERROR);
	SF_INFO si = {0};
	SNDFILE *sf = sf_open(wav, SFM_READ, &si);
	if (!sf)
		die("%s: %s", wav, sf_strerror(NULL));
	float *all = malloc((size_t)si.frames * (size_t)si.channels * sizeof *all);
	float *x = malloc((size_t)si.frames * sizeof *x);
	if (!all || !x || sf_readf_float(sf, all, si.frames) != si.frames)
		die("%s: cannot read it", wav);
	sf_close(sf);
	long n = (long)si.frames;
	for (long i = 0; i < n; i++)
		x[i] = all[i * si.channels];
	free(all);
	int nc = argc - optind - 1;
	conf *c = calloc((size_t)nc, sizeof *c);
	for (int i = 0; i < nc; i++) {
		const char *a = argv[optind + 1 + i], *colon = strchr(a, ':');
		snprintf(c[i].name, sizeof c[i].name, "%.*s",
		         colon ? (int)(colon - a) : (int)strlen(a), a);
		snprintf(c[i].opts, sizeof c[i].opts, "%s", colon ? colon + 1 : "");
	}
	fprintf(stderr, "aacopts: %s, %.1f s at %d Hz, %d b/s, %d rounds\n", wav,
	        (double)n / si.samplerate, si.samplerate, bit_rate, reps);
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < nc; i++) {
			c[i].cpu[r] = strcmp(c[i].name, "tingshu") == 0
			                  ? encode_tingshu(&c[i], wav, tmp, bit_rate)
			                  : encode(&c[i], x, n, si.samplerate, bit_rate);
			fprintf(stderr, "  round %d %-12s %.3f s\n", r + 1, c[i].name, c[i].cpu[r]);
		}
	const conf *def = &c[0];
	printf("%-12s %-30s %7s %7s %7s %6s %6s %6s %8s %8s %6s %5s %6s %s\n", "config", "options",
	       "cpu_min", "cpu_med", "xreal", "segsnr", "snr", "lsd", "peak", "rms", "kb/s", "lag",
	       "maxpkt", "same_as_first");
	for (int i = 0; i < nc; i++) {
		float *y;
		long ny = decode(&c[i], si.samplerate, &y);
		quality q;
		measure(x, n, y, ny, si.samplerate, &q);
		free(y);
		double s[MAXREPS];
		memcpy(s, c[i].cpu, sizeof s);
		qsort(s, (size_t)reps, sizeof *s, cmp);
		int same =
		    def && def->len == c[i].len && memcmp(def->bytes, c[i].bytes, c[i].len) == 0;
		double kbps = (double)(c[i].len - 4 * (size_t)c[i].packets) * 8 /
		              ((double)n / si.samplerate) / 1000;
		printf("%-12s %-30s %7.3f %7.3f %7.0f %6.2f %6.2f %6.2f %8.2f %8.2f %6.1f %5d %6d "
		       "%s\n",
		       c[i].name, c[i].opts[0] ? c[i].opts : "-", s[0], s[reps / 2],
		       (double)n / si.samplerate / s[0], q.segsnr, q.snr, q.lsd, q.peak, q.rms,
		       kbps, q.lag, c[i].max_packet, same ? "yes" : "no");
		if (i == nc - 1)
			printf("%-12s %-30s %7s %7s %7s %6s %6s %6s %8.2f %8.2f\n", "input", "-",
			       "", "", "", "", "", "", q.peak_in, q.rms_in);
	}
	return 0;
}
