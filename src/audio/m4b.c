/* m4b.c - the whole book as one M4B file (see m4b.h), with libavcodec's
 * AAC encoder and libavformat's mp4 muxer writing through our own I/O
 * callbacks on a file made exclusively, so that every write is checked. */
#include "audio/m4b.h"

#include "audio/write.h"
#include "base/file.h"
#include "base/util.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>

#include <errno.h>
#include <fcntl.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define IO_BUFFER 65536

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
	if (!(c->data = av_malloc(c->len + AV_INPUT_BUFFER_PADDING_SIZE))) {
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
		av_freep(&c->data);
		c->len = 0;
	}
	return rc;
}

int ts_m4b_check_cover(const char *path, ts_error *err)
{
	cover c;
	int rc = read_cover(path, &c, err);
	av_freep(&c.data);
	return rc;
}

/* ---- writing ------------------------------------------------------- */

typedef struct m4b {
	const char *path; /* the book file, for messages */
	ts_error *err;
	int fd;
	int io_errno; /* of the first failed write or seek */
	AVFormatContext *oc;
	AVCodecContext *enc;
	AVStream *audio;
	AVFrame *frame;
	AVPacket *pkt;
	int64_t pts; /* samples given to the encoder */
	int filled;  /* samples in frame */
} m4b;

static int io_write(void *opaque, uint8_t *buf, int n)
{
	m4b *m = opaque;
	for (int done = 0; done < n;) {
		ssize_t k = write(m->fd, buf + done, (size_t)(n - done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!m->io_errno)
				m->io_errno = k < 0 ? errno : ENOSPC;
			return AVERROR(m->io_errno);
		}
		done += (int)k;
	}
	return n;
}

static int64_t io_seek(void *opaque, int64_t off, int whence)
{
	m4b *m = opaque;
	struct stat st;
	if (whence == AVSEEK_SIZE)
		return fstat(m->fd, &st) == 0 ? (int64_t)st.st_size : AVERROR(errno);
	off_t r = lseek(m->fd, (off_t)off, whence & ~AVSEEK_FORCE);
	if (r < 0 && !m->io_errno)
		m->io_errno = errno;
	return r < 0 ? AVERROR(errno) : (int64_t)r;
}

/* m->err from an FFmpeg code ret, what failed being what; its code. */
static int av_error(m4b *m, const char *what, int ret)
{
	char why[AV_ERROR_MAX_STRING_SIZE] = "";
	if (m->io_errno)
		return ts_error_set(m->err, ts_errno_code(m->io_errno), "%s: cannot write: %s",
		                    m->path, strerror(m->io_errno));
	if (ret == AVERROR(ENOMEM))
		return ts_error_set(m->err, TS_ENOMEM, NULL);
	av_strerror(ret, why, sizeof why);
	return ts_error_set(m->err, TS_EIO, "%s: %s: %s", m->path, what, why);
}

/* Send what the encoder gives back to the muxer; frame NULL flushes.  0
 * or an FFmpeg code. */
static int encode(m4b *m, AVFrame *frame)
{
	int ret = avcodec_send_frame(m->enc, frame);
	while (ret >= 0) {
		ret = avcodec_receive_packet(m->enc, m->pkt);
		if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
			return 0;
		if (ret < 0)
			break;
		av_packet_rescale_ts(m->pkt, m->enc->time_base, m->audio->time_base);
		m->pkt->stream_index = m->audio->index;
		ret = av_interleaved_write_frame(m->oc, m->pkt);
	}
	return ret;
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
	int ret = 0;
	while (!ret && (got = sf_readf_float(sf, block, 4096 / info.channels)) > 0) {
		for (sf_count_t i = 0; i < got && !ret; i++) {
			/* The encoder may still hold the frame it was given last. */
			if (m->filled == 0 && (ret = av_frame_make_writable(m->frame)) < 0)
				break;
			((float *)m->frame->data[0])[m->filled++] = block[i * info.channels];
			if (m->filled == m->frame->nb_samples) {
				m->frame->pts = m->pts;
				m->pts += m->filled;
				m->filled = 0;
				ret = encode(m, m->frame);
			}
		}
	}
	int bad = sf_error(sf);
	sf_close(sf);
	if (ret < 0)
		return av_error(m, "cannot encode", ret);
	if (bad)
		return ts_error_set(m->err, TS_EIO, "%s: cannot read it: %s", path,
		                    sf_error_number(bad));
	return 0;
}

