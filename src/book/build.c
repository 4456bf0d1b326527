/* build.c - the chapter pipeline and the worker pool (see build.h).
 *
 * Per chapter: read the body in pieces -> clean -> segment into chunks
 * -> eSpeak -> trim, pause, fade -> audio writer, and a timing cue for
 * each sentence.  Memory is bounded by the longest chunk, never by
 * chapter length.
 *
 * Pool protocol: each worker has a command pipe from the parent (a
 * chapter index, or -1 to quit) and all share one result pipe to the
 * parent; every message is smaller than PIPE_BUF, so writes from several
 * workers never interleave. */
#include "book/build.h"

#include "audio/cues.h"
#include "audio/finish.h"
#include "speech/frontend.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* Everything the reader gives, through the front end.  Returns 0, the
 * front end's error, or the reader's (TS_EIO). */
static int feed_all(ts_reader *rd, ts_frontend *fe)
{
	const char *piece;
	size_t len;
	int line_end, got, rc;
	while ((got = ts_reader_next(rd, &piece, &len, &line_end)) > 0)
		if ((rc = ts_frontend_feed(fe, piece, len, line_end)))
			return rc;
	return got;
}

/* ---- one chapter -------------------------------------------------- */

typedef struct chapter_run {
	ts_synth *syn;
	ts_finisher *fin;
	ts_master *w;
	ts_samples pcm;
	ts_break next_brk; /* break forced before the next chunk */
	ts_chapter_result *res;
	size_t chars_done;
	size_t since_report;
	ts_chapter_progress_fn progress;
	void *ud;
	int in_title; /* the title is being spoken: not counted */
	/* Timing: the speech of the sentence being spoken, from the start of
	 * its first chunk's to the end of its last chunk's. */
	ts_cues *cues; /* NULL: no timing files */
	uint64_t cue_start, cue_end;
	int cue_heard; /* some of the sentence was heard */
	ts_buf title;  /* the title as written: one cue, whatever its sentences */
} chapter_run;

static int speak(chapter_run *r, const char *text, ts_break brk)
{
	int rc = ts_synth_speak(r->syn, text, &r->pcm);
	if (rc) {
		snprintf(r->res->errmsg, sizeof r->res->errmsg, "%s", ts_synth_errmsg(r->syn));
		return rc;
	}
	if (r->next_brk > brk)
		brk = r->next_brk;
	r->next_brk = TS_BREAK_NONE;
	uint64_t start, end;
	rc = ts_finish_add(r->fin, r->pcm.data, r->pcm.len, brk, &start, &end);
	if (rc)
		snprintf(r->res->errmsg, sizeof r->res->errmsg, "%s", ts_master_errmsg(r->w));
	/* A paragraph starts here (or the chapter, or its body after the
	 * title): the next cue heard starts it. */
	if (r->cues && (brk == TS_BREAK_NONE || brk >= TS_BREAK_PARAGRAPH))
		ts_cues_paragraph(r->cues);
	if (end > start) {
		if (!r->cue_heard)
			r->cue_start = start;
		r->cue_end = end;
		r->cue_heard = 1;
	}
	return rc;
}

/* The chunks spoken since the last cue were the sentence text: its cue.
 * A sentence with nothing heard (only marks eSpeak does not voice) gets
 * none, and is not counted. */
static int sentence_cue(chapter_run *r, const char *text, size_t len, int title)
{
	int rc = 0;
	if (!r->cue_heard)
		return 0;
	r->cue_heard = 0;
	if (!title)
		r->res->sentences++;
	if (r->cues && (rc = ts_cues_add(r->cues, r->cue_start, r->cue_end, text, len)))
		snprintf(r->res->errmsg, sizeof r->res->errmsg, "%s", ts_cues_errmsg(r->cues));
	return rc;
}

static int on_sentence(void *ud, const char *text, size_t len)
{
	chapter_run *r = ud;
	if (r->in_title)
		return ts_buf_append(&r->title, text, len);
	return sentence_cue(r, text, len, 0);
}

static size_t count_nonspace(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c & 0xC0) != 0x80 && c != ' ')
			k++;
	}
	return k;
}

