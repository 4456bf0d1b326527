/* build.c - the chapter pipeline and the worker pool (see build.h).
 *
 * Per chapter: read the body in pieces -> clean -> segment into chunks
 * -> eSpeak -> trim, pause, fade -> audio writer, and a timing cue for
 * each sentence.  Memory is bounded by the longest chunk, never by
 * chapter length; with --dialogue voices, the quotations are spoken
 * first into an unnamed file, the spool, which adds a little memory (see
 * voiced.c).
 *
 * Pool protocol: each worker has a command pipe from the parent (a
 * chapter index, or -1 to quit) and all share one result pipe to the
 * parent; every message is smaller than PIPE_BUF, so writes from several
 * workers never interleave. */
#include "book/build.h"

#include "book/state.h"
#include "book/voiced.h"

#include "publish/cues.h"
#include "audio/finish.h"
#include "speech/frontend.h"
#include "base/child.h"
#include "base/file.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The loudness --dialogue voices brings every voice to before the
 * master's gain: under the quietest shipped preset's (cmn-m1, -20.3 LUFS
 * as eSpeak makes it), since eSpeak's own samples already reach full
 * scale and cannot be made louder. */
#define VOICES_LEVEL_LUFS (-20.5)

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
	int in_title;   /* the title is being spoken: not counted */
	int body_heard; /* some of the body was heard (not only silent marks) */
	/* Timing: the speech of the sentence being spoken, from the start of
	 * its first chunk's to the end of its last chunk's. */
	ts_cues *cues; /* NULL: no timing files */
	uint64_t cue_start, cue_end;
	int cue_heard; /* some of the sentence was heard */
	ts_buf title;  /* the title as written: one cue, whatever its sentences */
	/* Dialogue in the speakers' voices: the voice of the text fed, and
	 * the synthesizer's (both the narrator's at first). */
	const ts_voice *want, *cur;
	double rate_factor;
	const char *want_speaker, *cue_speaker; /* of the text fed; of the cue's first chunk */
	int voiced;
	ts_spool *sp; /* voiced: the quotations, spoken first */
} chapter_run;

static void want_voice(void *ud, const ts_voice *v, const char *speaker)
{
	chapter_run *r = ud;
	r->want = v;
	r->want_speaker = speaker;
}

