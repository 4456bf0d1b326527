/* quotes.c - the quotation marks of a paragraph paired up, recovering
 * from marks that are missing or doubled (see quotes.h).
 *
 * One pass over the marks with a stack, as a well-formed text needs; what
 * damage leaves (an opening mark still open at a certain opening or at the
 * paragraph's end, a closing mark with nothing open) is settled where it
 * is met, from the text around the mark alone, so that nothing of it
 * reaches past the sentence. */
#include "zh/quotes.h"

#include "base/util.h"

#include <string.h>

enum { DEPTH_MAX = 16, VERB_MAX_CPS = 8 };

#define NONE ((size_t)-1)

uint32_t ts_zh_quote_closer(uint32_t c)
{
	switch (c) {
	case 0x201C: return 0x201D; /* “” */
	case 0x300C: return 0x300D; /* 「」 */
	case 0x300E: return 0x300F; /* 『』 */
	case 0x2018: return 0x2019; /* ‘’ */
	default: return 0;
	}
}

static int is_closer(uint32_t c)
{
	return c == 0x201D || c == 0x300D || c == 0x300F || c == 0x2019;
}

/* The marks of a quotation of its own, not of one inside another: only
 * these may end what is open at a certain opening. */
static int is_primary(uint32_t c)
{
	return c == '"' || c == 0x201C || c == 0x300C;
}

static int is_sentence_end(uint32_t c)
{
	return ts_char_in(c, "。！？!?…");
}

typedef struct pairing {
	const uint32_t *cp;
	size_t n;
	const char *const *verbs;
	ts_qspan *out;
	size_t max, count, unpaired;
	size_t done; /* the end of the last quotation */
} pairing;

static int is_straight(const pairing *p, size_t i)
{
	uint32_t c = p->cp[i];
	if (c == '"')
		return 1;
	/* a ' between two Latin letters or digits is an apostrophe */
	return c == '\'' &&
	       !(i > 0 && i + 1 < p->n && ts_is_alnum(p->cp[i - 1]) && ts_is_alnum(p->cp[i + 1]));
}

static int is_mark(const pairing *p, size_t i)
{
	return is_straight(p, i) || ts_zh_quote_closer(p->cp[i]) || is_closer(p->cp[i]);
}

/* The last character before i that is not a space, not before lo; or
 * NONE. */
static size_t before(const pairing *p, size_t lo, size_t i)
{
	while (i > lo && ts_is_space(p->cp[i - 1]))
		i--;
	return i > lo ? i - 1 : NONE;
}

/* Does cp[lo..e) end with one of the speech verbs? */
static int ends_verb(const pairing *p, size_t lo, size_t e)
{
	for (size_t k = 0; p->verbs && p->verbs[k]; k++) {
		uint32_t w[VERB_MAX_CPS];
		size_t wn = 0, bytes = strlen(p->verbs[k]);
		const unsigned char *s = (const unsigned char *)p->verbs[k];
		while (bytes && wn < VERB_MAX_CPS) {
			int l = ts_utf8_decode(s, bytes, &w[wn++]);
			if (!l)
				break;
			s += l, bytes -= (size_t)l;
		}
		if (wn && !bytes && e - lo >= wn && !memcmp(p->cp + e - wn, w, wn * sizeof *w))
			return 1;
	}
	return 0;
}

/* Does the character at c introduce speech: a colon, or a comma after a
 * speech verb? */
static int introduces(const pairing *p, size_t lo, size_t c)
{
	if (ts_char_in(p->cp[c], "：:"))
		return 1;
	return ts_char_in(p->cp[c], "，,") && ends_verb(p, lo, c);
}

/* Speech introduced in cp[lo..i) whose opening mark is missing (X道:好。"):
 * where it starts, just after the last colon that ends a speech verb
 * (孔明曰：……愿纳军令状：……), else the last colon, else (unless
 * verb_colon) the last comma that ends a speech verb; or NONE. */
static size_t intro_before(const pairing *p, size_t lo, size_t i, int verb_colon)
{
	size_t found[3] = {NONE, NONE, NONE}; /* verb and colon, colon, verb and comma */
	for (size_t c = i; c-- > lo && !is_mark(p, c) && found[0] == NONE;) {
		int colon = ts_char_in(p->cp[c], "：:") != 0;
		if (!colon && !ts_char_in(p->cp[c], "，,"))
			continue;
		int k = ends_verb(p, lo, c) ? (colon ? 0 : 2) : (colon ? 1 : -1);
		if (k >= 0 && found[k] == NONE)
			found[k] = c;
	}
	size_t c = found[0] != NONE   ? found[0]
	           : verb_colon       ? NONE
	           : found[1] != NONE ? found[1]
	                              : found[2];
	if (c == NONE)
		return NONE;
	for (c++; c < i && ts_is_space(p->cp[c]);)
		c++;
	return c < i ? c : NONE;
}

