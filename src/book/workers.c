/* workers.c - the worker pool (see workers.h): the worker processes, the
 * pipes between them and the parent, and the messages on those pipes.
 *
 * Protocol: each worker has a command pipe from the parent (a chapter
 * index, or -1 to quit) and all share one result pipe to the parent;
 * every message is smaller than PIPE_BUF, so writes from several
 * workers never interleave. */
#include "book/workers.h"

#include "book/chapterkey.h"
#include "book/levelprobe.h"
#include "book/records.h"

#include "audio/aac.h"
#include "publish/cues.h"
#include "base/file.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the messages --------------------------------------------------- */

/* MSG_FAILED: the unit that begins at `chapter` failed, its results unsent. */
enum msg_type { MSG_READY, MSG_INIT_FAIL, MSG_STARTED, MSG_PROGRESS, MSG_DONE, MSG_FAILED };

typedef struct msg {
	int type;
	int worker;
	int chapter;
	int last; /* MSG_DONE: the last chapter of its unit */
	int rate, wpm;
	long maxrss_kb; /* peak memory of the process that spoke the chapter */
	size_t chars_done;
	uint64_t samples;
	double finishing;
	ts_chapter_result res;
} msg;

_Static_assert(sizeof(msg) <= 4096, "a message must fit in PIPE_BUF for atomic writes");

static int read_all(int fd, void *p, size_t n)
{
	ssize_t got = ts_read_full(fd, p, n);
	return got == (ssize_t)n ? 0 : got == 0 ? 1 : TS_EIO; /* 1: end of stream */
}

/* ---- a worker -------------------------------------------------------- */

typedef struct worker_ctx {
	int id, res_fd, chapter;
} worker_ctx;

static void worker_progress(void *ud, size_t chars_done, uint64_t samples, double finishing)
{
	worker_ctx *w = ud;
	msg m = {.type = MSG_PROGRESS,
	         .worker = w->id,
	         .chapter = w->chapter,
	         .chars_done = chars_done,
	         .samples = samples,
	         .finishing = finishing};
	ts_write_full(w->res_fd, &m, sizeof m);
}

/* The AAC of chapter idx from its audio at its temporary name audio, at
 * the temporary name of its place (*path, *tmp), in this process: the
 * fork that spoke the chapter, alongside the other workers' chapters;
 * or, written as an M4A, the AAC its writer made (ts_aac_beside()).  The
 * pieces of the AAC there before (an edit) are copied, and the others
 * shared with a child process when there are cores to spare (ts_aac_encode()).
 * 0, or a code with err filled. */
static int make_aac(const ts_workers_job *job, int idx, const char *audio, char **path, char **tmp,
                    ts_error *err)
{
	const char *name = strrchr(job->chapters.paths[idx], '/');
	char key[TS_HASH_HEX];
	name = name ? name + 1 : job->chapters.paths[idx];
	if (!(*path = ts_record_aac_file(job->outdir, name)) ||
	    !(*tmp = ts_temp_name(*path, job->chapters.owner_pid)))
		return ts_error_set(err, TS_ENOMEM, NULL);
	ts_aac_key(job->keys[idx], job->aac_bit_rate, key);
	size_t n = ts_book_count(job->chapters.book),
	       todo = 0; /* half the workers or fewer: a core free each */
	for (size_t i = 0; i < n; i++)
		todo += !job->todo || job->todo[i];
	return ts_aac_take(job->chapters.paths[idx], audio, job->chapters.owner_pid, *tmp, key,
	                   job->aac_bit_rate, *path, 2 * todo <= (size_t)job->workers ? 2 : 1, err);
}

/* Make ready the files of chapter idx, just built and left at their
 * temporary names, with its record (see records.h): the timing files,
 * the audio, the AAC (with job->aac_bit_rate), the record last.  With job->keys they are left there
 * for the caller to put in place (workers.h), else put in place now, all or none.  A chapter found
 * to have nothing to speak (TS_EEMPTY) gets a record without files, so that later builds skip it as
 * up to date.  A failure fails the chapter, which is then as it was before, and a later build makes
 * it again; so does one spoken from an input that changed after the plan made its key
 * (TS_ECHANGED).  Not keep: its files are removed (spoken for the chapters after it). */