static int speak(chapter_run *r, const char *text, ts_break brk)
{
	/* With voices, a quotation's samples are in the spool already. */
	int now = r->sp ? ts_spool_take(r->sp, r->want, &r->pcm, &r->res->err) : 1, rc = 0;
	if (now < 0)
		return now;
	if (now && r->want != r->cur) {
		if ((rc = ts_synth_use(r->syn, r->want, r->rate_factor))) {
			ts_error_set(&r->res->err, rc, "%s", ts_synth_errmsg(r->syn));
			return rc;
		}
		r->cur = r->want;
	}
	if (now && (rc = ts_synth_speak(r->syn, text, &r->pcm))) {
		ts_error_set(&r->res->err, rc, "%s", ts_synth_errmsg(r->syn));
		return rc;
	}
	if (r->next_brk > brk)
		brk = r->next_brk;
	r->next_brk = TS_BREAK_NONE;
	uint64_t start, end;
	rc = ts_finish_add(r->fin, r->pcm.data, r->pcm.len, brk, &start, &end);
	if (rc)
		ts_error_set(&r->res->err, rc, "%s", ts_master_errmsg(r->w));
	/* A paragraph starts here (or the chapter, or its body after the
	 * title): the next cue heard starts it. */
	if (r->cues && (brk == TS_BREAK_NONE || brk >= TS_BREAK_PARAGRAPH))
		ts_cues_paragraph(r->cues);
	if (end > start) {
		r->body_heard |= !r->in_title;
		if (!r->cue_heard) {
			r->cue_start = start;
			r->cue_speaker = r->want_speaker;
		}
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
	/* A quotation of one person: its speaker ("-" and "?" are nobody's). */
	const char *who = r->cue_speaker;
	if (who && (!strcmp(who, "-") || !strcmp(who, "?")))
		who = NULL;
	if (r->cues && r->voiced && (rc = ts_cues_speaker(r->cues, title ? NULL : who)))
		ts_error_set(&r->res->err, rc, "%s", ts_cues_errmsg(r->cues));
	else if (r->cues && (rc = ts_cues_add(r->cues, r->cue_start, r->cue_end, text, len)))
		ts_error_set(&r->res->err, rc, "%s", ts_cues_errmsg(r->cues));
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
                     ts_chapter_progress_fn progress, void *ud, const ts_voicing *voicing,
                     double rate_factor)
{
	int rc = 0;
	chapter_run r = {.syn = syn,
	                 .res = res,
	                 .progress = progress,
	                 .ud = ud,
	                 .want = v,
	                 .cur = v,
	                 .rate_factor = rate_factor,
	                 .voiced = voicing != NULL};
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
	o.keep_temp = 1;
	r.w = ts_master_open(mo, rate, fmt, path, &o, &res->err);
	if (!r.w)
		goto out;
	if (timing && !(r.cues = ts_cues_open(timing, path, rate, wo->owner_pid, &res->err)))
		goto out;
	r.fin = ts_finish_new(rate, v, ts_master_write, r.w);
	fe = ts_frontend_new(lang, on_chunk, NULL, &r);
	if (!r.fin || !fe) {
		rc = TS_ENOMEM;
		goto out;
	}
	ts_frontend_set_sentence_fn(fe, on_sentence);
	if (voicing) {
		if (!(r.sp = ts_spool_new(ch, path, v))) {
			rc = TS_ENOMEM;
			goto out;
		}
		if ((rc = ts_spool_fill(r.sp, lang, voicing, syn, rate_factor, &r.pcm, &r.cur,
		                        &res->err)))
			goto out;
	}
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
		ts_error_set(&res->err, rc, "%s: cannot read: %s", ch->display, ts_strerror(rc));
		goto out;
	}
	rc = voicing ? ts_feed_voiced(rd, fe, voicing, v, want_voice, &r) : feed_all(rd, fe);
	if (!rc && r.sp)
		rc = ts_spool_end(r.sp, &res->err);
	if (rc) {
		/* A failure downstream (a full disk) has said what it was. */
		if (rc == TS_EIO && !res->err.code)
			ts_error_set(&res->err, rc, "%s: read error", ch->display);
		goto out;
	}
	ts_buf warn = {0};
	if (ts_frontend_unreadable(fe, &warn) > 0)
		snprintf(res->warning, sizeof res->warning,
		         "%s: chapter \"%s\": characters the voice cannot read: %s", ch->display,
		         ch->title, warn.data);
	ts_buf_free(&warn);
	/* Punctuation alone has characters, and eSpeak says nothing. */
	if (!r.body_heard && !ch->title_spoken) {
		rc = TS_EEMPTY;
		ts_error_set(&res->err, rc,
		             "%s:%ld: chapter \"%s\" has nothing to speak (no words, only "
		             "punctuation or symbols); skipped",
		             ch->display, ch->line, ch->title);
		goto out;
	}
	if ((rc = ts_finish_end(r.fin))) {
		ts_error_set(&res->err, rc, "%s", ts_master_errmsg(r.w));
		goto out;
	}
	res->samples = ts_finish_position(r.fin);
	/* The timing files are finished first and put in place only with the
	 * audio: a chapter has all its files or none. */
	if (r.cues && (rc = ts_cues_end(r.cues))) {
		ts_error_set(&res->err, rc, "%s", ts_cues_errmsg(r.cues));
		goto out;
	}
	if (progress)
		ts_master_set_progress(r.w, on_master_progress, &r);
	t1 = ts_seconds();
	res->speak_s = t1 - t0;
	rc = ts_master_commit(r.w, &res->audio, &res->err);
	r.w = NULL;
	res->finish_s = ts_seconds() - t1;
	if (!rc && r.cues) {
		rc = ts_cues_finish(r.cues, &res->err);
		r.cues = NULL;
		if (rc) {
			char *tmp = ts_temp_name(path, wo->owner_pid);
			if (tmp)
				unlink(tmp);
			free(tmp);
		}
	}
out:
	if (!rc)
		rc = res->err.code;
	if (rc && !res->err.msg[0])
		ts_error_set(&res->err, rc, "%s: %s", ch->display, ts_strerror(rc));
	res->err.code = rc;
	ts_master_abort(r.w);
	ts_cues_abort(r.cues);
	ts_buf_free(&r.title);
	ts_reader_free(rd);
	ts_frontend_free(fe);
	ts_finish_free(r.fin);
	ts_samples_free(&r.pcm);
	ts_spool_free(r.sp);
	return rc;
}

