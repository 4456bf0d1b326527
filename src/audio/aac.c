/* aac.c - a chapter's audio in AAC, kept as its packets (see aac.h).
 * libavcodec and libavutil are opened by the process that encodes (a
 * child of the build's), not linked: linked, every tingshu command loaded
 * and relocated the many libraries they bring, which cost more than the
 * lexicon's load (bench/README.md), among them libjxl's Highway, whose
 * start-up code valgrind cannot run on some processors.  Their functions
 * are called through av, which has the headers' types. */
#include "audio/aac.h"

#include "audio/mp4.h"
#include "base/child.h"
#include "base/file.h"
#include "base/util.h"

#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sndfile.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define AVCODEC_FNS(X)                                                                             \
	X(avcodec_find_encoder)                                                                    \
	X(avcodec_alloc_context3)                                                                  \
	X(avcodec_open2)                                                                           \
	X(avcodec_send_frame)                                                                      \
	X(avcodec_receive_packet)                                                                  \
	X(avcodec_free_context)                                                                    \
	X(av_packet_alloc)                                                                         \
	X(av_packet_unref)                                                                         \
	X(av_packet_free)
#define AVUTIL_FNS(X)                                                                              \
	X(av_frame_alloc)                                                                          \
	X(av_frame_get_buffer)                                                                     \
	X(av_frame_make_writable)                                                                  \
	X(av_frame_free)                                                                           \
	X(av_dict_set)                                                                             \
	X(av_dict_free)                                                                            \
	X(av_channel_layout_default)                                                               \
	X(av_channel_layout_copy)                                                                  \
	X(av_strerror)                                                                             \
	X(av_log_set_level)
#define AV_FIELD(f) __typeof__(f) *f;
static struct {
	int loaded;
	AVCODEC_FNS(AV_FIELD)
	AVUTIL_FNS(AV_FIELD)
} av;

#define AV_STR2(x) #x
#define AV_STR(x)  AV_STR2(x)
#define AVCODEC_SO "libavcodec.so." AV_STR(LIBAVCODEC_VERSION_MAJOR)
#define AVUTIL_SO  "libavutil.so." AV_STR(LIBAVUTIL_VERSION_MAJOR)

