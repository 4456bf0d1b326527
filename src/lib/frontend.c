/* frontend.c - wiring of the text stages (see frontend.h). */
#include "frontend.h"

#include "clean.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct ts_frontend {
	ts_cleaner *cl;
	ts_segmenter *seg;
	ts_text_fn on_text;
	void *ud;
	ts_buf cleaned;
};

ts_frontend *ts_frontend_new(ts_chunk_fn on_chunk, ts_text_fn on_text, void *ud)
{
	ts_frontend *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->on_text = on_text;
	f->ud = ud;
	f->cl = ts_cleaner_new();
	if (!f->cl || (on_chunk && !(f->seg = ts_segmenter_new(on_chunk, ud)))) {
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
	ts_buf_free(&f->cleaned);
	free(f);
}

/* One paragraph's text, or a piece of it; end: the paragraph ends. */
static int pass_on(ts_frontend *f, const char *s, size_t n, int end)
{
	int rc;
	if (f->on_text && (rc = f->on_text(f->ud, s, n, end)))
		return rc;
	if (f->seg && n > 0 && (rc = ts_segmenter_feed(f->seg, s, n)))
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