/* ---- spoken text (tingshu text) ------------------------------------ */

/* ---- keys --------------------------------------------------------- */

/* Everything of the job that every chapter's bytes depend on. */
static void key_settings(ts_hash *h, const ts_build_job *job)
{
	const ts_voice *v = job->voice;
	const char *data = NULL, *engine = ts_synth_version(&data);
	ts_hash_str(h, "tingshu chapter key 2"); /* 2: one-pass leveling */
	ts_hash_str(h, TS_VERSION);
	ts_hash_str(h, engine);
	ts_hash_str(h, data);
	const char *vs[] = {v->espeak_voice, v->variant, v->latin_voice};
	for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++)
		ts_hash_str(h, vs[i]);
	const int vi[] = {v->rate,
	                  v->pitch,
	                  v->pitch_range,
	                  v->clause_pause_ms,
	                  v->sentence_pause_ms,
	                  v->paragraph_pause_ms,
	                  v->title_pause_ms,
	                  v->lead_in_ms,
	                  v->tail_ms};
	for (size_t i = 0; i < sizeof vi / sizeof vi[0]; i++)
		ts_hash_int(h, vi[i]);
	ts_hash_double(h, job->rate_factor);
	ts_hash_str(h, job->format->name);
	ts_hash_int(h, job->master.normalize);
	ts_hash_double(h, job->master.target_lufs);
	ts_hash_double(h, job->master.ceiling_dbtp);
	ts_hash_int(h, job->master.out_rate);
	ts_hash_int(h, job->quality);
	ts_hash_str(h, job->author);
	ts_hash_int(h, job->timing);
	ts_hash_str(h, ts_book_title(job->book)); /* the album tag */
	/* The track count is in the tags of some formats only (MP3's 2/40):
	 * elsewhere a chapter more or less keeps the others as they are. */
	if (job->format->track_total)
		ts_hash_int(h, (int64_t)ts_book_count(job->book));
	if (job->voicing) {
		/* The voices: in each chapter's key.  The quotations are
		 * spoken first (see voiced.c), and eSpeak's sound depends a
		 * little on what it spoke before: "first" makes the chapters
		 * of earlier builds, which spoke them in turn, again; and
		 * every voice is leveled to VOICES_LEVEL_LUFS. */
		ts_hash_str(h, "dialogue voices, quotations first, leveled");
		ts_hash_double(h, VOICES_LEVEL_LUFS);
		ts_hash_double(h, v->loudness_lufs);
	}
}

/* The voice of the text that follows, in the key. */
static void key_voice(void *ud, const ts_voice *v, const char *speaker)
{
	ts_hash *h = ud;
	ts_hash_str(h, speaker ? speaker : "");
	ts_hash_str(h, v->espeak_voice);
	ts_hash_str(h, v->variant);
	ts_hash_str(h, v->latin_voice);
	ts_hash_int(h, v->rate);
	ts_hash_int(h, v->pitch);
	ts_hash_int(h, v->pitch_range);
	ts_hash_double(h, v->loudness_lufs);
}