static int on_chunk(void *ud, const ts_chunk *c)
{
	chapter_run *r = ud;
	int rc = speak(r, c->spoken ? c->spoken : c->text, c->brk);
	if (rc || r->in_title)
		return rc;
	size_t k = count_nonspace(c->text, c->len);
	r->res->chars += k;
	r->chars_done += k;
	r->since_report += k;
	if (r->progress && r->since_report >= 2000) {
		r->since_report = 0;
		r->progress(r->ud, r->chars_done, ts_finish_position(r->fin), 0);
	}
	return 0;
}

/* The master's reports while it puts the file together. */
static void on_master_progress(void *ud, int pass, double done)
{
	chapter_run *r = ud;
	r->progress(r->ud, r->chars_done, r->res->samples, pass + done);
}

int ts_speak_chapter(ts_synth *syn, const ts_voice *v, const ts_lang *lang, const ts_chapter *ch,
                     const ts_format *fmt, const ts_master_opts *mo, const char *path,
                     unsigned timing, const ts_writer_opts *wo, ts_chapter_result *res,
                     ts_chapter_progress_fn progress, void *ud)
{
	int rc = 0;
	ts_error err = {0}; /* of opening and committing the files */
	chapter_run r = {.syn = syn, .res = res, .progress = progress, .ud = ud};
	ts_frontend *fe = NULL;
	ts_reader *rd = NULL;
	memset(res, 0, sizeof *res);
	double t0 = ts_seconds(), t1;

	/* A generous estimate of the length: speech is about 3.5 characters a
	 * second at eSpeak's normal rate; count 2, and the speed setting. */
	int rate = ts_synth_rate(syn);
	double seconds = (double)(ch->chars + strlen(ch->title) + 100) / 2.0 * 175.0 /
	                 (double)(ts_synth_wpm(syn) > 0 ? ts_synth_wpm(syn) : 175);
	ts_writer_opts o = *wo;
	o.expect_frames = (uint64_t)(seconds * rate);
	r.w = ts_master_open(mo, rate, fmt, path, &o, &err);
	if (!r.w)
		goto out;
	if (timing && !(r.cues = ts_cues_open(timing, path, rate, wo->owner_pid, &err)))
		goto out;
	r.fin = ts_finish_new(rate, v, ts_master_write, r.w);
	fe = ts_frontend_new(lang, on_chunk, NULL, &r);
	if (!r.fin || !fe) {
		rc = TS_ENOMEM;
		goto out;
	}
	ts_frontend_set_sentence_fn(fe, on_sentence);
	if (ch->title_spoken) {
		/* The title goes through the same front end (第3章 -> 第三章). */
		r.in_title = 1;
		if ((rc = ts_frontend_feed(fe, ch->title, strlen(ch->title), 1)))
			goto out;
		r.in_title = 0;
		if ((rc = sentence_cue(&r, r.title.data, r.title.len, 1)))
			goto out;
		r.next_brk = TS_BREAK_TITLE;
	}
	rd = ts_reader_open(ch, &rc);
	if (!rd) {
		snprintf(res->errmsg, sizeof res->errmsg, "%s: cannot read: %s", ch->display,
		         ts_strerror(rc));
		goto out;
	}
	if ((rc = feed_all(rd, fe))) {
		if (rc == TS_EIO)
			snprintf(res->errmsg, sizeof res->errmsg, "%s: read error", ch->display);
		goto out;
	}
	ts_buf warn = {0};
	if (ts_frontend_unreadable(fe, &warn) > 0)
		snprintf(res->warning, sizeof res->warning,
		         "%s: chapter \"%s\": characters the voice cannot read: %s", ch->display,
		         ch->title, warn.data);
	ts_buf_free(&warn);
	if (res->chars == 0 && !ch->title_spoken) {
		rc = TS_EEMPTY;
		snprintf(res->errmsg, sizeof res->errmsg,
		         "%s:%ld: chapter \"%s\" has nothing to speak", ch->display, ch->line,
		         ch->title);
		goto out;
	}
	if ((rc = ts_finish_end(r.fin))) {
		snprintf(res->errmsg, sizeof res->errmsg, "%s", ts_master_errmsg(r.w));
		goto out;
	}
	res->samples = ts_finish_position(r.fin);
	/* The timing files are finished first and put in place only with the
	 * audio: a chapter has all its files or none. */
	if (r.cues && (rc = ts_cues_end(r.cues))) {
		snprintf(res->errmsg, sizeof res->errmsg, "%s", ts_cues_errmsg(r.cues));
		goto out;
	}
	if (progress)
		ts_master_set_progress(r.w, on_master_progress, &r);
	t1 = ts_seconds();
	res->speak_s = t1 - t0;
	rc = ts_master_commit(r.w, &res->audio, &err);
	r.w = NULL;
	res->finish_s = ts_seconds() - t1;
	if (!rc && r.cues) {
		rc = ts_cues_commit(r.cues, &err);
		r.cues = NULL;
		if (rc)
			unlink(path);
	}
out:
	if (err.code) {
		rc = err.code;
		snprintf(res->errmsg, sizeof res->errmsg, "%s", ts_error_msg(&err));
	}
	if (rc && !res->errmsg[0])
		snprintf(res->errmsg, sizeof res->errmsg, "%s: %s", ch->display, ts_strerror(rc));
	res->status = rc;
	ts_master_abort(r.w);
	ts_cues_abort(r.cues);
	ts_buf_free(&r.title);
	ts_reader_free(rd);
	ts_frontend_free(fe);
	ts_finish_free(r.fin);
	ts_samples_free(&r.pcm);
	return rc;
}

