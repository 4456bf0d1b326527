/* g2p.c - segmentation, readings, sandhi (see g2p.h).
 *
 * Bad-input policy: any valid UTF-8 is converted; characters that are not
 * Han pass through to eSpeak unchanged and make no token; a Han character
 * the lexicon does not know passes through as itself (eSpeak reads it as
 * best it can, and the normalizer has already warned about it). */
#include "g2p.h"

#include <stdlib.h>
#include <string.h>

#define MAX_MATCH TS_LEX_MAX_WORD
#define SYL_OPEN  (-2) /* to be decided by the rules, then the default */
#define SYL_NONE  (-1) /* not a Han character the lexicon knows */

/* How a reading was decided (for explain). */
enum source { SRC_NONE, SRC_WORD, SRC_DEFAULT, SRC_RULE, SRC_SANDHI, SRC_NEUTRAL };
static const char *const source_names[] = {"", "", "default", "rule", "sandhi", "neutral"};

struct ts_g2p {
	const ts_lexicon *lx;
	size_t cap;                 /* entries of the arrays below */
	uint32_t *cp;               /* the text's code points */
	size_t *off;                /* byte offset of each, and of the end */
	int *ch;                    /* lexicon character, or -1 */
	int *key;                   /* its lookup key, or -1 */
	int *syl;                   /* syllable, SYL_OPEN or SYL_NONE */
	size_t *wbeg, *wend;        /* the word each character is in */
	double *route;              /* best score of the rest of the run */
	size_t *next;               /* end of the best word starting here */
	const unsigned char **bits; /* its readings, NULL for a single character */
	unsigned char *src;         /* enum source of each reading */
	ts_lexmatch m[MAX_MATCH];
	int explain;
};

ts_g2p *ts_g2p_new(const ts_lexicon *lx)
{
	ts_g2p *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->lx = lx;
	return g;
}

void ts_g2p_free(ts_g2p *g)
{
	if (!g)
		return;
	free(g->cp);
	free(g->off);
	free(g->ch);
	free(g->key);
	free(g->syl);
	free(g->wbeg);
	free(g->wend);
	free(g->route);
	free(g->next);
	free(g->bits);
	free(g->src);
	free(g);
}

#define GROW(p, n)                                                                                 \
	do {                                                                                       \
		void *q_ = realloc((p), (n) * sizeof *(p));                                        \
		if (!q_)                                                                           \
			return TS_ENOMEM;                                                          \
		(p) = q_;                                                                          \
	} while (0)

/* Room for n characters (and one more: the end). */
static int reserve(ts_g2p *g, size_t n)
{
	if (n + 1 <= g->cap)
		return 0;
	size_t cap = g->cap ? g->cap : 128;
	while (cap < n + 1)
		cap *= 2;
	GROW(g->cp, cap);
	GROW(g->off, cap);
	GROW(g->ch, cap);
	GROW(g->key, cap);
	GROW(g->syl, cap);
	GROW(g->wbeg, cap);
	GROW(g->wend, cap);
	GROW(g->route, cap);
	GROW(g->next, cap);
	GROW(g->bits, cap);
	GROW(g->src, cap);
	g->cap = cap;
	return 0;
}

/* Maximum-probability segmentation of the Han run [a, b), right to left
 * as jieba does: route[i] is the best score of text[i..b). */
static void segment_run(ts_g2p *g, size_t a, size_t b)
{
	const ts_lexicon *lx = g->lx;
	g->route[b] = 0;
	for (size_t i = b; i-- > a;) {
		double best = (g->ch[i] >= 0 ? ts_lexicon_char_logp(lx, g->ch[i])
		                             : ts_lexicon_unknown_logp(lx)) +
		              g->route[i + 1];
		size_t end = i + 1;
		const unsigned char *bits = NULL;
		size_t nm = ts_lexicon_match(lx, g->key + i, b - i, g->m, MAX_MATCH);
		for (size_t k = 0; k < nm; k++) {
			double s = g->m[k].logp + g->route[i + g->m[k].len];
			if (s >= best) { /* ties go to the longer word */
				best = s;
				end = i + g->m[k].len;
				bits = g->m[k].bits;
			}
		}
		g->route[i] = best;
		g->next[i] = end;
		g->bits[i] = bits;
	}
	for (size_t i = a; i < b;) {
		size_t j = g->next[i];
		ts_lexmatch w = {.len = (unsigned)(j - i), .bits = g->bits[i]};
		for (size_t k = i; k < j; k++) {
			g->wbeg[k] = i;
			g->wend[k] = j;
			unsigned r =
			    w.bits ? ts_lexmatch_reading(&w, (unsigned)(k - i)) : TS_LEX_OPEN;
			if (g->ch[k] < 0) {
				g->syl[k] = SYL_NONE;
			} else if (r == TS_LEX_OPEN) {
				g->syl[k] = SYL_OPEN;
			} else {
				g->syl[k] = (int)ts_lexicon_reading(g->lx, g->key[k], r);
				g->src[k] = SRC_WORD;
			}
		}
		i = j;
	}
}