static int key_chunk(void *ud, const ts_chunk *c)
{
	ts_hash *h = ud;
	ts_hash_str(h, c->text);
	ts_hash_str(h, c->spoken);
	ts_hash_int(h, c->brk);
	return 0;
}

static int key_sentence(void *ud, const char *text, size_t len)
{
	ts_hash *h = ud;
	ts_hash_int(h, (int64_t)len);
	ts_hash_bytes(h, text, len);
	return 0;
}

int ts_chapter_key(const ts_build_job *job, size_t i, char key[TS_HASH_HEX], ts_error *err)
{
	const ts_chapter *ch = ts_book_chapter(job->book, i);
	const char *slash = strrchr(job->paths[i], '/');
	ts_hash h;
	ts_hash_init(&h);
	key_settings(&h, job);
	ts_hash_int(&h, (int64_t)i); /* the track tag */
	ts_hash_str(&h, slash ? slash + 1 : job->paths[i]);
	ts_hash_str(&h, ch->title);
	ts_hash_int(&h, ch->title_spoken);
	int rc = 0;
	ts_reader *rd = NULL;
	ts_frontend *fe = ts_frontend_new(job->lang, key_chunk, NULL, &h);
	if (!fe) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	ts_frontend_set_sentence_fn(fe, key_sentence);
	/* As ts_speak_chapter() reads it: the title, then the body. */
	if (ch->title_spoken && (rc = ts_frontend_feed(fe, ch->title, strlen(ch->title), 1)))
		goto out;
	ts_hash_str(&h, "body");
	if (!(rd = ts_reader_open(ch, &rc))) {
		ts_error_set(err, rc, "%s: cannot read: %s", ch->display, ts_strerror(rc));
		goto out;
	}
	rc = job->voicing ? ts_feed_voiced(rd, fe, job->voicing, job->voice, key_voice, &h)
	                  : feed_all(rd, fe);
	if (rc == TS_EIO)
		ts_error_set(err, rc, "%s: read error", ch->display);
	else if (rc)
		ts_error_set(err, rc, "%s: %s", ch->display, ts_strerror(rc));
out:
	ts_frontend_free(fe);
	ts_reader_free(rd);
	if (!rc)
		ts_hash_hex(&h, key);
	return rc;
}

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
	return ts_write_full(fd, p, n) ? TS_EIO : 0;
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

/* ---- one-pass leveling ------------------------------------------- */

/* What a worker speaks to choose the gain of its chapters before it
 * speaks them.  eSpeak's loudness varies little from chapter to chapter
 * of one voice (0.4 to 0.5 LU from the quietest to the loudest of 15
 * chapters: the seeds, the novel and dialogue test sets), so most
 * chapters are leveled in one pass at this gain; one that misses the
 * target by more than 0.3 LU is measured and made again (master.h).
 * Two paragraphs of seeds/004_5daa9d81391bddb7.txt, chosen among its
 * stretches of 150 characters for a loudness within 0.05 LU of the mean
 * of those chapters with three voices (cmn, cmn-f2, cmn-m1): about 35
 * seconds of speech, 30 ms of eSpeak's time, once in each worker. */
static const char *const level_sample[] = {
    "王廷臣身旁只有近五千士卒，剩下的都是松山城中的百姓。洪承畴当时下令让他从北门撤退，有一部分原因"
    "就是诱敌。但那样的计划在此刻看来，显然不成功，清军的主力全部在这里。按理说，王廷臣那边的清军应"
    "该"
    "没有多少。",
    "虽然不太确定，但洪承畴觉得可以一试，他到现在仍然认为清军不可能在每一处都布有重兵。",
};

typedef struct probe_run {
	ts_synth *syn;
	ts_finisher *fin;
	ts_samples pcm;
} probe_run;

static int probe_chunk(void *ud, const ts_chunk *c)
{
	probe_run *p = ud;
	uint64_t start, end;
	int rc = ts_synth_speak(p->syn, c->spoken ? c->spoken : c->text, &p->pcm);
	return rc ? rc : ts_finish_add(p->fin, p->pcm.data, p->pcm.len, c->brk, &start, &end);
}

