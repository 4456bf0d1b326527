/* make_page.c - read-along pages for the browser test, through the
 * library's own code: chapters' scripts written by the timing files'
 * writer (ts_cues, as a build writes them) and the page by
 * ts_readalong_html().  Two uses:
 *
 *   make_page OUTDIR PAGE BOOK_TITLE [INDEX AUDIO VTT DURATION TITLE]...
 *
 * the page of chapters whose audio (AUDIO, in OUTDIR) is there: each
 * chapter's cues are read from VTT (a file of OUTDIR, "-" for none) and
 * written as its script; the page goes to PAGE (the test gives its own
 * timing files and a hostile title this way);
 *
 *   make_page --book OUTDIR CHAPTERS SECONDS
 *
 * a book of CHAPTERS chapters made cheaply, without synthesis: one
 * silent WAV of SECONDS seconds, hard-linked as every chapter's audio
 * (NNNN-第N章_….wav), a script of one cue a second per chapter, and
 * OUTDIR/index.html; it prints its size and the best time of 5 to make
 * it.  Warnings go to stderr; exit 1 on failure. */
#include "audio/write.h"
#include "base/file.h"
#include "base/util.h"
#include "publish/cues.h"
#include "publish/manifest.h"
#include "publish/readalong.h"
#include "publish/slug.h"
#include "publish/webvtt.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { PAGE_I = __builtin_ctz(TS_CUES_PAGE), RATE = 1000 /* cue times in ms */ };

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Write the script of the chapter whose audio is audio_path from cues
 * c[0..n), as a build does, and put it in place.  Its name (malloc'd), or
 * NULL on failure (said on stderr). */
static char *write_script(const char *audio_path, const ts_cue *c, size_t n)
{
	ts_error err = {0};
	ts_cues *w = ts_cues_open(TS_CUES_PAGE, audio_path, RATE, (long)getpid(), &err);
	char *path = ts_cues_path(audio_path, PAGE_I);
	char *tmp = path ? ts_temp_name(path, (long)getpid()) : NULL;
	int rc = w && path && tmp ? 0 : -1;
	for (size_t i = 0; i < n && !rc; i++) {
		if (c[i].paragraph)
			ts_cues_paragraph(w);
		rc = ts_cues_speaker(w, c[i].speaker);
		rc = rc ? rc
		        : ts_cues_add(w, (uint64_t)(c[i].start * RATE + 0.5),
		                      (uint64_t)(c[i].end * RATE + 0.5), c[i].text,
		                      strlen(c[i].text));
	}
	if (w && rc)
		ts_cues_abort(w);
	else if (w)
		rc = ts_cues_finish(w, &err);
	if (!rc && rename(tmp, path) != 0)
		rc = -1, snprintf(err.msg, sizeof err.msg, "%s: %s", path, strerror(errno));
	if (rc) {
		fprintf(stderr, "make_page: %s: cannot write its script: %s\n", audio_path,
		        err.msg[0] ? err.msg : "out of memory");
		free(path);
		path = NULL;
	}
	free(tmp);
	if (!path)
		return NULL;
	char *slash = strrchr(path, '/');
	char *name = ts_strdup(slash ? slash + 1 : path);
	free(path);
	return name;
}

/* The page, made a few times for the best time of it (the machine's
 * other work makes one run's time wander), then written to path. */
static int write_page(const char *path, const char *title, const ts_chapter_entry *ch, size_t n)
{
	ts_buf page = {0};
	ts_error err = {0};
	double best = 0;
	int rc = 0;
	for (int run = 0; run < 5 && !rc; run++) {
		ts_buf_free(&page);
		double t0 = now_s();
		rc = ts_readalong_html(&page, title, ch, n);
		double t = now_s() - t0;
		best = run == 0 || t < best ? t : best;
	}
	if (rc)
		fprintf(stderr, "make_page: %s\n", ts_strerror(rc));
	else if ((rc = ts_write_text_file(path, page.data, page.len, (long)getpid(), &err)))
		fprintf(stderr, "make_page: %s\n", ts_error_msg(&err));
	else
		printf("page of %zu chapters: %zu bytes, made in %.2f ms\n", n, page.len,
		       best * 1e3);
	ts_buf_free(&page);
	return rc;
}

/* The chapters of the command line. */
static int from_args(const char *outdir, const char *page, const char *title, char **a, size_t n)
{
	ts_chapter_entry *ch = calloc(n ? n : 1, sizeof *ch);
	int rc = ch ? 0 : 1;
	for (size_t i = 0; i < n && !rc; i++, a += 5) {
		ch[i].index = atoi(a[0]);
		ch[i].audio = a[1];
		ch[i].duration_s = strtod(a[3], NULL);
		ch[i].title = a[4];
		ch[i].source = "";
		if (strcmp(a[2], "-") == 0)
			continue;
		ts_buf vtt = {0}, audio = {0};
		ts_cue *cues = NULL;
		size_t nc = 0;
		int e = 0;
		ts_error err = {0};
		ts_buf_printf(&vtt, "%s/%s", outdir, a[2]);
		ts_buf_printf(&audio, "%s/%s", outdir, a[1]);
		if (ts_vtt_read(vtt.data, 1u << 26, &cues, &nc, &e, &err))
			fprintf(stderr, "make_page: %s\n", ts_error_msg(&err)), rc = 1;
		else if (!(ch[i].timing[PAGE_I] = write_script(audio.data, cues, nc)))
			rc = 1;
		ts_vtt_free(cues, nc);
		ts_buf_free(&vtt);
		ts_buf_free(&audio);
	}
	rc = rc ? rc : write_page(page, title, ch, n) ? 1 : 0;
	for (size_t i = 0; ch && i < n; i++)
		free((char *)ch[i].timing[PAGE_I]);
	free(ch);
	return rc;
}

/* A silent 8 kHz mono WAV of seconds at path. */
static int silent_wav(const char *path, int seconds)
{
	uint32_t data = (uint32_t)seconds * 8000 * 2;
	unsigned char h[44] = "RIFF....WAVEfmt \x10\0\0\0\x01\0\x01\0\x40\x1f\0\0\x80\x3e\0\0"
	                      "\x02\0\x10\0data....";
	uint32_t riff = data + 36;
	for (int k = 0; k < 4; k++) {
		h[4 + k] = (unsigned char)(riff >> (8 * k));
		h[40 + k] = (unsigned char)(data >> (8 * k));
	}
	FILE *f = fopen(path, "wb");
	int rc = f && fwrite(h, 1, sizeof h, f) == sizeof h ? 0 : -1;
	static const char zero[8000];
	for (uint32_t left = data; !rc && left; left -= left < sizeof zero ? left : sizeof zero)
		rc = fwrite(zero, 1, left < sizeof zero ? left : sizeof zero, f) ? 0 : -1;
	if (f && fclose(f) != 0)
		rc = -1;
	return rc;
}

/* A book of n chapters of seconds each. */
static int make_book(const char *outdir, size_t n, int seconds)
{
	ts_chapter_entry *ch = calloc(n ? n : 1, sizeof *ch);
	char **own = calloc(2 * (n ? n : 1), sizeof *own);
	ts_cue *cues = calloc((size_t)seconds, sizeof *cues);
	ts_buf silent = {0}, text = {0};
	int rc = ch && own && cues ? 0 : 1;
	ts_buf_printf(&silent, "%s/.silent.wav", outdir);
	if (!rc && silent_wav(silent.data, seconds) != 0)
		fprintf(stderr, "make_page: %s: %s\n", silent.data, strerror(errno)), rc = 1;
	double t0 = now_s();
	for (size_t i = 0; i < n && !rc; i++) {
		ts_buf title = {0}, audio = {0}, path = {0};
		char slug[TS_SLUG_MAX + 1];
		ts_buf_printf(&title, "第%zu章 夜雨山路", i + 1);
		ts_slug(title.data, slug);
		ts_buf_printf(&audio, "%04zu-%s.wav", i + 1, slug);
		ts_buf_printf(&path, "%s/%s", outdir, audio.data);
		unlink(path.data);
		if (link(silent.data, path.data) != 0)
			fprintf(stderr, "make_page: %s: %s\n", path.data, strerror(errno)), rc = 1;
		for (int k = 0; k < seconds && !rc; k++) {
			ts_buf_clear(&text);
			if (k == 0)
				ts_buf_printf(&text, "%s", title.data);
			else
				ts_buf_printf(&text, "第%zu章第%d句。", i + 1, k);
			free(cues[k].text);
			cues[k] = (ts_cue){.start = k + 0.1,
			                   .end = k + 0.9,
			                   .text = ts_strdup(text.data),
			                   .paragraph = k < 2};
		}
		ch[i] = (ts_chapter_entry){.index = (int)i + 1,
		                           .title = own[2 * i] = title.data,
		                           .audio = own[2 * i + 1] = audio.data,
		                           .source = "",
		                           .duration_s = seconds};
		if (!rc && !(ch[i].timing[PAGE_I] = write_script(path.data, cues, (size_t)seconds)))
			rc = 1;
		ts_buf_free(&path);
	}
	if (!rc)
		printf("%zu chapters' audio and scripts in %.2f s\n", n, now_s() - t0);
	ts_buf_clear(&text);
	ts_buf_printf(&text, "%s/index.html", outdir);
	rc = rc ? rc : write_page(text.data, "三千章的书", ch, n) ? 1 : 0;
	unlink(silent.data);
	for (size_t i = 0; ch && i < n; i++)
		free((char *)ch[i].timing[PAGE_I]);
	for (size_t i = 0; own && i < 2 * n; i++)
		free(own[i]);
	for (int k = 0; cues && k < seconds; k++)
		free(cues[k].text);
	free(cues);
	free(own);
	free(ch);
	ts_buf_free(&silent);
	ts_buf_free(&text);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "--book") == 0 && atoi(argv[3]) > 0 && atoi(argv[4]) > 1)
		return make_book(argv[2], (size_t)atoi(argv[3]), atoi(argv[4]));
	if (argc < 4 || (argc - 4) % 5 != 0 || argv[1][0] == '-') {
		fprintf(stderr, "usage: make_page OUTDIR PAGE BOOK_TITLE "
		                "[INDEX AUDIO VTT DURATION TITLE]...\n"
		                "       make_page --book OUTDIR CHAPTERS SECONDS\n");
		return 2;
	}
	return from_args(argv[1], argv[2], argv[3], argv + 4, (size_t)(argc - 4) / 5);
}
