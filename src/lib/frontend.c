/* frontend.c - wiring of the text stages (see frontend.h). */
#include "frontend.h"

#include "clean.h"
#include "g2p.h"
#include "normalize.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct ts_frontend {
	ts_cleaner *cl;
	ts_normalizer *norm;
	ts_segmenter *seg;
	ts_g2p *g2p; /* NULL when the voice has no lexicon */
	ts_chunk_fn on_chunk;
	ts_text_fn on_text;
	void *ud;
	ts_buf cleaned;
	ts_buf spoken; /* normalized */
	ts_buf pinyin; /* a chunk as eSpeak is given it */
	ts_buf tokens; /* its syllables */
};

/* The g2p stage sits between the segmenter and the caller: each chunk is
 * converted on its own, so what `tingshu pinyin` prints and what eSpeak
 * is given are made by the same call on the same text. */
static int g2p_chunk(void *ud, const ts_chunk *c)
{
	ts_frontend *f = ud;
	ts_chunk out = *c;
	if (f->g2p) {
		ts_buf_clear(&f->pinyin);
		ts_buf_clear(&f->tokens);
		int rc = ts_g2p_convert(f->g2p, c->text, c->len, &f->pinyin, &f->tokens);
		if (rc)
			return rc;
		out.spoken = f->pinyin.data ? f->pinyin.data : "";
		out.spoken_len = f->pinyin.len;
		out.tokens = f->tokens.data ? f->tokens.data : "";
		out.tokens_len = f->tokens.len;
	}
	return f->on_chunk(f->ud, &out);
}

ts_frontend *ts_frontend_new(const ts_lang *lang, ts_chunk_fn on_chunk, ts_text_fn on_text,
                             void *ud)
{
	ts_frontend *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->on_text = on_text;
	f->on_chunk = on_chunk;
	f->ud = ud;
	f->cl = ts_cleaner_new();
	f->norm = ts_normalizer_new(lang);
	const ts_lexicon *lx = ts_lang_lexicon(lang);
	if (!f->cl || !f->norm || (on_chunk && !(f->seg = ts_segmenter_new(g2p_chunk, f))) ||
	    (on_chunk && lx &&
	     !(f->g2p = ts_g2p_new(lx, ts_lang_rules(lang), ts_lang_userlex(lang))))) {
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
	ts_g2p_free(f->g2p);
	ts_buf_free(&f->cleaned);
	ts_buf_free(&f->spoken);
	ts_buf_free(&f->pinyin);
	ts_buf_free(&f->tokens);
	free(f);
}

/* One paragraph's cleaned text, or a piece of it; end: the paragraph
 * ends.  Normalized, then segmented (build) and shown (text): the text
 * callback comes after the chunks of the piece, so that a caller using
 * both sees a paragraph's end after its last chunk. */
static int pass_on(ts_frontend *f, const char *s, size_t n, int end)
{
	int rc;
	ts_buf_clear(&f->spoken);
	if ((rc = ts_normalize_piece(f->norm, s, n, end, &f->spoken)))
		return rc;
	const char *t = f->spoken.data ? f->spoken.data : "";
	if (f->seg && f->spoken.len > 0 && (rc = ts_segmenter_feed(f->seg, t, f->spoken.len)))
		return rc;
	if (f->seg && end && (rc = ts_segmenter_end_paragraph(f->seg)))
		return rc;
	if (f->on_text && (rc = f->on_text(f->ud, t, f->spoken.len, end)))
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

void ts_frontend_set_explain(ts_frontend *f, int explain)
{
	if (f->g2p)
		ts_g2p_set_explain(f->g2p, explain);
}

void ts_frontend_set_g2p_stages(ts_frontend *f, unsigned stages)
{
	if (f->g2p)
		ts_g2p_set_stages(f->g2p, stages);
}

size_t ts_frontend_unreadable(ts_frontend *f, ts_buf *out)
{
	size_t n = ts_normalizer_unreadable(f->norm, out);
	ts_normalizer_reset_counts(f->norm);
	return n;
}