/* The chapters' marks, from the lengths of their files. */
static int set_chapters(m4b *m, const ts_m4b_chapter *ch, size_t n, int *rate)
{
	ts_error *err = m->err;
	AVFormatContext *oc = m->oc;
	int64_t start = 0;
	if (!(oc->chapters = av_calloc(n, sizeof *oc->chapters)))
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
		AVChapter *c = av_mallocz(sizeof *c);
		if (!c)
			return ts_error_set(err, TS_ENOMEM, NULL);
		oc->chapters[oc->nb_chapters++] = c;
		c->id = (int64_t)i + 1;
		c->time_base = (AVRational){1, info.samplerate};
		c->start = start;
		c->end = start += info.frames;
		if (av_dict_set(&c->metadata, "title", ch[i].title, 0) < 0)
			return ts_error_set(err, TS_ENOMEM, NULL);
	}
	return 0;
}

/* The AAC encoder and its stream, and the frame it is fed through. */
static int open_audio(m4b *m, int rate, int quality)
{
	ts_error *err = m->err;
	const AVCodec *aac = avcodec_find_encoder(AV_CODEC_ID_AAC);
	if (!aac)
		return ts_error_set(err, TS_EINVAL, "this FFmpeg has no AAC encoder");
	if (!(m->enc = avcodec_alloc_context3(aac)) ||
	    !(m->audio = avformat_new_stream(m->oc, NULL)) || !(m->frame = av_frame_alloc()) ||
	    !(m->pkt = av_packet_alloc()))
		return ts_error_set(err, TS_ENOMEM, NULL);
	m->enc->sample_fmt = AV_SAMPLE_FMT_FLTP;
	m->enc->sample_rate = rate;
	m->enc->bit_rate = ts_m4b_bitrate(quality);
	m->enc->time_base = (AVRational){1, rate};
	av_channel_layout_default(&m->enc->ch_layout, 1);
	if (m->oc->oformat->flags & AVFMT_GLOBALHEADER)
		m->enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
	/* The fast coder: the default (two-loop search) takes some twenty
	 * times as long for speech that sounds the same at these rates. */
	AVDictionary *opts = NULL;
	int ret = av_dict_set(&opts, "aac_coder", "fast", 0);
	if (ret >= 0)
		ret = avcodec_open2(m->enc, aac, &opts);
	av_dict_free(&opts);
	if (ret >= 0)
		ret = avcodec_parameters_from_context(m->audio->codecpar, m->enc);
	if (ret < 0)
		return av_error(m, "cannot set up the AAC encoder", ret);
	m->audio->time_base = m->enc->time_base;
	m->frame->nb_samples = m->enc->frame_size;
	m->frame->format = AV_SAMPLE_FMT_FLTP;
	m->frame->sample_rate = rate;
	if (av_channel_layout_copy(&m->frame->ch_layout, &m->enc->ch_layout) < 0 ||
	    av_frame_get_buffer(m->frame, 0) < 0)
		return ts_error_set(err, TS_ENOMEM, NULL);
	return 0;
}

/* The cover's stream: an attached picture, written as the file's "covr". */
static AVStream *cover_stream(m4b *m, const cover *c)
{
	AVStream *st = avformat_new_stream(m->oc, NULL);
	if (!st)
		return NULL;
	st->disposition = AV_DISPOSITION_ATTACHED_PIC;
	st->codecpar->codec_type = AVMEDIA_TYPE_VIDEO;
	st->codecpar->codec_id = c->codec;
	st->codecpar->width = c->width;
	st->codecpar->height = c->height;
	return st;
}

static int set_tags(m4b *m, const ts_m4b_opts *o)
{
	AVDictionary **d = &m->oc->metadata;
	int ret = av_dict_set(d, "title", o->title, 0);
	if (ret >= 0)
		ret = av_dict_set(d, "album", o->title, 0);
	if (ret >= 0 && o->artist && o->artist[0])
		ret = av_dict_set(d, "artist", o->artist, 0);
	if (ret >= 0)
		ret = av_dict_set(d, "genre", "Audiobook", 0);
	if (ret >= 0)
		ret = av_dict_set(d, "track", "1/1", 0);
	return ret;
}

