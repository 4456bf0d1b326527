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
#include <sys/stat.h>
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

void ts_aac_key(const char *chapter_key, int bit_rate, char key[TS_HASH_HEX])
{
	ts_hash h;
	ts_hash_init(&h);
	ts_hash_str(&h, "tingshu aac 2, fast coder, constant quantizer to 64 kb/s");
	ts_hash_str(&h, LIBAVCODEC_IDENT); /* the encoder's version, as built */
	ts_hash_int(&h, bit_rate);
	ts_hash_str(&h, chapter_key);
	ts_hash_hex(&h, key);
}

/* ---- the file ------------------------------------------------------- */

#define MAGIC  "TSAAC001"
#define HEADER 152

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
	if (in->config_len < 1 || in->config_len > TS_AAC_CONFIG_MAX || in->rate == 0 ||
	    in->packets > (uint64_t)size || in->quiet_tail > in->packets ||
	    (long long)(HEADER + 8 * in->packets + in->bytes) != size)
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
	    (key && memcmp(info->key, key, TS_HASH_HEX - 1) != 0)) {
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

/* ---- encoding ------------------------------------------------------- */

typedef struct enc {
	const char *path;
	ts_error *err;
	FILE *out;
	AVCodecContext *ctx;
	AVFrame *frame;
	AVPacket *pkt;
	ts_aac_info info;
	int64_t pts;      /* samples given to the encoder */
	int filled;       /* samples in frame */
	int64_t loud_end; /* one past the last sample above silence */
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
		unsigned char h[8];
		put32(h, (uint64_t)e->pkt->size);
		put32(h + 4, (uint64_t)e->pkt->duration);
		int bad = e->pkt->size <= 0 || e->pkt->size > TS_AAC_PACKET_MAX;
		if (!bad &&
		    (fwrite(h, 1, 8, e->out) != 8 ||
		     fwrite(e->pkt->data, 1, (size_t)e->pkt->size, e->out) != (size_t)e->pkt->size))
			bad = errno ? errno : EIO;
		e->info.packets++;
		e->info.bytes += (uint64_t)e->pkt->size;
		av.av_packet_unref(e->pkt);
		if (bad)
			return ts_error_set(e->err, bad > 1 ? ts_errno_code(bad) : TS_EIO,
			                    "%s: cannot write: %s", e->path,
			                    bad > 1 ? strerror(bad) : "a packet out of bounds");
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

/* One sample more for the encoder. */
static int feed_sample(enc *e, float x)
{
	int ret;
	/* The encoder may still hold the frame it was given last. */
	if (e->filled == 0 && (ret = av.av_frame_make_writable(e->frame)) < 0)
		return av_error(e, "cannot encode", ret);
	if (fabsf(x) > 1e-4f) /* above -80 dBFS */
		e->loud_end = e->pts + e->filled + 1;
	((float *)e->frame->data[0])[e->filled++] = x;
	if (e->filled < e->frame->nb_samples)
		return 0;
	e->frame->pts = e->pts;
	e->pts += e->filled;
	e->filled = 0;
	return encode(e, e->frame);
}

/* The samples of the file at audio (its first channel), then the last
 * short frame and what the encoder holds. */
static int feed_file(enc *e, const char *audio, int bit_rate, volatile sig_atomic_t *cancel)
{
	SF_INFO si = {0};
	SNDFILE *sf = sf_open(audio, SFM_READ, &si);
	if (!sf)
		return ts_error_set(e->err, TS_EIO, "%s: cannot read it: %s", audio,
		                    sf_strerror(NULL));
	float block[4096];
	sf_count_t got;
	int rc =
	    si.samplerate <= 0 || si.samplerate > 65535
	        ? ts_error_set(e->err, TS_EINVAL, "%s: %d Hz: AAC in MP4 holds up to 65,535 Hz",
	                       audio, si.samplerate)
	        : open_encoder(e, si.samplerate, bit_rate);
	while (!rc && (got = sf_readf_float(sf, block, 4096 / si.channels)) > 0) {
		if (cancel && *cancel)
			rc = ts_error_set(e->err, TS_ECANCELED, "%s: interrupted", e->path);
		for (sf_count_t i = 0; i < got && !rc; i++)
			rc = feed_sample(e, block[i * si.channels]);
	}
	int bad = sf_error(sf);
	sf_close(sf);
	if (!rc && bad)
		rc = ts_error_set(e->err, TS_EIO, "%s: cannot read it: %s", audio,
		                  sf_error_number(bad));
	e->info.samples = (uint64_t)(e->pts + e->filled);
	if (!rc && e->filled) { /* the last, short frame */
		e->frame->nb_samples = e->filled;
		e->frame->pts = e->pts;
		rc = encode(e, e->frame);
	}
	return rc ? rc : encode(e, NULL);
}

/* How many of the last packets encode silence only, their windows and
 * the one before theirs (2 frames each) after the last sound. */
static uint64_t quiet_tail(const ts_aac_info *in, int64_t loud_end)
{
	uint64_t sound = in->priming + (uint64_t)loud_end; /* decoded: priming first */
	uint64_t needed = (sound + TS_AAC_FRAME - 1) / TS_AAC_FRAME + 1;
	return in->packets > needed ? in->packets - needed : 0;
}

int ts_aac_encode(const char *audio, const char *path, const char key[TS_HASH_HEX], int bit_rate,
                  volatile sig_atomic_t *cancel, ts_error *err)
{
	enc e = {.path = path, .err = err};
	unsigned char h[HEADER] = {0};
	int rc = load_av(err), fd = -1;
	if (rc)
		return rc;
	av.av_log_set_level(AV_LOG_QUIET); /* the library never prints: err says what failed */
	if ((fd = ts_create_excl(path)) < 0)
		return ts_error_set(err, ts_errno_code(errno), "%s: cannot create it: %s", path,
		                    strerror(errno));
	if (!(e.out = fdopen(fd, "wb"))) {
		close(fd);
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	if (fwrite(h, 1, HEADER, e.out) != HEADER)
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot write: %s", path,
		                  strerror(errno));
	if (!rc)
		rc = feed_file(&e, audio, bit_rate, cancel);
	memcpy(e.info.key, key, TS_HASH_HEX);
	e.info.quiet_tail = quiet_tail(&e.info, e.loud_end);
	header_out(&e.info, h);
	/* The header last: a file cut short has none. */
	if (!rc && (fflush(e.out) != 0 || ts_pwrite_full(fd, h, HEADER, 0) != 0))
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot write: %s", path,
		                  strerror(errno));
out:
	if (e.out && fclose(e.out) != 0 && !rc)
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot write: %s", path,
		                  strerror(errno));
	if (rc)
		unlink(path);
	av.avcodec_free_context(&e.ctx);
	av.av_frame_free(&e.frame);
	av.av_packet_free(&e.pkt);
	return rc;
}

