/* userlex.c - user pronunciation lexicons (see userlex.h).
 *
 * Entries are kept sorted by word, so a match is a few binary searches
 * (one per possible word length, longest first); such lexicons hold
 * hundreds of words, not hundreds of thousands. */
#include "userlex.h"

#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
	char *word;      /* UTF-8 */
	size_t len;      /* bytes */
	size_t chars;    /* Han characters */
	char *syllables; /* normalized: lower case, v for ü, one space between */
	size_t order;    /* load order: later wins */
} entry;

struct ts_userlex {
	entry *e;
	size_t n, cap;
	size_t max_chars;
	size_t loaded;
};

ts_userlex *ts_userlex_new(void)
{
	return calloc(1, sizeof(ts_userlex));
}

void ts_userlex_free(ts_userlex *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++) {
		free(u->e[i].word);
		free(u->e[i].syllables);
	}
	free(u->e);
	free(u);
}

size_t ts_userlex_count(const ts_userlex *u)
{
	return u->n;
}

static void report(ts_diag_fn diag, void *ud, int level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void report(ts_diag_fn diag, void *ud, int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (diag)
		diag(ud, level, msg);
}

/* Normalize one syllable into out: lower case, ü -> v, then letters and a
 * tone digit 1-5.  Returns 0, or a reason. */
static const char *syllable(const char *s, size_t n, ts_buf *out)
{
	size_t letters = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c + 32);
		if (c == 0xC3 && i + 1 < n &&
		    ((unsigned char)s[i + 1] == 0xBC ||
		     (unsigned char)s[i + 1] == 0x9C)) { /* ü Ü */
			ts_buf_putc(out, 'v');
			letters++;
			i += 2;
			continue;
		}
		if (c >= 'a' && c <= 'z') {
			if (i == n - 1)
				return "a syllable ends with its tone, 1-5 (hao3)";
			ts_buf_putc(out, (char)c);
			letters++;
		} else if (c >= '1' && c <= '5' && i == n - 1 && letters > 0) {
			ts_buf_putc(out, (char)c);
		} else {
			return "a syllable is letters and a tone digit 1-5 (hao3, lv4)";
		}
		i++;
	}
	return letters > 0 && letters <= 6 ? NULL : "a syllable is letters and a tone digit 1-5";
}

static int add(ts_userlex *u, const char *word, size_t wlen, size_t chars, const char *syl)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 64;
		entry *p = realloc(u->e, cap * sizeof *p);
		if (!p)
			return TS_ENOMEM;
		u->e = p;
		u->cap = cap;
	}
	entry *e = &u->e[u->n];
	e->word = ts_strndup(word, wlen);
	e->syllables = ts_strdup(syl);
	if (!e->word || !e->syllables) {
		free(e->word);
		free(e->syllables);
		return TS_ENOMEM;
	}
	e->len = wlen;
	e->chars = chars;
	e->order = u->loaded++;
	u->n++;
	if (chars > u->max_chars)
		u->max_chars = chars;
	return 0;
}

/* Check and add one line; a reason when it is bad. */
static const char *parse_line(ts_userlex *u, char *line, int *rc)
{
	char *tab = strchr(line, '\t');
	if (!tab)
		return "expected \"word<TAB>pin1 yin1\"";
	size_t wlen = (size_t)(tab - line);
	while (wlen > 0 && line[wlen - 1] == ' ')
		wlen--;
	size_t chars = 0;
	for (size_t i = 0; i < wlen;) {
		uint32_t c;
		int k = ts_utf8_decode((const unsigned char *)line + i, wlen - i, &c);
		if (k <= 0 || !ts_is_han(c))
			return "the word must be Chinese characters only";
		chars++;
		i += (size_t)k;
	}
	if (chars == 0)
		return "no word before the tab";
	ts_buf syl = {0};
	size_t nsyl = 0;
	const char *why = NULL;
	for (char *p = tab + 1; *p && !why;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		char *e = p;
		while (*e && *e != ' ' && *e != '\t')
			e++;
		if (nsyl++)
			ts_buf_putc(&syl, ' ');
		why = syllable(p, (size_t)(e - p), &syl);
		p = e;
	}
	if (!why && nsyl != chars)
		why = nsyl < chars ? "fewer syllables than characters"
		                   : "more syllables than characters";
	if (!why)
		*rc = add(u, line, wlen, chars, syl.data);
	ts_buf_free(&syl);
	return why;
}

