/* userlex.c - plain-text pronunciation lexicons (see userlex.h).
 *
 * Entries are kept sorted by their first character; a lookup looks at
 * the entries of one character, which are few.  Lexicons hold hundreds or
 * thousands of words, not hundreds of thousands: that is lexicon.bin's
 * job. */
#include "zh/userlex.h"

#include "base/lines.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An entry is a word of at most TS_USERLEX_MAX_WORD characters and as
 * many syllables, under 400 bytes; 4096 leaves room for spacing and a
 * comment.  A file that is not text (--lexicon /dev/zero) fails at its
 * first line instead of filling memory. */
#define USERLEX_LINE_MAX 4096

/* Bad lines warned of one by one in a file; the rest are counted in one
 * warning (a file that is not a lexicon at all would print a warning a
 * line). */
#define USERLEX_WARNINGS_MAX 20

typedef struct entry {
	uint32_t cp0;       /* the word's first (folded) character */
	uint32_t first_cp;  /* pool index of the word's code points */
	uint32_t len;       /* characters */
	uint32_t first_syl; /* index in syl of the first syllable */
	uint32_t seq;       /* order of addition: the last of duplicates wins */
} entry;

struct ts_userlex {
	const ts_lexicon *lx;
	entry *e;
	size_t n, cap;
	uint32_t *cps;
	size_t ncps, cap_cps;
	uint32_t *syl; /* offsets into text */
	size_t nsyl, cap_syl;
	char *text; /* NUL-terminated syllables */
	size_t ntext, cap_text;
};

ts_userlex *ts_userlex_new(const ts_lexicon *lx)
{
	ts_userlex *u = calloc(1, sizeof *u);
	if (u)
		u->lx = lx;
	return u;
}

void ts_userlex_free(ts_userlex *u)
{
	if (!u)
		return;
	free(u->e);
	free(u->cps);
	free(u->syl);
	free(u->text);
	free(u);
}

size_t ts_userlex_count(const ts_userlex *u)
{
	return u ? u->n : 0;
}

/* The lookup form of a character: its simplified form when it has one. */
static uint32_t fold(const ts_userlex *u, uint32_t cp)
{
	if (!u->lx)
		return cp;
	int ch = ts_lexicon_char(u->lx, cp);
	return ch >= 0 ? ts_lexicon_cp(u->lx, ts_lexicon_key(u->lx, ch)) : cp;
}

/* One syllable p[0..n) in canonical form (lower case, ü as v, tone digit)
 * appended to u->text; 0, TS_EINVAL or TS_ENOMEM. */
static int add_syllable(ts_userlex *u, const char *p, size_t n)
{
	if (TS_GROW(u->text, u->cap_text, u->ntext + n + 1))
		return TS_ENOMEM;
	size_t start = u->ntext, letters = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)p[i];
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (c >= 'a' && c <= 'z') {
			if (c == 'u' && i + 1 < n && p[i + 1] == ':') {
				c = 'v';
				i++;
			}
			u->text[u->ntext++] = (char)c;
			letters++;
			i++;
		} else if (i + 1 < n && c == 0xC3 && (unsigned char)p[i + 1] == 0xBC) { /* ü */
			u->text[u->ntext++] = 'v';
			letters++;
			i += 2;
		} else if (c >= '1' && c <= '5' && i + 1 == n && letters > 0 && letters <= 6) {
			u->text[u->ntext++] = (char)c;
			u->text[u->ntext++] = '\0';
			if (TS_GROW(u->syl, u->cap_syl, u->nsyl + 1))
				return TS_ENOMEM;
			u->syl[u->nsyl++] = (uint32_t)start;
			return 0;
		} else {
			break;
		}
	}
	u->ntext = start;
	return TS_EINVAL;
}

/* By first character, the latest first: of two entries for one word, the
 * last added is found first. */