/* Speak level_sample in voice v through the finisher and measure it: the
 * gain of one-pass leveling and the loudness it is for (NAN when it is
 * silence).  Returns 0 or an error code. */
static int level_probe(ts_synth *syn, const ts_voice *v, const ts_lang *lang,
                       const ts_master_opts *mo, double level[2])
{
	int rate = ts_synth_rate(syn), rc = TS_ENOMEM;
	ts_master *m = ts_master_open_probe(mo, rate, NULL);
	probe_run p = {.syn = syn};
	ts_frontend *fe = NULL;
	if (m && (p.fin = ts_finish_new(rate, v, ts_master_write, m)) &&
	    (fe = ts_frontend_new(lang, probe_chunk, NULL, &p))) {
		rc = 0;
		for (size_t i = 0; !rc && i < sizeof level_sample / sizeof *level_sample; i++)
			rc = ts_frontend_feed(fe, level_sample[i], strlen(level_sample[i]), 1);
		if (!rc)
			rc = ts_finish_end(p.fin);
	}
	ts_frontend_free(fe);
	ts_finish_free(p.fin);
	ts_samples_free(&p.pcm);
	if (m)
		level[0] = ts_master_probe_end(m, &level[1]);
	return rc;
}

typedef struct probe_job {
	ts_synth *syn;
	const ts_voice *v;
	const ts_lang *lang;
	const ts_master_opts *mo;
} probe_job;

typedef struct probe_result {
	int rc;
	double level[2]; /* gain, loudness */
} probe_result;

static int probe_in_child(void *arg, char *out, size_t outsz)
{
	const probe_job *j = arg;
	probe_result r = {0};
	r.rc = level_probe(j->syn, j->v, j->lang, j->mo, r.level);
	memcpy(out, &r, outsz < sizeof r ? outsz : sizeof r);
	return 0;
}

/* level_probe() in a child of the worker (ts_in_child), whose eSpeak is
 * then as fresh for each chapter as if it had not spoken (see
 * worker_main): mo gets the gain.  Returns 0 or an error code. */
