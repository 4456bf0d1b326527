/* m4b.c - the whole book as one M4B file (see m4b.h): the chapters' AAC
 * packets (audio/aac.h) copied by our own MP4 writer (audio/mp4.c) into a
 * file made exclusively, whose sample sizes are kept in an unnamed file
 * beside it.  Nothing is encoded here: the book is I/O. */
#include "publish/m4b.h"

#include "audio/aac.h"
#include "audio/mp4.h"
#include "audio/write.h"
#include "base/file.h"
#include "base/util.h"

#include <libavcodec/avcodec.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ---- assembling ---------------------------------------------------- */

typedef struct m4b {
	const char *path; /* the book file, for messages */
	ts_error *err;
	volatile sig_atomic_t *cancel;
	int fd, sample_sizes; /* the book file; the packets' sizes (mp4.h) */
	ts_mp4 *mp4;
	ts_mp4_info info;
	ts_mp4_chapter *chapter;
	uint64_t *keep; /* per chapter: its packets copied */
	ts_aac_info first;
	uint64_t heard; /* the book's length */
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

/* How many of a chapter's packets go into the book: each chapter is
 * encoded on its own, so it takes whole packets, its priming and its
 * padding (up to two packets more than its samples); the silent packets
 * at its end that are left out bring the next chapter's start back to
 * within half a packet of where the chapters' lengths put it, so that the
 * marks never drift from the manifest's chapter starts and the book is as
 * long as its chapters.  at: where the chapter's first packet falls,
 * from: where its samples start in the chapters' files (both in samples
 * of the book as heard). */
static uint64_t packets_kept(const ts_aac_info *in, uint64_t at, uint64_t from)
{
	uint64_t end = at + in->packets * TS_AAC_FRAME, want = from + in->samples;
	uint64_t over = end > want ? (end - want + TS_AAC_FRAME / 2) / TS_AAC_FRAME : 0;
	return in->packets - (over < in->quiet_tail ? over : in->quiet_tail);
}

/* The chapters' headers: one sample rate and configuration, and each one's
 * mark and packets; the book's length. */
static int set_chapters(m4b *m, const ts_m4b_chapter *ch, size_t n)
{
	ts_error *err = m->err;
	uint64_t at = 0, from = 0;
	if (!(m->chapter = calloc(n, sizeof *m->chapter)) ||
	    !(m->keep = calloc(n, sizeof *m->keep)))
		return ts_error_set(err, TS_ENOMEM, NULL);
	for (size_t i = 0; i < n; i++) {
		ts_aac_info in;
		if (!ch[i].aac)
			return ts_error_set(err, TS_EINVAL,
			                    "%s: the AAC of chapter \"%s\" was not made", m->path,
			                    ch[i].title);
		FILE *f = ts_aac_open(ch[i].aac, NULL, &in, err);
		if (!f)
			return err->code;
		fclose(f);
		if (i == 0)
			m->first = in;
		if (in.rate != m->first.rate || in.priming != m->first.priming ||
		    in.config_len != m->first.config_len ||
		    memcmp(in.config, m->first.config, in.config_len) != 0)
			return ts_error_set(
			    err, TS_EINVAL,
			    "%s: at %u Hz, or encoded otherwise than the chapters before it: one "
			    "book file holds one kind of audio",
			    ch[i].aac, in.rate);
		m->chapter[i].title = ch[i].title;
		m->chapter[i].start = at;
		/* The first sample of chapter i is at at + its priming in the
		 * packets, which the edit list's skip of the first priming
		 * puts at at. */
		m->keep[i] = i + 1 < n ? packets_kept(&in, at, from) : in.packets;
		m->heard = at + in.samples;
		at += m->keep[i] * TS_AAC_FRAME;
		from += in.samples;
	}
	if (m->first.rate > 65535)
		return ts_error_set(err, TS_EINVAL, "%s: %u Hz: an M4B holds up to 65,535 Hz",
		                    ch[0].aac, m->first.rate);
	return 0;
}

/* What the MP4 says besides the audio: chapters, tags, cover. */
static void describe(m4b *m, size_t n, const ts_m4b_opts *o, const cover *c)
{
	ts_mp4_info *in = &m->info;
	memcpy(in->brand, "M4B ", 5);
	in->rate = m->first.rate;
	in->config = m->first.config;
	in->config_len = m->first.config_len;
	in->priming = m->first.priming;
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

/* Chapter i's packets, copied: each lasts a frame but in the last
 * chapter, whose durations end the book as the encoder said. */
static int copy_chapter(m4b *m, const ts_m4b_chapter *ch, size_t i, size_t n)
{
	ts_aac_info in;
	unsigned char packet[TS_AAC_PACKET_MAX];
	size_t size;
	unsigned duration;
	int rc = 0, got;
	FILE *f = ts_aac_open(ch[i].aac, NULL, &in, m->err);
	if (!f)
		return m->err->code;
	for (uint64_t k = 0; k < m->keep[i] && !rc; k++) {
		if (m->cancel && *m->cancel && k % 256 == 0)
			rc = ts_error_set(m->err, TS_ECANCELED, "%s: interrupted", m->path);
		else if ((got = ts_aac_next(f, ch[i].aac, packet, &size, &duration, m->err)) <= 0)
			rc = got ? got : ts_error_set(m->err, TS_EIO, "%s: cut short", ch[i].aac);
		else if ((rc = ts_mp4_add(m->mp4, packet, size,
		                          i + 1 < n ? TS_AAC_FRAME : duration)))
			rc = mp4_error(m, rc);
	}
	fclose(f);
	return rc;
}

/* The file from its header to its moov.  0 or a code with m->err
 * filled. */
static int write_file(m4b *m, const ts_m4b_chapter *ch, size_t n, const ts_m4b_opts *o,
                      const cover *c)
{
	int rc, e;
	if ((rc = set_chapters(m, ch, n)))
		return rc;
	describe(m, n, o, c);
	if (!(m->mp4 = ts_mp4_new(m->fd, m->sample_sizes, &m->info, &rc, &e)))
		return e ? ts_error_set(m->err, rc, "%s: cannot write: %s", m->path, strerror(e))
		         : ts_error_set(m->err, rc, NULL);
	for (size_t i = 0; i < n; i++)
		if ((rc = copy_chapter(m, ch, i, n)))
			return rc;
	if ((rc = ts_mp4_finish(m->mp4, m->heard)))
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

int ts_m4b_write(const char *path, const ts_m4b_chapter *ch, size_t n, const ts_m4b_opts *o,
                 ts_error *err)
{
	m4b m = {.path = path, .err = err, .cancel = o->cancel, .fd = -1, .sample_sizes = -1};
	cover c = {0};
	char *tmp = NULL;
	int rc = 0;
	if (n == 0)
		return ts_error_set(err, TS_EINVAL, "%s: a book without chapters", path);
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
	if (!rc && !o->scratch && fsync(m.fd) != 0 && errno != EINVAL)
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot write: %s", path,
		                  strerror(errno));
	/* Stopped while it was written: not put in place. */
	if (!rc && o->cancel && *o->cancel)
		rc = ts_error_set(err, TS_ECANCELED, "%s: interrupted", path);
out:
	ts_mp4_free(m.mp4);
	free(m.chapter);
	free(m.keep);
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

int ts_m4b_make(const char *path, const ts_bookfile *book, ts_error *err)
{
	ts_m4b_chapter *ch = calloc(book->n ? book->n : 1, sizeof *ch);
	if (!ch)
		return ts_error_set(err, TS_ENOMEM, NULL);
	for (size_t j = 0; j < book->n; j++)
		ch[j] = (ts_m4b_chapter){book->chapters[j].title, book->chapters[j].aac};
	ts_m4b_opts o = {.title = book->title,
	                 .artist = book->author,
	                 .cover = book->cover,
	                 .owner_pid = book->owner_pid,
	                 .cancel = book->cancel};
	int rc = ts_m4b_write(path, ch, book->n, &o, err);
	free(ch);
	return rc;
}
