/* speakers.c - `tingshu speakers`: who says each quotation of a book, a
 * line a quotation, so that a user can check it and write a cast file
 * before a long build.  The book is read twice (zh/dialogue.h): once to
 * learn its names, once to attribute; a paragraph is held whole while it
 * is read. */
#include "base/util.h"
#include "speech/casting.h"
#include "speech/reading.h"
#include "input/book.h"
#include "input/reader.h"
#include "speech/speakers.h"
#include "zh/dialogue.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct speakers_run {
	const ts_speakers_opts *o;
	ts_write_fn out;
	void *ud;
	int out_rc;
	int number; /* of the chapter, as in the file names */
	ts_buf line;
	ts_attribution_fn fn; /* instead of printing (ts_dialogue_book) */
	void *fn_ud;
	const ts_boilerplate *bp; /* the lines not read, as they are not spoken */
	unsigned bp_flags;
	ts_diag_fn diag; /* the warnings of marks that do not pair, or NULL */
	void *diag_ud;
	size_t warned;
	long open_line; /* a paragraph whose quotation was left open, or 0 */
	const char *open_file;
} speakers_run;

/* The line of a chapter's source its body starts on: the one after the
 * heading (or the title of front matter), which is the line before the
 * body when that is not blank; else the chapter's line. */
static long body_line(const ts_chapter *ch)
{
	char buf[512];
	long from = ch->start > (long)sizeof buf ? ch->start - (long)sizeof buf : 0;
	FILE *f = ch->start > 0 ? fopen(ch->source, "rb") : NULL;
	size_t n =
	    f && fseek(f, from, SEEK_SET) == 0 ? fread(buf, 1, (size_t)(ch->start - from), f) : 0;
	if (f)
		fclose(f);
	if (n && buf[n - 1] == '\n')
		n--;
	int blank = 1;
	while (n && buf[n - 1] != '\n' && blank)
		blank = strchr(" \t\r", buf[--n]) != NULL;
	return ch->line + !blank;
}

/* Warn of marks that do not pair ("FILE:LINE: ..."), the first
 * TS_INTAKE_WARNINGS_MAX of the book; the rest are counted. */
static void warn_marks(speakers_run *r, const char *file, long line, const char *what)
{
	if (!r->diag || ++r->warned > TS_INTAKE_WARNINGS_MAX)
		return;
	char msg[1024];
	snprintf(msg, sizeof msg, "%s:%ld: %s", file, line, what);
	r->diag(r->diag_ud, TS_WARNING, msg);
}

/* After paragraph line of ch was attributed: its marks that do not pair,
 * and a quotation the paragraph before left open that this one does not
 * go on with. */
static void check_marks(speakers_run *r, const ts_dialogue *dl, const ts_chapter *ch, long line,
                        int blank)
{
	size_t unpaired;
	int left_open, continued;
	if (!r->diag || blank)
		return;
	ts_dialogue_marks(dl, &unpaired, &left_open, &continued);
	if (r->open_line && !continued)
		warn_marks(r, r->open_file, r->open_line,
		           "a quotation not closed at the end of its paragraph");
	if (unpaired)
		warn_marks(r, ch->display, line,
		           "quotation marks that do not pair: each quotation read as far as its "
		           "sentence");
	r->open_line = left_open ? line : 0;
	r->open_file = ch->display;
}

static int on_quote(void *ud, const ts_attribution *a)
{
	speakers_run *r = ud;
	if (r->fn)
		return r->fn(r->fn_ud, a);
	if (!r->out)
		return 0;
	ts_buf_clear(&r->line);
	ts_buf_printf(&r->line, "%d\t%s\t%.*s", r->number, a->speaker, (int)a->quote_len, a->quote);
	if (r->o && r->o->explain)
		ts_buf_printf(&r->line, "\t%s", a->why);
	ts_buf_putc(&r->line, '\n');
	if (ts_buf_error(&r->line))
		return TS_ENOMEM;
	int rc = r->out(r->ud, r->line.data, r->line.len);
	if (rc)
		r->out_rc = rc;
	return rc;
}

