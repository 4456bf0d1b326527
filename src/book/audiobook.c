/* audiobook.c - the audiobook: a plan of the chapters of a book and their
 * files (ts_plan_new), then the build of the output folder from it
 * (ts_plan_build): its checks, the worker pool, the warnings a build
 * gives, the manifest, playlist and read-along page, and the files of an
 * earlier build that --force replaces.  The command line only passes the
 * settings and shows what this reports. */
#include "publish/m4b.h"
#include "book/chapterkey.h"
#include "publish/manifest.h"
#include "publish/slug.h"
#include "book/plan.h"
#include "book/workers.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Past this much gain to make up for what the limiter takes off, a
 * chapter is limited heavily: a loud target under a low ceiling takes
 * several dB, the default target next to none (bench/README.md). */
#define HEAVY_LIMITING_DB 3.0

void ts_build_opts_init(ts_build_opts *o)
{
	memset(o, 0, sizeof *o);
	o->outdir = "out";
	o->jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (o->jobs < 1)
		o->jobs = 1;
	o->rate = 1.0;
	o->format = "wav";
	o->quality = TS_QUALITY_DEFAULT;
	o->normalize = 1;
	o->target_lufs = TS_LOUDNESS_DEFAULT;
	o->ceiling_dbtp = TS_TRUE_PEAK_DEFAULT;
	o->sentence_pause_ms = o->paragraph_pause_ms = -1;
	o->timing = "srt,vtt";
}

static void diag(const ts_plan *p, ts_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void diag(const ts_plan *p, ts_level level, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	if (!p->diag)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	p->diag(p->ud, level, msg);
}

/* Chapter file names, NNN-<slug>.<ext> (000 is the front matter), their
 * paths in the output folder and the names of their timing files. */
static int name_chapters(ts_plan *p, ts_error *err)
{
	size_t n = p->n ? p->n : 1;
	p->names = calloc(n, sizeof *p->names);
	p->paths = calloc(n, sizeof *p->paths);
	p->timing = calloc(n, sizeof *p->timing);
	if (!p->names || !p->paths || !p->timing)
		return ts_error_set(err, TS_ENOMEM, NULL);
	p->base = p->n && ts_book_chapter(p->book, 0)->front_matter ? 0 : 1;
	int width = 3;
	for (size_t m = p->n + (size_t)p->base; m >= 1000; m /= 10)
		width++;
	for (size_t i = 0; i < p->n; i++) {
		char slug[TS_SLUG_MAX + 1];
		ts_slug(ts_book_chapter(p->book, i)->title, slug);
		ts_buf nb = {0}, pb = {0};
		ts_buf_printf(&nb, "%0*zu-%s.%s", width, i + (size_t)p->base, slug, p->fmt->ext);
		ts_buf_printf(&pb, "%s/%s", p->o.outdir, nb.data ? nb.data : "");
		p->names[i] = nb.data;
		p->paths[i] = pb.data;
		if (ts_buf_error(&nb) || ts_buf_error(&pb))
			return ts_error_set(err, TS_ENOMEM, NULL);
		for (int t = 0; t < TS_CUES_NFORMATS; t++)
			if ((p->timing_mask & (1u << t)) &&
			    !(p->timing[i][t] = ts_cues_path(p->names[i], t)))
				return ts_error_set(err, TS_ENOMEM, NULL);
	}
	return 0;
}

/* The settings that do not go together: TS_EINVAL. */
static int check_settings(ts_plan *p, ts_error *err)
{
	const ts_build_opts *o = &p->o;
	p->fmt = ts_format_find(o->format);
	if (!p->fmt)
		return ts_error_set(err, TS_EINVAL, "unknown format '%s' (known: %s)", o->format,
		                    ts_format_names());
	p->mo = (ts_master_opts){.normalize = o->normalize,
	                         .target_lufs = o->target_lufs,
	                         .ceiling_dbtp = o->ceiling_dbtp,
	                         .out_rate = o->sample_rate};
	if (ts_cues_parse(o->timing ? o->timing : "srt,vtt", &p->timing_mask))
		return ts_error_set(
		    err, TS_EINVAL,
		    "--timing takes a comma-separated list of %s, or none, not '%s'",
		    ts_cues_names(), o->timing);
	if (o->author && ts_utf8_check(o->author, strlen(o->author), 1) != strlen(o->author))
		return ts_error_set(err, TS_EINVAL, "--author must be UTF-8 text");
	int rc = ts_wholebook_check(p, err);
	if (rc)
		return rc;
	int can = ts_format_pick_rate(p->fmt, o->sample_rate);
	if (o->sample_rate && can != o->sample_rate)
		return ts_error_set(err, TS_EINVAL,
		                    "--format %s cannot hold %d Hz audio; it is made at %d Hz",
		                    p->fmt->name, o->sample_rate, can);
	return 0;
}

/* "I/N" into *i and *n: 0, or -1. */
static int parse_shard(const char *s, long *i, long *n)
{
	char *end;
	errno = 0;
	*i = strtol(s, &end, 10);
	if (errno || end == s || *end != '/')
		return -1;
	const char *d = end + 1;
	*n = strtol(d, &end, 10);
	return errno || end == d || *end || *n < 1 || *n > 100000 || *i < 1 || *i > *n ? -1 : 0;
}

/* Mark the chapters of "3,5-7" (numbers as in the file names). */
static int select_list(ts_plan *p, const char *list, char *in, ts_error *err)
{
	long first = p->base, last = (long)p->n - 1 + p->base;
	for (const char *s = list; *s;) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end != s && *end == '-')
			b = strtol(s = end + 1, &end, 10);
		if (end == s || (*end && *end != ',') || b < a)
			return ts_error_set(
			    err, TS_EINVAL,
			    "--chapters takes chapter numbers as in the file names, "
			    "like 3,5-7, not '%s'",
			    list);
		if (a < first || b > last)
			return ts_error_set(err, TS_EINVAL,
			                    "--chapters %s: the book's chapters are %03ld to %03ld",
			                    list, first, last);
		for (long k = a; k <= b; k++)
			in[k - p->base] = 1;
		s = *end ? end + 1 : end;
	}
	return 0;
}

