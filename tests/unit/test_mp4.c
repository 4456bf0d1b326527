/* test_mp4.c - audio/mp4: a file of real AAC packets (libavcodec's encoder
 * on a tone) written by ts_mp4 and read back with libavformat: every
 * packet's bytes in order, the AAC configuration, the length as heard
 * (the edit list), the chapters from both chapter lists, the tags and the
 * cover.  Once with the 32-bit forms and once with every 64-bit form (the
 * writer's limit set to 0: mdat header, co64, version 1 times); then a
 * full disk, and a memory check: the writer's heap does not grow with the
 * number of packets. */
#define _GNU_SOURCE /* memmem */
#include "check.h"
#include "audio/mp4.h"
#include "base/error.h"

#include <fcntl.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RATE 22050

typedef struct packets {
	AVPacket **p;
	size_t n;
	unsigned char config[64];
	size_t config_len;
	unsigned priming;
	uint64_t samples; /* given to the encoder */
} packets;

/* seconds of a tone, encoded. */
static void encode_tone(double seconds, packets *out)
{
	const AVCodec *aac = avcodec_find_encoder(AV_CODEC_ID_AAC);
	AVCodecContext *enc = avcodec_alloc_context3(aac);
	enc->sample_fmt = AV_SAMPLE_FMT_FLTP;
	enc->sample_rate = RATE;
	enc->bit_rate = 48000;
	enc->time_base = (AVRational){1, RATE};
	enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
	av_channel_layout_default(&enc->ch_layout, 1);
	CHECK(avcodec_open2(enc, aac, NULL) == 0);
	memcpy(out->config, enc->extradata, (size_t)enc->extradata_size);
	out->config_len = (size_t)enc->extradata_size;
	out->priming = (unsigned)enc->initial_padding;
	AVFrame *f = av_frame_alloc();
	f->nb_samples = enc->frame_size;
	f->format = AV_SAMPLE_FMT_FLTP;
	f->sample_rate = RATE;
	av_channel_layout_copy(&f->ch_layout, &enc->ch_layout);
	CHECK(av_frame_get_buffer(f, 0) == 0);
	uint64_t total = (uint64_t)(seconds * RATE);
	size_t cap = 0;
	for (uint64_t at = 0;;) {
		int ret;
		if (at < total) {
			av_frame_make_writable(f);
			int k = (int)(total - at < (uint64_t)enc->frame_size
			                  ? total - at
			                  : (uint64_t)enc->frame_size);
			f->nb_samples = k;
			for (int i = 0; i < k; i++)
				((float *)f->data[0])[i] =
				    0.3f * (float)sin(0.05 * (double)(at + i));
			f->pts = (int64_t)at;
			at += (uint64_t)k;
			ret = avcodec_send_frame(enc, f);
		} else {
			ret = avcodec_send_frame(enc, NULL);
		}
		CHECK(ret == 0);
		AVPacket *p = av_packet_alloc();
		while ((ret = avcodec_receive_packet(enc, p)) == 0) {
			if (out->n == cap)
				out->p =
				    realloc(out->p, (cap = cap ? 2 * cap : 64) * sizeof *out->p);
			out->p[out->n++] = p;
			p = av_packet_alloc();
		}
		av_packet_free(&p);
		if (ret == AVERROR_EOF)
			break;
	}
	out->samples = total;
	av_frame_free(&f);
	avcodec_free_context(&enc);
}

static const unsigned char jpeg[] = {0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x03,
                                     0x00, 0x02, 0x01, 0x01, 0x11, 0x00, 0xFF, 0xD9};

static const char *tag(AVDictionary *d, const char *key)
{
	AVDictionaryEntry *e = av_dict_get(d, key, NULL, 0);
	return e ? e->value : "";
}