static void put_chapter(const ts_workers_job *job, int idx, const ts_synth *syn,
                        ts_chapter_result *res, const char *spoken_key, int keep)
{
	const ts_chapter_job *cj = &job->chapters;
	ts_record rec = {.empty = res->err.code == TS_EEMPTY,
	                 .synth_rate = ts_synth_rate(syn),
	                 .wpm = ts_synth_wpm(syn),
	                 .samples = res->samples,
	                 .sentences = res->sentences,
	                 .chars = res->chars,
	                 .audio = res->audio};
	char *tmp[TS_RECORD_FILES + 2] = {0}, *path[TS_RECORD_FILES + 2] = {0};
	size_t n = 0;
	int rc = 0;
	const char *slash = strrchr(cj->paths[idx], '/');
	const char *audio = slash ? slash + 1 : cj->paths[idx];
	/* The timing files, then the audio (the record lists the audio
	 * first), each with its temporary name. */
	for (int t = 0; t < TS_CUES_NFORMATS && !rec.empty && !rc; t++)
		if (cj->timing & (1u << t) && !(path[n++] = ts_cues_path(cj->paths[idx], t)))
			rc = TS_ENOMEM;
	if (!rec.empty && !rc && !(path[n++] = ts_strdup(cj->paths[idx])))
		rc = TS_ENOMEM;
	for (size_t i = 0; i < n && !rc; i++) {
		struct stat st;
		size_t f = (i + 1) % n; /* path[n - 1], the audio, is the record's file 0 */
		if (!(tmp[i] = ts_temp_name(path[i], cj->owner_pid)))
			rc = TS_ENOMEM;
		else if (!keep)
			continue;
		else if (stat(tmp[i], &st) != 0)
			rc = ts_error_set(&res->err, ts_errno_code(errno), "%s: %s", path[i],
			                  strerror(errno));
		else {
			const char *s = strrchr(path[i], '/');
			snprintf(rec.files[f], TS_RECORD_NAME, "%s", s ? s + 1 : path[i]);
			rec.sizes[f] = (long long)st.st_size;
		}
	}
	rec.nfiles = n;
	rc = keep ? rc : -1;
	if (job->keys && job->aac_bit_rate && !rec.empty && !rc &&
	    !(rc = make_aac(job, idx, tmp[n - 1], &path[n], &tmp[n], &res->err)))
		n++; /* put in place before the record */
	/* Spoken from other bytes than the key was made of: recorded, the
	 * chapter would be up to date with the wrong audio for good. */
	if (job->keys && !rc && strcmp(spoken_key, job->keys[idx]) != 0)
		rc = ts_error_set(&res->err, TS_ECHANGED,
		                  "%s changed while it was being built (chapter \"%s\"); build "
		                  "again",
		                  ts_book_chapter(cj->book, (size_t)idx)->display,
		                  ts_book_chapter(cj->book, (size_t)idx)->title);
	if (job->keys && !rc) {
		memcpy(rec.key, job->keys[idx], TS_HASH_HEX);
		if (!(path[n] = ts_record_file(job->outdir, audio)) ||
		    !(tmp[n] = ts_temp_name(path[n], cj->owner_pid)))
			rc = TS_ENOMEM;
		else
			rc = ts_record_write(job->outdir, audio, &rec, cj->owner_pid, &res->err);
	}
	if (rc == TS_ENOMEM)
		ts_error_set(&res->err, rc, "out of memory");
	if (!rc && !job->keys)
		ts_commit_files(job->outdir, tmp, path, n, cj->owner_pid, &res->err);
	else if (rc) /* what was made; a name out of memory leaves its file to the sweep */
		for (size_t i = 0; i <= n; i++)
			if (tmp[i])
				ts_unlink_in(job->outdir, tmp[i]);
	for (size_t i = 0; i <= n; i++) {
		free(tmp[i]);
		free(path[i]);
	}
	char *made = ts_aac_beside(cj->paths[idx], cj->owner_pid);
	if (made) /* an M4A's AAC not kept */
		unlink(made);
	free(made);
}

/* Before the first chapter, the gain of one-pass leveling into cj's
 * master settings.  Leveled otherwise, the chapter would not be what
 * another build makes of it: if it cannot be measured (short of memory),
 * the chapter fails, and the next one tries again.  0, or a code with
 * m->res.err filled. */
static int probe_level(ts_synth *syn, ts_chapter_job *cj, const ts_chapter *ch, msg *m)
{
	int rc = ts_level_probe(syn, cj, &cj->master);
	if (rc)
		ts_error_set(&m->res.err, rc,
		             "%s: chapter \"%s\": cannot measure the loudness of the voice: %s",
		             ch->display, ch->title, ts_strerror(rc));
	return rc;
}