static int cmp_entry(const void *a, const void *b)
{
	const entry *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->word, y->word, n);
	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order; /* equal words: load order */
}

/* Sort, keeping only the last-loaded entry of each word; done after each
 * file is loaded. */
static void settle(ts_userlex *u)
{
	qsort(u->e, u->n, sizeof *u->e, cmp_entry);
	size_t o = 0;
	for (size_t i = 0; i < u->n; i++) {
		if (i + 1 < u->n && u->e[i].len == u->e[i + 1].len &&
		    memcmp(u->e[i].word, u->e[i + 1].word, u->e[i].len) == 0) {
			free(u->e[i].word);
			free(u->e[i].syllables);
			continue;
		}
		u->e[o++] = u->e[i];
	}
	u->n = o;
}

int ts_userlex_load(ts_userlex *u, const char *path, ts_diag_fn diag, void *ud)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		int e = errno;
		report(diag, ud, 1, "%s: cannot open lexicon: %s", path, strerror(e));
		return e == ENOENT ? TS_ENOENT : TS_EIO;
	}
	char line[1024];
	int lineno = 0, rc = 0;
	while (!rc && fgets(line, sizeof line, f)) {
		lineno++;
		size_t n = strlen(line);
		if (n == sizeof line - 1 && line[n - 1] != '\n') {
			report(diag, ud, 0, "%s:%d: line too long; skipped", path, lineno);
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		char *s = line;
		if (lineno == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
			s += 3;
		while (*s == ' ')
			s++;
		if (*s == '\0' || *s == '#')
			continue;
		if (ts_utf8_check(s, strlen(s), 1) != strlen(s)) {
			report(diag, ud, 0, "%s:%d: not UTF-8; skipped", path, lineno);
			continue;
		}
		const char *why = parse_line(u, s, &rc);
		if (why)
			report(diag, ud, 0, "%s:%d: %s; skipped", path, lineno, why);
	}
	if (!rc && ferror(f)) {
		report(diag, ud, 1, "%s: read error", path);
		rc = TS_EIO;
	}
	fclose(f);
	settle(u);
	return rc;
}

static const entry *find(const ts_userlex *u, const char *w, size_t len)
{
	size_t lo = 0, hi = u->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const entry *e = &u->e[mid];
		size_t n = e->len < len ? e->len : len;
		int c = memcmp(e->word, w, n);
		if (c == 0)
			c = e->len < len ? -1 : e->len > len;
		if (c < 0)
			lo = mid + 1;
		else if (c > 0)
			hi = mid;
		else
			return e;
	}
	return NULL;
}

size_t ts_userlex_match(const ts_userlex *u, const char *text, size_t len, const char **syllables)
{
	if (!u || u->n == 0)
		return 0;
	/* Byte ends of the first max_chars characters. */
	size_t ends[32], k = 0;
	for (size_t i = 0; i < len && k < u->max_chars && k < 32;) {
		uint32_t c;
		int n = ts_utf8_decode((const unsigned char *)text + i, len - i, &c);
		if (n <= 0 || !ts_is_han(c))
			break;
		i += (size_t)n;
		ends[k++] = i;
	}
	while (k > 0) {
		const entry *e = find(u, text, ends[--k]);
		if (e) {
			*syllables = e->syllables;
			return e->len;
		}
	}
	return 0;
}