static int cmp_entry(const void *a, const void *b)
{
	const entry *x = a, *y = b;
	if (x->cp0 != y->cp0)
		return x->cp0 < y->cp0 ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

static void sort_entries(ts_userlex *u)
{
	if (u->n > 1)
		qsort(u->e, u->n, sizeof *u->e, cmp_entry);
}

/* ts_userlex_add() without the sorting, which a file does once. */
static int add_entry(ts_userlex *u, const char *word, size_t wlen, const char *pinyin, size_t plen,
                     const char **why)
{
	size_t ncps0 = u->ncps, nsyl0 = u->nsyl, ntext0 = u->ntext;
	entry e = {.first_cp = (uint32_t)u->ncps, .first_syl = (uint32_t)u->nsyl};
	int rc = 0;
	*why = "";
	for (size_t i = 0; i < wlen;) {
		uint32_t cp;
		int k = ts_utf8_decode((const unsigned char *)word + i, wlen - i, &cp);
		if (k <= 0 || !ts_is_han(cp) || e.len >= TS_USERLEX_MAX_WORD) {
			*why = k > 0 && ts_is_han(cp) ? "word too long"
			                              : "the word must be Han characters";
			rc = TS_EINVAL;
			goto out;
		}
		if (TS_GROW(u->cps, u->cap_cps, u->ncps + 1))
			return TS_ENOMEM;
		u->cps[u->ncps++] = fold(u, cp);
		e.len++;
		i += (size_t)k;
	}
	if (e.len == 0) {
		*why = "no word";
		rc = TS_EINVAL;
		goto out;
	}
	for (size_t i = 0; i < plen;) {
		while (i < plen && pinyin[i] == ' ')
			i++;
		size_t j = i;
		while (j < plen && pinyin[j] != ' ')
			j++;
		if (j == i)
			break;
		if ((rc = add_syllable(u, pinyin + i, j - i))) {
			if (rc == TS_EINVAL)
				*why =
				    "a syllable must be pinyin with a tone number 1-5 (pin1 yin1)";
			goto out;
		}
		i = j;
	}
	if (u->nsyl - nsyl0 != e.len) {
		*why = "one syllable per character is needed";
		rc = TS_EINVAL;
		goto out;
	}
	if (TS_GROW(u->e, u->cap, u->n + 1))
		return TS_ENOMEM;
	e.seq = (uint32_t)u->n;
	e.cp0 = u->cps[e.first_cp];
	u->e[u->n++] = e;
out:
	if (rc) {
		u->ncps = ncps0;
		u->nsyl = nsyl0;
		u->ntext = ntext0;
	}
	return rc;
}

int ts_userlex_add(ts_userlex *u, const char *word, size_t wlen, const char *pinyin, size_t plen,
                   const char **why)
{
	int rc = add_entry(u, word, wlen, pinyin, plen, why);
	if (!rc)
		sort_entries(u);
	return rc;
}

int ts_userlex_load(ts_userlex *u, const char *path, ts_diag_fn diag, void *ud, ts_error *err)
{
	ts_lines *in;
	int rc = ts_lines_open(&in, path, USERLEX_LINE_MAX, 0, err);
	if (rc)
		return rc;
	char *p;
	int got;
	size_t bad = 0;
	while ((got = ts_lines_next(in, &p, NULL)) > 0) {
		char *hash = strchr(p, '#');
		if (hash)
			*hash = '\0';
		size_t n = strcspn(p, "\r");
		while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		p[n] = '\0';
		while (*p == ' ')
			p++;
		if (!*p)
			continue;
		const char *why = "expected \"词<TAB>pin1 yin1\"";
		char *tab = strchr(p, '\t');
		if (tab) {
			char *py = tab + 1;
			size_t wlen = (size_t)(tab - p);
			while (*py == '\t' || *py == ' ')
				py++;
			while (wlen > 0 && p[wlen - 1] == ' ')
				wlen--;
			rc = add_entry(u, p, wlen, py, strlen(py), &why);
		}
		if (rc == TS_ENOMEM) {
			ts_error_set(err, rc, NULL);
			break;
		}
		if ((rc || !tab) && ++bad <= USERLEX_WARNINGS_MAX && diag) {
			char m[1200];
			snprintf(m, sizeof m, "%s:%ld: %s; line skipped", path, ts_lines_lineno(in),
			         why);
			diag(ud, TS_WARNING, m);
		}
		rc = 0;
	}
	if (bad > USERLEX_WARNINGS_MAX && diag) {
		char m[1200];
		snprintf(m, sizeof m, "%s: and %zu more bad lines skipped", path,
		         bad - USERLEX_WARNINGS_MAX);
		diag(ud, TS_WARNING, m);
	}
	if (!rc && got < 0)
		rc = ts_error_set(err, got, "%s", ts_lines_errmsg(in));
	ts_lines_close(in);
	sort_entries(u);
	return rc;
}

/* ---- lookup -------------------------------------------------------- */

size_t ts_userlex_match(const ts_userlex *u, const uint32_t *cp, size_t n, size_t *entry_out)
{
	size_t best = 0;
	if (!u || n == 0)
		return 0;
	size_t lo = 0, hi = u->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->e[mid].cp0 < cp[0])
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < u->n && u->e[lo].cp0 == cp[0]; lo++) {
		const entry *e = &u->e[lo];
		if (e->len <= best || e->len > n)
			continue;
		if (memcmp(u->cps + e->first_cp, cp, e->len * sizeof *cp) == 0) {
			best = e->len;
			*entry_out = lo;
		}
	}
	return best;
}

const char *ts_userlex_syllable(const ts_userlex *u, size_t which, size_t k)
{
	return u->text + u->syl[u->e[which].first_syl + k];
}