static int level_probe_fork(ts_synth *syn, const ts_voice *v, const ts_lang *lang,
                            ts_master_opts *mo)
{
	probe_job j = {.syn = syn, .v = v, .lang = lang, .mo = mo};
	probe_result r;
	if (ts_in_child(probe_in_child, &j, (char *)&r, sizeof r) != 0)
		return TS_ECHILD;
	/* A voice that says nothing of the sample (NAN) has its chapters
	 * measured first, in every worker alike. */
	if (!r.rc && isfinite(r.level[0])) {
		mo->one_pass = 1;
		mo->gain_db = r.level[0];
		mo->expect_lufs = r.level[1];
	}
	return r.rc;
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

/* Put the files of chapter idx, just built and left at their temporary
 * names, in place with its record (see state.h): the timing files, the
 * audio, the record last, all or none (with job->land, the book files
 * too).  A chapter found to have nothing
 * to speak (TS_EEMPTY) gets a record without files, so that later builds
 * skip it as up to date.  A failure fails the chapter, which is then as it
 * was before, and a later build makes it again. */
static void put_chapter(const ts_build_job *job, int idx, const ts_synth *syn,
                        ts_chapter_result *res)
{
	ts_record rec = {.empty = res->err.code == TS_EEMPTY,
	                 .synth_rate = ts_synth_rate(syn),
	                 .wpm = ts_synth_wpm(syn),
	                 .samples = res->samples,
	                 .sentences = res->sentences,
	                 .chars = res->chars,
	                 .audio = res->audio};
	char *tmp[TS_RECORD_FILES + 1] = {0}, *path[TS_RECORD_FILES + 1] = {0};
	size_t n = 0;
	int rc = 0;
	const char *slash = strrchr(job->paths[idx], '/');
	const char *audio = slash ? slash + 1 : job->paths[idx];
	/* The timing files, then the audio (the record lists the audio
	 * first), each with its temporary name. */
	for (int t = 0; t < TS_CUES_NFORMATS && !rec.empty && !rc; t++)
		if (job->timing & (1u << t) && !(path[n++] = ts_cues_path(job->paths[idx], t)))
			rc = TS_ENOMEM;
	if (!rec.empty && !rc && !(path[n++] = ts_strdup(job->paths[idx])))
		rc = TS_ENOMEM;
	for (size_t i = 0; i < n && !rc; i++) {
		struct stat st;
		size_t f = (i + 1) % n; /* path[n - 1], the audio, is the record's file 0 */
		if (!(tmp[i] = ts_temp_name(path[i], job->owner_pid)))
			rc = TS_ENOMEM;
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
	if (job->keys && !rc) {
		memcpy(rec.key, job->keys[idx], TS_HASH_HEX);
		if (!(path[n] = ts_record_file(job->outdir, audio)) ||
		    !(tmp[n] = ts_temp_name(path[n], job->owner_pid)))
			rc = TS_ENOMEM;
		else
			rc = ts_record_write(job->outdir, audio, &rec, job->owner_pid, &res->err);
	}
	if (rc == TS_ENOMEM)
		ts_error_set(&res->err, rc, "out of memory");
	ts_landing l = {.chapter = (size_t)idx,
	                .tmp = tmp,
	                .path = path,
	                .n = n + (job->keys != NULL),
	                .owner_pid = job->owner_pid};
	if (!rc && job->land)
		job->land(job->land_ud, &l, &res->err);
	else if (!rc)
		ts_commit_files(tmp, path, l.n, job->owner_pid, &res->err);
	else /* what was made; a name out of memory leaves its file to the sweep */
		for (size_t i = 0; i <= n; i++)
			if (tmp[i])
				unlink(tmp[i]);
	for (size_t i = 0; i <= n; i++) {
		free(tmp[i]);
		free(path[i]);
	}
}

static void worker_main(const ts_build_job *job, int id, int cmd_fd, int res_fd)
{
	ts_error err = {0};
	ts_synth *syn = ts_synth_new(job->voice, job->rate_factor, &err);
	/* The voices of a book read in its speakers' voices at one loudness:
	 * a character is not louder than the narrator because eSpeak makes
	 * its variant louder, and the narrator's sample foresees a chapter's
	 * level (level_probe). */
	if (syn && job->voicing)
		ts_synth_level(syn, VOICES_LEVEL_LUFS);
	msg m = {.type = syn ? MSG_READY : MSG_INIT_FAIL, .worker = id};
	if (syn) {
		m.rate = ts_synth_rate(syn);
		m.wpm = ts_synth_wpm(syn);
	} else {
		m.res.err = err;
	}
	if (write_all(res_fd, &m, sizeof m) || !syn)
		goto out;
	worker_ctx ctx = {.id = id, .res_fd = res_fd};
	ts_master_opts mo = job->master;
	int probed = 0;
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
		/* The gain of one-pass leveling, before the first chapter.
		 * Leveled otherwise, the chapter would not be what another
		 * build makes of it: if it cannot be measured (short of
		 * memory), the chapter fails, and the next one tries again. */
		int rc =
		    !probed && mo.normalize ? level_probe_fork(syn, job->voice, job->lang, &mo) : 0;
		if (rc) {
			ts_error_set(
			    &m.res.err, rc,
			    "%s: chapter \"%s\": cannot measure the loudness of the voice: %s",
			    ch->display, ch->title, ts_strerror(rc));
			if (write_all(res_fd, &m, sizeof m))
				break;
			continue;
		}
		probed = 1;
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
			ts_speak_chapter(syn, job->voice, job->lang, ch, job->format, &mo,
			                 job->paths[idx], job->timing, &wo, &m.res, worker_progress,
			                 &ctx, job->voicing, job->rate_factor);
			if (!m.res.err.code || m.res.err.code == TS_EEMPTY)
				put_chapter(job, idx, syn, &m.res);
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
			if (pid < 0)
				ts_error_set(&m.res.err, TS_ECHILD,
				             "%s: cannot start a process: %s", ch->display,
				             strerror(errno));
			else
				ts_error_set(&m.res.err, TS_ECHILD,
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
	int ready; /* eSpeak NG started */
} worker;

/* The chapters to build (todo[i] set; all when todo is NULL), longest
 * first; *count gets how many. */
static size_t *longest_first(const ts_book *b, const char *todo, size_t *count)
{
	size_t all = ts_book_count(b), n = 0;
	size_t *order = malloc((all ? all : 1) * sizeof *order);
	if (!order)
		return NULL;
	for (size_t i = 0; i < all; i++)
		if (!todo || todo[i])
			order[n++] = i;
	*count = n;
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

/* The pool while it runs. */
typedef struct pool {
	const ts_build_job *job;
	ts_chapter_result *results;
	ts_build_stats *stats;
	ts_event_fn fn;
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

static void event(pool *p, ts_event ev)
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
	const ts_build_job *job = p->job;
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
		p->ws[i].chapter = -1;
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

/* What a worker said; 1 when it is idle and waits for a chapter. */
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
		event(p, (ts_event){.kind = TS_EV_READY, .samples = (uint64_t)m->rate});
		return 1;
	case MSG_STARTED:
	case MSG_PROGRESS:
		event(p, (ts_event){.kind = m->type == MSG_STARTED ? TS_EV_STARTED : TS_EV_PROGRESS,
		                    .chapter = (size_t)m->chapter,
		                    .chars_done = m->chars_done,
		                    .samples = m->samples,
		                    .finishing = m->finishing});
		return 0;
	case MSG_DONE:
		if (m->maxrss_kb > p->stats->worker_maxrss_kb)
			p->stats->worker_maxrss_kb = m->maxrss_kb;
		if (m->chapter >= 0 && (size_t)m->chapter < p->n) {
			p->results[m->chapter] = m->res;
			p->done[m->chapter] = 1;
			w->chapter = -1;
			event(p, (ts_event){.kind = TS_EV_DONE,
			                    .chapter = (size_t)m->chapter,
			                    .samples = m->res.samples});
		}
		return 1;
	}
	return 0;
}

/* Hand idle worker w the next chapter, or let it go when none is left. */
static void hand_out(pool *p, worker *w)
{
	int idx = p->next < p->norder ? (int)p->order[p->next++] : -1;
	w->chapter = idx;
	if (write_all(w->cmd_fd, &idx, sizeof idx) != 0 || idx < 0) {
		close(w->cmd_fd);
		w->cmd_fd = -1;
		if (idx >= 0)
			p->next--; /* give it to another worker */
	}
}

/* Results until every worker has gone, or the caller cancels. */
static void run(pool *p)
{
	msg m;
	while (read_all(p->res_fd, &m, sizeof m) == 0) {
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
		int c = w->chapter;
		if (c < 0 || (size_t)c >= p->n || p->done[c])
			continue;
		if (WIFSIGNALED(status))
			ts_error_set(&p->results[c].err, TS_ECHILD,
			             "worker process died (signal %d) while building this chapter",
			             WTERMSIG(status));
		else
			ts_error_set(&p->results[c].err, TS_ECHILD,
			             "worker process stopped while building this chapter");
	}
}

int ts_build_run(const ts_build_job *job, ts_chapter_result *results, ts_build_stats *stats,
                 ts_event_fn fn, void *ud, ts_error *err)
{
	size_t n = ts_book_count(job->book), norder = 0;
	size_t *order = longest_first(job->book, job->todo, &norder);
	int nw = job->workers < 1 ? 1 : job->workers;
	if ((size_t)nw > norder)
		nw = norder ? (int)norder : 1;
	pool p = {.job = job,
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
	p.done = calloc(n ? n : 1, 1);
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