/* Readings the words left open: the most common one. */
static void decide_open(ts_g2p *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (g->syl[i] == SYL_OPEN) {
			g->syl[i] = (int)ts_lexicon_reading(g->lx, g->ch[i], 0);
			g->src[i] = SRC_DEFAULT;
		}
}

static int is_ascii_alnum(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Append what eSpeak is given and the tokens. */
static int emit(ts_g2p *g, const char *text, size_t n, ts_buf *spoken, ts_buf *tokens)
{
	int rc = 0;
	int after_syl = 0; /* the last thing in spoken is a syllable */
	if (tokens && tokens->len > 0 && tokens->data[tokens->len - 1] != '\n' &&
	    tokens->data[tokens->len - 1] != ' ')
		rc = ts_buf_putc(tokens, ' ');
	int first_token = 1;
	for (size_t i = 0; i < n && !rc; i++) {
		const char *s = text + g->off[i];
		size_t len = g->off[i + 1] - g->off[i];
		int han = ts_is_han(g->cp[i]);
		if (g->syl[i] >= 0)
			s = ts_lexicon_syllable(g->lx, (unsigned)g->syl[i], &len);
		if (han && tokens) {
			if (!first_token)
				rc = ts_buf_putc(tokens, ' ');
			if (g->explain && !rc)
				rc =
				    ts_buf_printf(tokens, "%.*s=", (int)(g->off[i + 1] - g->off[i]),
				                  text + g->off[i]);
			rc = rc ? rc : ts_buf_append(tokens, s, len);
			if (g->explain && !rc && g->src[i] == SRC_WORD)
				rc = ts_buf_printf(tokens, "/%.*s",
				                   (int)(g->off[g->wend[i]] - g->off[g->wbeg[i]]),
				                   text + g->off[g->wbeg[i]]);
			else if (g->explain && !rc && g->src[i] != SRC_NONE)
				rc = ts_buf_printf(tokens, "/%s", source_names[g->src[i]]);
			first_token = 0;
		}
		if (!spoken || rc)
			continue;
		/* A syllable stands apart from the syllable or Latin word next
		 * to it; other characters are kept as they are. */
		if (spoken->len > 0 && (han || after_syl) &&
		    (after_syl || is_ascii_alnum(spoken->data[spoken->len - 1])) &&
		    (han || is_ascii_alnum((unsigned char)s[0])))
			rc = ts_buf_putc(spoken, ' ');
		rc = rc ? rc : ts_buf_append(spoken, s, len);
		after_syl = han;
	}
	return rc;
}

int ts_g2p_convert(ts_g2p *g, const char *text, size_t len, ts_buf *spoken, ts_buf *tokens)
{
	int rc;
	size_t n = 0;
	if ((rc = reserve(g, len)))
		return rc;
	for (size_t i = 0; i < len;) {
		uint32_t c;
		int k = ts_utf8_decode((const unsigned char *)text + i, len - i, &c);
		if (k <= 0) { /* not valid UTF-8: taken byte by byte, as is */
			c = 0xFFFD;
			k = 1;
		}
		g->cp[n] = c;
		g->off[n] = i;
		int han = ts_is_han(c);
		g->ch[n] = han ? ts_lexicon_char(g->lx, c) : -1;
		g->key[n] = g->ch[n] >= 0 ? ts_lexicon_key(g->lx, g->ch[n]) : -1;
		g->syl[n] = SYL_NONE;
		g->src[n] = SRC_NONE;
		n++;
		i += (size_t)k;
	}
	g->off[n] = len;
	for (size_t a = 0; a < n;) {
		if (!ts_is_han(g->cp[a])) {
			a++;
			continue;
		}
		size_t b = a;
		while (b < n && ts_is_han(g->cp[b]))
			b++;
		segment_run(g, a, b);
		a = b;
	}
	decide_open(g, n);
	return emit(g, text, n, spoken, tokens);
}

void ts_g2p_set_explain(ts_g2p *g, int explain)
{
	g->explain = explain;
}
