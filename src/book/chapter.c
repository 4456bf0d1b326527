/* chapter.c - the chapter pipeline (see chapter.h).
 *
 * A chapter is read in pieces -> clean -> segment into chunks -> eSpeak
 * -> trim, pause, fade -> audio writer, and a timing cue for each
 * sentence.  Memory is bounded by the longest chunk, never by chapter
 * length; with --dialogue voices, the quotations are spoken first into
 * an unnamed file (voiced.h), which adds a little memory. */
#include "book/chapter.h"

#include "publish/cues.h"
#include "audio/finish.h"
#include "speech/frontend.h"
#include "base/file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the reading of a chapter -------------------------------------- */

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

static void no_voice(void *ud, const ts_voice *v, const char *speaker)
{
	(void)ud, (void)v, (void)speaker;
}

static void count_dropped(void *ud, long line, const ts_unspoken *u, const char *text, size_t len)
{
	(void)line, (void)u, (void)text, (void)len;
	++*(size_t *)ud;
}

/* The chapter's title, when it is spoken, then its body: 0 or a code,
 * err filled for a body that cannot be read. */
static int feed_title_body(const ts_chapter_job *job, const ts_feed *f, ts_frontend *fe,
                           ts_error *err)
{
	const ts_chapter *ch = f->ch;
	int rc = 0;
	/* The title goes through the same front end (第3章 -> 第三章); a
	 * volume's name only at the volume's start (book.h). */
	const char *heading = ch->title + ch->spoken_at;
	if (ch->title_spoken && (rc = ts_frontend_feed(fe, heading, strlen(heading), 1)))
		return rc;
	if (f->body && (rc = f->body(f->ud)))
		return rc;
	ts_reader *rd = ts_reader_open(ch, &rc);
	if (!rd)
		return ts_error_set(err, rc, "%s: cannot read: %s", ch->display, ts_strerror(rc));
	/* The site's lines of a web novel are not read (hence not keyed). */
	rc = ts_reader_set_filter(rd, job->boilerplate, job->boilerplate_flags,
	                          f->dropped ? count_dropped : NULL, f->dropped);
	if (!rc && job->voicing)
		rc = ts_feed_voiced(rd, fe, job->voicing, job->voice,
		                    f->voice ? f->voice : no_voice, f->ud);
	else if (!rc)
		rc = feed_all(rd, fe);
	ts_reader_free(rd);
	/* A failure downstream (a full disk) has said what it was. */
	if (rc == TS_EIO && !err->code)
		ts_error_set(err, rc, "%s: read error", ch->display);
	return rc;
}

/* The paragraphs of a text that is not in the book. */
static int feed_paragraphs(const ts_feed *f, ts_frontend *fe)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < f->nparagraphs; i++)
		rc = ts_frontend_feed(fe, f->paragraphs[i], strlen(f->paragraphs[i]), 1);
	return rc;
}

int ts_feed_chapter(const ts_chapter_job *job, const ts_feed *f, ts_error *err)
{
	int rc;
	ts_frontend *fe = ts_frontend_new(job->lang, f->chunk, NULL, f->ud);
	if (fe && f->sentence)
		ts_frontend_set_sentence_fn(fe, f->sentence);
	if (!fe)
		rc = TS_ENOMEM;
	else if (f->ch)
		rc = feed_title_body(job, f, fe, err);
	else
		rc = feed_paragraphs(f, fe);
	if (!rc && f->unreadable)
		ts_frontend_unreadable(fe, f->unreadable);
	ts_frontend_free(fe);
	if (rc && !err->code && f->ch)
		ts_error_set(err, rc, "%s: %s", f->ch->display, ts_strerror(rc));
	else if (rc && !err->code)
		ts_error_set(err, rc, NULL);
	return rc;
}

/* ---- speaking a chapter -------------------------------------------- */

typedef struct chapter_run {
	ts_synth *syn;
	ts_speaker *sp; /* a chapter spoken in pieces (speaker.h), or NULL */
	ts_finisher *fin;
	ts_master *w;
	ts_samples pcm;
	ts_break next_brk; /* break forced before the next chunk */
	ts_chapter_result *res;
	ts_audio_meta meta; /* the writer's tags, kept until the file is put together */
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
	ts_quote_audio *quotes; /* voiced: the quotations' audio, spoken first */
	const ts_feed *tap;     /* told the reading spoken, first */
} chapter_run;

static void want_voice(void *ud, const ts_voice *v, const char *speaker)
{
	chapter_run *r = ud;
	if (r->tap && r->tap->voice)
		r->tap->voice(r->tap->ud, v, speaker);
	r->want = v;
	r->want_speaker = speaker;
}

