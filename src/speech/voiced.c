/* voiced.c - a chapter read in its speakers' voices, its quotations'
 * audio spoken first (see voiced.h).
 *
 * Memory: 32 bytes per chunk of the chapter (listed_chunk), and the text
 * of its quotations until they are spoken; their samples wait in an
 * unnamed file. */
#define _GNU_SOURCE /* O_TMPFILE, memfd_create */
#include "speech/voiced.h"

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
 * is first heard, into an unnamed file (O_TMPFILE in the output folder,
 * or memory), and the second reading speaks the narration and takes each
 * quotation's samples from that file, in book order.  A chapter changes
 * voice once per voice heard, plus one back to the narrator, instead of
 * twice per quotation.  The reading is the same both times
 * (ts_feed_voiced() starts the chapter's dialogue afresh); a difference
 * is an internal error, never other audio. */
typedef struct listed_chunk {
	const ts_voice *voice; /* NULL: the narrator's */
	size_t text;           /* the text to speak: an offset in the texts */
	uint64_t off;          /* its samples in the file: offset in bytes */
	size_t len;            /* and number; off is UINT64_MAX until spoken */
} listed_chunk;

struct ts_quote_audio {
	int fd; /* the unnamed file of the samples; -1: none */
	const ts_chapter *ch;
	const char *path; /* of the chapter's audio */
	const ts_voice *narrator;
	listed_chunk *chunks; /* every chunk of the chapter, its title's too */
	size_t n, cap;
	size_t next;  /* the second reading: its next chunk */
	ts_buf texts; /* the quotations' texts, each ended by a NUL, until spoken */
};

ts_quote_audio *ts_quote_audio_new(const ts_chapter *ch, const char *path, const ts_voice *narrator)
{
	ts_quote_audio *qa = malloc(sizeof *qa);
	if (qa)
		*qa = (ts_quote_audio){.fd = -1, .ch = ch, .path = path, .narrator = narrator};
	return qa;
}

int ts_quote_audio_list(ts_quote_audio *qa, const ts_voice *v, const char *text)
{
	if (TS_GROW(qa->chunks, qa->cap, qa->n + 1))
		return TS_ENOMEM;
	listed_chunk *k = &qa->chunks[qa->n++];
	*k = (listed_chunk){.off = UINT64_MAX};
	if (v == qa->narrator)
		return 0;
	k->voice = v;
	k->text = qa->texts.len;
	return ts_buf_append(&qa->texts, text, strlen(text) + 1);
}

/* An unnamed file for the samples, in the folder of qa->path (or in
 * memory where the file system has no O_TMPFILE): nothing is left of it
 * on any way out.  0, or a code with err filled. */
static int open_samples(ts_quote_audio *qa, ts_error *err)
{
	const char *path = qa->path, *slash = strrchr(path, '/');
	char *dir =
	    slash ? ts_strndup(path, slash == path ? 1 : (size_t)(slash - path)) : ts_strdup(".");
	if (!dir)
		return ts_error_set(err, TS_ENOMEM, NULL);
	qa->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (qa->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
		qa->fd = memfd_create("tingshu-quotations", MFD_CLOEXEC);
	int rc = 0;
	if (qa->fd < 0)
		rc = ts_error_set(err, ts_errno_code(errno),
		                  "%s: cannot make a temporary file for the quotations' audio: %s",
		                  dir, strerror(errno));
	free(dir);
	return rc;
}

/* The quotations listed, voice by voice, into the file; *cur gets the
 * synthesizer's voice.  0, or a code with err filled. */
static int speak_listed(ts_quote_audio *qa, ts_synth *syn, double rate_factor, ts_samples *pcm,
                        const ts_voice **cur, ts_error *err)
{
	uint64_t end = 0;
	int rc = 0;
	for (size_t i = 0; i < qa->n; i++) {
		const ts_voice *v = qa->chunks[i].voice;
		if (!v || qa->chunks[i].off != UINT64_MAX)
			continue;
		if ((rc = ts_synth_use(syn, v, rate_factor)))
			return ts_error_set(err, rc, "%s", ts_synth_errmsg(syn));
		*cur = v;
		for (size_t j = i; j < qa->n; j++) {
			listed_chunk *k = &qa->chunks[j];
			if (k->voice != v)
				continue;
			if ((rc = ts_synth_speak(syn, qa->texts.data + k->text, pcm)))
				return ts_error_set(err, rc, "%s", ts_synth_errmsg(syn));
			size_t bytes = pcm->len * sizeof *pcm->data;
			if (ts_write_full(qa->fd, pcm->data, bytes))
				return ts_error_set(err, ts_errno_code(errno),
				                    "%s: cannot write its quotations' audio to a "
				                    "temporary file: %s",
				                    qa->path, strerror(errno));
			k->off = end;
			k->len = pcm->len;
			end += bytes;
		}
	}
	return 0;
}

int ts_quote_audio_speak(ts_quote_audio *qa, ts_synth *syn, double rate_factor, ts_samples *pcm,
                         const ts_voice **cur, ts_error *err)
{
	int rc = open_samples(qa, err);
	if (!rc)
		rc = speak_listed(qa, syn, rate_factor, pcm, cur, err);
	ts_buf_free(&qa->texts);
	return rc;
}

/* The second reading gave a chunk in another voice than the first, or
 * another number of chunks: a bug, said as one. */
static int readings_differ(const ts_quote_audio *qa, ts_error *err)
{
	return ts_error_set(err, TS_EINVAL,
	                    "%s: chapter \"%s\": internal error: the two readings of the chapter "
	                    "differ (%zu chunks in the first, a difference at chunk %zu)",
	                    qa->ch->display, qa->ch->title, qa->n, qa->next + 1);
}

int ts_quote_audio_take(ts_quote_audio *qa, const ts_voice *want, ts_samples *pcm, ts_error *err)
{
	if (qa->next >= qa->n)
		return readings_differ(qa, err);
	const listed_chunk *k = &qa->chunks[qa->next];
	if ((k->voice ? k->voice : qa->narrator) != want)
		return readings_differ(qa, err);
	qa->next++;
	if (!k->voice)
		return 1;
	if (TS_GROW(pcm->data, pcm->cap, k->len))
		return ts_error_set(err, TS_ENOMEM, NULL);
	size_t bytes = k->len * sizeof *pcm->data;
	ssize_t got = ts_pread_full(qa->fd, pcm->data, bytes, (off_t)k->off);
	if (got != (ssize_t)bytes)
		return ts_error_set(err, TS_EIO,
		                    "%s: cannot read its quotations' audio back from a "
		                    "temporary file: %s",
		                    qa->path, got < 0 ? strerror(errno) : "end of file");
	pcm->len = k->len;
	return 0;
}

int ts_quote_audio_end(const ts_quote_audio *qa, ts_error *err)
{
	return qa->next != qa->n ? readings_differ(qa, err) : 0;
}

void ts_quote_audio_free(ts_quote_audio *qa)
{
	if (!qa)
		return;
	if (qa->fd >= 0)
		close(qa->fd);
	qa->fd = -1;
	free(qa->chunks);
	ts_buf_free(&qa->texts);
	free(qa);
}