/* The chapters this build makes: all, or those --chapters and --shard
 * take. */
static int select_chapters(ts_plan *p, ts_error *err)
{
	long si = 1, sn = 1;
	if (!(p->selected = malloc(p->n)))
		return ts_error_set(err, TS_ENOMEM, NULL);
	memset(p->selected, !p->o.chapters, p->n);
	if (p->o.chapters) {
		int rc = select_list(p, p->o.chapters, p->selected, err);
		if (rc)
			return rc;
	}
	if (p->o.shard && parse_shard(p->o.shard, &si, &sn))
		return ts_error_set(err, TS_EINVAL,
		                    "--shard takes I/N, part I of N (1 <= I <= N), not '%s'",
		                    p->o.shard);
	/* Every N-th chapter: long and short ones spread over the parts. */
	for (size_t i = 0; i < p->n; i++)
		if ((long)(i % (size_t)sn) != si - 1)
			p->selected[i] = 0;
	return 0;
}

/* A speaker's preset, for the manifest's cast. */
static int note_cast(void *ud, const ts_attribution *a)
{
	ts_plan *p = ud;
	if (!strcmp(a->speaker, "-") || !strcmp(a->speaker, "?"))
		return 0;
	for (size_t i = 0; i < p->ncast; i++)
		if (!strcmp(p->cast[i].speaker, a->speaker))
			return 0;
	const ts_voice *v = ts_casting_voice(p->voicing.voices, &p->rd.voice, a);
	if (ts_grow(&p->cast, &p->cast_cap, p->ncast + 1, sizeof *p->cast))
		return TS_ENOMEM;
	if (!(p->cast[p->ncast].speaker = ts_strdup(a->speaker)))
		return TS_ENOMEM;
	p->cast[p->ncast++].voice = v->name;
	return 0;
}