static int speak(chapter_run *r, const char *text, ts_break brk)
{
	/* With voices, a quotation's samples are spoken already. */
	int now = r->quotes ? ts_quote_audio_take(r->quotes, r->want, &r->pcm, &r->res->err) : 1;
	int rc = 0;
	if (now < 0)
		return now;
	if (now && r->want != r->cur) {
		if ((rc = ts_synth_use(r->syn, r->want, r->rate_factor))) {
			ts_error_set(&r->res->err, rc, "%s", ts_synth_errmsg(r->syn));
			return rc;
		}
		r->cur = r->want;
	}
	if (now && (rc = r->sp ? ts_speaker_speak(r->sp, text, brk >= TS_BREAK_PARAGRAPH, &r->pcm)
	                       : ts_synth_speak(r->syn, text, &r->pcm)))
		return ts_error_set(&r->res->err, rc, "%s",
		                    r->sp ? ts_speaker_errmsg(r->sp) : ts_synth_errmsg(r->syn));
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
	int rc = r->tap && r->tap->sentence ? r->tap->sentence(r->tap->ud, text, len) : 0;
	if (rc)
		return rc;
	if (r->in_title)
		return ts_buf_append(&r->title, text, len);
	return sentence_cue(r, text, len, 0);
}

/* The title, when it was spoken, is one cue, and a title's pause comes
 * before the body. */
static int on_body(void *ud)
{
	chapter_run *r = ud;
	int rc = r->tap && r->tap->body ? r->tap->body(r->tap->ud) : 0;
	if (rc || !r->in_title)
		return rc;
	r->in_title = 0;
	if (!(rc = sentence_cue(r, r->title.data, r->title.len, 1)))
		r->next_brk = TS_BREAK_TITLE;
	return rc;
}

