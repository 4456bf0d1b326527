/* segment.c - streaming sentence and chunk segmentation (see segment.h). */
#include "text/segment.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>

struct ts_segmenter {
	ts_chunk_fn fn;
	void *ud;
	ts_buf pend; /* the chunk being built */
	size_t pend_chars;
	/* Byte offset in pend just after the last good split point, or 0. */
	size_t split_at;
	size_t split_chars;
	/* Last split point between two characters (a fallback). */
	size_t cut_at;
	size_t cut_chars;
	ts_sentence_scan scan;
	ts_break next_brk;
	char carry[4]; /* a character cut by the end of a piece */
	size_t carry_len;
};

ts_segmenter *ts_segmenter_new(ts_chunk_fn fn, void *ud)
{
	ts_segmenter *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->fn = fn;
	s->ud = ud;
	s->next_brk = TS_BREAK_NONE;
	if (ts_buf_reserve(&s->pend, TS_CHUNK_HARD_MAX * 4 + 8)) {
		free(s);
		return NULL;
	}
	return s;
}

void ts_segmenter_free(ts_segmenter *s)
{
	if (!s)
		return;
	ts_buf_free(&s->pend);
	free(s);
}

static int is_terminator(uint32_t c)
{
	return c == 0x3002 /* 。 */ || c == 0xFF01 /* ！ */ || c == 0xFF1F /* ？ */ ||
	       c == 0x2026 /* … */ || c == 0xFF61 /* ｡ */ || c == 0x203C /* ‼ */ || c == 0x2047 ||
	       c == 0x2048 || c == 0x2049;
}

static int is_closer(uint32_t c)
{
	switch (c) {
	case 0x201D: /* ” */
	case 0x2019: /* ’ */
	case 0x300D: /* 」 */
	case 0x300F: /* 』 */
	case 0xFF09: /* ） */
	case 0x300B: /* 》 */
	case 0x3009: /* 〉 */
	case 0x3011: /* 】 */
	case 0x3015: /* 〕 */
	case 0x3017: /* 〗 */
	case 0xFF3D: /* ］ */
	case 0xFF5D: /* ｝ */
	case ')':
	case ']':
	case '\'': return 1;
	}
	return 0;
}

int ts_is_clause_break(uint32_t c)
{
	return c == 0xFF1B /* ； */ || c == 0xFF1A /* ： */ || c == 0xFF0C /* ， */ ||
	       c == 0x3001 /* 、 */ || c == ';' || c == ':' || c == ',';
}

static int is_word_char(uint32_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       c == '.' || c == '\'' || c == '-' || (c >= 0xC0 && c < 0x2000 && !ts_is_space(c));
}

/* Text that reads as Chinese: after ASCII ! or ? this makes a sentence end. */
static int is_chinese_side(uint32_t c)
{
	return ts_is_han(c) || ts_is_cjk_punct(c) || c == 0x201C || c == 0x2018;
}

void ts_sentence_scan_reset(ts_sentence_scan *s)
{
	memset(s, 0, sizeof *s);
}

ts_scan_step ts_sentence_scan_push(ts_sentence_scan *s, uint32_t c)
{
	ts_scan_step step = TS_SCAN_TEXT;
	if (s->after_end) {
		int closer = is_closer(c) || (c == '"' && s->quote_open);
		if (is_terminator(c) || c == '!' || c == '?' || closer || c == ' ' || c == '\t') {
			if (c == '"')
				s->quote_open = 0;
			/* 好!？ ends for certain: the full-width mark decides. */
			if (is_terminator(c))
				s->tentative = 0;
			s->prev = c;
			return TS_SCAN_TAIL;
		}
		s->after_end = 0;
		if (!s->tentative || is_chinese_side(c))
			step = TS_SCAN_BREAK;
		s->tentative = 0;
	}
	if (c == '"')
		s->quote_open = !s->quote_open;
	if (is_terminator(c)) {
		s->after_end = 1;
		s->tentative = 0;
	} else if ((c == '!' || c == '?') && (ts_is_han(s->prev) || is_closer(s->prev))) {
		s->after_end = 1;
		s->tentative = 1;
	}
	s->prev = c;
	return step;
}

static int emit(ts_segmenter *s, size_t bytes, size_t chars, int sentence_end)
{
	int rc = 0;
	/* Trim spaces at the chunk edges; they carry nothing to speak. */
	const char *p = s->pend.data;
	size_t a = 0, b = bytes;
	while (a < b && (p[a] == ' ' || p[a] == '\t'))
		a++;
	while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t'))
		b--;
	if (b > a) {
		char save = s->pend.data[b];
		s->pend.data[b] = '\0';
		ts_chunk c = {
		    .text = p + a,
		    .len = b - a,
		    .chars = ts_utf8_count(p + a, b - a),
		    .brk = s->next_brk,
		    .sentence_end = sentence_end,
		};
		rc = s->fn(s->ud, &c);
		s->pend.data[b] = save;
		s->next_brk = sentence_end ? TS_BREAK_SENTENCE : TS_BREAK_CLAUSE;
	} else if (sentence_end && s->next_brk == TS_BREAK_CLAUSE) {
		s->next_brk = TS_BREAK_SENTENCE;
	}
	/* Keep what follows the emitted part. */
	memmove(s->pend.data, s->pend.data + bytes, s->pend.len - bytes);
	s->pend.len -= bytes;
	s->pend.data[s->pend.len] = '\0';
	s->pend_chars -= chars;
	s->split_at = s->split_at > bytes ? s->split_at - bytes : 0;
	s->split_chars = s->split_chars > chars ? s->split_chars - chars : 0;
	s->cut_at = s->cut_at > bytes ? s->cut_at - bytes : 0;
	s->cut_chars = s->cut_chars > chars ? s->cut_chars - chars : 0;
	return rc;
}

