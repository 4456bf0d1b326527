/* m4binfo: what an M4B holds, read back with libavformat, one fact a
 * line for the end-to-end tests:
 *   brand BRAND
 *   audio CODEC RATE CHANNELS
 *   duration SECONDS
 *   tag KEY VALUE          (title, album, artist, genre, track)
 *   cover CODEC WIDTH HEIGHT BYTES
 *   chapter START END TITLE   (seconds)
 * and, from the file's bytes, "atom chpl" and "atom chap" when the Nero
 * chapter list and the QuickTime chapter track's reference are there. */
#define _GNU_SOURCE /* memmem */
#include <libavformat/avformat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *tag(AVDictionary *d, const char *key)
{
	AVDictionaryEntry *e = av_dict_get(d, key, NULL, 0);
	return e ? e->value : NULL;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: m4binfo FILE.m4b\n");
		return 2;
	}
	av_log_set_level(AV_LOG_ERROR);
	AVFormatContext *ic = NULL;
	if (avformat_open_input(&ic, argv[1], NULL, NULL) < 0 ||
	    avformat_find_stream_info(ic, NULL) < 0) {
		fprintf(stderr, "m4binfo: %s: cannot read it\n", argv[1]);
		return 1;
	}
	const char *brand = tag(ic->metadata, "major_brand");
	printf("brand %s\n", brand ? brand : "");
	for (unsigned i = 0; i < ic->nb_streams; i++) {
		AVStream *st = ic->streams[i];
		AVCodecParameters *p = st->codecpar;
		if (st->disposition & AV_DISPOSITION_ATTACHED_PIC)
			printf("cover %s %d %d %d\n", avcodec_get_name(p->codec_id), p->width,
			       p->height, st->attached_pic.size);
		else if (p->codec_type == AVMEDIA_TYPE_AUDIO)
			printf("audio %s %d %d\n", avcodec_get_name(p->codec_id), p->sample_rate,
			       p->ch_layout.nb_channels);
	}
	printf("duration %.3f\n", (double)ic->duration / AV_TIME_BASE);
	static const char *const keys[] = {"title", "album", "artist", "genre", "track"};
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
		if (tag(ic->metadata, keys[k]))
			printf("tag %s %s\n", keys[k], tag(ic->metadata, keys[k]));
	for (unsigned i = 0; i < ic->nb_chapters; i++) {
		AVChapter *c = ic->chapters[i];
		const char *t = tag(c->metadata, "title");
		printf("chapter %.3f %.3f %s\n", (double)c->start * av_q2d(c->time_base),
		       (double)c->end * av_q2d(c->time_base), t ? t : "");
	}
	avformat_close_input(&ic);
	/* The atoms, found in the file's bytes (the moov is at its end). */
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return 1;
	fseek(f, 0, SEEK_END);
	long size = ftell(f), from = size > (8 << 20) ? size - (8 << 20) : 0;
	char *buf = malloc((size_t)(size - from));
	fseek(f, from, SEEK_SET);
	size_t n = buf ? fread(buf, 1, (size_t)(size - from), f) : 0;
	fclose(f);
	if (memmem(buf, n, "chpl", 4))
		printf("atom chpl\n");
	if (memmem(buf, n, "chap", 4))
		printf("atom chap\n");
	free(buf);
	return 0;
}