static void write_file(const char *path, const packets *pk, const ts_mp4_info *in, uint64_t limit)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	FILE *sizes = tmpfile();
	CHECK(fd >= 0 && sizes);
	int code, e;
	ts_mp4 *m = ts_mp4_new(fd, fileno(sizes), in, &code, &e);
	CHECK(m != NULL);
	if (!m)
		return;
	ts_mp4_set_limit(m, limit);
	for (size_t i = 0; i < pk->n; i++)
		CHECK(ts_mp4_add(m, pk->p[i]->data, (size_t)pk->p[i]->size,
		                 (unsigned)pk->p[i]->duration) == 0);
	CHECK(ts_mp4_finish(m, pk->samples) == 0);
	ts_mp4_free(m);
	fclose(sizes);
	CHECK(close(fd) == 0);
}

static void read_back(const char *path, const packets *pk, const ts_mp4_info *in, int wide)
{
	/* The 64-bit forms are there when asked for, and only then. */
	FILE *f = fopen(path, "rb");
	unsigned char head[40];
	CHECK(f && fread(head, 1, sizeof head, f) == sizeof head);
	CHECK(memcmp(head + 4, "ftypM4B ", 8) == 0);
	CHECK(memcmp(head + 28, wide ? "\0\0\0\1mdat" : "\0\0\0\10free", 8) == 0);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	unsigned char *all = malloc((size_t)size);
	fseek(f, 0, SEEK_SET);
	CHECK(fread(all, 1, (size_t)size, f) == (size_t)size);
	fclose(f);
	CHECK(!memmem(all, (size_t)size, "co64", 4) == !wide);
	free(all);

	AVFormatContext *ic = NULL;
	CHECK(avformat_open_input(&ic, path, NULL, NULL) == 0);
	if (!ic)
		return;
	CHECK(avformat_find_stream_info(ic, NULL) >= 0);
	CHECK(strcmp(tag(ic->metadata, "major_brand"), "M4B ") == 0);
	CHECK(strcmp(tag(ic->metadata, "title"), in->title) == 0);
	CHECK(strcmp(tag(ic->metadata, "album"), in->album) == 0);
	CHECK(strcmp(tag(ic->metadata, "artist"), in->artist) == 0);
	CHECK(strcmp(tag(ic->metadata, "genre"), "Audiobook") == 0);
	CHECK(strcmp(tag(ic->metadata, "track"), "1/1") == 0);
	CHECK(strcmp(tag(ic->metadata, "encoder"), "test") == 0);
	int audio = -1, cover = 0;
	for (unsigned i = 0; i < ic->nb_streams; i++) {
		AVStream *st = ic->streams[i];
		if (st->disposition & AV_DISPOSITION_ATTACHED_PIC) {
			cover++;
			CHECK(st->codecpar->codec_id == AV_CODEC_ID_MJPEG);
			CHECK(st->attached_pic.size == (int)sizeof jpeg &&
			      memcmp(st->attached_pic.data, jpeg, sizeof jpeg) == 0);
		} else if (st->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) {
			audio = (int)i;
			CHECK(st->codecpar->codec_id == AV_CODEC_ID_AAC);
			CHECK(st->codecpar->sample_rate == RATE);
			CHECK(st->codecpar->ch_layout.nb_channels == 1);
			CHECK(st->codecpar->extradata_size == (int)in->config_len &&
			      memcmp(st->codecpar->extradata, in->config, in->config_len) == 0);
		}
	}
	CHECK(audio >= 0 && cover == 1);
	/* The length as heard, from the edit list, to the millisecond. */
	CHECK(llabs(ic->duration - (int64_t)(pk->samples * AV_TIME_BASE / RATE)) <= 1000);
	CHECK(ic->nb_chapters == in->chapters);
	for (unsigned i = 0; i < ic->nb_chapters && i < in->chapters; i++) {
		AVChapter *c = ic->chapters[i];
		double s = (double)c->start * av_q2d(c->time_base);
		CHECK(fabs(s - (double)in->chapter[i].start / RATE) < 0.002);
		CHECK(strcmp(tag(c->metadata, "title"), in->chapter[i].title) == 0);
	}
	/* Every packet, in order, byte for byte. */
	AVPacket *p = av_packet_alloc();
	size_t k = 0;
	while (av_read_frame(ic, p) == 0) {
		if (p->stream_index == audio) {
			CHECK(k < pk->n && p->size == pk->p[k]->size &&
			      memcmp(p->data, pk->p[k]->data, (size_t)p->size) == 0);
			k++;
		}
		av_packet_unref(p);
	}
	CHECK(k == pk->n);
	av_packet_free(&p);
	avformat_close_input(&ic);
}