/* --dialogue voices, or a cast file: the book's speakers learnt once,
 * before the workers start (each chapter is spoken in a fork of one: all
 * see the same), and the presets to cast. */
static int plan_voicing(ts_plan *p, char *const *inputs, size_t ninputs, ts_error *err)
{
	char dir[PATH_MAX];
	ts_dialogue *dl = ts_dialogue_new(ts_lang_words(p->rd.lang, TS_WORDS_DIALOGUE));
	if (!dl)
		return ts_error_set(err, TS_ENOMEM, NULL);
	int rc = ts_cast_load(dl, p->o.cast, inputs, ninputs, p->diag, p->ud, err);
	if (rc < 0 || p->o.dialogue == TS_DIALOGUE_NARRATOR ||
	    (rc == 0 && p->o.dialogue != TS_DIALOGUE_VOICES)) {
		ts_dialogue_free(dl);
		return rc < 0 ? rc : 0;
	}
	if ((rc = ts_reading_voices_dir(p->o.read.voices_dir, dir, sizeof dir, err))) {
		ts_dialogue_free(dl);
		return rc;
	}
	p->voicing.dialogue = dl;
	if (!(p->voicing.voices = ts_voice_cache_new(dir)))
		return ts_error_set(err, TS_ENOMEM, NULL);
	if ((rc = ts_dialogue_book(dl, p->book, note_cast, p)))
		return ts_error_set(err, rc, "cannot read the book's dialogue: %s",
		                    ts_strerror(rc));
	return 0;
}

int ts_plan_new(ts_plan **out, const ts_build_opts *o, char *const *inputs, size_t ninputs,
                ts_diag_fn diag_fn, void *ud, ts_error *err)
{
	*out = NULL;
	ts_plan *p = calloc(1, sizeof *p);
	if (!p)
		return ts_error_set(err, TS_ENOMEM, NULL);
	p->o = *o;
	p->diag = diag_fn;
	p->ud = ud;
	int rc = check_settings(p, err);
	if (!rc)
		rc = ts_reading_load(&p->rd, &o->read, inputs, ninputs, diag_fn, ud, err);
	if (rc)
		goto fail;
	if (o->sentence_pause_ms >= 0)
		p->rd.voice.sentence_pause_ms = o->sentence_pause_ms;
	if (o->paragraph_pause_ms >= 0)
		p->rd.voice.paragraph_pause_ms = o->paragraph_pause_ms;
	p->book = ts_book_new(diag_fn, ud);
	if (!p->book || ts_book_set_encoding(p->book, o->read.encoding)) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto fail;
	}
	ts_book_set_cancel(p->book, o->cancel);
	for (size_t i = 0; i < ninputs && !rc; i++) {
		int r = ts_book_add(p->book, inputs[i]);
		/* A file that cannot be read for want of memory or disk, or
		 * whose copy in TMPDIR cannot be written, fails the whole build
		 * before anything is written: the machine's fault, not the
		 * file's.  A bad or unreadable file is skipped. */
		if (ts_error_retryable(r) || r == TS_ETEMP)
			rc = ts_error_set(err, r, "%s: cannot read it: %s; nothing was built",
			                  inputs[i], ts_strerror(r));
		else if (r)
			p->inputs_failed++;
	}
	if (rc)
		goto fail;
	if (o->cancel && *o->cancel) {
		rc = ts_error_set(err, TS_ECANCELED, NULL);
		goto fail;
	}
	/* An EPUB names its author: the tags' and manifest's, unless --author. */
	if (!p->o.author && ts_book_author(p->book) &&
	    ts_utf8_check(ts_book_author(p->book), strlen(ts_book_author(p->book)), 1) ==
	        strlen(ts_book_author(p->book)))
		p->o.author = ts_book_author(p->book);
	/* And its cover is the whole-book files' cover, unless --cover. */
	if (!p->o.cover && p->book_kinds && ts_book_cover(p->book)) {
		ts_error bad = {0};
		if (ts_m4b_check_cover(ts_book_cover(p->book), &bad) == 0)
			p->o.cover = ts_book_cover(p->book);
		else if (diag_fn)
			diag_fn(
			    ud, TS_WARNING,
			    "the EPUB's cover is not a JPEG or PNG picture of at most 20 MB: the "
			    "whole-book files have no cover (give one with --cover)");
	}
	p->n = ts_book_count(p->book);
	if (p->n == 0) {
		rc = ts_error_set(err, TS_EEMPTY,
		                  "nothing to build: no chapter with text in the input");
		goto fail;
	}
	if ((rc = name_chapters(p, err)))
		goto fail;
	if ((rc = select_chapters(p, err)))
		goto fail;
	if ((rc = plan_voicing(p, inputs, ninputs, err)))
		goto fail;
	*out = p;
	return 0;
