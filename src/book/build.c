/* build.c - the build of an output folder from a plan (ts_plan_build):
 * the folder checked and swept, the chapters due (record missing, of
 * another key, or its files not there as they were), the worker pool
 * over them with progress as it goes, the warnings a build gives, the
 * book files (manifest, playlist, read-along page) and the whole-book
 * files once the book is whole, and the files of an earlier build that
 * the rebuilt chapters no longer make. */
#include "book/chapterkey.h"
#include "book/locks.h"
#include "book/plan.h"
#include "book/workers.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Past this much gain to make up for what the limiter takes off, a
 * chapter is limited heavily: a loud target under a low ceiling takes
 * several dB, the default target next to none (bench/README.md). */
#define HEAVY_LIMITING_DB 3.0

/* How long chapters built wait to be put in place with the book files: a
 * build writes those (the whole manifest, playlist and page) at most this
 * often, not for every chapter, so that a book of thousands of short
 * chapters costs what a book of a hundred long ones does, while the
 * folder shows a build's progress within seconds; and, should writing
 * them take long (a slow disk, a book of tens of thousands of
 * chapters), at most this share of the time. */
#define BOOK_FILES_EVERY_S 2.0
#define BOOK_FILES_SHARE   0.05

static void diag(const ts_plan *p, ts_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void diag(const ts_plan *p, ts_level level, const char *fmt, ...)
{
	char msg[TS_MSG_MAX];
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

/* ---- progress ------------------------------------------------------- */

typedef struct progress {
	ts_plan *plan;
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
	size_t built; /* chapters made (what an interrupted build says it did) */
	uint64_t built_samples;
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
	case TS_EV_TICK: break;
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
		p->built += r->err.code == 0;
		p->built_samples += r->err.code == 0 ? r->samples : 0;
		if (r->err.code == 0)
			diag(p->plan, TS_INFO,
			     "[%zu/%zu] %s: %.1f s, %zu sentences, %zu characters",
			     p->chapters_done, p->chapters, p->plan->names[i],
			     p->rate ? (double)r->samples / p->rate : 0.0, r->sentences, r->chars);
		if (r->err.code == 0 || r->err.code == TS_EEMPTY) /* at its temporary names */
			p->plan->nlanded += !p->plan->landed[i], p->plan->landed[i] = 1;
		break;
	}
	}
	if (p->plan->nlanded && ts_seconds() - p->plan->written_at >=
	                            fmax(BOOK_FILES_EVERY_S, p->plan->write_s / BOOK_FILES_SHARE)) {
		ts_error e = {0}; /* a failure fails the chapters landed (report_chapters) */
		ts_folder_flush(p->plan, NULL, p->results, &e);
	}
	if (p->ev->progress && ev->kind != TS_EV_TICK)
		report_progress(p);
}

/* ---- the build ------------------------------------------------------ */

