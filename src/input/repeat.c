/* repeat.c - a chapter that a book file holds twice in a row (see
 * repeat.h).
 *
 * The rule is conservative: a chapter is dropped only when its heading
 * is the last kept chapter's and it adds next to nothing to that
 * chapter's lines.  A repost that rewrote much of the chapter, or a
 * second part posted under the same heading, is kept (split.c warns
 * about it), since a listener misses a dropped chapter more than a
 * repeated one.  Lines are compared whole: one edited line is a line of
 * other text. */
#include "input/repeat.h"

#include "base/error.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* A chapter of more lines than this is not compared (its lines would
 * take more memory than it is worth; a chapter is some 100 lines). */
#define MAX_LINES 65536

void ts_repeat_line(ts_repeat *r, uint64_t hash, size_t chars)
{
	ts_repeat_lines *l = &r->open;
	if (l->over)
		return;
	if (l->n >= MAX_LINES || TS_GROW(l->v, l->cap, l->n + 1)) {
		l->over = 1;
		return;
	}
	l->v[l->n++] = (ts_repeat_mark){hash, chars};
}

/* Are a and b the same but for their spaces? */
static int same_title(const char *a, const char *b)
{
	for (;;) {
		while (*a == ' ')
			a++;
		while (*b == ' ')
			b++;
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
		a++, b++;
	}
}

static int by_hash(const void *x, const void *y)
{
	const ts_repeat_mark *a = x, *b = y;
	return a->hash < b->hash ? -1 : a->hash > b->hash;
}

static size_t total(const ts_repeat_lines *l)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->v[i].chars;
	return n;
}

/* Does the repeat add little to the chapter kept: are the characters of
 * its lines that the kept one lacks at most a tenth of the kept one's,
 * and of its own?  A copy cut short adds nothing; a site's line added to
 * it, little; a short second part under the same heading is all new.
 * Sorts both. */
static int adds_little(ts_repeat_lines *kept, ts_repeat_lines *again)
{
	if (kept->over || again->over)
		return 0;
	qsort(kept->v, kept->n, sizeof *kept->v, by_hash);
	qsort(again->v, again->n, sizeof *again->v, by_hash);
	size_t fresh = 0, i = 0;
	for (size_t j = 0; j < again->n; j++) {
		while (i < kept->n && kept->v[i].hash < again->v[j].hash)
			i++;
		if (i < kept->n && kept->v[i].hash == again->v[j].hash)
			i++; /* each kept line stands for one line of the repeat */
		else
			fresh += again->v[j].chars;
	}
	size_t had = total(kept);
	return had > 0 && fresh * 10 <= had && fresh * 10 <= total(again);
}

int ts_repeat_check(ts_repeat *r, const char *title, long *kept_line)
{
	if (!r->kept_title || !same_title(title, r->kept_title))
		return TS_REPEAT_NEW;
	*kept_line = r->kept_line;
	return adds_little(&r->kept, &r->open) ? TS_REPEAT_SAME : TS_REPEAT_OTHER;
}

int ts_repeat_close(ts_repeat *r, int kept, const char *title, long line)
{
	int rc = 0;
	if (kept) {
		char *t = ts_strdup(title);
		if (!t) {
			rc = TS_ENOMEM;
		} else {
			free(r->kept_title);
			r->kept_title = t;
			r->kept_line = line;
			ts_repeat_lines swap = r->kept;
			r->kept = r->open;
			r->open = swap;
		}
	}
	r->open.n = 0;
	r->open.over = 0;
	return rc;
}

void ts_repeat_free(ts_repeat *r)
{
	free(r->open.v);
	free(r->kept.v);
	free(r->kept_title);
	memset(r, 0, sizeof *r);
}