fail:
	ts_plan_free(p);
	return rc;
}

void ts_plan_free(ts_plan *p)
{
	if (!p)
		return;
	for (int k = 0; k < TS_BOOK_KINDS; k++)
		free(p->whole[k].name);
	for (size_t i = 0; i < p->n; i++) {
		if (p->names)
			free(p->names[i]);
		if (p->paths)
			free(p->paths[i]);
		for (int t = 0; p->timing && t < TS_CUES_NFORMATS; t++)
			free(p->timing[i][t]);
	}
	free(p->names);
	free(p->paths);
	free(p->timing);
	free(p->selected);
	free(p->keys);
	ts_book_free(p->book);
	ts_dialogue_free(p->voicing.dialogue);
	for (size_t i = 0; i < p->ncast; i++)
		free(p->cast[i].speaker);
	free(p->cast);
	ts_voice_cache_free(p->voicing.voices);
	ts_reading_free(&p->rd);
	free(p);
}

size_t ts_plan_inputs_failed(const ts_plan *p)
{
	return p->inputs_failed;
}

const char *ts_plan_title(const ts_plan *p)
{
	return ts_book_title(p->book);
}

size_t ts_plan_count(const ts_plan *p)
{
	return p->n;
}

void ts_plan_chapter_get(const ts_plan *p, size_t i, ts_plan_chapter *out)
{
	const ts_chapter *ch = ts_book_chapter(p->book, i);
	*out = (ts_plan_chapter){.file = p->names[i],
	                         .title = ch->title,
	                         .source = ch->display,
	                         .line = ch->line,
	                         .chars = ch->chars,
	                         .front_matter = ch->front_matter};
}

int ts_plan_print(const ts_plan *p, ts_write_fn out, void *ud)
{
	ts_buf b = {0};
	ts_buf_printf(&b, "book: %s\n", ts_book_title(p->book));
	for (size_t i = 0; i < p->n; i++) {
		const ts_chapter *ch = ts_book_chapter(p->book, i);
		ts_buf_printf(&b, "%s\t%s:%ld\t%zu chars\t%s%s\n", p->names[i], ch->display,
		              ch->line, ch->chars, ch->title,
		              ch->front_matter ? " (front matter)" : "");
	}
	int rc = ts_buf_error(&b) ? ts_buf_error(&b) : out(ud, b.data, b.len);
	ts_buf_free(&b);
	return rc;
}

/* ---- progress ------------------------------------------------------- */

void ts_duration_text(double s, char *out, size_t sz)
{
	if (s >= 3600)
		snprintf(out, sz, "%d h %02d min", (int)(s / 3600), (int)fmod(s / 60, 60));
	else if (s >= 60)
		snprintf(out, sz, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60));
	else
		snprintf(out, sz, "%.1f s", s);
}