/* Each paragraph of chapter ch to the dialogue: learnt, or attributed to
 * r's output. */
static int read_chapter(ts_dialogue *dl, const ts_chapter *ch, speakers_run *r, int learn)
{
	int rc = 0, got, line_end;
	ts_reader *rd = ts_reader_open(ch, &rc);
	if (!rd)
		return rc ? rc : TS_ENOMEM;
	if (ts_reader_set_filter(rd, r->bp, r->bp_flags, NULL, NULL)) {
		ts_reader_free(rd);
		return TS_ENOMEM;
	}
	long line = learn || !r->diag ? 0 : body_line(ch);
	r->open_line = 0;
	ts_buf para = {0};
	const char *piece;
	size_t len;
	while (!rc && (got = ts_reader_next(rd, &piece, &len, &line_end)) > 0) {
		if (r->o && r->o->cancel && *r->o->cancel) {
			rc = TS_ECANCELED;
			break;
		}
		ts_buf_append(&para, piece, len);
		if (ts_buf_error(&para))
			rc = TS_ENOMEM;
		if (rc || !line_end)
			continue;
		rc = learn ? ts_dialogue_learn(dl, para.data ? para.data : "", para.len)
		           : ts_dialogue_attribute(dl, para.data ? para.data : "", para.len,
		                                   on_quote, r);
		if (!rc && !learn)
			check_marks(r, dl, ch, line, ts_utf8_trim(para.data, para.len, &len) == 0);
		line++;
		ts_buf_clear(&para);
	}
	if (!rc && got < 0)
		rc = got;
	if (!rc && para.len) /* a last line without its newline */
		rc = learn ? ts_dialogue_learn(dl, para.data, para.len)
		           : ts_dialogue_attribute(dl, para.data, para.len, on_quote, r);
	if (!rc && !learn && para.len)
		check_marks(r, dl, ch, line, ts_utf8_trim(para.data, para.len, &len) == 0);
	ts_buf_free(&para);
	ts_reader_free(rd);
	return rc;
}

/* A cast's voice that is not there (a preset or a path to one) is a
 * mistake in the cast, as an unknown preset's name is. */
static int voice_ok(void *ud, const char *voice, ts_error *err)
{
	if (ts_voice_cache_get(ud, voice, err))
		return 0;
	if (err->code == TS_ENOENT)
		err->code = TS_EVOICE;
	return err->code;
}

/* Read the cast file path, its voices checked against the presets of
 * voices_dir. */
static int cast_read(ts_dialogue *dl, const char *path, const char *voices_dir,
                     volatile sig_atomic_t *cancel, ts_diag_fn diag, void *ud, ts_error *err)
{
	char dir[PATH_MAX];
	int rc = ts_reading_voices_dir(voices_dir, dir, sizeof dir, err);
	if (rc)
		return rc;
	ts_voice_cache *vc = ts_voice_cache_new(dir);
	if (!vc)
		return ts_error_set(err, TS_ENOMEM, NULL);
	const ts_cast_check chk = {voice_ok, vc, cancel, diag, ud};
	rc = ts_dialogue_cast_file(dl, path, &chk, err);
	ts_voice_cache_free(vc);
	return rc ? rc : 1;
}

int ts_cast_load(ts_dialogue *dl, const char *cast, char *const *files, size_t nfiles,
                 const char *voices_dir, volatile sig_atomic_t *cancel, ts_diag_fn diag, void *ud,
                 ts_error *err)
{
	char path[PATH_MAX];
	if (cast)
		return cast_read(dl, cast, voices_dir, cancel, diag, ud, err);
	if (!nfiles || strcmp(files[0], "-") == 0)
		return 0;
	const char *slash = strrchr(files[0], '/');
	snprintf(path, sizeof path, "%.*scast.txt", slash ? (int)(slash - files[0] + 1) : 0,
	         files[0]);
	if (access(path, F_OK) != 0)
		return 0;
	return cast_read(dl, path, voices_dir, cancel, diag, ud, err);
}