/* ---- spoken text (tingshu text) ------------------------------------ */

/* ---- the worker pool ---------------------------------------------- */

enum msg_type { MSG_READY, MSG_INIT_FAIL, MSG_STARTED, MSG_PROGRESS, MSG_DONE };

typedef struct msg {
	int type;
	int worker;
	int chapter;
	int rate, wpm;
	long maxrss_kb; /* peak memory of the process that spoke the chapter */
	size_t chars_done;
	uint64_t samples;
	double finishing;
	ts_chapter_result res;
} msg;

_Static_assert(sizeof(msg) <= 4096, "a message must fit in PIPE_BUF for atomic writes");

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0) {
		ssize_t k = write(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return TS_EIO;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

static int read_all(int fd, void *p, size_t n)
{
	char *c = p;
	size_t got = 0;
	while (got < n) {
		ssize_t k = read(fd, c + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return TS_EIO;
		if (k == 0)
			return got ? TS_EIO : 1; /* 1: end of stream */
		got += (size_t)k;
	}
	return 0;
}

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
	write_all(w->res_fd, &m, sizeof m);
}

static void worker_main(const ts_build_job *job, int id, int cmd_fd, int res_fd)
{
	ts_error err = {0};
	ts_synth *syn = ts_synth_new(job->voice, job->rate_factor, &err);
	msg m = {.type = syn ? MSG_READY : MSG_INIT_FAIL, .worker = id};
	if (syn) {
		m.rate = ts_synth_rate(syn);
		m.wpm = ts_synth_wpm(syn);
	} else {
		m.res.status = err.code;
		snprintf(m.res.errmsg, sizeof m.res.errmsg, "%s", ts_error_msg(&err));
	}
	if (write_all(res_fd, &m, sizeof m) || !syn)
		goto out;
	worker_ctx ctx = {.id = id, .res_fd = res_fd};
	for (;;) {
		int idx;
		if (read_all(cmd_fd, &idx, sizeof idx) != 0 || idx < 0)
			break;
		const ts_chapter *ch = ts_book_chapter(job->book, (size_t)idx);
		ctx.chapter = idx;
		memset(&m, 0, sizeof m);
		m.type = MSG_STARTED, m.worker = id, m.chapter = idx;
		write_all(res_fd, &m, sizeof m);
		m.type = MSG_DONE;
		/* eSpeak carries state from one text to the next (pitch
		 * flutter, filters), so a chapter would sound slightly
		 * different depending on what the worker spoke before.  Each
		 * chapter is spoken in a fork of the freshly started worker:
		 * the same eSpeak state every time, whatever -j is. */
		pid_t pid = fork();
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			/* Tracks count from 1 in book order (the front matter,
			 * file 000, is track 1). */
			ts_audio_meta meta = {.title = ch->title,
			                      .artist = job->author,
			                      .album = ts_book_title(job->book),
			                      .track = idx + 1,
			                      .tracks = (int)ts_book_count(job->book)};
			ts_writer_opts wo = {
			    .quality = job->quality, .meta = &meta, .owner_pid = job->owner_pid};
			ts_speak_chapter(syn, job->voice, job->lang, ch, job->format, &job->master,
			                 job->paths[idx], job->timing, &wo, &m.res, worker_progress,
			                 &ctx);
			m.samples = m.res.samples;
			struct rusage ru;
			if (getrusage(RUSAGE_SELF, &ru) == 0)
				m.maxrss_kb = ru.ru_maxrss;
			write_all(res_fd, &m, sizeof m);
			/* No ts_synth_free(): eSpeak's terminate joins a thread
			 * that exists only in the worker, not in this fork. */
			_exit(0);
		}
		int st = 0;
		if (pid > 0)
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
		if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			m.res.status = TS_ECHILD;
			if (pid < 0)
				snprintf(m.res.errmsg, sizeof m.res.errmsg,
				         "%s: cannot start a process: %s", ch->display,
				         strerror(errno));
			else
				snprintf(m.res.errmsg, sizeof m.res.errmsg,
				         "%s: the process speaking chapter \"%s\" died (%s %d)",
				         ch->display, ch->title,
				         WIFSIGNALED(st) ? "signal" : "exit status",
				         WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
			if (write_all(res_fd, &m, sizeof m))
				break;
		}
	}
out:
	ts_synth_free(syn);
}

typedef struct worker {
	pid_t pid;
	int cmd_fd;
	int chapter; /* chapter in hand, or -1 */
	int alive;
} worker;

static size_t *longest_first(const ts_book *b)
{
	size_t n = ts_book_count(b);
	size_t *order = malloc((n ? n : 1) * sizeof *order);
	if (!order)
		return NULL;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	/* Insertion sort by length, stable: ties keep book order. */
	for (size_t i = 1; i < n; i++) {
		size_t x = order[i], j = i;
		size_t cx = ts_book_chapter(b, x)->chars;
		while (j > 0 && ts_book_chapter(b, order[j - 1])->chars < cx) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = x;
	}
	return order;
}

int ts_build_run(const ts_build_job *job, ts_chapter_result *results, ts_build_stats *stats,
                 ts_event_fn fn, void *ud, char *errbuf, size_t errsz)
{
	size_t n = ts_book_count(job->book);
	int nw = job->workers < 1 ? 1 : job->workers;
	if ((size_t)nw > n)
		nw = n ? (int)n : 1;
	int rc = 0;
	int res_pipe[2] = {-1, -1};
	worker *ws = calloc((size_t)nw, sizeof *ws);
	size_t *order = longest_first(job->book);
	char *done = calloc(n ? n : 1, 1);
	memset(stats, 0, sizeof *stats);
	if (!ws || !order || !done) {
		rc = TS_ENOMEM;
		snprintf(errbuf, errsz, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		memset(&results[i], 0, sizeof results[i]);
		results[i].status = TS_ECHILD;
		snprintf(results[i].errmsg, sizeof results[i].errmsg, "not built");
	}
	if (pipe(res_pipe) != 0) {
		rc = TS_EIO;
		snprintf(errbuf, errsz, "cannot make a pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	for (int i = 0; i < nw; i++) {
		int cmd[2];
		ws[i].chapter = -1;
		if (pipe(cmd) != 0) {
			rc = TS_EIO;
			snprintf(errbuf, errsz, "cannot make a pipe: %s", strerror(errno));
			break;
		}
		pid_t pid = fork();
		if (pid < 0) {
			close(cmd[0]);
			close(cmd[1]);
			rc = TS_ECHILD;
			snprintf(errbuf, errsz, "cannot start a worker process: %s",
			         strerror(errno));
			break;
		}
		if (pid == 0) {
			/* The caller's handlers are for the parent: a worker
			 * stops at once on an interrupt. */
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			close(cmd[1]);
			close(res_pipe[0]);
			for (int j = 0; j < i; j++)
				close(ws[j].cmd_fd);
			free(ws);
			free(order);
			free(done);
			worker_main(job, i, cmd[0], res_pipe[1]);
			_exit(0);
		}
		close(cmd[0]);
		fcntl(cmd[1], F_SETFD, FD_CLOEXEC);
		ws[i].pid = pid;
		ws[i].cmd_fd = cmd[1];
		ws[i].alive = 1;
	}
	close(res_pipe[1]);
	res_pipe[1] = -1;

	size_t next = 0;
	char init_err[400] = "";
	for (;;) {
		msg m;
		int r = read_all(res_pipe[0], &m, sizeof m);
		if (r != 0)
			break; /* every worker has gone */
		if (job->cancel && *job->cancel)
			break;
		if (m.worker < 0 || m.worker >= nw)
			continue;
		worker *w = &ws[m.worker];
		switch (m.type) {
		case MSG_INIT_FAIL:
			snprintf(init_err, sizeof init_err, "%s", m.res.errmsg);
			w->alive = 0;
			continue;
		case MSG_READY:
			stats->sample_rate = m.rate;
			stats->wpm = m.wpm;
			if (fn) {
				ts_event ev = {.kind = TS_EV_READY, .samples = (uint64_t)m.rate};
				fn(ud, &ev);
			}
			break;
		case MSG_STARTED:
		case MSG_PROGRESS:
			if (fn) {
				ts_event ev = {.kind = m.type == MSG_STARTED ? TS_EV_STARTED
				                                             : TS_EV_PROGRESS,
				               .chapter = (size_t)m.chapter,
				               .chars_done = m.chars_done,
				               .samples = m.samples,
				               .finishing = m.finishing};
				fn(ud, &ev);
			}
			continue;
		case MSG_DONE:
			if (m.maxrss_kb > stats->worker_maxrss_kb)
				stats->worker_maxrss_kb = m.maxrss_kb;
			if (m.chapter >= 0 && (size_t)m.chapter < n) {
				results[m.chapter] = m.res;
				done[m.chapter] = 1;
				w->chapter = -1;
				if (fn) {
					ts_event ev = {.kind = TS_EV_DONE,
					               .chapter = (size_t)m.chapter,
					               .samples = m.res.samples};
					fn(ud, &ev);
				}
			}
			break;
		}
		/* The worker is idle: hand it the next chapter, or let it go. */
		int idx = -1;
		if (next < n)
			idx = (int)order[next++];
		w->chapter = idx;
		if (write_all(w->cmd_fd, &idx, sizeof idx) != 0 || idx < 0) {
			close(w->cmd_fd);
			w->cmd_fd = -1;
			if (idx >= 0)
				next--; /* give it to another worker */
		}
	}
	if (job->cancel && *job->cancel) {
		for (int i = 0; i < nw; i++)
			if (ws[i].pid > 0)
				kill(ws[i].pid, SIGTERM);
		rc = TS_ECHILD;
		snprintf(errbuf, errsz, "interrupted");
	}
	for (int i = 0; i < nw; i++) {
		if (ws[i].cmd_fd >= 0)
			close(ws[i].cmd_fd);
		ws[i].cmd_fd = -1;
		if (ws[i].pid <= 0)
			continue;
		int status;
		struct rusage ru;
		pid_t p;
		while ((p = wait4(ws[i].pid, &status, 0, &ru)) < 0 && errno == EINTR)
			;
		if (p > 0) {
			if (ru.ru_maxrss > stats->worker_maxrss_kb)
				stats->worker_maxrss_kb = ru.ru_maxrss;
			int c = ws[i].chapter;
			if (c >= 0 && (size_t)c < n && !done[c]) {
				if (WIFSIGNALED(status))
					snprintf(results[c].errmsg, sizeof results[c].errmsg,
					         "worker process died (signal %d) while building "
					         "this chapter",
					         WTERMSIG(status));
				else
					snprintf(
					    results[c].errmsg, sizeof results[c].errmsg,
					    "worker process stopped while building this chapter");
			}
		}
	}
	/* Chapters never handed out: every worker failed to start. */
	for (size_t i = 0; i < n; i++)
		if (!done[i] && init_err[0] && strcmp(results[i].errmsg, "not built") == 0)
			snprintf(results[i].errmsg, sizeof results[i].errmsg, "%s", init_err);
	if (!rc && init_err[0] && stats->sample_rate == 0) {
		rc = TS_ESPEAK;
		snprintf(errbuf, errsz, "%s", init_err);
	}
out:
	if (res_pipe[0] >= 0)
		close(res_pipe[0]);
	if (res_pipe[1] >= 0)
		close(res_pipe[1]);
	free(ws);
	free(order);
	free(done);
	return rc;
}
