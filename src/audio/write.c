/* write.c - audio writers and atomic files (see write.h).
 *
 * All formats go through libsndfile; its errors are translated here
 * with sf_strerror()'s text. */
#include "audio/write.h"

#include "base/file.h"
#include "base/hash.h"

#include "audio/aac.h"
#include "audio/fixup.h"
#include "base/util.h"

#include <errno.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ts_writer {
	const ts_format *fmt;
	char *path; /* final name */
	char *tmp;  /* name while writing */
	SNDFILE *sf;
	int fd;       /* of tmp, under sf: libsndfile writes through io below */
	int io_errno; /* the first failed write's errno, or 0 */
	int sf_format;
	uint64_t expect_frames; /* how long the caller expects the file to be */
	uint64_t frames;        /* written so far */
	uint64_t limit_bytes;   /* of sample data the format can hold; 0: no limit */
	ts_error err;           /* what went wrong last */
	int created;            /* tmp is ours: made by this writer */
	int keep_temp;          /* commit leaves the file at tmp */
	/* M4A: tmp is a WAV until it is encoded; then the file's tags. */
	ts_aac_tags tags;
	char *tag_text[3];
	int bit_rate;
	long owner_pid;
};

/* The tags of m, set on w->sf.  libsndfile writes FLAC, Ogg and MP3 tags
 * with the header, so this comes before the first sample. */
static int set_tags(ts_writer *w, const ts_audio_meta *m)
{
	if (!m)
		return 0;
	char track[32] = "";
	if (m->track > 0 && w->fmt->track_total && m->tracks > 0)
		snprintf(track, sizeof track, "%d/%d", m->track, m->tracks);
	else if (m->track > 0)
		snprintf(track, sizeof track, "%d", m->track);
	const struct {
		int type;
		const char *text;
	} tags[] = {
	    {SF_STR_TITLE, m->title},
	    {SF_STR_ARTIST, m->artist},
	    {SF_STR_ALBUM, m->album},
	    {SF_STR_TRACKNUMBER, track},
	};
	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
		if (!tags[i].text || !tags[i].text[0])
			continue;
		int e = sf_set_string(w->sf, tags[i].type, tags[i].text);
		if (e)
			return ts_error_set(&w->err, TS_EAUDIO, "%s: cannot write the tags: %s",
			                    w->path, sf_error_number(e));
	}
	return 0;
}

/* libsndfile's I/O, on w->fd.  libsndfile does not tell when a write at
 * closing fails (the WAV header that gives the length, FLAC's stream
 * info): a file that says it is shorter than it is, and sf_close() says
 * nothing.  Writing through these, every failure is seen (io_errno). */
static sf_count_t io_filelen(void *ud)
{
	struct stat st;
	return fstat(((ts_writer *)ud)->fd, &st) == 0 ? (sf_count_t)st.st_size : -1;
}

static sf_count_t io_seek(sf_count_t off, int whence, void *ud)
{
	return (sf_count_t)lseek(((ts_writer *)ud)->fd, (off_t)off, whence);
}