void ts_progress_text(const ts_progress *p, char *out, size_t sz)
{
	char eta[64] = "--", audio[64], fin[64] = "";
	if (p->eta_s >= 0)
		ts_duration_text(p->eta_s, eta, sizeof eta);
	ts_duration_text(p->audio_s, audio, sizeof audio);
	if (p->finishing == 1 && p->finish_done < 1)
		snprintf(fin, sizeof fin, ", finishing 1 chapter (%d%%)",
		         (int)(p->finish_done * 100));
	else if (p->finishing == 1)
		snprintf(fin, sizeof fin, ", finishing 1 chapter (levelling again, %d%%)",
		         (int)(fmod(p->finish_done, 1) * 100));
	else if (p->finishing > 1)
		snprintf(fin, sizeof fin, ", finishing %zu chapters", p->finishing);
	snprintf(out, sz, "[%zu/%zu chapters] %s of audio made%s, ETA %s", p->chapters_done,
	         p->chapters, audio, fin, eta);
}

void ts_summary_text(const ts_build_summary *s, const char *outdir, char *out, size_t sz)
{
	char audio[64], took[64], kept[64] = "", failed[64] = "";
	if (s->built == 0 && s->failed == 0) {
		snprintf(out, sz, "%zu chapters up to date in %s", s->kept, outdir);
		return;
	}
	ts_duration_text(s->audio_s, audio, sizeof audio);
	ts_duration_text(s->elapsed_s, took, sizeof took);
	if (s->kept)
		snprintf(kept, sizeof kept, ", %zu up to date", s->kept);
	if (s->failed)
		snprintf(failed, sizeof failed, ", %zu failed", s->failed);
	snprintf(out, sz, "built %zu of %zu chapters (%s of audio)%s%s in %s into %s", s->built,
	         s->chapters, audio, kept, failed, took, outdir);
}

typedef struct progress {
	const ts_plan *plan;
	const ts_build_events *ev;
	size_t total_chars;
	size_t done_chars; /* of finished chapters */
	size_t *partial;   /* chars done per chapter in progress */
	uint64_t *partial_samples;
	double *partial_finish; /* 0-1: how far its file is put together */
	/* The share of a chapter's time spent putting its file together
	 * (levelling, limiting, encoding), learnt from the chapters done;
	 * until one is, a guess. */
	double speak_s, finish_s, finish_guess;
	uint64_t done_samples;
	size_t chapters_done, chapters; /* of those to build */
	int rate;
	double t0; /* ts_seconds() at the start */
	ts_chapter_result *results;
} progress;

/* Where the build is, for the caller's progress line. */
static void report_progress(const progress *p)
{
	/* The work done, in characters: a chapter's characters count as
	 * they are spoken, scaled by the share of its time speaking takes,
	 * and in full as its file is put together. */
	double f = p->speak_s + p->finish_s > 0 ? p->finish_s / (p->speak_s + p->finish_s)
	                                        : p->finish_guess;
	double work = (double)p->done_chars;
	uint64_t samples = p->done_samples;
	ts_progress r = {.chapters_done = p->chapters_done, .chapters = p->chapters, .eta_s = -1};
	for (size_t i = 0; i < p->plan->n; i++) {
		samples += p->partial_samples[i];
		work += (1 - f) * (double)p->partial[i];
		if (p->partial_finish[i] > 0) {
			r.finishing++;
			r.finish_done = p->partial_finish[i];
			/* Passes run again to correct the level are not
			 * foreseen: the chapter counts as done meanwhile. */
			work += f * fmin(p->partial_finish[i], 1) *
			        (double)ts_book_chapter(p->plan->book, i)->chars;
		}
	}
	double el = ts_seconds() - p->t0;
	if (work > 0 && (double)p->total_chars > work)
		r.eta_s = el * ((double)p->total_chars - work) / work;
	r.audio_s = p->rate ? (double)samples / p->rate : 0.0;
	p->ev->progress(p->ev->ud, &r);
}