/* The file from its header to its trailer.  0 or a code with m->err
 * filled. */
static int write_file(m4b *m, const ts_m4b_chapter *ch, size_t n, const ts_m4b_opts *o,
                      const cover *c)
{
	int rate = 0, ret;
	AVStream *pic = NULL;
	if ((ret = set_chapters(m, ch, n, &rate)) || (ret = open_audio(m, rate, o->quality)))
		return ret;
	if ((c->data && !(pic = cover_stream(m, c))) || set_tags(m, o) < 0)
		return ts_error_set(m->err, TS_ENOMEM, NULL);
	AVDictionary *opts = NULL;
	if (av_dict_set(&opts, "brand", "M4B ", 0) < 0)
		return ts_error_set(m->err, TS_ENOMEM, NULL);
	ret = avformat_write_header(m->oc, &opts);
	av_dict_free(&opts);
	if (ret < 0)
		return av_error(m, "cannot start the file", ret);
	if (pic) {
		AVPacket *p = av_packet_alloc();
		if (!p || av_new_packet(p, (int)c->len) < 0) {
			av_packet_free(&p);
			return ts_error_set(m->err, TS_ENOMEM, NULL);
		}
		memcpy(p->data, c->data, c->len);
		p->pts = p->dts = 0;
		p->stream_index = pic->index;
		p->flags |= AV_PKT_FLAG_KEY;
		ret = av_interleaved_write_frame(m->oc, p);
		av_packet_free(&p);
		if (ret < 0)
			return av_error(m, "cannot add the cover", ret);
	}
	for (size_t i = 0; i < n; i++)
		if ((ret = feed_chapter(m, ch[i].audio)))
			return ret;
	if (m->filled) { /* the last, short frame */
		m->frame->nb_samples = m->filled;
		m->frame->pts = m->pts;
		if ((ret = encode(m, m->frame)) < 0)
			return av_error(m, "cannot encode", ret);
	}
	if ((ret = encode(m, NULL)) < 0 || (ret = av_write_trailer(m->oc)) < 0)
		return av_error(m, "cannot finish the file", ret);
	avio_flush(m->oc->pb);
	if (m->io_errno || m->oc->pb->error)
		return av_error(m, "cannot finish the file", m->oc->pb->error);
	return 0;
}

int ts_m4b_write(const char *path, const ts_m4b_chapter *ch, size_t n, const ts_m4b_opts *o,
                 ts_error *err)
{
	m4b m = {.path = path, .err = err, .fd = -1};
	cover c = {0};
	char *tmp = NULL;
	unsigned char *buf = NULL;
	int rc = 0;
	if (n == 0)
		return ts_error_set(err, TS_EINVAL, "%s: a book without chapters", path);
	av_log_set_level(AV_LOG_QUIET); /* the library never prints: err says what failed */
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
	int ret = avformat_alloc_output_context2(&m.oc, NULL, "mp4", NULL);
	if (ret >= 0 &&
	    (!(buf = av_malloc(IO_BUFFER)) ||
	     !(m.oc->pb = avio_alloc_context(buf, IO_BUFFER, 1, &m, NULL, io_write, io_seek))))
		ret = AVERROR(ENOMEM);
	if (ret < 0) {
		rc = av_error(&m, "cannot set up the muxer", ret);
		goto out;
	}
	buf = NULL; /* the context's now */
	m.oc->flags |= AVFMT_FLAG_CUSTOM_IO;
	rc = write_file(&m, ch, n, o, &c);
	if (!rc && fsync(m.fd) != 0 && errno != EINVAL)
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot write: %s", path,
		                  strerror(errno));
out:
	if (m.oc && m.oc->pb) {
		av_freep(&m.oc->pb->buffer);
		avio_context_free(&m.oc->pb);
	}
	av_free(buf);
	avformat_free_context(m.oc);
	avcodec_free_context(&m.enc);
	av_frame_free(&m.frame);
	av_packet_free(&m.pkt);
	av_freep(&c.data);
	if (m.fd >= 0 && close(m.fd) != 0 && !rc)
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot write: %s", path,
		                  strerror(errno));
	if (rc && m.fd >= 0)
		unlink(tmp);
	free(tmp);
	return rc;
}
