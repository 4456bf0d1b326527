/* m4bmarks: are an M4B's chapter boundaries where its chapters' files say?
 * The M4B and each chapter file are decoded with libavformat/libavcodec
 * (the M4B's priming skipped as its edit list says); for each chapter,
 * one line:
 *   mark I MARK_S WANT_S LAG CORR MAX
 * MARK_S its mark, WANT_S where the chapters before it add up to (the
 * manifest's chapter start), LAG the shift in samples that best lines
 * the chapter's first sound in the M4B up with its file (from its mark),
 * CORR their normalized correlation there, MAX the loudest sample of the
 * M4B within 512 samples of the mark (a click where two chapters meet);
 * then "length BOOK_S SUM_S" (the chapters' lengths as their containers
 * say: an M4A's decoder gives its last frame whole).  Exits 1 when a mark is more than half an
 * AAC frame from WANT_S, LAG is not about 0, CORR below 0.9, MAX above
 * 0.01, or the length is off by more than half a frame; 2 on bad use.
 *
 *   m4bmarks BOOK.m4b CHAPTER1 CHAPTER2 ... */
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first audio stream of path decoded to mono floats; *n samples,
 * *rate.  NULL when it cannot be read. */
static float *decode(const char *path, size_t *n, int *rate, AVFormatContext **keep)
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
	c->request_sample_fmt = AV_SAMPLE_FMT_FLTP;
	if (c && avcodec_parameters_to_context(c, ic->streams[a]->codecpar) >= 0 &&
	    avcodec_open2(c, dec, NULL) == 0) {
		*rate = c->sample_rate;
		for (int more = 1; more;) {
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
				for (int i = 0; i < f->nb_samples; i++)
					pcm[*n + (size_t)i] =
					    f->format == AV_SAMPLE_FMT_S16
					        ? ((const int16_t *)
					               f->data[0])[i * f->ch_layout.nb_channels] /
					              32768.0f
					    : f->format == AV_SAMPLE_FMT_FLTP
					        ? ((const float *)f->data[0])[i]
					        : ((const float *)
					               f->data[0])[i * f->ch_layout.nb_channels];
				*n += (size_t)f->nb_samples;
			}
		}
	}
	/* The decoder gives the last frame whole: the length is the
	 * container's (an M4A's edit list). */
	if (a >= 0 && ic->duration > 0 && !keep) {
		size_t len = (size_t)llround((double)ic->duration / AV_TIME_BASE * *rate);
		if (len < *n)
			*n = len;
	}
	av_frame_free(&f);
	av_packet_free(&p);
	avcodec_free_context(&c);
	if (keep)
		*keep = ic;
	else
		avformat_close_input(&ic);
	return pcm;
}

/* The normalized correlation of x[0..w) and y[0..w). */
static double corr(const float *x, const float *y, size_t w)
{
	double xy = 0, xx = 0, yy = 0;
	for (size_t i = 0; i < w; i++)
		xy += (double)x[i] * y[i], xx += (double)x[i] * x[i], yy += (double)y[i] * y[i];
	return xx > 0 && yy > 0 ? xy / sqrt(xx * yy) : 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: m4bmarks BOOK.m4b CHAPTER...\n");
		return 2;
	}
	av_log_set_level(AV_LOG_ERROR);
	AVFormatContext *ic = NULL;
	size_t nb = 0;
	int rate = 0, bad = 0;
	float *book = decode(argv[1], &nb, &rate, &ic);
	if (!book || !ic) {
		fprintf(stderr, "m4bmarks: %s: cannot read it\n", argv[1]);
		return 2;
	}
	int n = argc - 2;
	if ((int)ic->nb_chapters != n) {
		printf("chapters %u, not %d\n", ic->nb_chapters, n);
		return 1;
	}
	const double half = 512.0 / rate + 0.001; /* half a frame; marks are in ms */
	size_t want = 0;
	for (int i = 0; i < n; i++) {
		size_t len = 0;
		int r = 0;
		float *ch = decode(argv[i + 2], &len, &r, NULL);
		if (!ch || r != rate) {
			fprintf(stderr, "m4bmarks: %s: cannot read it, or not at %d Hz\n",
			        argv[i + 2], rate);
			return 2;
		}
		AVChapter *c = ic->chapters[i];
		double mark = (double)c->start * av_q2d(c->time_base), want_s = (double)want / rate;
		size_t at = (size_t)llround(mark * rate), onset = 0, w = 2048;
		while (onset < len && fabsf(ch[onset]) < 0.01f)
			onset++;
		onset = onset > 256 ? onset - 256 : 0;
		int best = 0;
		double bc = -2;
		for (int lag = -1500; lag <= 1500; lag++) {
			long from = (long)at + (long)onset + lag;
			if (from < 0 || (size_t)from + w > nb || onset + w > len)
				continue;
			double k = corr(book + from, ch + onset, w);
			if (k > bc)
				bc = k, best = lag;
		}
		float loud = 0;
		for (long j = (long)at - 512; j < (long)at + 512; j++)
			if (j >= 0 && (size_t)j < nb && fabsf(book[j]) > loud)
				loud = fabsf(book[j]);
		printf("mark %d %.4f %.4f %d %.4f %.4f\n", i + 1, mark, want_s, best, bc, loud);
		if (fabs(mark - want_s) > half || abs(best) > 24 || bc < 0.9 || loud > 0.01f)
			bad = 1;
		want += len;
		free(ch);
	}
	printf("length %.4f %.4f\n", (double)nb / rate, (double)want / rate);
	if (fabs((double)nb - (double)want) > 512 + 1024) /* the decoder's last frame whole */
		bad = 1;
	free(book);
	avformat_close_input(&ic);
	return bad;
}