/* Open the libraries (once a process) and find the functions. */
static int load_av(ts_error *err)
{
	if (av.loaded)
		return 0;
	void *util = dlopen(AVUTIL_SO, RTLD_NOW | RTLD_LOCAL);
	void *codec = util ? dlopen(AVCODEC_SO, RTLD_NOW | RTLD_LOCAL) : NULL;
	const char *missing = NULL;
	if (!codec) {
		const char *why = dlerror();
		return ts_error_set(err, TS_EAUDIO,
		                    "cannot load %s, which makes the AAC of the M4B and the "
		                    "EPUB: %s (it is Debian's package libavcodec%d)",
		                    util ? AVCODEC_SO : AVUTIL_SO, why ? why : "not found",
		                    LIBAVCODEC_VERSION_MAJOR);
	}
#define AV_FIND(lib, f)                                                                            \
	if (!missing && !(*(void **)&av.f = dlsym(lib, #f)))                                       \
		missing = #f;
#define AV_FIND_CODEC(f) AV_FIND(codec, f)
#define AV_FIND_UTIL(f)  AV_FIND(util, f)
	AVCODEC_FNS(AV_FIND_CODEC)
	AVUTIL_FNS(AV_FIND_UTIL)
	if (missing)
		return ts_error_set(err, TS_EAUDIO,
		                    "%s or %s has no %s: not the version tingshu was "
		                    "built with",
		                    AVCODEC_SO, AVUTIL_SO, missing);
	av.loaded = 1;
	return 0;
}

int ts_aac_bitrate(int quality)
{
	/* Mono speech: 48 kb/s is transparent enough for a voice; from
	 * 24 kb/s (quality 0) to 128 kb/s (10). */
	static const int rates[] = {24, 32, 40, 48, 56, 64, 72, 80, 96, 112, 128};
	if (quality < 0 || quality >= (int)(sizeof rates / sizeof rates[0])) /* the default */
		return 64000;
	return rates[quality] * 1000;
}

const char *ts_aac_version(void)
{
	return LIBAVCODEC_IDENT;
}

/* What else than the samples makes the packets: the file's version and
 * the encoder's options (in the chapter's AAC key and each piece's). */
#define AAC_SETTINGS "tingshu aac 3, fast coder, constant quantizer to 64 kb/s, pieces"

void ts_aac_key(const char *chapter_key, int bit_rate, char key[TS_HASH_HEX])
{
	ts_hash h;
	ts_hash_init(&h);
	ts_hash_str(&h, AAC_SETTINGS);
	ts_hash_str(&h, LIBAVCODEC_IDENT); /* the encoder's version, as built */
	ts_hash_int(&h, bit_rate);
	ts_hash_str(&h, chapter_key);
	ts_hash_hex(&h, key);
}

/* ---- the file ------------------------------------------------------- */

#define MAGIC  "TSAAC002"
#define HEADER 160
#define PIECE  72 /* a piece in the table after the header */

static void put32(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (24 - 8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, v);
}

static uint64_t get32(const unsigned char *p)
{
	return (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 | (uint64_t)p[2] << 8 | p[3];
}

static uint64_t get64(const unsigned char *p)
{
	return get32(p) << 32 | get32(p + 4);
}

static void header_out(const ts_aac_info *in, unsigned char h[HEADER])
{
	memset(h, 0, HEADER);
	memcpy(h, MAGIC, 8);
	memcpy(h + 8, in->key, TS_HASH_HEX - 1);
	put32(h + 40, in->rate), put32(h + 44, in->bit_rate);
	put32(h + 48, in->priming), put32(h + 52, in->config_len);
	put64(h + 56, in->samples), put64(h + 64, in->packets);
	put64(h + 72, in->quiet_tail), put64(h + 80, in->bytes);
	memcpy(h + 88, in->config, in->config_len);
	put64(h + 152, in->pieces);
}

/* 0, or -1 when h is not the header of a file of size bytes. */
static int header_in(const unsigned char h[HEADER], ts_aac_info *in, long long size)
{
	memset(in, 0, sizeof *in);
	if (memcmp(h, MAGIC, 8) != 0)
		return -1;
	memcpy(in->key, h + 8, TS_HASH_HEX - 1);
	in->rate = (unsigned)get32(h + 40), in->bit_rate = (unsigned)get32(h + 44);
	in->priming = (unsigned)get32(h + 48), in->config_len = (unsigned)get32(h + 52);
	in->samples = get64(h + 56), in->packets = get64(h + 64);
	in->quiet_tail = get64(h + 72), in->bytes = get64(h + 80);
	in->pieces = get64(h + 152);
	if (in->config_len < 1 || in->config_len > TS_AAC_CONFIG_MAX || in->rate == 0 ||
	    in->packets > (uint64_t)size || in->quiet_tail > in->packets || in->pieces < 1 ||
	    in->pieces > (uint64_t)size / PIECE || in->bytes > (uint64_t)size ||
	    (long long)(HEADER + PIECE * in->pieces + 8 * in->packets + in->bytes) != size)
		return -1;
	memcpy(in->config, h + 88, in->config_len);
	return 0;
}

FILE *ts_aac_open(const char *path, const char *key, ts_aac_info *info, ts_error *err)
{
	unsigned char h[HEADER];
	struct stat st;
	FILE *f = fopen(path, "rbe");
	if (!f) {
		ts_error_set(err, ts_errno_code(errno), "%s: cannot read it: %s", path,
		             strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) != 0 || fread(h, 1, HEADER, f) != HEADER ||
	    header_in(h, info, (long long)st.st_size) != 0 ||
	    (key && memcmp(info->key, key, TS_HASH_HEX - 1) != 0) ||
	    fseeko(f, (off_t)(HEADER + PIECE * info->pieces), SEEK_SET) != 0) {
		ts_error_set(err, TS_EINVAL, "%s: not the AAC of this chapter; build again", path);
		fclose(f);
		return NULL;
	}
	return f;
}

int ts_aac_next(FILE *f, const char *path, unsigned char *buf, size_t *size, unsigned *duration,
                ts_error *err)
{
	unsigned char h[8];
	size_t got = fread(h, 1, 8, f);
	if (got == 0 && feof(f))
		return 0;
	*size = got == 8 ? (size_t)get32(h) : 0;
	*duration = (unsigned)get32(h + 4);
	if (got != 8 || *size == 0 || *size > TS_AAC_PACKET_MAX || fread(buf, 1, *size, f) != *size)
		return ts_error_set(err, TS_EIO, "%s: cannot read it: %s", path,
		                    ferror(f) ? strerror(errno) : "cut short or damaged");
	return 1;
}

int ts_aac_ok(const char *path, const char *key)
{
	ts_aac_info in;
	FILE *f = ts_aac_open(path, key, &in, NULL);
	if (f)
		fclose(f);
	return f != NULL;
}

/* ---- pieces ---------------------------------------------------------- */

/* Where a chapter is cut into pieces: inside a run of exact zeros (the
 * pauses eSpeak leaves between sentences) at least TAIL + LEAD long, TAIL
 * into it, so that each piece ends with TAIL zeros and begins with LEAD;
 * a run is a cut when the last FP samples of sound before it hash to a
 * multiple of ODDS (one run in ODDS, chosen by what is said, not by where:
 * the same sentences are cut the same way wherever an edit moved them)
 * and it is at least MIN_S seconds after the last such run. */
enum { LEAD = 2048, TAIL = 4096, FP = 32, ODDS = 3, MIN_S = 3 };

/* A piece: its samples in the chapter, and its packets in the file. */
typedef struct piece {
	char hash[TS_HASH_HEX]; /* of its samples and the encoder's settings */
	uint64_t start, len;    /* its samples */
	uint64_t first;         /* its first packet in the chapter's */
	uint64_t packets;       /* how many */
	uint64_t offset;        /* the byte offset of its first packet in the file */
} piece;

typedef struct cutter {
	piece *p;
	size_t n, cap;
	int rate, bit_rate;
	uint64_t at;             /* samples seen */
	uint64_t zeros;          /* the run of zeros ending at at */
	uint64_t candidate;      /* the last run that could be a cut (0: the start) */
	uint64_t loud_end;       /* one past the last sample above -80 dBFS */
	uint64_t h[2], h_cut[2]; /* the piece's hash so far; TAIL zeros into the run */
	uint32_t ring[FP];       /* the last FP samples of sound */
	unsigned ring_at;
} cutter;

static uint32_t bits_of(float x)
{
	uint32_t b;
	if (x == 0.0f) /* -0 too */
		return 0;
	memcpy(&b, &x, 4);
	return b;
}

/* The piece's running hash: two 64-bit lanes, cheap enough for every
 * sample; folded into a ts_hash with the settings at the piece's end. */
static void mix(uint64_t h[2], uint32_t v)
{
	h[0] = (h[0] ^ v) * 0x100000001b3ULL;
	h[1] = (h[1] + v + 1) * 0x9e3779b97f4a7c15ULL;
	h[1] ^= h[1] >> 29;
}

static void lanes_init(uint64_t h[2])
{
	h[0] = 0xcbf29ce484222325ULL, h[1] = 0x2545f4914f6cdd1dULL;
}

/* The zeros encoded before piece p's first sample: none but in the last
 * piece, encoded from the packet where its first sample falls, so that
 * the chapter ends exactly where its samples do (its first packet is
 * never after its first sample, and the zeros before that sample are
 * the run of zeros the piece is cut in). */
static uint64_t lead_of(const piece *p, int last)
{
	return last ? p->start % TS_AAC_FRAME : 0;
}

/* Close the piece that began at c->p[c->n].start at end, with lanes h. */
static int end_piece(cutter *c, uint64_t end, const uint64_t h[2], int last)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		piece *p = realloc(c->p, (cap + 1) * sizeof *p);
		if (!p)
			return TS_ENOMEM;
		c->p = p, c->cap = cap;
	}
	piece *pc = &c->p[c->n];
	ts_hash hs;
	ts_hash_init(&hs);
	ts_hash_str(&hs, AAC_SETTINGS);
	ts_hash_str(&hs, LIBAVCODEC_IDENT);
	ts_hash_int(&hs, c->rate), ts_hash_int(&hs, c->bit_rate);
	ts_hash_int(&hs, (int64_t)(end - pc->start)), ts_hash_int(&hs, last);
	ts_hash_int(&hs, last ? (int64_t)lead_of(pc, 1) : 0);
	ts_hash_bytes(&hs, h, 2 * sizeof *h);
	ts_hash_hex(&hs, pc->hash);
	pc->len = end - pc->start;
	c->n++;
	memset(&c->p[c->n], 0, sizeof *pc);
	c->p[c->n].start = end;
	return 0;
}

/* A run of c->zeros zeros ends at c->at: a cut in it? */
static int run_ends(cutter *c)
{
	uint64_t a = c->at - c->zeros, cut = a + TAIL;
	if (a == 0 || c->zeros < TAIL + LEAD)
		return 0;
	uint64_t fp[2];
	lanes_init(fp);
	for (unsigned i = 0; i < FP; i++)
		mix(fp, c->ring[(c->ring_at + i) % FP]);
	if (fp[1] % ODDS != 0)
		return 0;
	int far = cut - c->candidate >= (uint64_t)c->rate * MIN_S;
	c->candidate = cut;
	if (!far)
		return 0;
	int rc = end_piece(c, cut, c->h_cut, 0);
	lanes_init(c->h);
	for (uint64_t i = cut; i < c->at; i++)
		mix(c->h, 0);
	return rc;
}

static int cut_sample(cutter *c, float x)
{
	int rc = 0;
	uint32_t b = bits_of(x);
	if (b) {
		if (c->zeros)
			rc = run_ends(c);
		c->zeros = 0;
		c->ring[c->ring_at] = b;
		c->ring_at = (c->ring_at + 1) % FP;
		if (fabsf(x) > 1e-4f)
			c->loud_end = c->at + 1;
	}
	mix(c->h, b);
	c->at++;
	if (!b && ++c->zeros == TAIL)
		memcpy(c->h_cut, c->h, sizeof c->h);
	return rc;
}

/* Where the pieces' packets go: piece k's first where its first sample
 * falls, to the nearest packet (the last piece's never after it, so that
 * nothing of the chapter's end is pushed past its length): a sentence is
 * heard within half a packet of where the chapter's samples put it
 * (within a packet in the last piece).  Piece k keeps the packets up to
 * piece k + 1's first: its own, less those after its samples (silence
 * only: it ends with TAIL zeros), or with its last (silence) repeated
 * when it needs one more than it was made with. */
static void place(piece *p, size_t n)
{
	for (size_t k = 0; k < n; k++)
		p[k].first = k + 1 < n ? (p[k].start + TS_AAC_FRAME / 2) / TS_AAC_FRAME
		                       : p[k].start / TS_AAC_FRAME;
}

/* The pieces of the audio of sf (its first of channels channels) into
 * *c, read to its end: 0, or a code with err filled. */
static int cut_file(SNDFILE *sf, int channels, cutter *c, const char *audio, ts_error *err)
{
	float block[4096];
	sf_count_t got;
	int rc = 0;
	lanes_init(c->h);
	if (!(c->p = calloc(1, sizeof *c->p)))
		return ts_error_set(err, TS_ENOMEM, NULL);
	while (!rc && (got = sf_readf_float(sf, block, 4096 / channels)) > 0)
		for (sf_count_t i = 0; i < got && !rc; i++)
			rc = cut_sample(c, block[i * channels]);
	if (!rc)
		rc = end_piece(c, c->at, c->h, 1);
	if (rc)
		return ts_error_set(err, rc, NULL);
	if (sf_error(sf))
		return ts_error_set(err, TS_EIO, "%s: cannot read it: %s", audio, sf_strerror(sf));
	place(c->p, c->n);
	return 0;
}

/* ---- encoding ------------------------------------------------------- */

typedef struct enc {
	const char *path;
	ts_error *err;
	FILE *out;
	int fd; /* out's descriptor: fileno() of a stream need not be one */
	AVCodecContext *ctx;
	AVFrame *frame;
	AVPacket *pkt;
	ts_aac_info info;
	int64_t pts;        /* samples given to the encoder */
	int filled;         /* samples in frame */
	uint64_t want, got; /* the piece's packets to write; written */
	int durations;      /* the last piece: the encoder's durations, else a frame each */
	size_t last_size;   /* the last packet written, repeated when a piece needs one more */
	unsigned char last[TS_AAC_PACKET_MAX];
} enc;

/* e->err from an FFmpeg code ret, what failed being what; its code. */
static int av_error(enc *e, const char *what, int ret)
{
	char why[AV_ERROR_MAX_STRING_SIZE] = "";
	if (ret == AVERROR(ENOMEM))
		return ts_error_set(e->err, TS_ENOMEM, NULL);
	av.av_strerror(ret, why, sizeof why);
	return ts_error_set(e->err, TS_EIO, "%s: %s: %s", e->path, what, why);
}

/* One packet of the piece into the file, unless it has all it keeps. */
static int emit(enc *e, const unsigned char *data, size_t size, unsigned duration)
{
	unsigned char h[8];
	if (e->got >= e->want)
		return 0;
	if (size == 0 || size > TS_AAC_PACKET_MAX)
		return ts_error_set(e->err, TS_EIO, "%s: cannot write: a packet out of bounds",
		                    e->path);
	put32(h, size);
	put32(h + 4, e->durations ? duration : TS_AAC_FRAME);
	errno = 0;
	if (fwrite(h, 1, 8, e->out) != 8 || fwrite(data, 1, size, e->out) != size)
		return ts_error_set(e->err, ts_errno_code(errno ? errno : EIO),
		                    "%s: cannot write: %s", e->path, strerror(errno ? errno : EIO));
	if (data != e->last)
		memcpy(e->last, data, size);
	e->last_size = size;
	e->got++;
	e->info.packets++;
	e->info.bytes += size;
	return 0;
}

/* Write what the encoder gives back; frame NULL flushes. */
static int encode(enc *e, AVFrame *frame)
{
	int ret = av.avcodec_send_frame(e->ctx, frame);
	while (ret >= 0) {
		ret = av.avcodec_receive_packet(e->ctx, e->pkt);
		if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
			return 0;
		if (ret < 0)
			break;
		int rc = emit(e, e->pkt->data, (size_t)(e->pkt->size > 0 ? e->pkt->size : 0),
		              (unsigned)e->pkt->duration);
		av.av_packet_unref(e->pkt);
		if (rc)
			return rc;
	}
	return av_error(e, "cannot encode", ret);
}

/* The band FFmpeg's encoder keeps for mono at bit_rate and rate when it
 * controls the bit rate itself (libavcodec/psymodel.h, AAC_CUTOFF): the
 * constant quantizer below would keep the whole band instead. */
static int abr_cutoff(int bit_rate, int rate)
{
	int c = bit_rate / 5 > bit_rate * 15 / 32 - 5500 ? bit_rate / 5 : bit_rate * 15 / 32 - 5500;
	c = c < 3000 + bit_rate / 4 ? c : 3000 + bit_rate / 4;
	c = c < 12000 + bit_rate / 16 ? c : 12000 + bit_rate / 16;
	c = c < 22000 ? c : 22000;
	return c < rate / 2 ? c : rate / 2;
}

/* The encoder at rate, and the frame it is fed through. */
static int open_encoder(enc *e, int rate, int bit_rate)
{
	const AVCodec *aac = av.avcodec_find_encoder(AV_CODEC_ID_AAC);
	if (!aac)
		return ts_error_set(e->err, TS_EINVAL, "this FFmpeg has no AAC encoder");
	if (!(e->ctx = av.avcodec_alloc_context3(aac)) || !(e->frame = av.av_frame_alloc()) ||
	    !(e->pkt = av.av_packet_alloc()))
		return ts_error_set(e->err, TS_ENOMEM, NULL);
	e->ctx->sample_fmt = AV_SAMPLE_FMT_FLTP;
	e->ctx->sample_rate = rate;
	e->ctx->bit_rate = bit_rate;
	e->ctx->time_base = (AVRational){1, rate};
	e->ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER; /* the config, for the esds */
	av.av_channel_layout_default(&e->ctx->ch_layout, 1);
	/* Up to 64 kb/s (the default) a constant quantizer (lambda 155) in
	 * the band the encoder's own rate control keeps: on eSpeak NG's
	 * speech it makes about as many bytes as the rate control at
	 * bit_rate (a few percent more at 24 kb/s), scores better on
	 * segmental SNR and log-spectral distance, and takes far less CPU,
	 * for the rate control encodes a frame up to six times over
	 * (bench/README.md, "The AAC encoder's options").  Above 64 kb/s this
	 * lambda scores worse than the rate control. */
	if (bit_rate <= 64000) {
		e->ctx->flags |= AV_CODEC_FLAG_QSCALE;
		e->ctx->global_quality = 155;
		e->ctx->cutoff = abr_cutoff(bit_rate, rate);
	}
	/* The fast coder: the default (two-loop search) takes several times
	 * as long for speech that sounds the same at these rates
	 * (bench/README.md, "Whole-book files"). */
	AVDictionary *opts = NULL;
	int ret = av.av_dict_set(&opts, "aac_coder", "fast", 0);
	if (ret >= 0)
		ret = av.avcodec_open2(e->ctx, aac, &opts);
	av.av_dict_free(&opts);
	if (ret < 0)
		return av_error(e, "cannot set up the AAC encoder", ret);
	if (e->ctx->extradata_size < 1 || e->ctx->extradata_size > TS_AAC_CONFIG_MAX)
		return ts_error_set(e->err, TS_EIO, "%s: the AAC encoder gave no configuration",
		                    e->path);
	e->info.rate = (unsigned)rate;
	e->info.bit_rate = (unsigned)bit_rate;
	e->info.priming = (unsigned)e->ctx->initial_padding;
	e->info.config_len = (unsigned)e->ctx->extradata_size;
	memcpy(e->info.config, e->ctx->extradata, (size_t)e->ctx->extradata_size);
	e->frame->nb_samples = e->ctx->frame_size;
	e->frame->format = AV_SAMPLE_FMT_FLTP;
	e->frame->sample_rate = rate;
	if (av.av_channel_layout_copy(&e->frame->ch_layout, &e->ctx->ch_layout) < 0 ||
	    av.av_frame_get_buffer(e->frame, 0) < 0)
		return ts_error_set(e->err, TS_ENOMEM, NULL);
	return 0;
}

static void close_encoder(enc *e)
{
	av.avcodec_free_context(&e->ctx);
	av.av_frame_free(&e->frame);
	av.av_packet_free(&e->pkt);
}

/* One sample more for the encoder. */
static int feed_sample(enc *e, float x)
{
	int ret;
	/* The encoder may still hold the frame it was given last. */
	if (e->filled == 0 && (ret = av.av_frame_make_writable(e->frame)) < 0)
		return av_error(e, "cannot encode", ret);
	((float *)e->frame->data[0])[e->filled++] = x;
	if (e->filled < e->frame->nb_samples)
		return 0;
	e->frame->pts = e->pts;
	e->pts += e->filled;
	e->filled = 0;
	return encode(e, e->frame);
}

/* Piece pc, its samples read from sf (the first of channels), encoded on
 * its own from silence (zeros before it, as the encoder's priming, and
 * after it), from lead samples before its first (zeros: see lead_of()):
 * e->want of its packets written. */
static int encode_piece(enc *e, SNDFILE *sf, int channels, int rate, int bit_rate, const piece *pc,
                        uint64_t lead, volatile sig_atomic_t *cancel)
{
	float block[4096];
	int rc = open_encoder(e, rate, bit_rate);
	e->pts = 0, e->filled = 0;
	if (!rc && sf_seek(sf, (sf_count_t)(pc->start - lead), SEEK_SET) < 0)
		rc = ts_error_set(e->err, TS_EIO, "%s: cannot read it: %s", e->path,
		                  sf_strerror(sf));
	for (uint64_t left = lead + pc->len; !rc && left > 0;) {
		sf_count_t n =
		    left < (uint64_t)(4096 / channels) ? (sf_count_t)left : 4096 / channels;
		sf_count_t got = sf_readf_float(sf, block, n);
		if (got <= 0)
			rc = ts_error_set(e->err, TS_EIO, "%s: cannot read it: %s", e->path,
			                  sf_error(sf) ? sf_strerror(sf) : "cut short");
		else if (cancel && *cancel)
			rc = ts_error_set(e->err, TS_ECANCELED, "%s: interrupted", e->path);
		for (sf_count_t i = 0; i < got && !rc; i++)
			rc = feed_sample(e, block[i * channels]);
		left -= got > 0 ? (uint64_t)got : left;
	}
	if (!rc && e->filled) { /* the last, short frame */
		e->frame->nb_samples = e->filled;
		e->frame->pts = e->pts;
		rc = encode(e, e->frame);
	}
	if (!rc)
		rc = encode(e, NULL);
	close_encoder(e);
	return rc;
}

/* ---- reusing the pieces of the chapter's previous AAC --------------- */

/* The previous AAC of the chapter, whose pieces of the same samples are
 * copied rather than encoded again. */
typedef struct old {
	const char *path;
	FILE *f; /* NULL: none, or none usable */
	ts_aac_info info;
	piece *p;
	size_t n;
} old;

static void piece_out(const piece *p, unsigned char *b)
{
	memcpy(b, p->hash, TS_HASH_HEX - 1);
	put64(b + 32, p->start), put64(b + 40, p->len);
	put64(b + 48, p->first), put64(b + 56, p->packets);
	put64(b + 64, p->offset);
}

/* The previous AAC at path, if it is one of ours made at the same rates:
 * its pieces, else none (o->f NULL). */
static void old_open(old *o, const char *path, int rate, int bit_rate)
{
	unsigned char b[PIECE];
	memset(o, 0, sizeof *o);
	o->path = path;
	if (!path || !(o->f = ts_aac_open(path, NULL, &o->info, NULL)))
		return;
	uint64_t table_end = HEADER + PIECE * o->info.pieces;
	int ok = o->info.rate == (unsigned)rate && o->info.bit_rate == (unsigned)bit_rate &&
	         (o->p = calloc(o->info.pieces, sizeof *o->p)) &&
	         fseeko(o->f, HEADER, SEEK_SET) == 0;
	for (uint64_t k = 0; ok && k < o->info.pieces; k++) {
		piece *p = &o->p[o->n++];
		ok = fread(b, 1, PIECE, o->f) == PIECE;
		memcpy(p->hash, b, TS_HASH_HEX - 1);
		p->start = get64(b + 32), p->len = get64(b + 40);
		p->first = get64(b + 48), p->packets = get64(b + 56);
		p->offset = get64(b + 64);
		ok = ok && p->packets > 0 && p->first + p->packets <= o->info.packets &&
		     p->offset >= table_end;
	}
	if (!ok) {
		fclose(o->f);
		o->f = NULL;
	}
}

static void old_close(old *o)
{
	if (o->f)
		fclose(o->f);
	free(o->p);
}

/* The previous file's piece of the same samples as pc, or NULL. */
static const piece *old_find(const old *o, const piece *pc)
{
	for (size_t k = 0; o->f && k < o->n; k++)
		if (memcmp(o->p[k].hash, pc->hash, TS_HASH_HEX - 1) == 0 && o->p[k].len == pc->len)
			return &o->p[k];
	return NULL;
}

/* The packets of the previous file's piece from, e->want of them: 0, 1
 * when the previous file cannot be read (nothing copied is kept: the
 * caller takes the file back), or a code with e->err filled. */
static int copy_piece(enc *e, old *o, const piece *from)
{
	unsigned char buf[TS_AAC_PACKET_MAX];
	size_t size;
	unsigned duration;
	int rc = 0;
	if (fseeko(o->f, (off_t)from->offset, SEEK_SET) != 0)
		return 1;
	for (uint64_t k = 0; k < from->packets && e->got < e->want && !rc; k++)
		rc = ts_aac_next(o->f, o->path, buf, &size, &duration, NULL) != 1
		         ? 1
		         : emit(e, buf, size, duration);
	return rc;
}

/* Piece k of pc (n pieces) into the file: copied from the previous file
 * when it has the same, else encoded.  *copied counts the pieces copied. */
static int write_piece(enc *e, old *o, SNDFILE *sf, int channels, piece *pc, size_t k, size_t n,
                       volatile sig_atomic_t *cancel, size_t *copied)
{
	const piece *from = old_find(o, &pc[k]);
	off_t at = ftello(e->out);
	ts_aac_info before = e->info;
	e->want = k + 1 < n ? pc[k + 1].first - pc[k].first : UINT64_MAX;
	e->durations = k + 1 == n;
	e->got = 0;
	pc[k].offset = (uint64_t)at;
	int rc = from ? copy_piece(e, o, from) : 1;
	if (rc == 1 && from) { /* the previous file fails: forget it, take back what was copied */
		old_close(o);
		memset(o, 0, sizeof *o);
		e->info = before, e->got = 0;
		if (fflush(e->out) != 0 || ftruncate(e->fd, at) != 0 ||
		    fseeko(e->out, at, SEEK_SET) != 0)
			return ts_error_set(e->err, ts_errno_code(errno), "%s: cannot write: %s",
			                    e->path, strerror(errno));
	}
	if (rc == 0)
		++*copied;
	else if (rc == 1)
		rc = encode_piece(e, sf, channels, (int)e->info.rate, (int)e->info.bit_rate, &pc[k],
		                  lead_of(&pc[k], k + 1 == n), cancel);
	/* Whole: a piece that needs a packet more than it was made with repeats
	 * its last, silence only (its last window held nothing but zeros). */
	while (!rc && k + 1 < n && e->got < e->want && e->last_size)
		rc = emit(e, e->last, e->last_size, TS_AAC_FRAME);
	pc[k].packets = e->got;
	return rc;
}

/* How many of the last packets encode silence only, their windows and
 * the one before theirs (2 frames each) after the last sound, loud_end
 * (where it falls in the packets: its piece's place). */
static uint64_t quiet_tail(const ts_aac_info *in, uint64_t loud_end, const piece *p, size_t n)
{
	size_t k = n - 1;
	while (k > 0 && p[k].start >= loud_end)
		k--;
	uint64_t sound = in->priming + p[k].first * TS_AAC_FRAME + lead_of(&p[k], k + 1 == n) +
	                 (loud_end - p[k].start);
	uint64_t needed = (sound + TS_AAC_FRAME - 1) / TS_AAC_FRAME + 1;
	return in->packets > needed ? in->packets - needed : 0;
}

/* The header and the pieces' table at the start of the file: 0, or -1
 * with errno. */
static int write_head(enc *e, const piece *p, size_t n)
{
	unsigned char h[HEADER], *t = malloc(n * PIECE);
	if (!t)
		return errno = ENOMEM, -1;
	for (size_t k = 0; k < n; k++)
		piece_out(&p[k], t + k * PIECE);
	header_out(&e->info, h);
	int rc = fflush(e->out) != 0 || ts_pwrite_full(e->fd, t, n * PIECE, HEADER) != 0 ||
	                 ts_pwrite_full(e->fd, h, HEADER, 0) != 0
	             ? -1
	             : 0;
	free(t);
	return rc;
}

/* An unnamed file (the MP4's sample sizes, mp4.h; the packets of the
 * pieces a child makes), made beside path
 * (a temporary name, hidden) and unlinked at once: -1 with errno. */
static int open_spool(const char *path)
{
	ts_buf b = {0};
	int fd = -1;
	if (ts_buf_printf(&b, "%s.sizes-XXXXXX", path) == 0 && (fd = mkstemp(b.data)) >= 0) {
		unlink(b.data);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	} else if (ts_buf_error(&b))
		errno = ENOMEM;
	ts_buf_free(&b);
	return fd;
}

/* ---- the pieces in two processes ------------------------------------ */

/* What a chapter is encoded from, for the process that encodes part of
 * it. */
typedef struct source {
	const char *audio, *prev;
	int channels, procs;
	volatile sig_atomic_t *cancel;
} source;

/* What that process did: then, for each of its pieces, where its
 * packets start in its file and how many it has. */
typedef struct half {
	int rc, encoded;
	size_t copied;
	ts_aac_info info; /* its packets, their bytes; the encoder's fields */
} half;

/* Read n bytes of the pipe fd into p: 0, or -1 (its end first: the
 * writer died). */
static int read_full(int fd, void *p, size_t n)
{
	return ts_read_full(fd, p, n) == (ssize_t)n ? 0 : -1;
}

/* The first piece the second process makes: where the samples to encode
 * are shared the most evenly (the larger side the smallest); c->n when
 * there is not enough to share. */
static size_t split_at(const cutter *c, const old *o)
{
	uint64_t all = 0, so_far = 0, best_max = UINT64_MAX;
	size_t best = c->n;
	for (size_t k = 0; k < c->n; k++)
		all += old_find(o, &c->p[k]) ? 0 : c->p[k].len;
	for (size_t k = 0; k < c->n; k++) {
		uint64_t larger = so_far > all - so_far ? so_far : all - so_far;
		if (so_far > 0 && so_far < all && larger < best_max)
			best = k, best_max = larger;
		so_far += old_find(o, &c->p[k]) ? 0 : c->p[k].len;
	}
	return best;
}

/* Pieces [s, c->n) of src into the file fd (a spool: see open_spool()),
 * in the child process that encodes them; what it did into res.  Never
 * returns. */
static void half_run(const source *src, cutter *c, size_t s, int bit_rate, int fd, int res)
{
	half h = {0};
	ts_error err = {0};
	enc *e = calloc(1, sizeof *e);
	old o;
	SF_INFO si = {0};
	SNDFILE *sf = sf_open(src->audio, SFM_READ, &si);
	old_open(&o, src->prev, c->rate, bit_rate); /* its own file offsets, not the parent's */
	if (!e || !sf || !(e->out = fdopen(e->fd = fd, "w+b")))
		h.rc = TS_EIO; /* the parent makes them */
	else {
		e->path = src->audio, e->err = &err;
		e->info.rate = (unsigned)c->rate, e->info.bit_rate = (unsigned)bit_rate;
	}
	for (size_t k = s; k < c->n && !h.rc; k++) {
		size_t before = h.copied;
		h.rc = write_piece(e, &o, sf, src->channels, c->p, k, c->n, src->cancel, &h.copied);
		h.encoded |= h.copied == before;
	}
	if (!h.rc && fflush(e->out) != 0)
		h.rc = ts_error_set(&err, ts_errno_code(errno), "%s", strerror(errno));
	if (e)
		h.info = e->info;
	int ok = ts_write_full(res, &h, sizeof h) == 0;
	for (size_t k = s; k < c->n && ok; k++)
		ok = ts_write_full(res, &c->p[k].offset, 8) == 0 &&
		     ts_write_full(res, &c->p[k].packets, 8) == 0;
	_exit(ok ? 0 : 1);
}

/* The child's pieces [s, c->n), written in the spool fd, after the
 * parent's in e->out: 0, 1 when the child did not finish (the caller
 * makes them), or a code with e->err filled. */
static int half_join(enc *e, cutter *c, size_t s, int fd, int res, half *h)
{
	unsigned char buf[65536];
	uint64_t base = (uint64_t)ftello(e->out);
	int rc = read_full(res, h, sizeof *h) == 0 ? 0 : 1;
	for (size_t k = s; k < c->n && !rc; k++)
		if (read_full(res, &c->p[k].offset, 8) != 0 ||
		    read_full(res, &c->p[k].packets, 8) != 0)
			rc = 1;
	if (!rc && h->rc == TS_ECANCELED)
		return ts_error_set(e->err, h->rc, "%s: interrupted", e->path);
	if (h->rc) /* made here instead, where a failure is told as it is */
		return 1;
	for (off_t at = 0; !rc;) {
		ssize_t got = pread(fd, buf, sizeof buf, at);
		if (got < 0 || (got > 0 && fwrite(buf, 1, (size_t)got, e->out) != (size_t)got))
			return ts_error_set(e->err, ts_errno_code(errno), "%s: cannot write: %s",
			                    e->path, strerror(errno));
		if (got == 0)
			break;
		at += got;
	}
	for (size_t k = s; k < c->n && !rc; k++)
		c->p[k].offset += base;
	if (!rc)
		e->info.packets += h->info.packets, e->info.bytes += h->info.bytes;
	return rc;
}

/* Pieces [s, c->n) in a child process, at the same time as the caller
 * makes [0, s) (make_first()), then joined: 0, or a code with e->err
 * filled. */
static int write_halves(enc *e, old *o, SNDFILE *sf, const source *src, cutter *c, size_t s,
                        size_t *copied, int *encoded)
{
	int res[2] = {-1, -1}, rc = 0, fd = open_spool(e->path), status;
	half h = {0};
	pid_t pid = fd >= 0 && pipe(res) == 0 ? fork() : -1;
	if (pid == 0) {
		close(res[0]);
		half_run(src, c, s, (int)e->info.bit_rate, fd, res[1]);
	}
	if (res[1] >= 0)
		close(res[1]);
	for (size_t k = 0; k < (pid > 0 ? s : c->n) && !rc; k++) {
		size_t before = *copied;
		rc = write_piece(e, o, sf, src->channels, c->p, k, c->n, src->cancel, copied);
		*encoded |= *copied == before;
	}
	if (pid > 0 && rc)
		kill(pid, SIGKILL);
	if (pid > 0 && !rc && (rc = half_join(e, c, s, fd, res[0], &h)) == 0) {
		*copied += h.copied;
		if (h.encoded && !*encoded) /* the encoder's fields */
			e->info.priming = h.info.priming, e->info.config_len = h.info.config_len,
			memcpy(e->info.config, h.info.config, h.info.config_len);
		*encoded |= h.encoded;
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	for (size_t k = s; pid > 0 && rc == 1 && k < c->n; k++) { /* the child failed: here */
		size_t before = *copied;
		rc = write_piece(e, o, sf, src->channels, c->p, k, c->n, src->cancel, copied);
		*encoded |= *copied == before;
	}
	if (fd >= 0)
		close(fd);
	if (res[0] >= 0)
		close(res[0]);
	return rc;
}

/* The pieces of c into the file, each copied from o or encoded from
 * src's audio (read through sf), in src->procs processes (1 or 2); the
 * header's fields. */
static int write_pieces(enc *e, old *o, SNDFILE *sf, const source *src, cutter *c, size_t *copied)
{
	int rc = 0, encoded = 0;
	/* The packets after the room of the header and the table. */
	if (fseeko(e->out, HEADER + PIECE * (off_t)c->n, SEEK_SET) != 0)
		rc = ts_error_set(e->err, ts_errno_code(errno), "%s: cannot write: %s", e->path,
		                  strerror(errno));
	size_t s = src->procs > 1 ? split_at(c, o) : c->n;
	if (!rc)
		rc = write_halves(e, o, sf, src, c, s, copied, &encoded);
	if (!rc && !encoded) { /* all copied: the encoder's own fields from the file */
		e->info.priming = o->info.priming;
		e->info.config_len = o->info.config_len;
		memcpy(e->info.config, o->info.config, o->info.config_len);
	}
	e->info.samples = c->at;
	e->info.pieces = c->n;
	e->info.quiet_tail = quiet_tail(&e->info, c->loud_end, c->p, c->n);
	return rc;
}

int ts_aac_encode(const char *audio, const char *path, const char key[TS_HASH_HEX], int bit_rate,
                  const char *prev, int procs, volatile sig_atomic_t *cancel, size_t *reused,
                  ts_error *err)
{
	enc *e = calloc(1, sizeof *e);
	cutter c = {.bit_rate = bit_rate};
	old o = {0};
	SF_INFO si = {0};
	SNDFILE *sf = NULL;
	size_t copied = 0;
	int rc = e ? load_av(err) : ts_error_set(err, TS_ENOMEM, NULL), fd = -1;
	if (rc)
		goto out;
	*e = (enc){.path = path, .err = err};
	av.av_log_set_level(AV_LOG_QUIET); /* the library never prints: err says what failed */
	if (!(sf = sf_open(audio, SFM_READ, &si))) {
		rc = ts_error_set(err, TS_EIO, "%s: cannot read it: %s", audio, sf_strerror(NULL));
		goto out;
	}
	if (si.samplerate <= 0 || si.samplerate > 65535 || si.channels < 1) {
		rc = ts_error_set(err, TS_EINVAL, "%s: %d Hz: AAC in MP4 holds up to 65,535 Hz",
		                  audio, si.samplerate);
		goto out;
	}
	c.rate = si.samplerate;
	e->info.rate = (unsigned)si.samplerate, e->info.bit_rate = (unsigned)bit_rate;
	if ((rc = cut_file(sf, si.channels, &c, audio, err)))
		goto out;
	old_open(&o, prev, si.samplerate, bit_rate);
	if ((fd = ts_create_excl(path)) < 0) {
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot create it: %s", path,
		                  strerror(errno));
		goto out;
	}
	if (!(e->out = fdopen(e->fd = fd, "w+b"))) {
		close(fd);
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	source src = {audio, prev, si.channels, procs, cancel};
	rc = write_pieces(e, &o, sf, &src, &c, &copied);
	memcpy(e->info.key, key, TS_HASH_HEX);
	/* The header last: a file cut short has none. */
	if (!rc && write_head(e, c.p, c.n) != 0)
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot write: %s", path,
		                  strerror(errno));
out:
	if (e && e->out && fclose(e->out) != 0 && !rc)
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot write: %s", path,
		                  strerror(errno));
	if (rc && fd >= 0)
		unlink(path);
	if (reused)
		*reused = rc ? 0 : copied;
	if (sf)
		sf_close(sf);
	old_close(&o);
	free(c.p);
	free(e);
	return rc;
}

/* ---- in a child ---------------------------------------------------- */

/* The dynamic loader, opening libavcodec, crashes rather than fails when
 * memory runs short: in a child, that is the child's end and an error
 * here (see child.h). */
typedef struct job {
	const char *audio, *path, *key, *prev;
	int bit_rate;
	volatile sig_atomic_t *cancel;
} job;

static int encode_fn(void *arg, char *out, size_t outsz)
{
	const job *j = arg;
	ts_error e = {0};
	int rc =
	    ts_aac_encode(j->audio, j->path, j->key, j->bit_rate, j->prev, 1, j->cancel, NULL, &e);
	snprintf(out, outsz, "%s", rc ? ts_error_msg(&e) : "");
	return -rc; /* 0, or the code made positive */
}

int ts_aac_make(const char *root, const char *audio, const char *path, const char key[TS_HASH_HEX],
                int bit_rate, long owner_pid, volatile sig_atomic_t *cancel, ts_error *err)
{
	char msg[1024] = "", *tmp = ts_temp_name(path, owner_pid);
	if (!tmp)
		return ts_error_set(err, TS_ENOMEM, NULL);
	job j = {audio, tmp, key, path, bit_rate, cancel}; /* the AAC there before: its pieces */
	int rc = ts_in_child_cancel(encode_fn, &j, msg, sizeof msg - 1, cancel);
	if (rc > 0)
		rc = ts_error_set(err, -rc, "%s", msg);
	else if (rc < 0 && cancel && *cancel)
		rc = ts_error_set(err, TS_ECANCELED, "%s: interrupted", path);
	else if (rc < 0)
		rc = ts_error_set(err, TS_ECHILD,
		                  "%s: cannot make it: the process encoding it did not finish "
		                  "(out of memory, or killed)",
		                  path);
	else
		rc = ts_commit_files(root, &tmp, (char *const *)&path, 1, owner_pid, err);
	if (rc)
		ts_unlink_in(root, tmp);
	free(tmp);
	return rc;
}

/* ---- its key, and an M4A of it -------------------------------------- */

int ts_aac_set_key(const char *path, const char key[TS_HASH_HEX], ts_error *err)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW), rc = 0;
	if (fd < 0 || ts_pwrite_full(fd, key, TS_HASH_HEX - 1, 8) != 0)
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot write: %s", path,
		                  strerror(errno));
	if (fd >= 0 && close(fd) != 0 && !rc)
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot write: %s", path,
		                  strerror(errno));
	return rc;
}

