/* test_m4b.c - publish/m4b: the book file, assembled from the chapters'
 * AAC (audio/aac), read back with libavformat: the brand, AAC, one
 * chapter mark per chapter within half a frame of where the chapters
 * before it add up to, their titles, the tags, the length, the cover; and
 * bad covers refused with nothing left behind.  The M4B's row of the
 * whole-book kinds (publish/bookkinds) makes the book from a ts_bookfile. */
#define _GNU_SOURCE /* memmem */
#include "check.h"
#include "publish/bookkinds.h"
#include "publish/m4b.h"
#include "audio/aac.h"
#include "audio/write.h"
#include "base/file.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <math.h>
#include <sndfile.h>
#include <sys/stat.h>
#include <unistd.h>

#define RATE 24000

static const char *dir;

#define QUIET 0.25 /* seconds of silence at each end of a chapter */

/* The AAC of a chapter of a tone of seconds s, silence at its ends as a
 * chapter has. */
static const char *tone(const char *name, double s, double hz)
{
	static char path[8][1024];
	static int k;
	char *p = path[k++ % 8], wav[1024];
	snprintf(wav, sizeof wav, "%s/%s", dir, name);
	snprintf(p, 1024, "%s/%s.aac", dir, name);
	SF_INFO info = {
	    .samplerate = RATE, .channels = 1, .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16};
	SNDFILE *sf = sf_open(wav, SFM_WRITE, &info);
	CHECK(sf != NULL);
	size_t n = (size_t)(s * RATE), q = (size_t)(QUIET * RATE);
	short *x = malloc(n * sizeof *x);
	for (size_t i = 0; i < n; i++)
		x[i] =
		    i < q || i + q >= n ? 0 : (short)(8000 * sin(2 * M_PI * hz * (double)i / RATE));
	CHECK(sf_write_short(sf, x, (sf_count_t)n) == (sf_count_t)n);
	sf_close(sf);
	free(x);
	ts_error err = {0};
	unlink(p);
	CHECK(ts_aac_encode(wav, p, "0123456789abcdef0123456789abcdef", 64000, NULL, 1, NULL, NULL,
	                    &err) == 0);
	if (err.code)
		fprintf(stderr, "%s\n", err.msg);
	unlink(wav);
	return p;
}

/* A 2x3 PNG of one colour (made with Python's zlib: valid CRCs). */
static const unsigned char png[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
    0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0x08, 0x02, 0x00, 0x00, 0x00, 0x36,
    0x88, 0x49, 0xd6, 0x00, 0x00, 0x00, 0x10, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x38,
    0x60, 0x60, 0x00, 0x44, 0x0c, 0x28, 0x14, 0x00, 0x4a, 0x55, 0x06, 0xc1, 0xa8, 0x37, 0xdf,
    0x34, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

static const char *write_bytes(const char *name, const void *data, size_t n)
{
	static char p[1024];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "wb");
	CHECK(f && fwrite(data, 1, n, f) == n);
	if (f)
		fclose(f);
	return p;
}

static const char *tag(AVDictionary *d, const char *key)
{
	AVDictionaryEntry *e = av_dict_get(d, key, NULL, 0);
	return e ? e->value : "";
}

/* Is anything but the book file left in dir (a temporary file)? */
static int leftovers(void)
{
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -q '^\\.'", dir);
	return system(cmd) == 0;
}

/* The audio of the file at path, decoded (libavcodec, the priming skipped
 * as the edit list says); *n its samples.  The caller frees it. */
