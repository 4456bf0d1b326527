/* wordtab.c - reading a table of words (see wordtab.h).
 *
 * Bad-input policy: a line that is not an entry (not UTF-8; an empty
 * word, or one with a space at either end, where a stray space would make
 * a word that never matches; a TAB missing from a table of readings, or
 * one too many) is an error naming the file and line, so that a broken
 * edit is found at once rather than misreading a book. */
#include "zh/wordtab.h"

#include "base/lines.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ts_wordtab {
	ts_word *w; /* text and said of each share one allocation */
	size_t n, cap;
};

void ts_wordtab_free(ts_wordtab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free((char *)t->w[i].text);
	free(t->w);
	free(t);
}

const ts_word *ts_wordtab_words(const ts_wordtab *t, size_t *n)
{
	*n = t ? t->n : 0;
	return t ? t->w : NULL;
}

/* Why line[0..n) is not an entry, or NULL when it is one: then *tab
 * points at its TAB (NULL in a plain list). */
static const char *check_line(const char *line, size_t n, int said, const char **tab)
{
	if (memchr(line, '\0', n))
		return "a NUL byte: not text";
	*tab = memchr(line, '\t', n);
	size_t wn = *tab ? (size_t)(*tab - line) : n;
	if (ts_utf8_check(line, n, 1) != n)
		return "not UTF-8";
	if (said && (!*tab || memchr(*tab + 1, '\t', n - wn - 1)))
		return "expected \"written<TAB>said\"";
	if (!said && *tab)
		return "expected one word, no TAB";
	if (wn == 0 || line[0] == ' ' || line[wn - 1] == ' ')
		return "empty word, or a space at its start or end";
	return NULL;
}

static int add_entry(ts_wordtab *t, const char *line, size_t n, const char *tab)
{
	if (TS_GROW(t->w, t->cap, t->n + 1))
		return TS_ENOMEM;
	size_t wn = tab ? (size_t)(tab - line) : n;
	char *text = ts_strndup(line, n); /* the TAB becomes the NUL of text */
	if (!text)
		return TS_ENOMEM;
	text[wn] = '\0';
	uint32_t first = 0;
	ts_utf8_decode((const unsigned char *)text, wn, &first);
	t->w[t->n++] =
	    (ts_word){text, ts_utf8_count(text, wn), first, tab ? text + wn + 1 : text + wn};
	return 0;
}

/* Lines of a table are short: a word and its reading. */
enum { LINE_MAX_BYTES = 4096 };

ts_wordtab *ts_wordtab_load(const char *path, int said, ts_error *err)
{
	ts_wordtab *t = calloc(1, sizeof *t);
	ts_lines *r = NULL;
	char *line;
	size_t n;
	int rc = 0, got;
	if (!t) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	/* Comments by hand: "#<TAB>..." is the entry of the sign #. */
	if ((rc = ts_lines_open(&r, path, LINE_MAX_BYTES, 0, err)))
		goto out;
	while ((got = ts_lines_next(r, &line, &n)) > 0) {
		if (n == 0 || (line[0] == '#' && line[1] != '\t'))
			continue;
		const char *tab, *why = check_line(line, n, said, &tab);
		if (why) {
			rc = ts_error_set(err, TS_EINVAL, "%s:%ld: %s", path, ts_lines_lineno(r),
			                  why);
			goto out;
		}
		if ((rc = add_entry(t, line, n, tab))) {
			ts_error_set(err, rc, NULL);
			goto out;
		}
	}
	if (got < 0)
		rc = ts_error_set(err, got, "%s", ts_lines_errmsg(r));
out:
	ts_lines_close(r);
	if (rc) {
		ts_wordtab_free(t);
		t = NULL;
	}
	return t;
}
