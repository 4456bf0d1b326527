/* rules.c - loading and matching polyphone context rules (see rules.h). */
#include "zh/rules.h"

#include "base/lines.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* The longest rule shipped is some 300 bytes (a character with many
 * context words); 4096 leaves room to grow, and a file that is not text
 * still fails at its first line. */
#define RULES_LINE_MAX 4096

enum cond_kind { C_PREV, C_NEXT, C_ALONE, C_PREVLEN_EQ, C_PREVLEN_GE };

/* A string a context must show: pool[start..start+len), or the run
 * boundary (^ or $) when len is 0. */
typedef struct alt {
	uint32_t start, len;
} alt;

typedef struct cond {
	enum cond_kind kind;
	int neg;
	uint32_t first_alt, nalt; /* prev, next */
	unsigned num;             /* prevlen */
} cond;

typedef struct rule {
	uint32_t cp;
	int syl;
	int line;
	uint32_t first_cond, ncond;
} rule;

struct ts_rules {
	rule *rules;
	size_t nrules, cap_rules;
	cond *conds;
	size_t nconds, cap_conds;
	alt *alts;
	size_t nalts, cap_alts;
	uint32_t *pool;
	size_t npool, cap_pool;
};

/* Append val to the array arr of n elements (room for cap); returns
 * TS_ENOMEM from the function when it cannot grow. */
#define PUSH(arr, n, cap, val)                                                                     \
	do {                                                                                       \
		if (TS_GROW((arr), (cap), (n) + 1))                                                \
			return TS_ENOMEM;                                                          \
		(arr)[(n)++] = (val);                                                              \
	} while (0)

void ts_rules_free(ts_rules *r)
{
	if (!r)
		return;
	free(r->rules);
	free(r->conds);
	free(r->alts);
	free(r->pool);
	free(r);
}

size_t ts_rules_count(const ts_rules *r)
{
	return r ? r->nrules : 0;
}

/* The alternatives "A|B|^" of s[0..n) into r->alts; 0, TS_EINVAL or
 * TS_ENOMEM. */
static int parse_alts(ts_rules *r, const char *s, size_t n, int boundary_ok, cond *c)
{
	c->first_alt = (uint32_t)r->nalts;
	size_t i = 0;
	while (i <= n) {
		size_t j = i;
		while (j < n && s[j] != '|')
			j++;
		if (j == i)
			return TS_EINVAL;
		alt a = {(uint32_t)r->npool, 0};
		if (j - i == 1 && (s[i] == boundary_ok)) {
			/* the run boundary */
		} else {
			for (size_t k = i; k < j;) {
				uint32_t cp;
				int len = ts_utf8_decode((const unsigned char *)s + k, j - k, &cp);
				if (len <= 0)
					return TS_EINVAL;
				PUSH(r->pool, r->npool, r->cap_pool, cp);
				a.len++;
				k += (size_t)len;
			}
		}
		PUSH(r->alts, r->nalts, r->cap_alts, a);
		i = j + 1;
	}
	c->nalt = (uint32_t)(r->nalts - c->first_alt);
	return 0;
}

/* One condition word s[0..n); 0, TS_EINVAL or TS_ENOMEM. */
static int parse_cond(ts_rules *r, const char *s, size_t n)
{
	cond c = {0};
	if (n > 0 && s[0] == '!') {
		c.neg = 1;
		s++;
		n--;
	}
	int rc = 0;
	if (n > 5 && memcmp(s, "prev=", 5) == 0) {
		c.kind = C_PREV;
		rc = parse_alts(r, s + 5, n - 5, '^', &c);
	} else if (n > 5 && memcmp(s, "next=", 5) == 0) {
		c.kind = C_NEXT;
		rc = parse_alts(r, s + 5, n - 5, '$', &c);
	} else if (n == 5 && memcmp(s, "alone", 5) == 0 && !c.neg) {
		c.kind = C_ALONE;
	} else if (n > 8 && !c.neg &&
	           (memcmp(s, "prevlen=", 8) == 0 || memcmp(s, "prevlen>=", 9) == 0)) {
		size_t k = s[7] == '=' ? 8 : 9;
		c.kind = k == 8 ? C_PREVLEN_EQ : C_PREVLEN_GE;
		if (k >= n)
			return TS_EINVAL;
		for (; k < n; k++) {
			if (s[k] < '0' || s[k] > '9' || c.num > 100)
				return TS_EINVAL;
			c.num = c.num * 10 + (unsigned)(s[k] - '0');
		}
	} else {
		return TS_EINVAL;
	}
	if (rc)
		return rc;
	PUSH(r->conds, r->nconds, r->cap_conds, c);
	return 0;
}

/* One line (no newline, not blank, not a comment).  0, TS_EINVAL with
 * why set, or TS_ENOMEM. */
