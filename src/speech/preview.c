/* preview.c - the text and pinyin a book will be spoken with, for `tingshu
 * text` and `tingshu pinyin`: each file through the same front end as a
 * build, its output written out instead of spoken. */
#include "input/reader.h"
#include "speech/reading.h"
#include "speech/frontend.h"
#include "speech/preview.h"

#include <stdio.h>

typedef struct text_run {
	ts_write_fn out;
	void *ud;
	const char *path; /* of the file read */
	int out_rc;       /* the output failed: the run stops, and no input is to blame */
	int line_has_tokens;
} text_run;

static int emit(text_run *t, const char *s, size_t n)
{
	int rc = t->out(t->ud, s, n);
	if (rc && !t->out_rc)
		t->out_rc = rc;
	return rc;
}

static int on_text_chunk(void *ud, const ts_chunk *c)
{
	text_run *t = ud;
	int rc = emit(t, c->text, c->len);
	return rc ? rc : emit(t, "\n", 1);
}

/* pinyin: the tokens of a line's chunks, joined by a space. */
static int on_pinyin_chunk(void *ud, const ts_chunk *c)
{
	text_run *t = ud;
	int rc = 0;
	if (!c->tokens || c->tokens_len == 0)
		return 0;
	if (t->line_has_tokens)
		rc = emit(t, " ", 1);
	t->line_has_tokens = 1;
	return rc ? rc : emit(t, c->tokens, c->tokens_len);
}

static int on_pinyin_line(void *ud, const char *s, size_t n, int line_end)
{
	text_run *t = ud;
	(void)s, (void)n;
	if (!line_end)
		return 0;
	t->line_has_tokens = 0;
	return emit(t, "\n", 1);
}

static int on_text_line(void *ud, const char *s, size_t n, int line_end)
{
	text_run *t = ud;
	int rc = emit(t, s, n);
	return rc || !line_end ? rc : emit(t, "\n", 1);
}

/* --dropped: a line for each line, or part of a line, not spoken. */
static void on_dropped(void *ud, long line, const ts_unspoken *u, const char *text, size_t len)
{
	text_run *t = ud;
	ts_buf b = {0};
	ts_buf_printf(&b, "%s:%ld: dropped%s (%s): ", t->path, line, u->whole ? "" : " part",
	              u->reason);
	if (!ts_buf_error(&b))
		ts_buf_append(&b, text, len);
	if (!ts_buf_error(&b))
		ts_buf_append(&b, "\n", 1);
	if (ts_buf_error(&b))
		t->out_rc = t->out_rc ? t->out_rc : ts_buf_error(&b);
	else if (!t->out_rc)
		emit(t, b.data, b.len);
	ts_buf_free(&b);
}

static ts_frontend *frontend_for(const ts_text_opts *o, const ts_lang *lang, text_run *t)
{
	ts_frontend *fe = NULL;
	switch (o->mode) {
	case TS_TEXT_LINES: return ts_frontend_new(lang, NULL, on_text_line, t);
	case TS_TEXT_CHUNKS: return ts_frontend_new(lang, on_text_chunk, NULL, t);
	case TS_TEXT_DROPPED: break; /* nothing is spoken */
	case TS_TEXT_PINYIN:
	case TS_TEXT_EXPLAIN:
		fe = ts_frontend_new(lang, on_pinyin_chunk, on_pinyin_line, t);
		if (fe) {
			ts_frontend_set_explain(fe, o->mode == TS_TEXT_EXPLAIN);
			ts_frontend_mark_said(fe, 1);
			if (o->upto != TS_UPTO_ALL)
				ts_frontend_set_g2p_stages(fe, (unsigned)o->upto);
		}
		break;
	}
	return fe;
}

/* One file through the front end into t (or, listing the lines dropped,
 * only read); its warnings to diag(ud).  0, or a negative code with err
 * filled; the characters the voice cannot read are listed in
 * unreadable. */
