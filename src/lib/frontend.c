/* frontend.c - wiring of the text stages (see frontend.h). */
#include "frontend.h"

#include "clean.h"
#include "normalize.h"
#include "util.h"

#include <stdlib.h>

struct ts_frontend {
	ts_cleaner cl;
	ts_normalizer *norm;
	ts_segmenter *seg;
	ts_text_fn on_text;
	void *ud;
	ts_buf cleaned;
	ts_buf spoken;       /* normalized */
};

ts_frontend *ts_frontend_new(const ts_lang *lang, ts_chunk_fn on_chunk, ts_text_fn on_text,
                             void *ud)
{
	ts_frontend *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->on_text = on_text;
	f->ud = ud;
	if (!(f->norm = ts_normalizer_new(lang)) ||
	    (on_chunk && !(f->seg = ts_segmenter_new(on_chunk, ud)))) {
		ts_frontend_free(f);
		return NULL;
	}
	ts_clean_begin(&f->cl);
	return f;
}

void ts_frontend_free(ts_frontend *f)
{
	if (!f)
		return;
	ts_segmenter_free(f->seg);
	ts_normalizer_free(f->norm);
	ts_buf_free(&f->cleaned);
	ts_buf_free(&f->spoken);
	free(f);
}

int ts_frontend_feed(ts_frontend *f, const char *text, size_t len, int line_end)
{
	int rc;
	ts_buf_clear(&f->cleaned);
	ts_buf_clear(&f->spoken);
	if ((rc = ts_clean_piece(&f->cl, text, len, &f->cleaned)))
		return rc;
	if ((rc = ts_normalize_piece(f->norm, f->cleaned.data ? f->cleaned.data : "", f->cleaned.len,
	                             line_end, &f->spoken)))
		return rc;
	const char *s = f->spoken.data ? f->spoken.data : "";
	if (f->on_text && (rc = f->on_text(f->ud, s, f->spoken.len, line_end)))
		return rc;
	if (f->seg && (rc = ts_segmenter_feed(f->seg, s, f->spoken.len)))
		return rc;
	if (line_end) {
		ts_clean_begin(&f->cl);
		if (f->seg && (rc = ts_segmenter_end_paragraph(f->seg)))
			return rc;
	}
	return 0;
}

size_t ts_frontend_unreadable(ts_frontend *f, ts_buf *out)
{
	size_t n = ts_normalizer_unreadable(f->norm, out);
	ts_normalizer_reset_counts(f->norm);
	return n;
}
