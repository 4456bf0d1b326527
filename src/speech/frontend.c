/* frontend.c - wiring of the text stages (see frontend.h). */
#include "speech/frontend.h"

#include "text/clean.h"
#include "zh/g2p.h"
#include "zh/normalize.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* How a piece of a paragraph ends. */
enum piece_end {
	END_NONE,      /* the sentence goes on */
	END_CUT,       /* a very long sentence is cut here (see frontend.h) */
	END_SENTENCE,  /* the sentence ends */
	END_PARAGRAPH, /* the paragraph ends, and with it the sentence */
};

/* Characters after a Latin letter, digit or ASCII sign before a long
 * sentence may be cut: the normalizer reads a number together with up to
 * four characters after it (3 多年代, 2 公斤), and a cut there would
 * change how it is read. */
#define CUT_GAP 4

struct ts_frontend {
	const ts_lang *lang;
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
	ts_sentence_fn on_sentence;
	ts_sentence_scan scan; /* sentence ends in the text as written */
	ts_buf source;         /* the sentence as written, kept for on_sentence */
	size_t source_chars;   /* characters of the sentence so far */
	size_t since_ascii;    /* characters since the last ASCII letter, digit or sign */
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
	f->lang = lang;
	f->since_ascii = CUT_GAP;
	f->on_text = on_text;
	f->on_chunk = on_chunk;
	f->ud = ud;
	f->cl = ts_cleaner_new();
	f->norm = ts_normalizer_new(lang);
	const ts_lexicon *lx = ts_lang_lexicon(lang);
	if (!f->cl || !f->norm || (on_chunk && !(f->seg = ts_segmenter_new(g2p_chunk, f))) ||
	    (on_chunk && lx &&
	     (!(f->g2p = ts_g2p_new(lx, ts_lang_rules(lang), ts_lang_userlex(lang))) ||
	      ts_g2p_set_model(f->g2p, ts_lang_g2p_model(lang)) ||
	      ts_g2p_set_surnames(f->g2p, ts_lang_surnames(lang),
	                          ts_lang_words(lang, TS_WORDS_NAME_CUES))))) {
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
	ts_buf_free(&f->source);
	free(f);
}

/* The sentence as written is over (or cut): hand it to the caller. */
static int give_sentence(ts_frontend *f)
{
	const char *p = f->source.data ? f->source.data : "";
	size_t a = 0, b = f->source.len;
	while (a < b && p[a] == ' ')
		a++;
	while (b > a && p[b - 1] == ' ')
		b--;
	int rc = 0;
	if (b > a && f->on_sentence) {
		char save = f->source.data[b];
		f->source.data[b] = '\0';
		rc = f->on_sentence(f->ud, p + a, b - a);
		f->source.data[b] = save;
	}
	ts_buf_clear(&f->source);
	f->source_chars = 0;
	return rc;
}

/* A piece of a paragraph's cleaned text, ending as end says: normalized,
 * then segmented (build) and shown (text).  The text callback comes
 * after the chunks of the piece, so that a caller using both sees a
 * paragraph's end after its last chunk; the sentence callback after both. */
static int pass_on(ts_frontend *f, const char *s, size_t n, enum piece_end end)
{
	int rc;
	int norm_end = end == END_PARAGRAPH ? TS_NORM_LINE_END
	               : end != END_NONE    ? TS_NORM_SENTENCE_END
	                                    : TS_NORM_MORE;
	ts_buf_clear(&f->spoken);
	if ((rc = ts_normalize_piece(f->norm, s, n, norm_end, &f->spoken)))
		return rc;
	const char *t = f->spoken.data ? f->spoken.data : "";
	if (f->seg && f->spoken.len > 0 && (rc = ts_segmenter_feed(f->seg, t, f->spoken.len)))
		return rc;
	if (f->seg) {
		switch (end) {
		case END_NONE: break;
		case END_CUT: rc = ts_segmenter_end_clause(f->seg); break;
		case END_SENTENCE: rc = ts_segmenter_end_sentence(f->seg); break;
		case END_PARAGRAPH: rc = ts_segmenter_end_paragraph(f->seg); break;
		}
		if (rc)
			return rc;
	}
	if (f->on_text && (rc = f->on_text(f->ud, t, f->spoken.len, end == END_PARAGRAPH)))
		return rc;
	if (end == END_PARAGRAPH) {
		ts_sentence_scan_reset(&f->scan);
		f->since_ascii = CUT_GAP;
	}
	return end != END_NONE ? give_sentence(f) : 0;
}

/* Must a long sentence be cut between prev and the next character? */
static int cut_here(const ts_frontend *f, uint32_t prev)
{
	size_t n = f->source_chars;
	if (n >= 4 * TS_SENTENCE_MAX)
		return 1;
	if (f->since_ascii < CUT_GAP)
		return 0;
	if (n >= 2 * TS_SENTENCE_MAX && ts_is_han(prev))
		return 1;
	return n >= TS_SENTENCE_MAX && prev >= 0x80 && ts_is_clause_break(prev) && prev != 0xFF1A;
}

/* Keep c, a character of the sentence as written, with lookalikes
 * repaired as the normalizer repairs them. */
static int keep_source(ts_frontend *f, uint32_t c)
{
	f->source_chars++;
	if (c < 0x80 && c != ' ')
		f->since_ascii = 0;
	else if (f->since_ascii < CUT_GAP)
		f->since_ascii++;
	if (!f->on_sentence)
		return 0;
	uint32_t std = ts_lang_lookalike(f->lang, c);
	char u[4];
	return ts_buf_append(&f->source, u, (size_t)ts_utf8_encode(std ? std : c, u));
}

/* One paragraph's cleaned text, or a piece of it; para_end: the paragraph
 * ends.  Cut at the sentence ends of the text as written, each sentence
 * is passed on by itself. */
static int split_sentences(ts_frontend *f, const char *s, size_t n, int para_end)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t start = 0, i = 0;
	int rc;
	while (i < n) {
		uint32_t c;
		int k = ts_utf8_decode(u + i, n - i, &c);
		if (k <= 0) {
			i++; /* not from the cleaner, which gives valid UTF-8 */
			continue;
		}
		uint32_t prev = f->scan.prev;
		enum piece_end end = ts_sentence_scan_push(&f->scan, c) == TS_SCAN_BREAK
		                         ? END_SENTENCE
		                     : cut_here(f, prev) ? END_CUT
		                                         : END_NONE;
		if (end != END_NONE) {
			if ((rc = pass_on(f, s + start, i - start, end)))
				return rc;
			start = i;
		}
		if ((rc = keep_source(f, c)))
			return rc;
		i += (size_t)k;
	}
	return pass_on(f, s + start, n - start, para_end ? END_PARAGRAPH : END_NONE);
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
		if ((rc = split_sentences(f, s, k, 1)))
			return rc;
		s += k + 1;
		n -= k + 1;
	}
	return split_sentences(f, s, n, line_end);
}

int ts_frontend_end_clause(ts_frontend *f)
{
	ts_buf_clear(&f->cleaned);
	int rc = ts_clean_flush(f->cl, &f->cleaned);
	if (!rc && f->cleaned.len)
		rc = split_sentences(f, f->cleaned.data, f->cleaned.len, 0);
	return !rc && f->source_chars ? pass_on(f, "", 0, END_CUT) : rc;
}

void ts_frontend_set_sentence_fn(ts_frontend *f, ts_sentence_fn fn)
{
	f->on_sentence = fn;
}

void ts_frontend_mark_said(ts_frontend *f, int mark)
{
	ts_normalizer_mark_said(f->norm, mark);
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
