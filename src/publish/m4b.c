/* m4b.c - the whole book as one M4B file (see m4b.h): libavcodec's AAC
 * encoder, and our own MP4 writer (audio/mp4.c) on a file made
 * exclusively, whose sample sizes are kept in an unnamed file beside
 * it. */
#include "publish/m4b.h"

#include "audio/mp4.h"
#include "audio/write.h"
#include "base/child.h"
#include "base/file.h"
#include "base/util.h"

#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libavcodec and libavutil are opened by the process that makes an M4B
 * (a child of the build's: see ts_m4b_write()), not linked: linked, every
 * tingshu command loaded and relocated the many libraries they bring,
 * which cost more than the lexicon's load (bench/README.md), among them
 * libjxl's Highway, whose start-up code valgrind cannot run on some
 * processors.  Their functions are called through av, which has the
 * headers' types. */
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
		                    "cannot load %s, which makes the M4B's AAC: %s (it is Debian's "
		                    "package libavcodec%d)",
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

int ts_m4b_bitrate(int quality)
{
	/* Mono speech: 48 kb/s is transparent enough for a voice; from
	 * 24 kb/s (quality 0) to 128 kb/s (10). */
	static const int rates[] = {24, 32, 40, 48, 56, 64, 72, 80, 96, 112, 128};
	if (quality < TS_QUALITY_MIN || quality > TS_QUALITY_MAX)
		return 64000;
	return rates[quality] * 1000;
}

/* ---- the cover ----------------------------------------------------- */

typedef struct cover {
	unsigned char *data;
	size_t len;
	enum AVCodecID codec;
	int width, height;
} cover;

static unsigned be16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* The size of the picture in a JPEG (its first SOFn segment) or PNG (its
 * IHDR); the codec, or AV_CODEC_ID_NONE when data is neither. */
static enum AVCodecID picture_kind(const unsigned char *d, size_t n, int *w, int *h)
{
	static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
	if (n >= 24 && memcmp(d, png, 8) == 0 && memcmp(d + 12, "IHDR", 4) == 0) {
		*w = (int)(be16(d + 16) << 16 | be16(d + 18));
		*h = (int)(be16(d + 20) << 16 | be16(d + 22));
		return *w > 0 && *h > 0 ? AV_CODEC_ID_PNG : AV_CODEC_ID_NONE;
	}
	if (n < 4 || d[0] != 0xFF || d[1] != 0xD8)
		return AV_CODEC_ID_NONE;
	for (size_t i = 2; i + 4 <= n;) {
		if (d[i] != 0xFF)
			return AV_CODEC_ID_NONE;
		unsigned m = d[i + 1], len = be16(d + i + 2);
		if (m == 0xFF) { /* fill byte */
			i++;
			continue;
		}
		/* SOF0..SOF15 but DHT (C4), JPG (C8) and DAC (CC). */
		if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
			if (i + 9 > n || len < 7)
				return AV_CODEC_ID_NONE;
			*h = (int)be16(d + i + 5);
			*w = (int)be16(d + i + 7);
			return *w > 0 && *h > 0 ? AV_CODEC_ID_MJPEG : AV_CODEC_ID_NONE;
		}
		if (len < 2 || m == 0xD9 || m == 0xDA)
			return AV_CODEC_ID_NONE; /* no frame header before the data */
		i += 2 + len;
	}
	return AV_CODEC_ID_NONE;
}