/* ---- in a child ---------------------------------------------------- */

/* The dynamic loader, opening libavcodec, crashes rather than fails when
 * memory runs short: in a child, that is the child's end and an error
 * here (see child.h). */
typedef struct job {
	const char *audio, *path, *key;
	int bit_rate;
	volatile sig_atomic_t *cancel;
} job;

static int encode_fn(void *arg, char *out, size_t outsz)
{
	const job *j = arg;
	ts_error e = {0};
	int rc = ts_aac_encode(j->audio, j->path, j->key, j->bit_rate, j->cancel, &e);
	snprintf(out, outsz, "%s", rc ? ts_error_msg(&e) : "");
	return -rc; /* 0, or the code made positive */
}

int ts_aac_make(const char *root, const char *audio, const char *path, const char key[TS_HASH_HEX],
                int bit_rate, long owner_pid, volatile sig_atomic_t *cancel, ts_error *err)
{
	char msg[1024] = "", *tmp = ts_temp_name(path, owner_pid);
	if (!tmp)
		return ts_error_set(err, TS_ENOMEM, NULL);
	job j = {audio, tmp, key, bit_rate, cancel};
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

/* An unnamed file for the MP4's sample sizes (mp4.h), made beside path
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
                const char key[TS_HASH_HEX], int bit_rate, ts_error *err)
{
	char *made = ts_aac_beside(audio, owner_pid);
	int rc = !made                     ? ts_error_set(err, TS_ENOMEM, NULL)
	         : access(made, F_OK) != 0 ? ts_aac_encode(audio_tmp, tmp, key, bit_rate, NULL, err)
	         : rename(made, tmp) != 0
	             ? ts_error_set(err, ts_errno_code(errno), "%s: %s", made, strerror(errno))
	             : ts_aac_set_key(tmp, key, err);
	free(made);
	return rc;
}