static void on_event(void *ud, const ts_worker_event *ev)
{
	progress *p = ud;
	size_t i = ev->chapter;
	switch (ev->kind) {
	case TS_EV_READY: p->rate = (int)ev->samples; return;
	case TS_EV_STARTED:
	case TS_EV_PROGRESS:
		p->partial[i] = ev->chars_done;
		p->partial_samples[i] = ev->samples;
		p->partial_finish[i] = ev->finishing;
		break;
	case TS_EV_DONE: {
		const ts_chapter_result *r = &p->results[i];
		p->partial[i] = 0;
		p->partial_samples[i] = 0;
		p->partial_finish[i] = 0;
		p->speak_s += r->speak_s;
		p->finish_s += r->finish_s;
		p->chapters_done++;
		p->done_chars += ts_book_chapter(p->plan->book, i)->chars;
		p->done_samples += ev->samples;
		if (r->err.code == 0)
			diag(p->plan, TS_INFO,
			     "[%zu/%zu] %s: %.1f s, %zu sentences, %zu characters",
			     p->chapters_done, p->chapters, p->plan->names[i],
			     p->rate ? (double)r->samples / p->rate : 0.0, r->sentences, r->chars);
		break;
	}
	}
	if (p->ev->progress)
		report_progress(p);
}

/* ---- the build ------------------------------------------------------ */

/* What a build works on: which chapters it builds, the records they had. */
typedef struct work {
	char *todo;      /* per chapter: to build (its lock is held) */
	ts_record **old; /* per chapter to build: its earlier record, or NULL */
	size_t ntodo, kept, failed, retry;
	size_t empty; /* chapters with nothing to speak, skipped */
} work;

static void work_free(const ts_plan *p, work *w, size_t n)
{
	for (size_t i = 0; w->todo && i < n; i++)
		if (w->todo[i])
			ts_lock_release(p->o.outdir, p->names[i]);
	for (size_t i = 0; w->old && i < n; i++)
		free(w->old[i]);
	free(w->old);
	free(w->todo);
}

/* The key of every chapter; of those selected, the ones to build: all
 * with --force, else those whose record is missing, has another key or
 * names files that are not there as they were.  A chapter that cannot be
 * read is an error of its own; one known to have nothing to speak (an
 * empty record of its key) is skipped again with its warning.  0, or
 * TS_ENOMEM. */
static int plan_work(ts_plan *p, work *w, const ts_chapter_job *job, ts_error *err)
{
	size_t n = p->n;
	p->keys = calloc(n, sizeof *p->keys);
	w->todo = calloc(n, 1);
	w->old = calloc(n, sizeof *w->old);
	ts_record *r = malloc(sizeof *r);
	if (!p->keys || !w->todo || !w->old || !r) {
		free(r);
		return ts_error_set(err, TS_ENOMEM, NULL);
	}
	for (size_t i = 0; i < n; i++) {
		ts_error e = {0};
		int rc;
		if (ts_chapter_key(job, i, p->keys[i], &e)) {
			if (p->selected[i]) {
				diag(p, TS_ERROR, "%s", ts_error_msg(&e));
				w->failed++;
			}
			continue;
		}
		if (!p->selected[i])
			continue;
		int had = ts_record_read(p->o.outdir, p->names[i], r, NULL) == 1;
		if (had && !p->o.force && strcmp(r->key, p->keys[i]) == 0 && r->empty) {
			const ts_chapter *ch = ts_book_chapter(p->book, i);
			diag(p, TS_WARNING,
			     "%s:%ld: chapter \"%s\" has nothing to speak (no words, only "
			     "punctuation or symbols); skipped",
			     ch->display, ch->line, ch->title);
			w->empty++;
			continue;
		}
		if (had && !p->o.force && strcmp(r->key, p->keys[i]) == 0 &&
		    ts_record_files_ok(p->o.outdir, r)) {
			w->kept++;
			continue;
		}
		/* One build at a time writes a chapter. */
		if ((rc = ts_lock_take(p->o.outdir, p->names[i], &e))) {
			diag(p, TS_ERROR, "%s", ts_error_msg(&e));
			w->failed++;
			w->retry += ts_error_retryable(rc);
			continue;
		}
		w->todo[i] = 1;
		w->ntodo++;
		if (had) {
			w->old[i] = r;
			if (!(r = malloc(sizeof *r)))
				return ts_error_set(err, TS_ENOMEM, NULL);
		}
	}
	free(r);
	return 0;
}