/* The start of the clause that introduces the mark at i. */
static size_t clause_of(const pairing *p, size_t lo, size_t i)
{
	size_t c = before(p, lo, i);
	if (c == NONE)
		return lo;
	while (c > lo && !ts_char_in(p->cp[c - 1], "，。！？；：…,.!?;:—") && !is_mark(p, c - 1))
		c--;
	return c;
}

static void emit(pairing *p, size_t start, size_t ts, size_t te, size_t end, int closed)
{
	while (p->count > 0 && p->count <= p->max && p->out[p->count - 1].start >= start)
		p->count--; /* quoted inside speech whose opening mark is missing */
	if (p->count < p->max)
		p->out[p->count] = (ts_qspan){start, ts, te, end, closed};
	p->count++;
	p->done = end;
}

/* A closing mark at i with nothing open: it closes speech introduced
 * before it without its opening mark, or it is dropped. */
static void stray(pairing *p, size_t i)
{
	size_t c = intro_before(p, p->done, i, 0);
	p->unpaired++;
	if (c != NONE)
		emit(p, c, c, i, i + 1, 1);
}

/* An opening mark at o that no mark closed, ended at limit: the clause
 * that introduces the next certain opening, or the paragraph's end
 * (last).  A mark after a sentence that closes speech introduced without
 * its opening mark is that closing mark; one with nothing after it is
 * dropped; otherwise the quotation ends with its last sentence before
 * limit, or with the paragraph. */
static void unclosed(pairing *p, size_t o, size_t limit, int last)
{
	size_t pc = before(p, p->done, o);
	int after_sentence = pc != NONE && (is_sentence_end(p->cp[pc]) || is_mark(p, pc));
	int empty = 1;
	for (size_t i = o + 1; i < limit && empty; i++)
		empty = !ts_is_han(p->cp[i]) && !ts_is_alnum(p->cp[i]);
	size_t c = after_sentence ? intro_before(p, p->done, o, 0) : NONE;
	if (c != NONE || empty || !last)
		p->unpaired++; /* the convention of a quotation over paragraphs is no damage */
	if (c != NONE) {
		emit(p, c, c, o, o + 1, 1);
		return;
	}
	if (empty)
		return;
	size_t e = limit;
	while (!last && e > o + 1 && !is_sentence_end(p->cp[e - 1]))
		e--;
	if (e == o + 1)
		e = limit;
	emit(p, o, o + 1, e, e, 0);
}

size_t ts_zh_quotes(const uint32_t *cp, size_t n, const char *const *verbs, ts_qspan *out,
                    size_t max, size_t *unpaired)
{
	pairing p = {.cp = cp, .n = n, .verbs = verbs, .out = out, .max = max};
	uint32_t stack[DEPTH_MAX];
	size_t at[DEPTH_MAX], depth = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = cp[i], want = ts_zh_quote_closer(c);
		int straight = is_straight(&p, i), closing = is_closer(c);
		if (!straight && !want && !closing)
			continue;
		size_t pc = before(&p, p.done, i);
		if (depth > 0 && !closing && is_primary(c) && is_primary(cp[at[0]]) && pc != NONE &&
		    pc > at[0] && introduces(&p, at[0] + 1, pc)) {
			/* a certain opening: what is open was not closed */
			unclosed(&p, at[0], clause_of(&p, at[0] + 1, i), 0);
			depth = 0;
		}
		size_t k = straight || closing ? depth : 0; /* 1 + the mark it closes */
		while (k > 0 && stack[k - 1] != c)
			k--;
		if (k > 0 && at[k - 1] + 1 == i) { /* doubled: nothing inside */
			p.unpaired++;
		} else if (k > 0) {
			depth = k - 1;
			if (depth == 0)
				emit(&p, at[0], at[0] + 1, i, i + 1, 1);
		} else if (closing) {
			if (depth == 0)
				stray(&p, i);
			else
				p.unpaired++; /* closes nothing open: dropped */
		} else if (depth == 0 && straight && pc != NONE && is_sentence_end(cp[pc]) &&
		           (pc = intro_before(&p, p.done, i, 1)) != NONE) {
			/* X道：好。" closes speech opened without its mark */
			p.unpaired++;
			emit(&p, pc, pc, i, i + 1, 1);
		} else if (depth > 0 && cp[at[depth - 1]] == c && at[depth - 1] + 1 == i) {
			p.unpaired++; /* an opening mark doubled */
		} else if (depth < DEPTH_MAX) {
			stack[depth] = straight ? c : want;
			at[depth++] = i;
		}
	}
	if (depth > 0)
		unclosed(&p, at[0], n, 1);
	if (unpaired)
		*unpaired = p.unpaired;
	return p.count;
}