static int print_file(const ts_text_opts *o, const ts_reading *r, const char *path, text_run *t,
                      ts_buf *unreadable, ts_diag_fn diag, void *ud, ts_error *err)
{
	ts_reader *rd = ts_reader_open_file(path, o->read.encoding, o->cancel, diag, ud, err);
	if (!rd)
		return err->code;
	int listing = o->mode == TS_TEXT_DROPPED;
	ts_frontend *fe = listing ? NULL : frontend_for(o, r->lang, t);
	t->path = path;
	int rc = ts_reader_set_filter(rd, r->boilerplate, r->boilerplate_flags,
	                              listing ? on_dropped : NULL, t);
	if (rc || (!listing && !fe)) {
		rc = ts_error_set(err, TS_ENOMEM, "%s: %s", path, ts_strerror(TS_ENOMEM));
		goto out;
	}
	const char *piece;
	size_t len;
	int line_end, got = 0;
	while (!rc && !t->out_rc && (got = ts_reader_next(rd, &piece, &len, &line_end)) > 0)
		rc = o->cancel && *o->cancel ? TS_ECANCELED
		     : fe                    ? ts_frontend_feed(fe, piece, len, line_end)
		                             : 0;
	rc = rc ? rc : t->out_rc ? t->out_rc : got;
	if (t->out_rc) /* the output failed, not the file */
		rc = ts_error_set(err, t->out_rc, "cannot write the text of %s: %s", path,
		                  ts_strerror(t->out_rc));
	else if (rc == TS_EIO)
		ts_error_set(err, rc, "%s: read error", path);
	else if (rc)
		ts_error_set(err, rc, "%s: %s", path, ts_strerror(rc));
	if (fe)
		ts_frontend_unreadable(fe, unreadable);
out:
	ts_frontend_free(fe);
	ts_reader_free(rd);
	return rc;
}

int ts_text_print(const ts_text_opts *o, char *const *files, size_t nfiles, ts_write_fn out,
                  void *out_ud, ts_diag_fn diag, void *ud, size_t *failed, ts_error *err)
{
	ts_reading r;
	int rc = ts_reading_load(&r, &o->read, files, nfiles, diag, ud, err);
	int pinyin = o->mode == TS_TEXT_PINYIN || o->mode == TS_TEXT_EXPLAIN;
	if (!rc && pinyin && !ts_lang_lexicon(r.lang))
		rc = ts_error_set(err, TS_EVOICE,
		                  "voice %s: its language data (%s) has no pronunciation lexicon "
		                  "(lexicon.bin)",
		                  r.voice.name, r.voice.language);
	*failed = 0;
	for (size_t i = 0; !rc && i < nfiles; i++) {
		text_run t = {.out = out, .ud = out_ud};
		ts_error fe = {0};
		ts_buf unreadable = {0};
		int frc = print_file(o, &r, files[i], &t, &unreadable, diag, ud, &fe);
		if (t.out_rc) {
			rc = ts_error_set(err, t.out_rc, "%s", ts_error_msg(&fe));
			ts_buf_free(&unreadable);
			break;
		}
		if (frc == TS_ECANCELED) {
			rc = ts_error_set(err, frc, NULL);
		} else if (ts_error_retryable(frc)) {
			/* Short of memory: the rest would fail too (exit 75). */
			rc = ts_error_set(err, frc, "%s", fe.msg[0] ? fe.msg : ts_strerror(frc));
		} else if (frc) {
			(*failed)++;
			if (diag)
				diag(ud, TS_ERROR, fe.msg[0] ? fe.msg : files[i]);
		}
		if (unreadable.len && diag) {
			char msg[1024];
			snprintf(msg, sizeof msg, "%s: characters the voice cannot read: %s",
			         files[i], unreadable.data);
			diag(ud, TS_WARNING, msg);
		}
		ts_buf_free(&unreadable);
	}
	ts_reading_free(&r);
	return rc;
}