static float *decode(const char *path, size_t *n)
{
	AVFormatContext *ic = NULL;
	float *pcm = NULL;
	size_t cap = 0;
	*n = 0;
	if (avformat_open_input(&ic, path, NULL, NULL) != 0 ||
	    avformat_find_stream_info(ic, NULL) < 0)
		return NULL;
	int a = av_find_best_stream(ic, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
	const AVCodec *dec =
	    a >= 0 ? avcodec_find_decoder(ic->streams[a]->codecpar->codec_id) : NULL;
	AVCodecContext *c = dec ? avcodec_alloc_context3(dec) : NULL;
	AVPacket *p = av_packet_alloc();
	AVFrame *f = av_frame_alloc();
	if (c && avcodec_parameters_to_context(c, ic->streams[a]->codecpar) >= 0 &&
	    avcodec_open2(c, dec, NULL) == 0) {
		int more = 1;
		while (more) {
			more = av_read_frame(ic, p) == 0;
			if (more && p->stream_index != a) {
				av_packet_unref(p);
				continue;
			}
			avcodec_send_packet(c, more ? p : NULL);
			av_packet_unref(p);
			while (avcodec_receive_frame(c, f) == 0) {
				if (*n + (size_t)f->nb_samples > cap)
					pcm = realloc(pcm, (cap = 2 * cap + (size_t)f->nb_samples) *
					                       sizeof *pcm);
				memcpy(pcm + *n, f->data[0], (size_t)f->nb_samples * sizeof *pcm);
				*n += (size_t)f->nb_samples;
			}
		}
	}
	av_frame_free(&f);
	av_packet_free(&p);
	avcodec_free_context(&c);
	avformat_close_input(&ic);
	return pcm;
}

/* The frequency of the tone in x[from, to), from its zero crossings. */
static double frequency(const float *x, size_t from, size_t to)
{
	size_t k = 0;
	for (size_t i = from + 1; i < to; i++)
		k += (x[i - 1] < 0) != (x[i] < 0);
	return (double)k / 2 / ((double)(to - from) / RATE);
}

static void test_book(void)
{
	const double len[3] = {1.5, 0.7, 2.25};
	ts_m4b_chapter ch[3] = {{"第一章 开始", tone("a.wav", len[0], 220)},
	                        {"第二章 <山路> & \"雪\"", tone("b.wav", len[1], 330)},
	                        {"第三章", tone("c.wav", len[2], 440)}};
	char out[1024], tmp[1100];
	snprintf(out, sizeof out, "%s/书.m4b", dir);
	ts_m4b_opts o = {.title = "三国演义",
	                 .artist = "罗贯中",
	                 .cover = write_bytes("cover.png", png, sizeof png),
	                 .owner_pid = 42};
	ts_error err = {0};
	CHECK(ts_m4b_write(out, ch, 3, &o, &err) == 0);
	if (err.code)
		fprintf(stderr, "%s\n", err.msg);
	char *t = ts_temp_name(out, 42);
	snprintf(tmp, sizeof tmp, "%s", t);
	free(t);
	CHECK(rename(tmp, out) == 0);
	CHECK(!leftovers());

	/* The brand, and both lists of chapters: the QuickTime chapter
	 * track (a "chap" track reference) and Nero's "chpl". */
	FILE *f = fopen(out, "rb");
	static char bytes[1 << 20];
	size_t n = f ? fread(bytes, 1, sizeof bytes, f) : 0;
	if (f)
		fclose(f);
	CHECK(n > 16 && memcmp(bytes + 4, "ftypM4B ", 8) == 0);
	CHECK(memmem(bytes, n, "chpl", 4) != NULL);
	CHECK(memmem(bytes, n, "chap", 4) != NULL);
	CHECK(memmem(bytes, n, "covr", 4) != NULL);

	AVFormatContext *ic = NULL;
	CHECK(avformat_open_input(&ic, out, NULL, NULL) == 0);
	if (!ic)
		return;
	CHECK(avformat_find_stream_info(ic, NULL) >= 0);
	CHECK(strcmp(tag(ic->metadata, "major_brand"), "M4B ") == 0);
	CHECK(strcmp(tag(ic->metadata, "title"), "三国演义") == 0);
	CHECK(strcmp(tag(ic->metadata, "album"), "三国演义") == 0);
	CHECK(strcmp(tag(ic->metadata, "artist"), "罗贯中") == 0);
	CHECK(strcmp(tag(ic->metadata, "genre"), "Audiobook") == 0);
	CHECK(strcmp(tag(ic->metadata, "track"), "1/1") == 0);
	int audio = 0, cover = 0;
	for (unsigned i = 0; i < ic->nb_streams; i++) {
		AVCodecParameters *p = ic->streams[i]->codecpar;
		if (p->codec_type == AVMEDIA_TYPE_AUDIO) {
			audio++;
			CHECK(p->codec_id == AV_CODEC_ID_AAC);
			CHECK(p->sample_rate == RATE);
			CHECK(p->ch_layout.nb_channels == 1);
		}
		if (ic->streams[i]->disposition & AV_DISPOSITION_ATTACHED_PIC) {
			cover++;
			CHECK(p->codec_id == AV_CODEC_ID_PNG);
			CHECK(ic->streams[i]->attached_pic.size == (int)sizeof png);
		}
	}
	CHECK(audio == 1);
	CHECK(cover == 1);
	CHECK(ic->nb_chapters == 3);
	double start = 0;
	for (unsigned i = 0; i < ic->nb_chapters && i < 3; i++) {
		AVChapter *c = ic->chapters[i];
		double s = (double)c->start * av_q2d(c->time_base);
		double e = (double)c->end * av_q2d(c->time_base);
		/* Within half a frame of the chapters' lengths. */
		CHECK(fabs(s - start) <= 512.0 / RATE + 0.001);
		if (i < 2)
			CHECK(fabs(e - s - len[i]) <= 1024.0 / RATE + 0.001);
		CHECK(strcmp(tag(c->metadata, "title"), ch[i].title) == 0);
		start += len[i];
	}
	double total = (double)ic->duration / AV_TIME_BASE;
	CHECK(fabs(total - (len[0] + len[1] + len[2])) <= 512.0 / RATE + 0.001);
	avformat_close_input(&ic);

	/* The audio: as long as the chapters (the encoder's priming skipped,
	 * its last frame padded), each chapter's tone where it belongs. */
	size_t got;
	float *pcm = decode(out, &got);
	size_t want = (size_t)((len[0] + len[1] + len[2]) * RATE);
	CHECK(pcm && got + 512 >= want && got < want + 2048);
	static const double hz[3] = {220, 330, 440};
	size_t at = 0;
	for (int i = 0; pcm && got + 512 >= want && i < 3; i++) {
		size_t end = at + (size_t)(len[i] * RATE), edge = (size_t)((QUIET + 0.05) * RATE);
		double f0 = frequency(pcm, at + edge, end - edge);
		CHECK(fabs(f0 - hz[i]) < 5);
		if (fabs(f0 - hz[i]) >= 5)
			fprintf(stderr, "  chapter %d: %.1f Hz, not %.0f\n", i + 1, f0, hz[i]);
		at = end;
	}
	free(pcm);
}

/* The M4B's row of the whole-book kinds makes the same file from a
 * description of the book: its chapters, title and author. */
static void test_kind(void)
{
	const ts_book_kind *kind = NULL;
	for (int k = 0; k < TS_BOOK_KINDS; k++)
		if (strcmp(ts_book_kinds[k].name, "m4b") == 0)
			kind = &ts_book_kinds[k];
	CHECK(kind && kind->make == ts_m4b_make && strcmp(kind->ext, "m4b") == 0);
	ts_bookfile_chapter ch[2] = {{"一", "k1.wav", NULL, tone("k1.wav", 0.6, 220)},
	                             {"二", "k2.wav", NULL, tone("k2.wav", 0.4, 330)}};
	ts_bookfile book = {.title = "书",
	                    .author = "某",
	                    .audio_format = "wav",
	                    .workdir = dir,
	                    .owner_pid = 43,
	                    .chapters = ch,
	                    .n = 2};
	char out[1024];
	snprintf(out, sizeof out, "%s/kind.m4b", dir);
	ts_error err = {0};
	CHECK(kind && kind->make(out, &book, &err) == 0);
	char *t = ts_temp_name(out, 43);
	CHECK(t && rename(t, out) == 0);
	free(t);
	AVFormatContext *ic = NULL;
	CHECK(avformat_open_input(&ic, out, NULL, NULL) == 0);
	if (!ic)
		return;
	CHECK(avformat_find_stream_info(ic, NULL) >= 0);
	CHECK(strcmp(tag(ic->metadata, "title"), "书") == 0);
	CHECK(strcmp(tag(ic->metadata, "artist"), "某") == 0);
	CHECK(ic->nb_chapters == 2);
	avformat_close_input(&ic);
	CHECK(!leftovers());
}

/* A bad cover: a clear error naming it, and no file made. */
static void test_bad_cover(const char *cover, const char *says)
{
	ts_m4b_chapter ch[1] = {{"一", tone("d.wav", 0.3, 220)}};
	char out[1024];
	snprintf(out, sizeof out, "%s/bad.m4b", dir);
	ts_m4b_opts o = {.title = "书", .cover = cover, .owner_pid = 7};
	ts_error err = {0};
	CHECK(ts_m4b_write(out, ch, 1, &o, &err) == TS_EINVAL);
	CHECK(strstr(err.msg, cover) != NULL);
	CHECK(strstr(err.msg, says) != NULL);
	if (!strstr(err.msg, says))
		fprintf(stderr, "  message: %s\n", err.msg);
	CHECK(ts_m4b_check_cover(cover, &err) == TS_EINVAL);
	CHECK(access(out, F_OK) != 0);
	CHECK(!leftovers());
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_m4b SCRATCH_DIR\n");
		return 2;
	}
	static char d[512];
	snprintf(d, sizeof d, "%s/m4b_scratch", argv[1]);
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", d, d);
	if (system(cmd) != 0)
		return 1;
	dir = d;
	av_log_set_level(AV_LOG_ERROR);
	test_book();
	test_kind();
	test_bad_cover(write_bytes("cover.txt", "GIF89a not a picture", 20), "not a JPEG or PNG");
	test_bad_cover(write_bytes("empty.jpg", "", 0), "empty");
	test_bad_cover("/nonexistent/cover.jpg", "No such file");
	test_bad_cover(dir, "folder");
	CHECK(ts_aac_bitrate(0) < ts_aac_bitrate(10));
	CHECK(ts_aac_bitrate(TS_QUALITY_DEFAULT) == 64000);
	if (check_failures)
		fprintf(stderr, "test_m4b: %d check(s) failed\n", check_failures);
	return check_failures != 0;
}