/* Read the cover at path into c; 0 or a code with err filled. */
static int read_cover(const char *path, cover *c, ts_error *err)
{
	memset(c, 0, sizeof *c);
	struct stat st;
	int fd = ts_open_regular(path, &st), rc = 0;
	if (fd == TS_NOT_REGULAR)
		return ts_error_set(err, TS_EINVAL, "--cover %s: %s, not a picture file", path,
		                    ts_file_kind(st.st_mode));
	if (fd < 0)
		return ts_error_set(err, errno == ENOMEM ? TS_ENOMEM : TS_EINVAL,
		                    "--cover %s: cannot read it: %s", path, strerror(errno));
	if (st.st_size > (off_t)TS_M4B_COVER_MAX || st.st_size == 0) {
		rc = ts_error_set(err, TS_EINVAL, "--cover %s: %s", path,
		                  st.st_size == 0 ? "the file is empty"
		                                  : "larger than 20 MB; a cover is a picture of a "
		                                    "few hundred KB");
		goto out;
	}
	c->len = (size_t)st.st_size;
	if (!(c->data = malloc(c->len + AV_INPUT_BUFFER_PADDING_SIZE))) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	for (size_t got = 0; got < c->len;) {
		ssize_t k = read(fd, c->data + got, c->len - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			rc = ts_error_set(err, TS_EIO, "--cover %s: cannot read it: %s", path,
			                  k < 0 ? strerror(errno) : "shorter than it was");
			goto out;
		}
		got += (size_t)k;
	}
	memset(c->data + c->len, 0, AV_INPUT_BUFFER_PADDING_SIZE);
	c->codec = picture_kind(c->data, c->len, &c->width, &c->height);
	if (c->codec == AV_CODEC_ID_NONE)
		rc = ts_error_set(err, TS_EINVAL,
		                  "--cover %s: not a JPEG or PNG picture; give a .jpg or .png file",
		                  path);
out:
	close(fd);
	if (rc) {
		free(c->data);
		c->data = NULL;
		c->len = 0;
	}
	return rc;
}

int ts_m4b_check_cover(const char *path, ts_error *err)
{
	cover c;
	int rc = read_cover(path, &c, err);
	free(c.data);
	return rc;
}

/* ---- writing ------------------------------------------------------- */

typedef struct m4b {
	const char *path; /* the book file, for messages */
	ts_error *err;
	volatile sig_atomic_t *cancel;
	int fd, sample_sizes; /* the book file; the packets' sizes (mp4.h) */
	ts_mp4 *mp4;
	ts_mp4_info info;
	ts_mp4_chapter *chapter;
	AVCodecContext *enc;
	AVFrame *frame;
	AVPacket *pkt;
	int64_t pts; /* samples given to the encoder */
	int filled;  /* samples in frame */
} m4b;

/* m->err from a code of the MP4 writer; the code. */
static int mp4_error(m4b *m, int code)
{
	int e = m->mp4 ? ts_mp4_errno(m->mp4) : 0;
	if (code == TS_ENOMEM || !e)
		return ts_error_set(m->err, code, "%s: cannot write: %s", m->path,
		                    ts_strerror(code));
	return ts_error_set(m->err, code, "%s: cannot write: %s", m->path, strerror(e));
}

/* m->err from an FFmpeg code ret, what failed being what; its code. */
static int av_error(m4b *m, const char *what, int ret)
{
	char why[AV_ERROR_MAX_STRING_SIZE] = "";
	if (ret == AVERROR(ENOMEM))
		return ts_error_set(m->err, TS_ENOMEM, NULL);
	av.av_strerror(ret, why, sizeof why);
	return ts_error_set(m->err, TS_EIO, "%s: %s: %s", m->path, what, why);
}

/* Hand what the encoder gives back to the MP4 writer; frame NULL flushes.
 * 0 or a code with m->err filled. */
static int encode(m4b *m, AVFrame *frame)
{
	int ret = av.avcodec_send_frame(m->enc, frame);
	while (ret >= 0) {
		ret = av.avcodec_receive_packet(m->enc, m->pkt);
		if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
			return 0;
		if (ret < 0)
			break;
		int rc = ts_mp4_add(m->mp4, m->pkt->data, (size_t)m->pkt->size,
		                    (unsigned)m->pkt->duration);
		av.av_packet_unref(m->pkt);
		if (rc)
			return mp4_error(m, rc);
	}
	return av_error(m, "cannot encode", ret);
}

/* The samples of the chapter file at path (its first channel), a frame
 * at a time.  0 or a code with m->err filled. */
