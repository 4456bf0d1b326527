/* surname.c - surnames at the start of personal names (see surname.h).
 *
 * Only the context decides, and only where it is clear: a surname
 * character whose context says nothing keeps the reading the rules or the
 * default give it, so that a missed name costs what it cost before and a
 * common word is never read as a name on weak evidence. */
#include "zh/surname.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>

#define MAX_CUE   8 /* characters of a cue; longer entries are ignored */
#define MAX_GIVEN 2 /* characters of a given name */

enum kind { BEFORE, FAMILIAR, TITLE, OFFICE, SUFFIX, VERB, NOTNAME, STRICT, NOOFFICE, NKINDS };
static const char *const kind_names[NKINDS] = {"before", "familiar", "title",  "office",  "suffix",
                                               "verb",   "notname",  "strict", "nooffice"};

typedef struct cue {
	unsigned char kind;
	unsigned char len;
	uint32_t cp[MAX_CUE];
} cue;

struct ts_surnames {
	const ts_userlex *table;
	cue *cues;
	size_t ncues;
};

static int kind_of(const char *said)
{
	for (int k = 0; k < NKINDS; k++)
		if (strcmp(said, kind_names[k]) == 0)
			return k;
	return -1;
}

int ts_surnames_check_cues(const ts_wordtab *cues, const char *file, ts_error *err)
{
	size_t nw;
	const ts_word *w = ts_wordtab_words(cues, &nw);
	for (size_t k = 0; k < nw; k++)
		if (kind_of(w[k].said) < 0)
			return ts_error_set(err, TS_EINVAL, "%s: %s: unknown kind '%s'", file,
			                    w[k].text, w[k].said);
	return 0;
}

ts_surnames *ts_surnames_new(const ts_userlex *table, const ts_wordtab *cues)
{
	size_t nw;
	const ts_word *w = ts_wordtab_words(cues, &nw);
	ts_surnames *s = calloc(1, sizeof *s);
	if (!s || !(s->cues = calloc(nw ? nw : 1, sizeof *s->cues))) {
		free(s);
		return NULL;
	}
	s->table = table;
	for (size_t k = 0; k < nw; k++) {
		int kind = kind_of(w[k].said);
		if (kind < 0 || w[k].len > MAX_CUE)
			continue;
		cue *c = &s->cues[s->ncues++];
		c->kind = (unsigned char)kind;
		const unsigned char *p = (const unsigned char *)w[k].text;
		size_t len = strlen(w[k].text);
		for (size_t i = 0; i < len && c->len < MAX_CUE;) {
			int n = ts_utf8_decode(p + i, len - i, &c->cp[c->len]);
			i += n > 0 ? (size_t)n : 1;
			c->len++;
		}
	}
	return s;
}

void ts_surnames_free(ts_surnames *s)
{
	if (!s)
		return;
	free(s->cues);
	free(s);
}

const ts_userlex *ts_surnames_table(const ts_surnames *s)
{
	return s->table;
}

/* Are the characters [a, b) whole words of the segmentation: no word
 * runs into them from before, or out of them past b? */
static int whole(const ts_sentence *x, size_t a, size_t b)
{
	return a < b && b <= x->n && x->wbeg[a] == a && x->wend[b - 1] == b;
}

/* The length of the longest cue of kind that is a whole word (or words)
 * starting at p; 0 for none. */
static size_t cue_at(const ts_surnames *s, const ts_sentence *x, size_t p, enum kind kind)
{
	size_t best = 0;
	for (size_t k = 0; k < s->ncues; k++) {
		const cue *c = &s->cues[k];
		if (c->kind != kind || c->len <= best || p + c->len > x->n ||
		    c->cp[0] != x->cp[p] || memcmp(c->cp, x->cp + p, c->len * sizeof *c->cp) != 0 ||
		    !whole(x, p, p + c->len))
			continue;
		best = c->len;
	}
	return best;
}

/* Does a cue of kind end just before q, as a whole word? */
static int cue_before(const ts_surnames *s, const ts_sentence *x, size_t q, enum kind kind)
{
	for (size_t k = 0; k < s->ncues; k++) {
		const cue *c = &s->cues[k];
		if (c->kind == kind && c->len <= q && whole(x, q - c->len, q) &&
		    memcmp(c->cp, x->cp + q - c->len, c->len * sizeof *c->cp) == 0)
			return 1;
	}
	return 0;
}