/* The last chapter of the unit that begins at chapter first: of those
 * spoken after it in its process (chapterkey.h), the last to build. */
static size_t unit_last(const ts_workers_job *job, size_t first)
{
	const ts_book *b = job->chapters.book;
	size_t last = first, n = ts_book_count(b);
	for (size_t k = first; k < n && (k == first || ts_chapter_chained(b, k)); k++)
		if (!job->todo || job->todo[k])
			last = k;
	return last;
}

/* Speak chapter k of a unit in its fork, after the ones before it, which
 * left their key in prev: to job->todo, put in place with its result
 * sent (the unit's last saying so), else its files removed.  Once one has
 * failed (*failed), the others are not spoken: eSpeak's state is not what
 * a whole unit leaves. */
static void speak_one(const ts_workers_job *job, ts_synth *syn, worker_ctx *ctx, size_t k, int last,
                      char prev[TS_HASH_HEX], int *failed)
{
	const ts_chapter_job *cj = &job->chapters;
	int put = !job->todo || job->todo[k];
	msg m = {.type = MSG_STARTED, .worker = ctx->id, .chapter = (int)k, .last = last};
	ts_hash h;
	if (put)
		ts_write_full(ctx->res_fd, &m, sizeof m);
	m.type = MSG_DONE;
	const ts_chapter *ch = ts_book_chapter(cj->book, k);
	if (*failed) {
		ts_error_set(&m.res.err, TS_ECHILD, "%s: chapter \"%s\" not built: %s", ch->display,
		             ch->title, "one spoken before it in its process failed");
	} else {
		/* The key of what is spoken, made as it is spoken. */
		ts_feed tap = ts_chapter_key_feed(cj, k, &h);
		ctx->chapter = (int)k;
		ts_speak_chapter(cj, k, syn, &tap, &m.res, put ? worker_progress : NULL, ctx);
		char key[TS_HASH_HEX];
		ts_hash_hex(&h, key);
		ts_chapter_key_chain(cj->book, k, prev, key);
		memcpy(prev, key, TS_HASH_HEX);
		*failed = m.res.err.code && m.res.err.code != TS_EEMPTY;
		if (!*failed)
			put_chapter(job, (int)k, syn, &m.res, key, put);
	}
	if (!put)
		return;
	m.samples = m.res.samples;
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		m.maxrss_kb = ru.ru_maxrss;
	ts_write_full(ctx->res_fd, &m, sizeof m);
}

/* Speak chapters first..last of job, each put in place with its result
 * sent, in a fork of the worker: eSpeak carries state from one text to
 * the next (pitch flutter, filters), so each unit is spoken from the same
 * state, the freshly started worker's, whatever -j is.  0, or TS_ECHILD
 * with m->res.err filled when the fork could not be made or died. */