static int feed_chapter(m4b *m, const char *path)
{
	SF_INFO info = {0};
	SNDFILE *sf = sf_open(path, SFM_READ, &info);
	if (!sf)
		return ts_error_set(m->err, TS_EIO, "%s: cannot read it: %s", path,
		                    sf_strerror(NULL));
	float block[4096];
	sf_count_t got;
	int rc = 0, ret;
	while (!rc && (got = sf_readf_float(sf, block, 4096 / info.channels)) > 0) {
		if (m->cancel && *m->cancel) {
			rc = ts_error_set(m->err, TS_ECANCELED, "%s: interrupted", m->path);
			break;
		}
		for (sf_count_t i = 0; i < got && !rc; i++) {
			/* The encoder may still hold the frame it was given last. */
			if (m->filled == 0 && (ret = av.av_frame_make_writable(m->frame)) < 0) {
				rc = av_error(m, "cannot encode", ret);
				break;
			}
			((float *)m->frame->data[0])[m->filled++] = block[i * info.channels];
			if (m->filled == m->frame->nb_samples) {
				m->frame->pts = m->pts;
				m->pts += m->filled;
				m->filled = 0;
				rc = encode(m, m->frame);
			}
		}
	}
	int bad = sf_error(sf);
	sf_close(sf);
	if (!rc && bad)
		rc = ts_error_set(m->err, TS_EIO, "%s: cannot read it: %s", path,
		                  sf_error_number(bad));
	return rc;
}

/* The chapters' marks, from the lengths of their files. */
static int set_chapters(m4b *m, const ts_m4b_chapter *ch, size_t n, int *rate)
{
	ts_error *err = m->err;
	uint64_t start = 0;
	if (!(m->chapter = calloc(n, sizeof *m->chapter)))
		return ts_error_set(err, TS_ENOMEM, NULL);
	for (size_t i = 0; i < n; i++) {
		SF_INFO info = {0};
		SNDFILE *sf = sf_open(ch[i].audio, SFM_READ, &info);
		if (!sf)
			return ts_error_set(err, TS_EIO, "%s: cannot read it: %s", ch[i].audio,
			                    sf_strerror(NULL));
		sf_close(sf);
		if (i == 0)
			*rate = info.samplerate;
		if (info.samplerate != *rate)
			return ts_error_set(
			    err, TS_EINVAL,
			    "%s: at %d Hz, the chapters before it at %d Hz: one book "
			    "file holds one sample rate",
			    ch[i].audio, info.samplerate, *rate);
		m->chapter[i].title = ch[i].title;
		m->chapter[i].start = start;
		start += (uint64_t)info.frames;
	}
	if (*rate <= 0 || *rate > 65535)
		return ts_error_set(err, TS_EINVAL, "%s: %d Hz: an M4B holds up to 65,535 Hz",
		                    ch[0].audio, *rate);
	return 0;
}

/* The AAC encoder, and the frame it is fed through. */
static int open_audio(m4b *m, int rate, int quality)
{
	ts_error *err = m->err;
	const AVCodec *aac = av.avcodec_find_encoder(AV_CODEC_ID_AAC);
	if (!aac)
		return ts_error_set(err, TS_EINVAL, "this FFmpeg has no AAC encoder");
	if (!(m->enc = av.avcodec_alloc_context3(aac)) || !(m->frame = av.av_frame_alloc()) ||
	    !(m->pkt = av.av_packet_alloc()))
		return ts_error_set(err, TS_ENOMEM, NULL);
	m->enc->sample_fmt = AV_SAMPLE_FMT_FLTP;
	m->enc->sample_rate = rate;
	m->enc->bit_rate = ts_m4b_bitrate(quality);
	m->enc->time_base = (AVRational){1, rate};
	m->enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER; /* the config, for the esds */
	av.av_channel_layout_default(&m->enc->ch_layout, 1);
	/* The fast coder: the default (two-loop search) takes several times
	 * as long for speech that sounds the same at these rates
	 * (bench/README.md, "Whole-book files"). */
	AVDictionary *opts = NULL;
	int ret = av.av_dict_set(&opts, "aac_coder", "fast", 0);
	if (ret >= 0)
		ret = av.avcodec_open2(m->enc, aac, &opts);
	av.av_dict_free(&opts);
	if (ret < 0)
		return av_error(m, "cannot set up the AAC encoder", ret);
	if (m->enc->extradata_size < 2 || m->enc->extradata_size > 64)
		return ts_error_set(err, TS_EIO, "%s: the AAC encoder gave no configuration",
		                    m->path);
	m->frame->nb_samples = m->enc->frame_size;
	m->frame->format = AV_SAMPLE_FMT_FLTP;
	m->frame->sample_rate = rate;
	if (av.av_channel_layout_copy(&m->frame->ch_layout, &m->enc->ch_layout) < 0 ||
	    av.av_frame_get_buffer(m->frame, 0) < 0)
		return ts_error_set(err, TS_ENOMEM, NULL);
	return 0;
}