/* A full disk: the error is the writer's, with the system's errno. */
static void test_full(const packets *pk, const ts_mp4_info *in)
{
	int fd = open("/dev/full", O_WRONLY);
	FILE *sizes = tmpfile();
	if (fd < 0)
		return; /* no /dev/full here */
	int code = 0, e = 0, rc = 0;
	ts_mp4 *m = ts_mp4_new(fd, fileno(sizes), in, &code, &e);
	for (size_t i = 0; m && !rc && i < pk->n; i++)
		rc = ts_mp4_add(m, pk->p[i]->data, (size_t)pk->p[i]->size,
		                (unsigned)pk->p[i]->duration);
	if (m && !rc)
		rc = ts_mp4_finish(m, pk->samples);
	CHECK(m ? rc == TS_ENOSPC && ts_mp4_errno(m) == ENOSPC : code == TS_ENOSPC && e == ENOSPC);
	ts_mp4_free(m);
	fclose(sizes);
	close(fd);
}

/* The heap in use, mmap()ed blocks included. */
static size_t heap(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

/* The writer's heap after many more packets than before: no more. */
static void test_flat(const packets *pk, const ts_mp4_info *in)
{
	int fd = open("/dev/null", O_WRONLY);
	FILE *sizes = tmpfile();
	int code, e;
	ts_mp4 *m = ts_mp4_new(fd, fileno(sizes), in, &code, &e);
	CHECK(m != NULL);
	size_t before = 0;
	for (size_t round = 0; m && round < 200; round++) {
		if (round == 10)
			before = heap();
		for (size_t i = 0; i + 1 < pk->n; i++)
			ts_mp4_add(m, pk->p[i]->data, (size_t)pk->p[i]->size,
			           (unsigned)pk->p[i]->duration);
	}
	size_t after = heap();
	CHECK(after <= before + 1024);
	ts_mp4_free(m);
	fclose(sizes);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_mp4 SCRATCH_DIR\n");
		return 2;
	}
	av_log_set_level(AV_LOG_QUIET);
	packets pk = {0};
	encode_tone(9.5, &pk);
	CHECK(pk.n > 200);
	ts_mp4_chapter ch[] = {{"第一回 宴桃园豪杰三结义", 0},
	                       {"第二回", (uint64_t)(3.25 * RATE)},
	                       {"第三回 议温明董卓叱丁原", (uint64_t)(7.5 * RATE)}};
	ts_mp4_info in = {
	    .brand = "M4B ",
	    .rate = RATE,
	    .config = pk.config,
	    .config_len = pk.config_len,
	    .priming = pk.priming,
	    .chapter = ch,
	    .chapters = 3,
	    .title = "三国演义",
	    .album = "三国演义",
	    .artist = "罗贯中",
	    .genre = "Audiobook",
	    .tool = "test",
	    .track = 1,
	    .tracks = 1,
	    .cover = jpeg,
	    .cover_len = sizeof jpeg,
	};
	char path[1024];
	snprintf(path, sizeof path, "%s/test_mp4.m4b", argv[1]);
	write_file(path, &pk, &in, UINT32_MAX);
	read_back(path, &pk, &in, 0);
	write_file(path, &pk, &in, 0);
	read_back(path, &pk, &in, 1);
	unlink(path);
	test_full(&pk, &in);
	test_flat(&pk, &in);
	for (size_t i = 0; i < pk.n; i++)
		av_packet_free(&pk.p[i]);
	free(pk.p);
	return check_done("test_mp4");
}