/* Is the character at p one of a single-character cue of kind? */
static int is_char(const ts_surnames *s, uint32_t cp, enum kind kind)
{
	for (size_t k = 0; k < s->ncues; k++)
		if (s->cues[k].kind == kind && s->cues[k].len == 1 && s->cues[k].cp[0] == cp)
			return 1;
	return 0;
}

/* A given name of g characters at p, then a title or a verb? */
static int given_then_cue(const ts_surnames *s, const ts_sentence *x, size_t p, size_t g)
{
	if (p + g >= x->n)
		return 0;
	for (size_t k = p; k < p + g; k++)
		if (!ts_is_han(x->cp[k]) || is_char(s, x->cp[k], NOTNAME) || !whole(x, k, k + 1))
			return 0;
	/* Each character a word of its own: a word of the lexicon there is
	 * more often what it says (曾接受记者 is not a name), and a given name
	 * the lexicon knows as a word with the surname is name_word()'s. */
	return cue_at(s, x, p + g, TITLE) || cue_at(s, x, p + g, VERB);
}

/* Are the characters [a, b) a title or a suffix, word or not? */
static int is_title(const ts_surnames *s, const ts_sentence *x, size_t a, size_t b)
{
	for (size_t k = 0; k < s->ncues; k++) {
		const cue *c = &s->cues[k];
		if ((c->kind == TITLE || c->kind == OFFICE || c->kind == SUFFIX) &&
		    c->len == b - a && memcmp(c->cp, x->cp + a, c->len * sizeof *c->cp) == 0)
			return 1;
	}
	return 0;
}

/* The surname at i starts a word of the lexicon that leaves its readings
 * open, of two or three characters: a name the lexicon knows as a word
 * but not how to read (单田芳), or the surname and a title (仇先生).  It is
 * one where the title or a cue says so. */
static size_t name_word(const ts_surnames *s, const ts_sentence *x, size_t i, size_t *given)
{
	size_t end = x->wend[i];
	if (x->wbeg[i] != i || !x->open[i] || end - i < 2 || end - i > 1 + MAX_GIVEN)
		return 0;
	if (is_title(s, x, i + 1, end) && !is_char(s, x->cp[i], STRICT) &&
	    !is_char(s, x->cp[i], NOOFFICE))
		return 1; /* 仇先生 as one word */
	if (!cue_before(s, x, i, BEFORE) &&
	    (is_char(s, x->cp[i], STRICT) ||
	     !(cue_at(s, x, end, TITLE) || cue_at(s, x, end, VERB))))
		return 0;
	*given = end - i - 1;
	return 1;
}

/* Can a name start at i: is the character before it no Han character, a
 * "notname" one (对单先生说), or the end of a longer word (告诉单先生)?
 * Else the surname may be the end of a given name (黄佩华先生). */
static int name_starts(const ts_surnames *s, const ts_sentence *x, size_t i)
{
	return i == 0 || !ts_is_han(x->cp[i - 1]) || is_char(s, x->cp[i - 1], NOTNAME) ||
	       x->wbeg[i - 1] < i - 1;
}

/* A title, a suffix or an office at p, just after the surname at i? */
static int title_after(const ts_surnames *s, const ts_sentence *x, size_t i, size_t p)
{
	return cue_at(s, x, p, TITLE) || cue_at(s, x, p, SUFFIX) ||
	       (cue_at(s, x, p, OFFICE) && !is_char(s, x->cp[i], NOOFFICE));
}

size_t ts_surname_at(const ts_surnames *s, const ts_sentence *x, size_t i, size_t *entry,
                     size_t *given)
{
	*given = 0;
	size_t m = ts_userlex_match(s->table, x->cp + i, x->n - i, entry);
	if (!m || m > 2)
		return 0;
	/* A double surname not part of a longer word (单于是 is 单 于是). */
	if (m == 2)
		return x->wbeg[i] == i && x->wend[i + 1] <= i + 2 ? 2 : 0;
	size_t p = i + 1;
	if (!whole(x, i, p))
		return name_starts(s, x, i) ? name_word(s, x, i, given) : 0;
	if (cue_before(s, x, i, BEFORE))
		return 1;
	if (is_char(s, x->cp[i], STRICT))
		return 0;
	if (cue_before(s, x, i, FAMILIAR) &&
	    (p == x->n || !ts_is_han(x->cp[p]) || cue_at(s, x, p, VERB)))
		return 1;
	if (!name_starts(s, x, i))
		return 0;
	if (title_after(s, x, i, p))
		return 1;
	for (size_t g = 1; g <= MAX_GIVEN; g++)
		if (given_then_cue(s, x, p, g)) {
			*given = g;
			return 1;
		}
	return 0;
}