/* What a build works on: which chapters it builds, the records they had. */
typedef struct work {
	char *todo;      /* per chapter: to build (its lock is held) */
	ts_record **old; /* per chapter to build: its earlier record, or NULL */
	size_t ntodo, kept, failed, retry;
	size_t empty; /* chapters with nothing to speak, skipped */
	int ro;       /* the folder cannot be written: no lock taken */
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

/* How each chapter of the plan is made. */
static ts_chapter_job chapter_job(const ts_plan *p)
{
	return (ts_chapter_job){.book = p->book,
	                        .voice = &p->rd.voice,
	                        .voicing = p->voicing.dialogue ? &p->voicing : NULL,
	                        .lang = p->rd.lang,
	                        .boilerplate = p->rd.boilerplate,
	                        .boilerplate_flags = p->rd.boilerplate_flags,
	                        .rate_factor = p->o.rate,
	                        .format = p->fmt,
	                        .master = p->mo,
	                        .quality = p->o.quality,
	                        .author = p->o.author,
	                        .paths = p->paths,
	                        .timing = p->timing_mask,
	                        .pieces = ts_wholebook_aac_rate(p) != 0,
	                        .owner_pid = (long)getpid()};
}

int ts_plan_due(ts_plan *p, size_t i, ts_record *old, int *had, ts_due *due, ts_error *err)
{
	ts_chapter_job job = chapter_job(p);
	char key[TS_HASH_HEX];
	int rc = ts_chapter_key(&job, i, p->keys[i], err);
	if (!rc && i > 0)
		ts_chapter_key_chain(p->book, i, p->keys[i - 1], p->keys[i]);
	if (rc)
		return rc;
	*had = ts_record_read(p->o.outdir, p->names[i], old, NULL) == 1;
	/* A chapter with two readings (whole; in pieces with --book) keeps the one
	 * it was built with while its text is the same, asked for by this build or not. */
	ts_chapter_job other = job;
	other.pieces = 1;
	if (*had && strcmp(old->key, p->keys[i]) != 0 && ts_chapter_in_pieces(&other, i)) {
		other.pieces = !job.pieces;
		if (!(rc = ts_chapter_key(&other, i, key, err)) && !strcmp(old->key, key))
			memcpy(p->keys[i], key, TS_HASH_HEX);
	}
	if (rc || !p->selected[i])
		return rc;
	*due = ts_record_due(p->o.outdir, *had ? old : NULL, p->keys[i], p->o.force);
	return 1;
}

/* The key of every chapter; of those selected, the ones to build: all
 * with --force, else those whose record is missing, has another key or
 * names files that are not there as they were.  A chapter that cannot be
 * read is an error of its own; one known to have nothing to speak (an
 * empty record of its key) is skipped again with its warning.  0, or
 * TS_ENOMEM. */
static int plan_work(ts_plan *p, work *w, ts_error *err)
{
	size_t n = p->n;
	p->keys = calloc(n, sizeof *p->keys);
	p->listed = calloc(n ? n : 1, sizeof *p->listed);
	p->landed = calloc(n ? n : 1, 1);
	w->todo = calloc(n, 1);
	w->old = calloc(n, sizeof *w->old);
	ts_record *r = malloc(sizeof *r);
	if (!p->keys || !p->listed || !p->landed || !w->todo || !w->old || !r) {
		free(r);
		return ts_error_set(err, TS_ENOMEM, NULL);
	}
	for (size_t i = 0; i < n; i++) {
		ts_error e = {0};
		ts_due due = TS_DUE_KEPT; /* set when rc is 1, which gcc -O3 cannot see */
		int had = 0, rc = ts_plan_due(p, i, r, &had, &due, &e);
		if (rc < 0 && p->selected[i]) {
			diag(p, TS_ERROR, "%s", ts_error_msg(&e));
			w->failed++;
		}
		if (rc <= 0)
			continue;
		if (due == TS_DUE_EMPTY) {
			const ts_chapter *ch = ts_book_chapter(p->book, i);
			diag(p, TS_WARNING,
			     "%s:%ld: chapter \"%s\" has nothing to speak (no words, or only "
			     "the site's: see tingshu text --dropped); skipped",
			     ch->display, ch->line, ch->title);
			w->empty++;
			continue;
		}
		if (due == TS_DUE_KEPT) {
			w->kept++;
			continue;
		}
		if (w->ro) { /* due, but it cannot be built here */
			w->ntodo++;
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

/* The job of the worker pool for the chapters of w. */
static ts_workers_job pool_job(const ts_plan *p, const work *w)
{
	return (ts_workers_job){.chapters = chapter_job(p),
	                        .workers = p->o.jobs,
	                        .cancel = p->o.cancel,
	                        .todo = w->todo,
	                        .outdir = p->o.outdir,
	                        .keys = p->keys,
	                        .aac_bit_rate = ts_wholebook_aac_rate(p),
	                        .tick_s = BOOK_FILES_EVERY_S};
}

/* The worker pool over the chapters to build, progress reported as it
 * goes, the chapters put in place with the book files every few seconds
 * and at the end (ts_folder_write_book(): *complete); then the files the
 * rebuilt chapters no longer make are removed. */
static int run_pool(ts_plan *p, work *w, const ts_build_events *ev, ts_build_summary *sum,
                    int *complete, ts_error *err)
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
	ts_error werr = {0};
	int wrc = 0;
	/* Stopped, what it made goes into place all the same. */
	if (rc || (p->o.cancel && *p->o.cancel))
		ts_folder_flush(p, NULL, prog.results, &werr);
	else
		wrc = ts_folder_write_book(p, prog.results, complete, &werr);
	if (p->o.cancel && *p->o.cancel) {
		sum->built = prog.built; /* its summary says what it made */
		sum->audio_s = prog.rate ? (double)prog.built_samples / prog.rate : 0;
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
	if (wrc)
		rc = wrc, *err = werr;
out:
	free(prog.partial);
	free(prog.partial_samples);
	free(prog.partial_finish);
	free(prog.results);
	return rc;
}

/* Is every whole-book file asked for there, as it is to be? */
static int wholebook_listed(const ts_plan *p)
{
	int k = 0;
	while (k < TS_BOOK_KINDS && (!(p->book_kinds & 1u << k) || p->whole[k].listed))
		k++;
	return k == TS_BOOK_KINDS;
}

/* What tells the book from another in a folder: its title and inputs. */
static void book_identity(const ts_plan *p, char id[TS_HASH_HEX])
{
	ts_hash h;
	ts_hash_init(&h);
	ts_hash_str(&h, ts_book_title(p->book));
	for (size_t i = 0; i < p->n; i++)
		if (ts_plan_input_starts(p, i))
			ts_hash_str(&h, ts_book_chapter(p->book, i)->display);
	ts_hash_hex(&h, id);
}

int ts_plan_build(ts_plan *p, const ts_build_events *ev, ts_build_summary *sum, ts_error *err)
{
	double t0 = ts_seconds();
	work w = {0};
	int complete = 0;
	char id[TS_HASH_HEX];
	memset(sum, 0, sizeof *sum);
	sum->chapters = p->n;
	book_identity(p, id);
	int rc = ts_folder_open(p, err);
	if (rc < 0)
		return rc;
	if (!(w.ro = rc) && (rc = ts_lock_build(p->o.outdir, id, err)))
		return rc;
	if (!w.ro)
		ts_folder_sweep(p, -1); /* what builds killed on this machine left */
	if ((rc = plan_work(p, &w, err)) || (rc = ts_wholebook_plan(p, err)))
		goto out;
	sum->kept = w.kept;
	/* A folder that cannot be written is enough for a book with nothing
	 * to make: its book files are left as they are. */
	if (w.ro && (w.ntodo || !wholebook_listed(p))) {
		rc = err->code;
		goto out;
	}
	complete = !p->inputs_failed;
	if (w.ro)
		goto done;
	/* A book being built again says so before anything changes; if it
	 * cannot (a full disk), nothing is built: the book files would go on
	 * calling the chapters about to change up to date. */
	if (w.ntodo && (rc = ts_folder_write_book(p, NULL, &complete, err)))
		goto out;
	if ((rc = w.ntodo ? run_pool(p, &w, ev, sum, &complete, err)
	                  : ts_folder_write_book(p, NULL, &complete, err)))
		goto out;
	/* The whole-book files once the book is whole. */
	if (complete && (rc = ts_wholebook_update(p, err)))
		goto out;
done:
	sum->complete = complete;
out: /* the summary, as far as the build went: a failed book has one too */
	sum->chapters -= w.empty;
	sum->failed = w.failed;
	sum->retry = w.retry;
	sum->elapsed_s = ts_seconds() - t0;
	ts_folder_sweep(p, (long)getpid());
	work_free(p, &w, p->n);
	ts_lock_build_release(p->o.outdir, id);
	return rc;
}