static int speak_in_fork(const ts_workers_job *job, ts_synth *syn, worker_ctx *ctx, size_t first,
                         size_t last, msg *m)
{
	const ts_chapter *ch = ts_book_chapter(job->chapters.book, first);
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		char prev[TS_HASH_HEX] = "";
		int failed = 0;
		for (size_t k = first; k <= last; k++)
			speak_one(job, syn, ctx, k, k == last, prev, &failed);
		/* No ts_synth_free(): eSpeak's terminate joins a thread
		 * that exists only in the worker, not in this fork. */
		_exit(0);
	}
	int st = 0;
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	if (pid < 0)
		return ts_error_set(&m->res.err, TS_ECHILD, "%s: cannot start a process: %s",
		                    ch->display, strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return ts_error_set(
		    &m->res.err, TS_ECHILD, "%s: the process speaking chapter \"%s\" died (%s %d)",
		    ch->display, ch->title, WIFSIGNALED(st) ? "signal" : "exit status",
		    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	return 0;
}

/* A worker: start eSpeak, say so, then build each unit of chapters the
 * parent hands out (by its first) until it says -1 or goes. */
static void worker_main(const ts_workers_job *job, int id, int cmd_fd, int res_fd)
{
	ts_workers_job wj = *job; /* its master gets the probe's gain */
	ts_error err = {0};
	ts_synth *syn = ts_synth_new(wj.chapters.voice, wj.chapters.rate_factor, &err);
	/* The voices of a book read in its speakers' voices at one loudness:
	 * a character is not louder than the narrator because eSpeak makes
	 * its variant louder, and the narrator's sample foresees a chapter's
	 * level (levelprobe.h). */
	if (syn && wj.chapters.voicing)
		ts_synth_level(syn, TS_VOICES_LEVEL_LUFS);
	msg m = {.type = syn ? MSG_READY : MSG_INIT_FAIL, .worker = id};
	if (syn) {
		m.rate = ts_synth_rate(syn);
		m.wpm = ts_synth_wpm(syn);
	} else {
		m.res.err = err;
	}
	if (ts_write_full(res_fd, &m, sizeof m) || !syn)
		goto out;
	worker_ctx ctx = {.id = id, .res_fd = res_fd};
	int probed = 0;
	for (;;) {
		int first;
		if (read_all(cmd_fd, &first, sizeof first) != 0 || first < 0)
			break;
		const ts_chapter *ch = ts_book_chapter(wj.chapters.book, (size_t)first);
		memset(&m, 0, sizeof m);
		m.type = MSG_FAILED, m.worker = id, m.chapter = first;
		int rc = !probed && wj.chapters.master.normalize
		             ? probe_level(syn, &wj.chapters, ch, &m)
		             : 0;
		probed |= !rc;
		/* Pieces from a unit's state; a unit that died may leave it waiting. */
		if (!rc && wj.chapters.pieces)
			rc = ts_spawner_ready(&wj.chapters.spawner, syn, &m.res.err);
		if (!rc && (rc = speak_in_fork(&wj, syn, &ctx, (size_t)first,
		                               unit_last(&wj, (size_t)first), &m)))
			ts_spawner_stop(wj.chapters.spawner), wj.chapters.spawner = NULL;
		/* The results the fork did not send. */
		if (rc && ts_write_full(res_fd, &m, sizeof m))
			break;
	}
out:
	ts_spawner_stop(wj.chapters.spawner);
	ts_synth_free(syn);
}

/* ---- the pool --------------------------------------------------------- */

typedef struct worker {
	pid_t pid;
	int cmd_fd;
	int unit; /* the first chapter of the unit in hand, or -1 */
	int alive;
	int ready; /* eSpeak NG started */
} worker;

/* The pool while it runs. */
typedef struct pool {
	const ts_workers_job *job;
	ts_chapter_result *results;
	ts_workers_stats *stats;
	ts_worker_event_fn fn;
	void *ud;
	size_t n; /* chapters */
	int nw;   /* workers */
	worker *ws;
	size_t *order; /* chapters to build, longest first */
	size_t norder;
	size_t next;   /* in order, the next to hand out */
	char *done;    /* per chapter: its result came */
	int res_fd;    /* the parent's end of the result pipe */
	ts_error init; /* why a worker could not start eSpeak */
} pool;

static void event(pool *p, ts_worker_event ev)
{
	if (p->fn)
		p->fn(p->ud, &ev);
}

/* A worker process: it never returns. */
static void worker_child(pool *p, int i, int cmd_fd, int res_fd)
{
	/* The caller's handlers are for the parent: a worker stops at once
	 * on an interrupt. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	close(p->res_fd);
	for (int j = 0; j < i; j++)
		close(p->ws[j].cmd_fd);
	const ts_workers_job *job = p->job;
	free(p->ws);
	free(p->order);
	free(p->done);
	worker_main(job, i, cmd_fd, res_fd);
	_exit(0);
}

/* Start the workers, each with a command pipe; they share res_w to send
 * their results.  0, or a code with err filled. */
static int start_workers(pool *p, int res_w, ts_error *err)
{
	fflush(NULL);
	for (int i = 0; i < p->nw; i++) {
		int cmd[2];
		p->ws[i].unit = -1;
		if (pipe(cmd) != 0)
			return ts_error_set(err, TS_EIO, "cannot make a pipe: %s", strerror(errno));
		pid_t pid = fork();
		if (pid < 0) {
			close(cmd[0]);
			close(cmd[1]);
			return ts_error_set(err, TS_ECHILD, "cannot start a worker process: %s",
			                    strerror(errno));
		}
		if (pid == 0) {
			close(cmd[1]);
			worker_child(p, i, cmd[0], res_w);
		}
		close(cmd[0]);
		fcntl(cmd[1], F_SETFD, FD_CLOEXEC);
		p->ws[i].pid = pid;
		p->ws[i].cmd_fd = cmd[1];
		p->ws[i].alive = 1;
	}
	return 0;
}

/* Chapter i's result came. */
static void chapter_done(pool *p, size_t i, const ts_chapter_result *res)
{
	p->results[i] = *res;
	p->done[i] = 1;
	event(p, (ts_worker_event){.kind = TS_EV_DONE, .chapter = i, .samples = res->samples});
}

/* The chapters of the unit that begins at chapter first whose results
 * did not come fail with err. */
static void unit_failed(pool *p, size_t first, const ts_error *err)
{
	ts_chapter_result res = {.err = *err};
	for (size_t k = first, last = unit_last(p->job, first); k <= last; k++)
		if ((!p->job->todo || p->job->todo[k]) && !p->done[k])
			chapter_done(p, k, &res);
}

/* What a worker said; 1 when it is idle and waits for a unit. */
static int take_message(pool *p, const msg *m)
{
	worker *w = &p->ws[m->worker];
	switch (m->type) {
	case MSG_INIT_FAIL:
		p->init = m->res.err;
		w->alive = 0;
		return 0;
	case MSG_READY:
		w->ready = 1;
		p->stats->sample_rate = m->rate;
		p->stats->wpm = m->wpm;
		event(p, (ts_worker_event){.kind = TS_EV_READY, .samples = (uint64_t)m->rate});
		return 1;
	case MSG_STARTED:
	case MSG_PROGRESS:
		event(p, (ts_worker_event){.kind = m->type == MSG_STARTED ? TS_EV_STARTED
		                                                          : TS_EV_PROGRESS,
		                           .chapter = (size_t)m->chapter,
		                           .chars_done = m->chars_done,
		                           .samples = m->samples,
		                           .finishing = m->finishing});
		return 0;
	case MSG_DONE:
		if (m->maxrss_kb > p->stats->worker_maxrss_kb)
			p->stats->worker_maxrss_kb = m->maxrss_kb;
		if (m->chapter >= 0 && (size_t)m->chapter < p->n)
			chapter_done(p, (size_t)m->chapter, &m->res);
		if (!m->last)
			return 0;
		w->unit = -1;
		return 1;
	case MSG_FAILED:
		if (m->chapter < 0 || (size_t)m->chapter >= p->n)
			return 0;
		unit_failed(p, (size_t)m->chapter, &m->res.err);
		if (w->unit != m->chapter)
			return 0; /* a unit it had finished */
		w->unit = -1;
		return 1;
	}
	return 0;
}

/* Hand idle worker w the next unit, or let it go when none is left. */
static void hand_out(pool *p, worker *w)
{
	int idx = p->next < p->norder ? (int)p->order[p->next++] : -1;
	w->unit = idx;
	if (ts_write_full(w->cmd_fd, &idx, sizeof idx) != 0 || idx < 0) {
		close(w->cmd_fd);
		w->cmd_fd = -1;
		if (idx >= 0)
			p->next--; /* give it to another worker */
	}
}

/* Is a message there to read?  Waits for one, telling the caller
 * TS_EV_TICK every job->tick_s seconds meanwhile; 0 when a signal came. */
static int message_waits(pool *p)
{
	struct pollfd fd = {.fd = p->res_fd, .events = POLLIN};
	int got;
	if (p->job->tick_s <= 0)
		return 1;
	while ((got = poll(&fd, 1, (int)(p->job->tick_s * 1000))) == 0)
		event(p, (ts_worker_event){.kind = TS_EV_TICK});
	return got > 0 || errno != EINTR;
}

/* Results until every worker has gone, or the caller cancels. */
static void run(pool *p)
{
	msg m;
	while (!(p->job->cancel && *p->job->cancel)) {
		if (!message_waits(p))
			continue;
		if (read_all(p->res_fd, &m, sizeof m) != 0)
			break;
		if (p->job->cancel && *p->job->cancel)
			break;
		if (m.worker >= 0 && m.worker < p->nw && take_message(p, &m))
			hand_out(p, &p->ws[m.worker]);
	}
}

/* Wait for every worker; a chapter a worker held when it died says so. */
static void reap(pool *p)
{
	for (int i = 0; i < p->nw; i++) {
		worker *w = &p->ws[i];
		if (w->cmd_fd >= 0)
			close(w->cmd_fd);
		w->cmd_fd = -1;
		if (w->pid <= 0)
			continue;
		int status;
		struct rusage ru;
		pid_t got;
		while ((got = wait4(w->pid, &status, 0, &ru)) < 0 && errno == EINTR)
			;
		if (got <= 0)
			continue;
		if (ru.ru_maxrss > p->stats->worker_maxrss_kb)
			p->stats->worker_maxrss_kb = ru.ru_maxrss;
		if (!w->ready && w->alive && !p->init.code) {
			/* Died starting eSpeak NG (which crashes when memory is
			 * short): every chapter not built says so. */
			if (WIFSIGNALED(status))
				ts_error_set(&p->init, TS_ECHILD,
				             "the worker process died while starting eSpeak NG "
				             "(signal %d)",
				             WTERMSIG(status));
			else
				ts_error_set(&p->init, TS_ECHILD,
				             "the worker process stopped while starting eSpeak NG "
				             "(exit %d)",
				             WEXITSTATUS(status));
		}
		ts_error e = {0};
		if (WIFSIGNALED(status))
			ts_error_set(&e, TS_ECHILD,
			             "worker process died (signal %d) while building this chapter",
			             WTERMSIG(status));
		else
			ts_error_set(&e, TS_ECHILD,
			             "worker process stopped while building this chapter");
		if (w->unit >= 0)
			unit_failed(p, (size_t)w->unit, &e);
	}
}

/* order[0..n), the chapters to build, longest first, becomes the first
 * chapter of each one's unit, each once: how many.  seen (one per
 * chapter, all 0) is left as it was. */
static size_t units(const ts_workers_job *job, size_t *order, size_t n, char *seen)
{
	size_t u = 0;
	for (size_t i = 0; i < n; i++) {
		size_t f = order[i];
		while (ts_chapter_chained(job->chapters.book, f))
			f--;
		if (!seen[f])
			seen[f] = 1, order[u++] = f;
	}
	for (size_t i = 0; i < u; i++)
		seen[order[i]] = 0;
	return u;
}

int ts_workers_run(const ts_workers_job *job, ts_chapter_result *results, ts_workers_stats *stats,
                   ts_worker_event_fn fn, void *ud, ts_error *err)
{
	size_t n = ts_book_count(job->chapters.book), norder = 0;
	size_t *order = ts_book_longest_first(job->chapters.book, job->todo, &norder);
	char *done = calloc(n ? n : 1, 1);
	if (order && done)
		norder = units(job, order, norder, done);
	int nw = job->workers < 1 ? 1 : job->workers;
	if ((size_t)nw > norder)
		nw = norder ? (int)norder : 1;
	pool p = {.job = job,
	          .done = done,
	          .results = results,
	          .stats = stats,
	          .fn = fn,
	          .ud = ud,
	          .n = n,
	          .nw = nw,
	          .order = order,
	          .norder = norder,
	          .res_fd = -1};
	int rc = 0, res_pipe[2] = {-1, -1};
	p.ws = calloc((size_t)nw, sizeof *p.ws);
	memset(stats, 0, sizeof *stats);
	if (!p.ws || !p.order || !p.done) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		memset(&results[i], 0, sizeof results[i]);
		if (!job->todo || job->todo[i])
			ts_error_set(&results[i].err, TS_ECHILD, "not built");
	}
	if (norder == 0)
		goto out; /* nothing to build: no worker */
	if (pipe(res_pipe) != 0) {
		rc = ts_error_set(err, TS_EIO, "cannot make a pipe: %s", strerror(errno));
		goto out;
	}
	p.res_fd = res_pipe[0];
	rc = start_workers(&p, res_pipe[1], err);
	close(res_pipe[1]);
	run(&p);
	if (job->cancel && *job->cancel) {
		for (int i = 0; i < nw; i++)
			if (p.ws[i].pid > 0)
				kill(p.ws[i].pid, SIGTERM);
		rc = ts_error_set(err, TS_ECHILD, "interrupted");
	}
	reap(&p);
	/* Chapters never handed out: every worker failed to start. */
	for (size_t i = 0; p.init.code && i < n; i++)
		if (!p.done[i] && strcmp(results[i].err.msg, "not built") == 0)
			results[i].err = p.init;
	if (!rc && p.init.code && stats->sample_rate == 0)
		rc = ts_error_set(err, ts_error_retryable(p.init.code) ? p.init.code : TS_ESPEAK,
		                  "%s", ts_error_msg(&p.init));
out:
	if (res_pipe[0] >= 0)
		close(res_pipe[0]);
	free(p.ws);
	free(p.order);
	free(p.done);
	return rc;
}