/* All of the chunk, but a TS_READ_MARK at its end: that one stays with
 * the character it marks, still to come. */
static int emit_all(ts_segmenter *s, int sentence_end)
{
	size_t mark = s->pend.len > 0 && s->pend.data[s->pend.len - 1] == TS_READ_MARK;
	return emit(s, s->pend.len - mark, s->pend_chars, sentence_end);
}

/* The chunk is full: split it at the best place found so far. */
static int split_long(ts_segmenter *s)
{
	if (s->split_at > 0)
		return emit(s, s->split_at, s->split_chars, 0);
	if (s->cut_at > 0)
		return emit(s, s->cut_at, s->cut_chars, 0);
	return emit_all(s, 0);
}

static int push(ts_segmenter *s, uint32_t c, const char *bytes, int n)
{
	int rc;
	uint32_t prev = s->scan.prev;
	/* It belongs to the character after it, and is not spoken. */
	if (c == (uint32_t)TS_READ_MARK)
		return ts_buf_append(&s->pend, bytes, (size_t)n);
	int marked = s->pend.len > 0 && s->pend.data[s->pend.len - 1] == TS_READ_MARK;
	ts_scan_step step = ts_sentence_scan_push(&s->scan, c);
	if (step == TS_SCAN_TAIL) {
		if (s->pend_chars >= TS_CHUNK_HARD_MAX && (rc = emit_all(s, 0)))
			return rc;
		ts_buf_append(&s->pend, bytes, (size_t)n);
		s->pend_chars++;
		return 0;
	}
	if (step == TS_SCAN_BREAK && (rc = emit_all(s, 1)))
		return rc;

	/* Room for c?  Split before adding it when the chunk is full. */
	if (s->pend_chars >= TS_CHUNK_MAX && (rc = split_long(s)))
		return rc;

	/* A split between prev and c is acceptable unless both belong to one
	 * Latin word or number. */
	if (s->pend_chars > 0 && !(is_word_char(prev) && is_word_char(c))) {
		s->cut_at = s->pend.len - (size_t)marked;
		s->cut_chars = s->pend_chars;
	}
	ts_buf_append(&s->pend, bytes, (size_t)n);
	s->pend_chars++;

	if (ts_is_clause_break(c) || (c == 0x2014 && prev == 0x2014)) {
		s->split_at = s->pend.len;
		s->split_chars = s->pend_chars;
	}
	return 0;
}

int ts_segmenter_feed(ts_segmenter *s, const char *text, size_t len)
{
	const unsigned char *u = (const unsigned char *)text;
	size_t i = 0;
	int rc;
	/* Complete a character cut by the previous piece. */
	while (s->carry_len > 0 && i < len) {
		s->carry[s->carry_len++] = text[i++];
		uint32_t c;
		int k = ts_utf8_decode((const unsigned char *)s->carry, s->carry_len, &c);
		if (k > 0) {
			if ((rc = push(s, c, s->carry, k)))
				return rc;
			s->carry_len = 0;
		} else if (s->carry_len == 4) {
			s->carry_len = 0; /* invalid: the input stage rejects such text */
		}
	}
	while (i < len) {
		uint32_t c;
		int k = ts_utf8_decode(u + i, len - i, &c);
		if (k == 0) {
			if (len - i < 4) {
				memcpy(s->carry, text + i, len - i);
				s->carry_len = len - i;
				return 0;
			}
			i++; /* invalid byte: skipped (input is validated earlier) */
			continue;
		}
		if ((rc = push(s, c, text + i, k)))
			return rc;
		i += (size_t)k;
	}
	return 0;
}

int ts_segmenter_end_paragraph(ts_segmenter *s)
{
	int rc = emit_all(s, 1);
	ts_sentence_scan_reset(&s->scan);
	s->carry_len = 0;
	s->split_at = s->split_chars = s->cut_at = s->cut_chars = 0;
	if (s->next_brk != TS_BREAK_NONE)
		s->next_brk = TS_BREAK_PARAGRAPH;
	return rc;
}

int ts_segmenter_end_sentence(ts_segmenter *s)
{
	/* What the next character would do after a terminator: the sentence
	 * is over, the scan goes on in the same paragraph. */
	s->scan.after_end = 0;
	s->scan.tentative = 0;
	return emit_all(s, 1);
}

int ts_segmenter_end_clause(ts_segmenter *s)
{
	return emit_all(s, 0);
}