int ts_dialogue_book(ts_dialogue *dl, const ts_book *b, const ts_boilerplate *bp, unsigned flags,
                     ts_attribution_fn fn, void *ud)
{
	speakers_run r = {.fn = fn, .fn_ud = ud, .bp = bp, .bp_flags = flags};
	int rc = 0;
	size_t n = ts_book_count(b);
	for (int learn = 1; learn >= 0 && !rc; learn--) {
		for (size_t i = 0; i < n && !rc; i++) {
			ts_dialogue_chapter(dl);
			rc = read_chapter(dl, ts_book_chapter(b, i), &r, learn);
		}
		if (learn)
			ts_dialogue_settle(dl);
	}
	ts_buf_free(&r.line);
	return rc;
}

int ts_speakers_print(const ts_speakers_opts *o, char *const *files, size_t nfiles, ts_write_fn out,
                      void *out_ud, ts_diag_fn diag, void *ud, size_t *failed, ts_error *err)
{
	speakers_run r = {.o = o, .out = out, .ud = out_ud, .diag = diag, .diag_ud = ud};
	/* The default voice's language data: the words of dialogue. */
	const ts_read_opts ro = {0};
	ts_reading rd;
	ts_dialogue *dl = NULL;
	ts_book *b = NULL;
	*failed = 0;
	int rc = ts_reading_load(&rd, &ro, NULL, 0, diag, ud, err);
	if (rc)
		goto out;
	dl = ts_dialogue_new(ts_lang_words(rd.lang, TS_WORDS_DIALOGUE));
	b = ts_book_new(diag, ud);
	if (!dl || !b || ts_book_set_encoding(b, o->encoding)) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	r.bp = rd.boilerplate;
	ts_book_set_boilerplate(b, rd.boilerplate, 0);
	if ((rc = ts_cast_load(dl, o->cast, files, nfiles, NULL, o->cancel, diag, ud, err)) < 0)
		goto out;
	rc = 0;
	ts_book_set_cancel(b, o->cancel);
	for (size_t i = 0; i < nfiles; i++) {
		int k = ts_book_add(b, files[i]);
		if (k == TS_ECANCELED || ts_error_retryable(k)) {
			rc = ts_error_set(err, k, "%s: %s", files[i], ts_strerror(k));
			goto out;
		}
		*failed += k != 0;
	}
	size_t n = ts_book_count(b);
	int base = n && ts_book_chapter(b, 0)->front_matter ? 0 : 1;
	for (int learn = 1; learn >= 0 && !rc; learn--) {
		for (size_t i = 0; i < n && !rc; i++) {
			ts_dialogue_chapter(dl);
			r.number = (int)i + base;
			rc = read_chapter(dl, ts_book_chapter(b, i), &r, learn);
		}
		if (learn)
			ts_dialogue_settle(dl);
	}
	if (!rc && diag && r.warned > TS_INTAKE_WARNINGS_MAX) {
		char msg[128];
		snprintf(msg, sizeof msg, "and %zu more warnings of quotation marks like these",
		         r.warned - TS_INTAKE_WARNINGS_MAX);
		diag(ud, TS_WARNING, msg);
	}
	if (r.out_rc)
		rc = ts_error_set(err, r.out_rc, "cannot write the speakers: %s",
		                  ts_strerror(r.out_rc));
	else if (rc)
		ts_error_set(err, rc, "%s", ts_strerror(rc));
out:
	ts_buf_free(&r.line);
	ts_book_free(b);
	ts_dialogue_free(dl);
	ts_reading_free(&rd);
	return rc;
}