/* Each built chapter's warning, or its error; then a warning when the
 * limiter kept chapters from their level, or took much to reach it. */
static void report_chapters(const ts_plan *p, const ts_chapter_result *res, int rate, work *w,
                            ts_build_summary *sum)
{
	const ts_master_opts *mo = &p->mo;
	size_t heavy = 0, heaviest = 0, missed = 0, farthest = 0, normalized = 0, repassed = 0;
	double most = 0, worst_miss = 0;
	for (size_t i = 0; i < p->n; i++) {
		const ts_chapter_result *r = &res[i];
		if (!w->todo[i])
			continue;
		if (r->warning[0])
			diag(p, TS_WARNING, "%s", r->warning);
		if (r->err.code == TS_EEMPTY) { /* README: "warning; skipped" */
			diag(p, TS_WARNING, "%s", ts_error_msg(&r->err));
			w->empty++;
			continue;
		}
		if (r->err.code) {
			diag(p, TS_ERROR, "%s", ts_error_msg(&r->err));
			w->failed++;
			w->retry += ts_error_retryable(r->err.code);
			continue;
		}
		sum->built++;
		sum->audio_s += rate ? (double)r->samples / rate : 0;
		normalized += r->audio.passes > 0;
		repassed += r->audio.passes > 1;
		/* The gain it took beyond the target's to make up for what
		 * the limiter took off. */
		double made_up = r->audio.gain_db - (mo->target_lufs - r->audio.level_lufs);
		if (mo->normalize && made_up > HEAVY_LIMITING_DB) {
			if (made_up > most)
				most = made_up, heaviest = i;
			heavy++;
		}
		double miss = fabs(r->audio.output_lufs - mo->target_lufs);
		if (mo->normalize && miss > 0.5) {
			if (miss > worst_miss)
				worst_miss = miss, farthest = i;
			missed++;
		}
	}
	if (normalized)
		diag(p, TS_INFO, "loudness: %zu of %zu chapters took more than one pass", repassed,
		     normalized);
	if (missed)
		diag(p, TS_WARNING,
		     "%zu of %zu chapters could not be brought to %g LUFS under a true peak of %g "
		     "dBTP: the limiter holds them down (the farthest: %s, at %.1f LUFS); a lower "
		     "--loudness or a higher --true-peak reaches its target",
		     missed, w->ntodo, mo->target_lufs, mo->ceiling_dbtp, p->names[farthest],
		     res[farthest].audio.output_lufs);
	else if (heavy)
		diag(
		    p, TS_WARNING,
		    "%zu of %zu chapters took more than %.0f dB of limiting to reach %g LUFS under "
		    "a true peak of %g dBTP (the most: %.1f dB, %s); the speech may sound "
		    "flattened: a lower --loudness or a higher --true-peak sounds more natural",
		    heavy, w->ntodo, HEAVY_LIMITING_DB, mo->target_lufs, mo->ceiling_dbtp, most,
		    p->names[heaviest]);
}

/* A chapter lands with the book files that include it (in the process
 * that spoke it): the book files say at once what the folder holds. */
static int land_chapter(const void *ud, const ts_landing *l, ts_error *err)
{
	return ts_folder_land(ud, l, err);
}

/* How each chapter of the plan is made. */
static ts_chapter_job chapter_job(const ts_plan *p)
{
	return (ts_chapter_job){.book = p->book,
	                        .voice = &p->rd.voice,
	                        .voicing = p->voicing.dialogue ? &p->voicing : NULL,
	                        .lang = p->rd.lang,
	                        .rate_factor = p->o.rate,
	                        .format = p->fmt,
	                        .master = p->mo,
	                        .quality = p->o.quality,
	                        .author = p->o.author,
	                        .paths = p->paths,
	                        .timing = p->timing_mask,
	                        .owner_pid = (long)getpid()};
}

/* The job of the worker pool for the chapters of w. */
static ts_workers_job pool_job(const ts_plan *p, const work *w)
{
	return (ts_workers_job){.chapters = chapter_job(p),
	                        .workers = p->o.jobs,
	                        .cancel = p->o.cancel,
	                        .todo = w->todo,
	                        .outdir = p->o.outdir,
	                        .keys = p->keys,
	                        .land = land_chapter,
	                        .land_ud = p};
}