/* What the MP4 says besides the audio: chapters, tags, cover. */
static void describe(m4b *m, int rate, size_t n, const ts_m4b_opts *o, const cover *c)
{
	ts_mp4_info *in = &m->info;
	memcpy(in->brand, "M4B ", 5);
	in->rate = (unsigned)rate;
	in->config = m->enc->extradata;
	in->config_len = (size_t)m->enc->extradata_size;
	in->priming = (unsigned)m->enc->initial_padding;
	in->chapter = m->chapter;
	in->chapters = n;
	in->title = in->album = o->title;
	in->artist = o->artist;
	in->genre = "Audiobook";
	in->tool = "tingshu " TS_VERSION;
	in->track = in->tracks = 1;
	in->cover = c->data;
	in->cover_len = c->len;
	in->cover_png = c->codec == AV_CODEC_ID_PNG;
}

/* The file from its header to its moov.  0 or a code with m->err
 * filled. */
static int write_file(m4b *m, const ts_m4b_chapter *ch, size_t n, const ts_m4b_opts *o,
                      const cover *c)
{
	int rate = 0, rc, e;
	if ((rc = set_chapters(m, ch, n, &rate)) || (rc = open_audio(m, rate, o->quality)))
		return rc;
	describe(m, rate, n, o, c);
	if (!(m->mp4 = ts_mp4_new(m->fd, m->sample_sizes, &m->info, &rc, &e)))
		return e ? ts_error_set(m->err, rc, "%s: cannot write: %s", m->path, strerror(e))
		         : ts_error_set(m->err, rc, NULL);
	for (size_t i = 0; i < n; i++)
		if ((rc = feed_chapter(m, ch[i].audio)))
			return rc;
	int64_t heard = m->pts + m->filled;
	if (m->filled) { /* the last, short frame */
		m->frame->nb_samples = m->filled;
		m->frame->pts = m->pts;
		if ((rc = encode(m, m->frame)))
			return rc;
	}
	if ((rc = encode(m, NULL)))
		return rc;
	if ((rc = ts_mp4_finish(m->mp4, (uint64_t)heard)))
		return mp4_error(m, rc);
	return 0;
}

/* The file the packets' sizes are kept in until the moov takes them: made beside the book file and
 * unlinked at once, so that nothing of it is left whatever happens. */
static int open_sample_sizes(const char *path, long owner_pid, ts_error *err)
{
	ts_buf name = {0};
	ts_buf_printf(&name, "%s.sizes", path);
	char *tmp = ts_buf_error(&name) ? NULL : ts_temp_name(name.data, owner_pid);
	ts_buf_free(&name);
	if (!tmp)
		return ts_error_set(err, TS_ENOMEM, NULL);
	int fd = ts_create_excl(tmp);
	if (fd < 0)
		ts_error_set(err, ts_errno_code(errno), "%s: cannot create it: %s", tmp,
		             strerror(errno));
	else
		unlink(tmp);
	free(tmp);
	return fd;
}