char *ts_aac_beside(const char *audio, long owner_pid)
{
	ts_buf b = {0};
	char *tmp = ts_buf_printf(&b, "%s.aac", audio) ? NULL : ts_temp_name(b.data, owner_pid);
	ts_buf_free(&b);
	return tmp;
}

/* The packets of f, after its header, into m.  0, or a code with err
 * filled. */
static int copy_packets(ts_mp4 *m, FILE *f, const char *aac, ts_error *err)
{
	unsigned char packet[TS_AAC_PACKET_MAX];
	size_t size;
	unsigned duration;
	int got, rc = 0;
	while (!rc && (got = ts_aac_next(f, aac, packet, &size, &duration, err)) == 1)
		rc = ts_mp4_add(m, packet, size, duration);
	if (rc)
		return ts_error_set(err, rc, "%s: cannot write: %s", aac,
		                    ts_mp4_errno(m) ? strerror(ts_mp4_errno(m)) : ts_strerror(rc));
	return got;
}

int ts_aac_write_m4a(const char *aac, const char *path, const ts_aac_tags *tags, ts_error *err)
{
	ts_aac_info in;
	ts_mp4 *m = NULL;
	int rc = 0, e = 0, fd = -1, sizes = -1;
	FILE *f = ts_aac_open(aac, NULL, &in, err);
	if (!f)
		return err->code;
	ts_mp4_info mi = {.brand = "M4A ",
	                  .rate = in.rate,
	                  .config = in.config,
	                  .config_len = in.config_len,
	                  .priming = in.priming,
	                  .title = tags->title,
	                  .artist = tags->artist,
	                  .album = tags->album,
	                  .tool = "tingshu " TS_VERSION,
	                  .track = tags->track};
	if ((fd = ts_create_excl(path)) < 0 || (sizes = open_spool(path)) < 0) {
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot create it: %s", path,
		                  strerror(errno));
		goto out;
	}
	if (!(m = ts_mp4_new(fd, sizes, &mi, &rc, &e)))
		rc = ts_error_set(err, rc, "%s: cannot write: %s", path,
		                  e ? strerror(e) : ts_strerror(rc));
	else if ((rc = copy_packets(m, f, aac, err)) == 0 && (rc = ts_mp4_finish(m, in.samples)))
		rc = ts_error_set(err, rc, "%s: cannot write: %s", path,
		                  ts_mp4_errno(m) ? strerror(ts_mp4_errno(m)) : ts_strerror(rc));
out:
	ts_mp4_free(m);
	fclose(f);
	if (sizes >= 0)
		close(sizes);
	if (fd >= 0 && close(fd) != 0 && !rc)
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot write: %s", path,
		                  strerror(errno));
	if (rc && fd >= 0)
		unlink(path);
	return rc;
}

int ts_aac_take(const char *audio, const char *audio_tmp, long owner_pid, const char *tmp,
                const char key[TS_HASH_HEX], int bit_rate, const char *prev, int procs,
                ts_error *err)
{
	char *made = ts_aac_beside(audio, owner_pid);
	int rc = !made ? ts_error_set(err, TS_ENOMEM, NULL)
	         : access(made, F_OK) != 0
	             ? ts_aac_encode(audio_tmp, tmp, key, bit_rate, prev, procs, NULL, NULL, err)
	         : rename(made, tmp) != 0
	             ? ts_error_set(err, ts_errno_code(errno), "%s: %s", made, strerror(errno))
	             : ts_aac_set_key(tmp, key, err);
	free(made);
	return rc;
}