/* The worker pool over the chapters to build, progress reported as it
 * goes; then the files the rebuilt chapters no longer make are removed. */
static int run_pool(ts_plan *p, work *w, const ts_build_events *ev, ts_build_summary *sum,
                    ts_error *err)
{
	size_t n = p->n;
	ts_build_events none = {0};
	progress prog = {
	    .plan = p, .ev = ev ? ev : &none, .t0 = ts_seconds(), .chapters = w->ntodo};
	/* With loudness on, a chapter's second pass takes a fair share of
	 * its time (bench/finishing.sh; bench/README.md); without, next to
	 * nothing. */
	prog.finish_guess = p->mo.normalize ? 0.2 : 0.0;
	for (size_t i = 0; i < n; i++)
		if (w->todo[i])
			prog.total_chars += ts_book_chapter(p->book, i)->chars;
	prog.partial = calloc(n, sizeof *prog.partial);
	prog.partial_samples = calloc(n, sizeof *prog.partial_samples);
	prog.partial_finish = calloc(n, sizeof *prog.partial_finish);
	prog.results = calloc(n, sizeof *prog.results);
	ts_workers_stats stats = {0};
	int rc = 0;
	if (!prog.partial || !prog.partial_samples || !prog.partial_finish || !prog.results) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	ts_workers_job job = pool_job(p, w);
	rc = ts_workers_run(&job, prog.results, &stats, on_event, &prog, err);
	if (p->o.cancel && *p->o.cancel) {
		rc = ts_error_set(err, TS_ECANCELED, "interrupted; unfinished files removed");
		goto out;
	}
	if (rc)
		goto out;
	diag(p, TS_INFO, "largest worker peak memory: %ld KB", stats.worker_maxrss_kb);
	for (size_t i = 0; i < n; i++) {
		int code = prog.results[i].err.code;
		if (w->todo[i] && w->old[i] && (!code || code == TS_EEMPTY))
			ts_folder_remove_superseded(p, i, w->old[i], code == TS_EEMPTY);
	}
	report_chapters(p, prog.results, stats.sample_rate, w, sum);
out:
	free(prog.partial);
	free(prog.partial_samples);
	free(prog.partial_finish);
	free(prog.results);
	return rc;
}

int ts_plan_build(ts_plan *p, const ts_build_events *ev, ts_build_summary *sum, ts_error *err)
{
	double t0 = ts_seconds();
	work w = {0};
	size_t present = 0;
	int complete = 0;
	memset(sum, 0, sizeof *sum);
	sum->chapters = p->n;
	int rc = ts_folder_open(p, err);
	if (rc)
		return rc;
	ts_folder_sweep(p, -1); /* what builds killed on this machine left */
	ts_chapter_job job = chapter_job(p);
	if ((rc = plan_work(p, &w, &job, err)) || (rc = ts_wholebook_plan(p, err)))
		goto out;
	sum->kept = w.kept;
	/* A book being built again says so before anything changes; if it
	 * cannot (a full disk), nothing is built: the book files would go on
	 * calling the chapters about to change up to date. */
	if (w.ntodo && (rc = ts_folder_write_book(p, &present, &complete, err)))
		goto out;
	if (w.ntodo && (rc = run_pool(p, &w, ev, sum, err)))
		goto out;
	if ((rc = ts_folder_write_book(p, &present, &complete, err)))
		goto out;
	/* The whole-book files once the book is whole. */
	if (complete && (rc = ts_wholebook_update(p, err)))
		goto out;
	sum->chapters -= w.empty;
	sum->failed = w.failed;
	sum->retry = w.retry;
	sum->complete = complete;
	sum->elapsed_s = ts_seconds() - t0;
out:
	ts_folder_sweep(p, (long)getpid());
	work_free(p, &w, p->n);
	return rc;
}
