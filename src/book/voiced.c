/* voiced.c - a chapter read in its speakers' voices, its quotations
 * spoken first into the spool (see voiced.h).
 *
 * Memory: 32 bytes per chunk of the chapter (spool_chunk), and the text
 * of its quotations until they are spoken; their samples wait in the
 * spool, an unnamed file. */
#define _GNU_SOURCE /* O_TMPFILE, memfd_create */
#include "book/voiced.h"

#include "base/file.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- dialogue in the speakers' voices ----------------------------- */

static int same_speaker(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Paragraph p[0..n) through the front end span by span (casting.h); a
 * clause ends where the voice or the speaker changes, so that no chunk
 * (and no cue) has two. */
static int feed_spans(const ts_voicing *vo, const ts_voice *narrator, ts_casting *cast,
                      const char *p, size_t n, ts_frontend *fe, ts_voice_fn fn, void *ud)
{
	int rc = ts_casting_paragraph(cast, vo->dialogue, vo->voices, narrator, p, n);
	for (size_t i = 0; !rc && i < cast->n; i++) {
		const ts_voice_span *s = &cast->spans[i];
		int last = i + 1 == cast->n;
		fn(ud, s->voice, s->speaker);
		rc = ts_frontend_feed(fe, p + s->start, s->end - s->start, last);
		if (!rc && !last &&
		    (cast->spans[i + 1].voice != s->voice ||
		     !same_speaker(cast->spans[i + 1].speaker, s->speaker)))
			rc = ts_frontend_end_clause(fe);
	}
	if (!rc && cast->n == 0)
		rc = ts_frontend_feed(fe, p, 0, 1); /* an empty line */
	return rc;
}

int ts_feed_voiced(ts_reader *rd, ts_frontend *fe, const ts_voicing *vo, const ts_voice *narrator,
                   ts_voice_fn fn, void *ud)
{
	const char *piece;
	size_t len;
	int line_end, got, rc = 0;
	ts_buf para = {0};
	ts_casting cast = {0};
	ts_dialogue_chapter(vo->dialogue);
	while (!rc && (got = ts_reader_next(rd, &piece, &len, &line_end)) > 0) {
		if ((rc = ts_buf_append(&para, piece, len)) || !line_end)
			continue;
		rc = feed_spans(vo, narrator, &cast, para.data ? para.data : "", para.len, fe, fn,
		                ud);
		ts_buf_clear(&para);
	}
	if (!rc && got < 0)
		rc = got;
	if (!rc && para.len) /* a last line without its newline */
		rc = feed_spans(vo, narrator, &cast, para.data, para.len, fe, fn, ud);
	ts_buf_free(&para);
	ts_casting_free(&cast);
	return rc;
}

/* ---- the quotations spoken first ----------------------------------- */

/* eSpeak NG loads a voice again, its whole dictionary included, at every
 * change of voice.  So with voices a chapter is read twice by the front
 * end (cheap beside speech): the first reading only lists the chunks;
 * the quotations are then spoken voice by voice, in the order each voice
 * is first heard, into an unnamed file (the spool: O_TMPFILE in the
 * output folder, or memory), and the second reading speaks the narration
 * and takes each quotation's samples from the spool, in book order.  A
 * chapter changes voice once per voice heard, plus one back to the
 * narrator, instead of twice per quotation.  The reading is the same
 * both times (ts_feed_voiced() starts the chapter's dialogue afresh); a
 * difference is an internal error, never other audio. */
typedef struct spool_chunk {
	const ts_voice *voice; /* NULL: the narrator's */
	size_t text;           /* the text to speak: an offset in the texts */
	uint64_t off;          /* its samples in the spool: offset in bytes */
	size_t len;            /* and number; off is UINT64_MAX until spoken */
} spool_chunk;

struct ts_spool {
	int fd; /* -1: none */
	const ts_chapter *ch;
	const char *path; /* of the chapter's audio */
	const ts_voice *narrator;
	const ts_voice *want; /* the first reading: the voice of the text fed */
	spool_chunk *chunks;  /* every chunk of the chapter, its title's too */
	size_t n, cap;
	size_t next;  /* the second reading: its next chunk */
	ts_buf texts; /* the quotations' texts, each ended by a NUL, until spoken */
};

ts_spool *ts_spool_new(const ts_chapter *ch, const char *path, const ts_voice *narrator)
{
	ts_spool *sp = malloc(sizeof *sp);
	if (sp)
		*sp = (ts_spool){.fd = -1, .ch = ch, .path = path, .narrator = narrator};
	return sp;
}

static void spool_want(void *ud, const ts_voice *v, const char *speaker)
{
	(void)speaker;
	((ts_spool *)ud)->want = v;
}

static int spool_chunk_fn(void *ud, const ts_chunk *c)
{
	ts_spool *sp = ud;
	if (TS_GROW(sp->chunks, sp->cap, sp->n + 1))
		return TS_ENOMEM;
	spool_chunk *k = &sp->chunks[sp->n++];
	*k = (spool_chunk){.off = UINT64_MAX};
	if (sp->want == sp->narrator)
		return 0;
	const char *t = c->spoken ? c->spoken : c->text;
	k->voice = sp->want;
	k->text = sp->texts.len;
	return ts_buf_append(&sp->texts, t, strlen(t) + 1);
}

/* The first reading of chapter sp->ch, as ts_speak_chapter() reads it:
 * the title, then the body.  0, or a code (err filled for a read error). */
static int spool_read(ts_spool *sp, const ts_lang *lang, const ts_voicing *vo, ts_error *err)
{
	const ts_chapter *ch = sp->ch;
	int rc = 0;
	ts_reader *rd = NULL;
	ts_frontend *fe = ts_frontend_new(lang, spool_chunk_fn, NULL, sp);
	if (!fe) {
		rc = TS_ENOMEM;
		goto out;
	}
	sp->want = sp->narrator;
	if (ch->title_spoken && (rc = ts_frontend_feed(fe, ch->title, strlen(ch->title), 1)))
		goto out;
	if (!(rd = ts_reader_open(ch, &rc))) {
		ts_error_set(err, rc, "%s: cannot read: %s", ch->display, ts_strerror(rc));
		goto out;
	}
	rc = ts_feed_voiced(rd, fe, vo, sp->narrator, spool_want, sp);
	if (rc == TS_EIO)
		ts_error_set(err, rc, "%s: read error", ch->display);
out:
	ts_frontend_free(fe);
	ts_reader_free(rd);
	return rc;
}

/* An unnamed file for the samples, in the folder of path (or in memory
 * where the file system has no O_TMPFILE): nothing is left of it on any
 * way out.  0, or a code with err filled. */
static int spool_open(ts_spool *sp, const char *path, ts_error *err)
{
	const char *slash = strrchr(path, '/');
	char *dir =
	    slash ? ts_strndup(path, slash == path ? 1 : (size_t)(slash - path)) : ts_strdup(".");
	if (!dir)
		return ts_error_set(err, TS_ENOMEM, NULL);
	sp->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (sp->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
		sp->fd = memfd_create("tingshu-quotations", MFD_CLOEXEC);
	int rc = 0;
	if (sp->fd < 0)
		rc = ts_error_set(err, ts_errno_code(errno),
		                  "%s: cannot make a temporary file for the quotations' audio: %s",
		                  dir, strerror(errno));
	free(dir);
	return rc;
}

/* The quotations of the first reading, voice by voice, into the spool;
 * *cur gets the synthesizer's voice.  0, or a code with err filled. */
static int spool_speak(ts_spool *sp, ts_synth *syn, double rate_factor, ts_samples *pcm,
                       const ts_voice **cur, ts_error *err)
{
	uint64_t end = 0;
	int rc = 0;
	for (size_t i = 0; i < sp->n; i++) {
		const ts_voice *v = sp->chunks[i].voice;
		if (!v || sp->chunks[i].off != UINT64_MAX)
			continue;
		if ((rc = ts_synth_use(syn, v, rate_factor)))
			return ts_error_set(err, rc, "%s", ts_synth_errmsg(syn));
		*cur = v;
		for (size_t j = i; j < sp->n; j++) {
			spool_chunk *k = &sp->chunks[j];
			if (k->voice != v)
				continue;
			if ((rc = ts_synth_speak(syn, sp->texts.data + k->text, pcm)))
				return ts_error_set(err, rc, "%s", ts_synth_errmsg(syn));
			size_t bytes = pcm->len * sizeof *pcm->data;
			if (ts_write_full(sp->fd, pcm->data, bytes))
				return ts_error_set(err, ts_errno_code(errno),
				                    "%s: cannot write its quotations' audio to a "
				                    "temporary file: %s",
				                    sp->path, strerror(errno));
			k->off = end;
			k->len = pcm->len;
			end += bytes;
		}
	}
	return 0;
}

int ts_spool_fill(ts_spool *sp, const ts_lang *lang, const ts_voicing *vo, ts_synth *syn,
                  double rate_factor, ts_samples *pcm, const ts_voice **cur, ts_error *err)
{
	int rc = spool_read(sp, lang, vo, err);
	if (!rc)
		rc = spool_open(sp, sp->path, err);
	if (!rc)
		rc = spool_speak(sp, syn, rate_factor, pcm, cur, err);
	ts_buf_free(&sp->texts);
	return rc;
}

/* The second reading gave a chunk in another voice than the first, or
 * another number of chunks: a bug, said as one. */
static int spool_differs(const ts_spool *sp, ts_error *err)
{
	return ts_error_set(err, TS_EINVAL,
	                    "%s: chapter \"%s\": internal error: the two readings of the chapter "
	                    "differ (%zu chunks in the first, a difference at chunk %zu)",
	                    sp->ch->display, sp->ch->title, sp->n, sp->next + 1);
}

int ts_spool_take(ts_spool *sp, const ts_voice *want, ts_samples *pcm, ts_error *err)
{
	if (sp->next >= sp->n)
		return spool_differs(sp, err);
	const spool_chunk *k = &sp->chunks[sp->next];
	if ((k->voice ? k->voice : sp->narrator) != want)
		return spool_differs(sp, err);
	sp->next++;
	if (!k->voice)
		return 1;
	if (TS_GROW(pcm->data, pcm->cap, k->len))
		return ts_error_set(err, TS_ENOMEM, NULL);
	size_t bytes = k->len * sizeof *pcm->data;
	ssize_t got = ts_pread_full(sp->fd, pcm->data, bytes, (off_t)k->off);
	if (got != (ssize_t)bytes)
		return ts_error_set(err, TS_EIO,
		                    "%s: cannot read its quotations' audio back from a "
		                    "temporary file: %s",
		                    sp->path, got < 0 ? strerror(errno) : "end of file");
	pcm->len = k->len;
	return 0;
}

int ts_spool_end(const ts_spool *sp, ts_error *err)
{
	return sp->next != sp->n ? spool_differs(sp, err) : 0;
}

void ts_spool_free(ts_spool *sp)
{
	if (!sp)
		return;
	if (sp->fd >= 0)
		close(sp->fd);
	sp->fd = -1;
	free(sp->chunks);
	ts_buf_free(&sp->texts);
	free(sp);
}