static int on_chunk(void *ud, const ts_chunk *c)
{
	chapter_run *r = ud;
	int rc = r->tap ? r->tap->chunk(r->tap->ud, c) : 0;
	if (!rc)
		rc = speak(r, c->spoken ? c->spoken : c->text, c->brk);
	if (rc || r->in_title)
		return rc;
	size_t k = ts_utf8_count_nonspace(c->text, c->len);
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

/* The first reading of a chapter read in its speakers' voices: each
 * chunk listed with the voice it is in. */
typedef struct first_reading {
	ts_quote_audio *quotes;
	const ts_voice *want; /* of the text fed */
} first_reading;

static void first_voice(void *ud, const ts_voice *v, const char *speaker)
{
	(void)speaker;
	((first_reading *)ud)->want = v;
}

static int first_chunk(void *ud, const ts_chunk *c)
{
	first_reading *f = ud;
	return ts_quote_audio_list(f->quotes, f->want, c->spoken ? c->spoken : c->text);
}

/* With voices, eSpeak NG would load a voice again at every quotation:
 * the chapter is read once to list its chunks, and its quotations are
 * spoken first, voice by voice (see voiced.h).  0, or a code with
 * r->res->err filled. */
static int speak_quotations(chapter_run *r, const ts_chapter_job *job, const ts_chapter *ch,
                            const char *path)
{
	if (!(r->quotes = ts_quote_audio_new(ch, path, job->voice)))
		return TS_ENOMEM;
	first_reading first = {.quotes = r->quotes, .want = job->voice};
	ts_feed f = {.ch = ch, .chunk = first_chunk, .voice = first_voice, .ud = &first};
	int rc = ts_feed_chapter(job, &f, &r->res->err);
	if (!rc)
		rc = ts_quote_audio_speak(r->quotes, r->syn, job->rate_factor, &r->pcm, &r->cur,
		                          &r->res->err);
	return rc;
}

/* The audio file of chapter i, its timing files and the finisher that
 * feeds them: 0, or a code with r->res->err filled or TS_ENOMEM. */
static int open_chapter(chapter_run *r, const ts_chapter_job *job, size_t i)
{
	const ts_chapter *ch = ts_book_chapter(job->book, i);
	/* Tracks count from 1 in book order (the front matter, file 000, is
	 * track 1). */
	r->meta = (ts_audio_meta){.title = ch->title,
	                          .artist = job->author,
	                          .album = ts_book_title(job->book),
	                          .track = (int)i + 1,
	                          .tracks = (int)ts_book_count(job->book)};
	/* A generous estimate of the length: speech is about 3.5 characters a
	 * second at eSpeak's normal rate; count 2, and the speed setting. */
	int rate = ts_synth_rate(r->syn);
	double seconds = (double)(ch->chars + strlen(ch->title) + 100) / 2.0 * 175.0 /
	                 (double)(ts_synth_wpm(r->syn) > 0 ? ts_synth_wpm(r->syn) : 175);
	ts_writer_opts o = {.quality = job->quality,
	                    .meta = &r->meta,
	                    .owner_pid = job->owner_pid,
	                    .expect_frames = (uint64_t)(seconds * rate),
	                    .keep_temp = 1};
	const char *path = job->paths[i];
	ts_error *err = &r->res->err;
	if (!(r->w = ts_master_open(&job->master, rate, job->format, path, &o, err)))
		return err->code;
	if (job->timing && !(r->cues = ts_cues_open(job->timing, path, rate, job->owner_pid, err)))
		return err->code;
	if (!(r->fin = ts_finish_new(rate, job->voice, ts_master_write, r->w)))
		return TS_ENOMEM;
	return 0;
}

/* Chapter ch through the front end and into the finisher, and what it
 * tells: the characters the voice cannot read, or that nothing of it is
 * heard (TS_EEMPTY).  0, or a code with r->res->err filled. */
static int speak_text(chapter_run *r, const ts_chapter_job *job, const ts_chapter *ch)
{
	ts_chapter_result *res = r->res;
	ts_buf warn = {0};
	size_t dropped = 0;
	r->in_title = ch->title_spoken;
	ts_feed f = {.ch = ch,
	             .chunk = on_chunk,
	             .sentence = on_sentence,
	             .voice = want_voice,
	             .body = on_body,
	             .unreadable = &warn,
	             .dropped = &dropped,
	             .ud = r};
	int rc = ts_feed_chapter(job, &f, &res->err);
	if (!rc && r->quotes)
		rc = ts_quote_audio_end(r->quotes, &res->err);
	if (!rc && warn.len)
		snprintf(res->warning, sizeof res->warning,
		         "%s: chapter \"%s\": characters the voice cannot read: %s", ch->display,
		         ch->title, warn.data);
	ts_buf_free(&warn);
	/* Punctuation alone has characters, and eSpeak says nothing; the
	 * site's lines have words, but are not read. */
	if (!rc && !r->body_heard && !ch->title_spoken && dropped)
		rc = ts_error_set(&res->err, TS_EEMPTY,
		                  "%s:%ld: chapter \"%s\" has nothing to speak: its only words are "
		                  "the site's or the uploader's, which are not spoken (see tingshu "
		                  "text --dropped); skipped",
		                  ch->display, ch->line, ch->title);
	else if (!rc && !r->body_heard && !ch->title_spoken)
		rc = ts_error_set(&res->err, TS_EEMPTY,
		                  "%s:%ld: chapter \"%s\" has nothing to speak (no words, only "
		                  "punctuation or symbols); skipped",
		                  ch->display, ch->line, ch->title);
	return rc;
}

/* The audio and timing files put together at their temporary names, the
 * timing files finished first so that a chapter has all its files or
 * none.  0, or a code with r->res->err filled. */
static int finish_chapter(chapter_run *r, const char *path, long owner_pid, double t0)
{
	ts_chapter_result *res = r->res;
	int rc;
	if ((rc = ts_finish_end(r->fin)))
		return ts_error_set(&res->err, rc, "%s", ts_master_errmsg(r->w));
	res->samples = ts_finish_position(r->fin);
	if (r->cues && (rc = ts_cues_end(r->cues)))
		return ts_error_set(&res->err, rc, "%s", ts_cues_errmsg(r->cues));
	if (r->progress)
		ts_master_set_progress(r->w, on_master_progress, r);
	double t1 = ts_seconds();
	res->speak_s = t1 - t0;
	rc = ts_master_commit(r->w, &res->audio, &res->err);
	r->w = NULL;
	res->finish_s = ts_seconds() - t1;
	if (!rc && r->cues) {
		rc = ts_cues_finish(r->cues, &res->err);
		r->cues = NULL;
		if (rc) {
			char *tmp = ts_temp_name(path, owner_pid);
			if (tmp)
				unlink(tmp);
			free(tmp);
		}
	}
	return rc;
}

int ts_chapter_in_pieces(const ts_chapter_job *job, size_t i)
{
	return job->pieces && ts_format_exact(job->format, job->master.out_rate) && !job->voicing &&
	       ts_book_chapter(job->book, i)->chars >= TS_CHAIN_CHARS;
}

int ts_speak_chapter(const ts_chapter_job *job, size_t i, ts_synth *syn, const ts_feed *tap,
                     ts_chapter_result *res, ts_chapter_progress_fn progress, void *ud)
{
	const ts_chapter *ch = ts_book_chapter(job->book, i);
	chapter_run r = {.syn = syn,
	                 .res = res,
	                 .progress = progress,
	                 .ud = ud,
	                 .want = job->voice,
	                 .cur = job->voice,
	                 .rate_factor = job->rate_factor,
	                 .voiced = job->voicing != NULL,
	                 .tap = tap};
	memset(res, 0, sizeof *res);
	double t0 = ts_seconds();
	int rc = open_chapter(&r, job, i);
	if (!rc && job->spawner && ts_chapter_in_pieces(job, i) &&
	    !(r.sp = ts_speaker_new(job->spawner)))
		rc = ts_error_set(&res->err, TS_ENOMEM, NULL);
	if (!rc && job->voicing)
		rc = speak_quotations(&r, job, ch, job->paths[i]);
	if (!rc)
		rc = speak_text(&r, job, ch);
	if (!rc)
		rc = finish_chapter(&r, job->paths[i], job->owner_pid, t0);
	if (!rc)
		rc = res->err.code;
	if (rc && !res->err.msg[0])
		ts_error_set(&res->err, rc, "%s: %s", ch->display, ts_strerror(rc));
	res->err.code = rc;
	ts_speaker_free(r.sp);
	ts_master_abort(r.w);
	ts_cues_abort(r.cues);
	ts_buf_free(&r.title);
	ts_finish_free(r.fin);
	ts_samples_free(&r.pcm);
	ts_quote_audio_free(r.quotes);
	return rc;
}