static sf_count_t io_read(void *ptr, sf_count_t n, void *ud)
{
	ts_writer *w = ud;
	sf_count_t done = 0;
	while (done < n) {
		ssize_t k = read(w->fd, (char *)ptr + done, (size_t)(n - done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		done += k;
	}
	return done;
}

static sf_count_t io_write(const void *ptr, sf_count_t n, void *ud)
{
	ts_writer *w = ud;
	sf_count_t done = 0;
	while (done < n) {
		ssize_t k = write(w->fd, (const char *)ptr + done, (size_t)(n - done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!w->io_errno)
				w->io_errno = k < 0 ? errno : EIO;
			break;
		}
		done += k;
	}
	return done;
}

static sf_count_t io_tell(void *ud)
{
	return (sf_count_t)lseek(((ts_writer *)ud)->fd, 0, SEEK_CUR);
}

static SF_VIRTUAL_IO io = {io_filelen, io_seek, io_read, io_write, io_tell};

/* A write error of w, as a message; the code. */
static int io_error(ts_writer *w)
{
	int e = w->io_errno ? w->io_errno : EIO;
	return ts_error_set(&w->err, e == ENOSPC ? TS_ENOSPC : ts_errno_code(e),
	                    "%s: write failed: %s", w->path, strerror(e));
}

/* Open the temporary file as w->sf_format, set libsndfile's compression
 * level (0 best quality or fastest .. 1 smallest; negative: the library's
 * default) and the tags, all before the first sample. */
static int sf_open_fmt(ts_writer *w, const ts_writer_opts *o, double level)
{
	SF_INFO info = {.samplerate = o->rate, .channels = 1, .format = w->sf_format};
	w->fd = ts_create_excl(w->tmp);
	if (w->fd < 0)
		return ts_error_set(&w->err, TS_EAUDIO, "%s: cannot write: %s", w->path,
		                    strerror(errno));
	w->created = 1;
	w->sf = sf_open_virtual(&io, SFM_WRITE, &info, w);
	if (!w->sf)
		return w->io_errno ? io_error(w)
		                   : ts_error_set(&w->err, TS_EAUDIO, "%s: cannot write: %s",
		                                  w->path, sf_strerror(NULL));
	if (level >= 0 && !sf_command(w->sf, SFC_SET_COMPRESSION_LEVEL, &level, sizeof level))
		return ts_error_set(&w->err, TS_EAUDIO, "%s: cannot set the quality: %s", w->path,
		                    sf_strerror(w->sf));
	return set_tags(w, o->meta);
}

/* A plain WAV header cannot count past 4 GiB (about 27 hours at 22,050
 * Hz): a longer chapter would get a header that lies about its length.
 * A chapter that may come near that is written as RF64, which libsndfile
 * turns back into a WAV (WAVE_FORMAT_EXTENSIBLE) on closing if the data
 * fits; every other chapter is a plain PCM WAV, which every player reads.
 * Should a plain WAV still grow too long, writing fails with a clear
 * message rather than leaving a broken file.  No quality setting. */
#define WAV_LIMIT_BYTES (0xFFFFFFFFu - 4096u)
#define RF64_FROM_BYTES (3ull << 30)

static int wav_open(ts_writer *w, const ts_writer_opts *o)
{
	int rf64 = w->expect_frames * 2 > RF64_FROM_BYTES;
	w->sf_format = (rf64 ? SF_FORMAT_RF64 : SF_FORMAT_WAV) | SF_FORMAT_PCM_16;
	w->limit_bytes = rf64 ? 0 : WAV_LIMIT_BYTES;
	int rc = sf_open_fmt(w, o, -1);
	if (!rc && rf64)
		sf_command(w->sf, SFC_RF64_AUTO_DOWNGRADE, NULL, SF_TRUE);
	return rc;
}

static int sf_write_fmt(ts_writer *w, const int16_t *s, size_t n)
{
	if (w->limit_bytes && (w->frames + n) * 2 > w->limit_bytes)
		return ts_error_set(
		    &w->err, TS_EAUDIO,
		    "%s: more audio than a WAV file can hold (4 GB, about 27 hours); split the "
		    "chapter",
		    w->path);
	w->frames += n;
	sf_count_t done = sf_write_short(w->sf, s, (sf_count_t)n);
	if (w->io_errno)
		return io_error(w);
	if (done != (sf_count_t)n)
		return ts_error_set(&w->err, TS_EAUDIO, "%s: write failed: %s", w->path,
		                    sf_strerror(w->sf));
	return 0;
}

/* Close libsndfile and the file: every write checked, the last ones (the
 * header with the length) included. */
static int sf_close_fmt(ts_writer *w)
{
	int rc = sf_close(w->sf);
	w->sf = NULL;
	int e = close(w->fd) != 0 ? errno : 0;
	w->fd = -1;
	if (!w->io_errno && e && e != EINTR)
		w->io_errno = e;
	if (w->io_errno)
		return io_error(w);
	if (rc)
		return ts_error_set(&w->err, TS_EAUDIO, "%s: cannot finish: %s", w->path,
		                    sf_error_number(rc));
	return 0;
}

static int quality_or(const ts_writer_opts *o, int dflt)
{
	return o->quality == TS_QUALITY_DEFAULT ? dflt : o->quality;
}

/* FLAC: lossless, about half the size of WAV; no 4 GB limit.  Quality
 * 0-10 is the compression level 0-8.  Level 0 by default: the higher
 * levels make files only a little smaller but encode much more slowly,
 * and beside eSpeak's own pace every level above 0 costs a noticeable
 * share of a build (bench/README.md, "Formats"). */
static int flac_open(ts_writer *w, const ts_writer_opts *o)
{
	int level = (quality_or(o, 0) * 8 + 5) / 10;
	w->sf_format = SF_FORMAT_FLAC | SF_FORMAT_PCM_16;
	return sf_open_fmt(w, o, level / 8.0);
}

/* The lossy formats take quality 0-10 like oggenc's -q, default 4: about
 * 50 kbit/s for a 22,050 Hz voice in Vorbis and MP3, 24 kbit/s in Opus. */
enum { LOSSY_QUALITY = 4 };

/* Ogg Vorbis: libsndfile's level is 1 - the Vorbis quality (0-1). */
static int vorbis_open(ts_writer *w, const ts_writer_opts *o)
{
	w->sf_format = SF_FORMAT_OGG | SF_FORMAT_VORBIS;
	return sf_open_fmt(w, o, 1.0 - quality_or(o, LOSSY_QUALITY) / 10.0);
}

/* Ogg Opus: the quality picks a bit rate; libsndfile's level L gives
 * 6 + 250 * (1 - L) kbit/s (it truncates: hence the half bit). */
static int opus_open(ts_writer *w, const ts_writer_opts *o)
{
	static const int kbps[TS_QUALITY_MAX + 1] = {6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192};
	double bps = kbps[quality_or(o, LOSSY_QUALITY)] * 1000.0;
	w->sf_format = SF_FORMAT_OGG | SF_FORMAT_OPUS;
	return sf_open_fmt(w, o, 1.0 - (bps - 6000.0 + 0.5) / 250000.0);
}

/* MP3 through libsndfile's LAME encoder: what every player takes.  VBR,
 * quality Q is LAME's -V (10 - Q; LAME stops short of 10).  The bit-rate
 * mode is set after the level because libsndfile re-applies the level
 * when the mode changes. */
static int mp3_open(ts_writer *w, const ts_writer_opts *o)
{
	double level = 1.0 - quality_or(o, LOSSY_QUALITY) / 10.0;
	w->sf_format = SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III;
	int rc = sf_open_fmt(w, o, level < 0.9999 ? level : 0.9999);
	int mode = SF_BITRATE_MODE_VARIABLE;
	if (!rc && !sf_command(w->sf, SFC_SET_BITRATE_MODE, &mode, sizeof mode))
		rc = ts_error_set(&w->err, TS_EAUDIO, "%s: cannot set the bit-rate mode: %s",
		                  w->path, sf_strerror(w->sf));
	return rc;
}

/* The Ogg serial number of a chapter file: from its name (not its folder),
 * so that it is the same on every run, and differs from chapter to
 * chapter, as streams chained into one file must (FNV-1a). */
static uint32_t ogg_serial(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return ts_fnv32(base, strlen(base));
}

static int ogg_close(ts_writer *w)
{
	int rc = sf_close_fmt(w);
	if (!rc)
		rc = ts_ogg_set_serial(w->tmp, ogg_serial(w->path), &w->err);
	return rc;
}

static int mp3_close(ts_writer *w)
{
	int rc = sf_close_fmt(w);
	if (!rc)
		rc = ts_id3_utf8(w->tmp, &w->err);
	return rc;
}

/* M4A, AAC in MP4 (audio/aac.h): the samples go to a WAV at the
 * temporary name; closing encodes it to AAC packets beside the file
 * (ts_aac_beside(), which the chapter's worker keeps in the folder's
 * state for the whole-book files: one encoding for both), then writes
 * the M4A from those packets at the temporary name.  The bit rate is the
 * M4B's for the same quality (ts_aac_bitrate()). */
static int m4a_open(ts_writer *w, const ts_writer_opts *o)
{
	const ts_audio_meta *m = o->meta;
	const char *text[3] = {m ? m->title : NULL, m ? m->artist : NULL, m ? m->album : NULL};
	for (int i = 0; i < 3; i++)
		if (text[i] && text[i][0] && !(w->tag_text[i] = ts_strdup(text[i])))
			return ts_error_set(&w->err, TS_ENOMEM, "out of memory");
	w->tags = (ts_aac_tags){w->tag_text[0], w->tag_text[1], w->tag_text[2], m ? m->track : 0};
	w->bit_rate = ts_aac_bitrate(o->quality);
	w->owner_pid = o->owner_pid;
	w->sf_format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
	w->limit_bytes = WAV_LIMIT_BYTES;
	return sf_open_fmt(w, &(ts_writer_opts){.rate = o->rate}, -1);
}

static int m4a_close(ts_writer *w)
{
	static const char no_key[TS_HASH_HEX] = "00000000000000000000000000000000";
	int rc = sf_close_fmt(w);
	char *aac = rc ? NULL : ts_aac_beside(w->path, w->owner_pid);
	if (!rc && !aac)
		rc = ts_error_set(&w->err, TS_ENOMEM, "out of memory");
	if (!rc)
		rc = ts_aac_encode(w->tmp, aac, no_key, w->bit_rate, NULL, 1, NULL, NULL, &w->err);
	if (!rc && unlink(w->tmp) != 0)
		rc = ts_error_set(&w->err, ts_errno_code(errno), "%s: %s", w->tmp, strerror(errno));
	if (!rc)
		rc = ts_aac_write_m4a(aac, w->tmp, &w->tags, &w->err);
	if (rc && aac)
		unlink(aac);
	free(aac);
	return rc;
}

static const int opus_rates[] = {8000, 12000, 16000, 24000, 48000, 0};
/* Those of FFmpeg's AAC encoder. */
static const int m4a_rates[] = {7350,  8000,  11025, 12000, 16000, 22050, 24000,
                                32000, 44100, 48000, 64000, 88200, 96000, 0};

int ts_format_exact(const ts_format *f, int out_rate)
{
	return f->lossless && out_rate == 0;
}

/* Every format here writes the same bytes for the same audio and
 * settings, whichever process writes it and when. */
static const ts_format formats[] = {
    {"wav", "wav", wav_open, sf_write_fmt, sf_close_fmt, NULL, 0, 0, 1},
    {"flac", "flac", flac_open, sf_write_fmt, sf_close_fmt, NULL, 0, 0, 1},
    {"ogg", "ogg", vorbis_open, sf_write_fmt, ogg_close, NULL, 0, 0, 0},
    {"opus", "opus", opus_open, sf_write_fmt, ogg_close, opus_rates, 48000, 0, 0},
    {"mp3", "mp3", mp3_open, sf_write_fmt, mp3_close, NULL, 0, 1, 0},
    {"m4a", "m4a", m4a_open, sf_write_fmt, m4a_close, m4a_rates, 44100, 0, 0},
};

const ts_format *ts_format_find(const char *name)
{
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

const char *ts_format_names(void)
{
	return "wav, flac, ogg, opus, mp3, m4a";
}

int ts_format_pick_rate(const ts_format *f, int rate)
{
	if (!f->rates)
		return rate;
	for (const int *r = f->rates; *r; r++)
		if (*r == rate)
			return rate;
	return f->default_rate;
}

/* "8000, 12000 or 48000" into b. */
static int rate_list(ts_buf *b, const int *rates)
{
	int rc = 0;
	for (const int *r = rates; *r && !rc; r++)
		rc = ts_buf_printf(b, "%s%d", r == rates ? "" : r[1] ? ", " : " or ", *r);
	return rc;
}

ts_writer *ts_writer_open(const ts_format *fmt, const char *path, const ts_writer_opts *o,
                          ts_error *err)
{
	if (ts_format_pick_rate(fmt, o->rate) != o->rate) {
		ts_buf rates = {0};
		int rc = rate_list(&rates, fmt->rates) ? TS_ENOMEM : TS_EINVAL;
		ts_error_set(err, rc, "%s: %s cannot hold audio at %d Hz (only %s Hz)", path,
		             fmt->name, o->rate, rates.data ? rates.data : "other rates");
		ts_buf_free(&rates);
		return NULL;
	}
	if (o->quality != TS_QUALITY_DEFAULT &&
	    (o->quality < TS_QUALITY_MIN || o->quality > TS_QUALITY_MAX)) {
		ts_error_set(err, TS_EINVAL, "%s: quality %d is not between %d and %d", path,
		             o->quality, TS_QUALITY_MIN, TS_QUALITY_MAX);
		return NULL;
	}
	ts_writer *w = calloc(1, sizeof *w);
	if (!w || !(w->path = ts_strdup(path)) || !(w->tmp = ts_temp_name(path, o->owner_pid))) {
		if (w) {
			free(w->path);
			free(w);
		}
		ts_error_set(err, TS_ENOMEM, "out of memory");
		return NULL;
	}
	w->fmt = fmt;
	w->fd = -1;
	w->keep_temp = o->keep_temp;
	w->expect_frames = o->expect_frames;
	int rc = fmt->open(w, o);
	if (rc) {
		if (err)
			*err = w->err;
		if (w->sf)
			sf_close(w->sf);
		if (w->fd >= 0)
			close(w->fd);
		if (w->created)
			unlink(w->tmp);
		for (int i = 0; i < 3; i++)
			free(w->tag_text[i]);
		free(w->path);
		free(w->tmp);
		free(w);
		return NULL;
	}
	return w;
}

int ts_writer_write(ts_writer *w, const int16_t *s, size_t n)
{
	return n ? w->fmt->write(w, s, n) : 0;
}

const char *ts_writer_errmsg(const ts_writer *w)
{
	return w->err.msg;
}

static void writer_free(ts_writer *w)
{
	for (int i = 0; i < 3; i++)
		free(w->tag_text[i]);
	free(w->path);
	free(w->tmp);
	free(w);
}

int ts_writer_commit(ts_writer *w, ts_error *err)
{
	int rc = w->fmt->close(w);
	if (!rc && !w->keep_temp && rename(w->tmp, w->path) != 0)
		rc = ts_error_set(&w->err, ts_errno_code(errno), "%s: cannot rename into place: %s",
		                  w->path, strerror(errno));
	if (rc) {
		if (err)
			*err = w->err;
		unlink(w->tmp);
	}
	writer_free(w);
	return rc;
}

void ts_writer_abort(ts_writer *w)
{
	if (!w)
		return;
	if (w->sf)
		sf_close(w->sf);
	if (w->fd >= 0)
		close(w->fd);
	if (w->created)
		unlink(w->tmp);
	writer_free(w);
}

int ts_write_text_temp(const char *root, const char *path, const char *data, size_t len,
                       long owner_pid, ts_error *err)
{
	char *tmp = ts_temp_name(path, owner_pid);
	if (!tmp)
		return ts_error_set(err, TS_ENOMEM, "out of memory");
	int rc = 0, fd = ts_create_excl_in(root, tmp);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "wb");
	if (!f) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			ts_unlink_in(root, tmp);
		}
		errno = e;
		rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot write: %s", path,
		                  strerror(errno));
		free(tmp);
		return rc;
	}
	/* The first failure's errno: fclose() after a failed fwrite() may
	 * succeed, or fail for another reason. */
	int e = fwrite(data, 1, len, f) != len ? (errno ? errno : EIO) : 0;
	if (fclose(f) != 0 && !e)
		e = errno;
	if (e) {
		rc = ts_error_set(err, ts_errno_code(e), "%s: write failed: %s", path, strerror(e));
		ts_unlink_in(root, tmp);
	}
	free(tmp);
	return rc;
}

int ts_write_text_file(const char *path, const char *data, size_t len, long owner_pid,
                       ts_error *err)
{
	int rc = ts_write_text_temp(NULL, path, data, len, owner_pid, err);
	if (rc)
		return rc;
	char *tmp = ts_temp_name(path, owner_pid);
	if (!tmp || rename(tmp, path) != 0) {
		rc = tmp ? ts_error_set(err, ts_errno_code(errno),
		                        "%s: cannot rename into place: %s", path, strerror(errno))
		         : ts_error_set(err, TS_ENOMEM, "out of memory");
		if (tmp)
			unlink(tmp);
	}
	free(tmp);
	return rc;
}