static int write_here(const char *path, const ts_m4b_chapter *ch, size_t n, const ts_m4b_opts *o,
                      ts_error *err)
{
	m4b m = {.path = path, .err = err, .cancel = o->cancel, .fd = -1, .sample_sizes = -1};
	cover c = {0};
	char *tmp = NULL;
	int rc = 0;
	if (n == 0)
		return ts_error_set(err, TS_EINVAL, "%s: a book without chapters", path);
	if ((rc = load_av(err)) != 0)
		return rc;
	av.av_log_set_level(AV_LOG_QUIET); /* the library never prints: err says what failed */
	if (o->cover && (rc = read_cover(o->cover, &c, err)))
		return rc;
	if (!(tmp = ts_temp_name(path, o->owner_pid))) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	if ((m.fd = ts_create_excl(tmp)) < 0) {
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot create it: %s", tmp,
		                  strerror(errno));
		goto out;
	}
	if ((m.sample_sizes = open_sample_sizes(path, o->owner_pid, err)) < 0) {
		rc = err->code;
		goto out;
	}
	rc = write_file(&m, ch, n, o, &c);
	if (!rc && fsync(m.fd) != 0 && errno != EINVAL)
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot write: %s", path,
		                  strerror(errno));
out:
	ts_mp4_free(m.mp4);
	free(m.chapter);
	av.avcodec_free_context(&m.enc);
	av.av_frame_free(&m.frame);
	av.av_packet_free(&m.pkt);
	free(c.data);
	if (m.sample_sizes >= 0)
		close(m.sample_sizes);
	if (m.fd >= 0 && close(m.fd) != 0 && !rc)
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot write: %s", path,
		                  strerror(errno));
	if (rc && m.fd >= 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

/* The file is made in a child process: the dynamic loader, opening
 * libavcodec there, crashes rather than fails when memory runs short, and
 * in a child that is the child's end and an error here (see child.h). */
typedef struct job {
	const char *path;
	const ts_m4b_chapter *ch;
	size_t n;
	const ts_m4b_opts *o;
} job;

static int write_fn(void *arg, char *out, size_t outsz)
{
	const job *j = arg;
	ts_error e = {0};
	int rc = write_here(j->path, j->ch, j->n, j->o, &e);
	snprintf(out, outsz, "%s", rc ? ts_error_msg(&e) : "");
	return -rc; /* 0, or the code made positive */
}

int ts_m4b_write(const char *path, const ts_m4b_chapter *ch, size_t n, const ts_m4b_opts *o,
                 ts_error *err)
{
	job j = {path, ch, n, o};
	char msg[1024] = "";
	int rc = ts_in_child_cancel(write_fn, &j, msg, sizeof msg - 1, o->cancel);
	if (rc > 0)
		return ts_error_set(err, -rc, "%s", msg);
	if (rc < 0 && o->cancel && *o->cancel) /* its file is the caller's sweep's */
		return ts_error_set(err, TS_ECANCELED, "%s: interrupted", path);
	if (rc < 0)
		return ts_error_set(err, TS_ECHILD,
		                    "%s: cannot make it: the process making it did not finish "
		                    "(out of memory, or killed)",
		                    path);
	return 0;
}

int ts_m4b_make(const char *path, const ts_bookfile *book, ts_error *err)
{
	ts_m4b_chapter *ch = calloc(book->n ? book->n : 1, sizeof *ch);
	if (!ch)
		return ts_error_set(err, TS_ENOMEM, NULL);
	for (size_t j = 0; j < book->n; j++)
		ch[j] = (ts_m4b_chapter){book->chapters[j].title, book->chapters[j].audio};
	ts_m4b_opts o = {.title = book->title,
	                 .artist = book->author,
	                 .cover = book->cover,
	                 .quality = book->quality,
	                 .owner_pid = book->owner_pid,
	                 .cancel = book->cancel};
	int rc = ts_m4b_write(path, ch, book->n, &o, err);
	free(ch);
	return rc;
}
