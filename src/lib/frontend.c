/* frontend.c - wiring of the text stages (see frontend.h). */
#include "frontend.h"

#include "clean.h"
#include "normalize.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct ts_frontend {
	ts_cleaner *cl;
	ts_normalizer *norm;
	ts_segmenter *seg;
	ts_text_fn on_text;
	void *ud;
	ts_buf cleaned;
	ts_buf spoken; /* normalized */
};

ts_frontend *ts_frontend_new(const ts_lang *lang, ts_chunk_fn on_chunk, ts_text_fn on_text,
                             void *ud)
{
	ts_frontend *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->on_text = on_text;
	f->ud = ud;
	f->cl = ts_cleaner_new();
	f->norm = ts_normalizer_new(lang);
	if (!f->cl || !f->norm || (on_chunk && !(f->seg = ts_segmenter_new(on_chunk, ud)))) {
		ts_frontend_free(f);
		return NULL;
	}
	return f;
}

void ts_frontend_free(ts_frontend *f)
{
	if (!f)
		return;
	ts_cleaner_free(f->cl);
	ts_segmenter_free(f->seg);
	ts_normalizer_free(f->norm);
	ts_buf_free(&f->cleaned);
	ts_buf_free(&f->spoken);
	free(f);
}

/* One paragraph's cleaned text, or a piece of it; end: the paragraph
 * ends.  Normalized, then shown (text) and segmented (build). */
static int pass_on(ts_frontend *f, const char *s, size_t n, int end)
{
	int rc;
	ts_buf_clear(&f->spoken);
	if ((rc = ts_normalize_piece(f->norm, s, n, end, &f->spoken)))
		return rc;
	const char *t = f->spoken.data ? f->spoken.data : "";
	if (f->on_text && (rc = f->on_text(f->ud, t, f->spoken.len, end)))
		return rc;
	if (f->seg && f->spoken.len > 0 && (rc = ts_segmenter_feed(f->seg, t, f->spoken.len)))
		return rc;
	if (f->seg && end && (rc = ts_segmenter_end_paragraph(f->seg)))
		return rc;
	return 0;
}

int ts_frontend_feed(ts_frontend *f, const char *text, size_t len, int line_end)
{
	int rc;
	ts_buf_clear(&f->cleaned);
	if ((rc = ts_clean_piece(f->cl, text, len, line_end, &f->cleaned)))
		return rc;
	/* A '\n' from the cleaner is a paragraph break inside the line
	 * (<p>, <br> in web text): it ends a paragraph as a line end does. */
	const char *s = f->cleaned.data ? f->cleaned.data : "";
	size_t n = f->cleaned.len;
	const char *nl;
	while ((nl = memchr(s, '\n', n))) {
		size_t k = (size_t)(nl - s);
		if ((rc = pass_on(f, s, k, 1)))
			return rc;
		s += k + 1;
		n -= k + 1;
	}
	return pass_on(f, s, n, line_end);
}

size_t ts_frontend_unreadable(ts_frontend *f, ts_buf *out)
{
	size_t n = ts_normalizer_unreadable(f->norm, out);
	ts_normalizer_reset_counts(f->norm);
	return n;
}