static int parse_line(ts_rules *r, const ts_lexicon *lx, char *line, int lineno, const char **why)
{
	char *tab = strchr(line, '\t');
	uint32_t cp;
	*why = "expected \"CHARACTER<TAB>SYLLABLE[<TAB>CONDITIONS]\"";
	if (!tab ||
	    ts_utf8_decode((const unsigned char *)line, (size_t)(tab - line), &cp) != tab - line ||
	    !ts_is_han(cp))
		return TS_EINVAL;
	char *syl = tab + 1;
	char *end = strchr(syl, '\t');
	size_t sn = end ? (size_t)(end - syl) : strlen(syl);
	rule ru = {.cp = cp, .line = lineno, .first_cond = (uint32_t)r->nconds};
	ru.syl = ts_lexicon_find_syllable(lx, syl, sn);
	if (ru.syl < 0) {
		*why = "unknown syllable (tone-numbered pinyin: zhong4, lv4, de5)";
		return TS_EINVAL;
	}
	if (end) {
		char *p = end + 1;
		for (;;) {
			while (*p == ' ')
				p++;
			if (!*p)
				break;
			char *e = p;
			while (*e && *e != ' ')
				e++;
			int rc = parse_cond(r, p, (size_t)(e - p));
			if (rc == TS_EINVAL)
				*why = "bad condition (prev=, next=, !prev=, !next=, alone, "
				       "prevlen=N, "
				       "prevlen>=N)";
			if (rc)
				return rc;
			p = e;
		}
	}
	ru.ncond = (uint32_t)(r->nconds - ru.first_cond);
	PUSH(r->rules, r->nrules, r->cap_rules, ru);
	return 0;
}

static int cmp_rule(const void *a, const void *b)
{
	const rule *x = a, *y = b;
	if (x->cp != y->cp)
		return x->cp < y->cp ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line; /* file order within a character */
}

ts_rules *ts_rules_load(const char *path, const ts_lexicon *lx, ts_error *err)
{
	ts_rules *r = calloc(1, sizeof *r);
	ts_lines *in = NULL;
	char *line;
	int rc = 0, got;
	if (!r) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	if ((rc = ts_lines_open(&in, path, RULES_LINE_MAX, 0, err)))
		goto out;
	while ((got = ts_lines_next(in, &line, NULL)) > 0) {
		int lineno = (int)ts_lines_lineno(in);
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		size_t n = strlen(line);
		while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
			line[--n] = '\0';
		if (n == 0)
			continue;
		const char *why = "";
		if ((rc = parse_line(r, lx, line, lineno, &why))) {
			if (rc == TS_ENOMEM)
				ts_error_set(err, rc, NULL);
			else
				ts_error_set(err, rc, "%s:%d: %s", path, lineno, why);
			goto out;
		}
	}
	if (got < 0) {
		rc = ts_error_set(err, got, "%s", ts_lines_errmsg(in));
		goto out;
	}
	if (r->nrules > 1)
		qsort(r->rules, r->nrules, sizeof *r->rules, cmp_rule);
out:
	ts_lines_close(in);
	if (rc) {
		ts_rules_free(r);
		return NULL;
	}
	return r;
}

/* ---- matching ------------------------------------------------------ */

static int is_han_at(const ts_sentence *c, size_t i)
{
	return i < c->n && ts_is_han(c->cp[i]);
}

static int alt_before(const ts_rules *r, const alt *a, const ts_sentence *c, size_t i)
{
	if (a->len == 0)
		return i == 0 || !is_han_at(c, i - 1);
	if (a->len > i)
		return 0;
	return memcmp(c->cp + i - a->len, r->pool + a->start, a->len * sizeof(uint32_t)) == 0;
}

static int alt_after(const ts_rules *r, const alt *a, const ts_sentence *c, size_t i)
{
	if (a->len == 0)
		return !is_han_at(c, i + 1);
	if (i + 1 + a->len > c->n)
		return 0;
	return memcmp(c->cp + i + 1, r->pool + a->start, a->len * sizeof(uint32_t)) == 0;
}

static int holds(const ts_rules *r, const cond *cd, const ts_sentence *c, size_t i)
{
	int ok = 0;
	switch (cd->kind) {
	case C_PREV:
	case C_NEXT:
		for (uint32_t k = 0; k < cd->nalt && !ok; k++) {
			const alt *a = &r->alts[cd->first_alt + k];
			ok = cd->kind == C_PREV ? alt_before(r, a, c, i) : alt_after(r, a, c, i);
		}
		return ok != cd->neg;
	case C_ALONE: return c->wend[i] - c->wbeg[i] == 1;
	case C_PREVLEN_EQ:
	case C_PREVLEN_GE: {
		size_t b = c->wbeg[i];
		size_t len = b > 0 && is_han_at(c, b - 1) ? b - c->wbeg[b - 1] : 0;
		return cd->kind == C_PREVLEN_EQ ? len == cd->num : len >= cd->num;
	}
	}
	return 0;
}

int ts_rules_apply(const ts_rules *r, const ts_sentence *ctx, size_t i, int *line)
{
	if (!r || r->nrules == 0)
		return -1;
	uint32_t cp = ctx->cp[i];
	size_t lo = 0, hi = r->nrules;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->rules[mid].cp < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < r->nrules && r->rules[lo].cp == cp; lo++) {
		const rule *ru = &r->rules[lo];
		uint32_t k = 0;
		while (k < ru->ncond && holds(r, &r->conds[ru->first_cond + k], ctx, i))
			k++;
		if (k == ru->ncond) {
			*line = ru->line;
			return ru->syl;
		}
	}
	return -1;
}
