/* book.c - a book of chapters (see book.h): the chapters its inputs
 * added, what names it, the temporary files it owns, and the diagnostics
 * of its inputs.  Which kind of input a path is and how its chapters are
 * found is the business of kind.c and the files of each kind. */
#include "input/book.h"

#include "text/encoding.h"
#include "base/file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ts_book {
	ts_chapter *ch;
	size_t n, cap;
	char *title;
	char *author;      /* of an EPUB's metadata, or NULL */
	const char *cover; /* an EPUB's cover image, copied to a temporary file */
	char errmsg[1024];
	ts_diag_fn diag;
	void *ud;
	char **temps; /* temporary files made for stdin and decoded text */
	size_t ntemps;
	pid_t owner;
	char *encoding;                /* given with ts_book_set_encoding(), or NULL to detect */
	char *text_path;               /* UTF-8 text of the last file scanned */
	volatile sig_atomic_t *cancel; /* reading stops when set; NULL: never */
	int swept;                     /* the temporary files of dead runs were removed */
	const ts_boilerplate *bp;      /* requests cut off titles; NULL: none */
	unsigned bp_flags;
	long *skip; /* first and last lines of the copies skipped, in pairs */
	size_t nskip, skipcap;
};

void ts_book_diag(ts_book *b, ts_level level, const char *fmt, ...)
{
	char msg[TS_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (level)
		ts_text_fit(msg, b->errmsg, sizeof b->errmsg);
	if (b->diag)
		b->diag(b->ud, level, msg);
}

FILE *ts_book_open_input(ts_book *b, const char *path, const char *display, int *rc)
{
	struct stat st;
	int orc;
	FILE *f = ts_fopen_regular(path, "rb", &st, &orc);
	if (!f && orc == TS_NOT_REGULAR) {
		*rc = TS_EINVAL;
		ts_book_diag(b, TS_ERROR, "%s: not a regular file (it is %s)", display,
		             ts_file_kind(st.st_mode));
	} else if (!f) {
		int e = errno;
		*rc = e == ENOENT ? TS_ENOENT : ts_errno_code(e);
		ts_book_diag(b, TS_ERROR, "%s: cannot open: %s", display, strerror(e));
	}
	return f;
}

volatile sig_atomic_t *ts_book_cancel_flag(const ts_book *b)
{
	return b->cancel;
}

int ts_book_cancelled(const ts_book *b)
{
	return b->cancel && *b->cancel;
}

int ts_book_stopped(ts_book *b, const char *display)
{
	snprintf(b->errmsg, sizeof b->errmsg, "%s: %s", display, ts_strerror(TS_ECANCELED));
	return TS_ECANCELED;
}

ts_book *ts_book_new(ts_diag_fn fn, void *ud)
{
	ts_book *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	b->diag = fn;
	b->ud = ud;
	b->owner = getpid();
	return b;
}

static void chapter_clear(ts_chapter *c)
{
	free(c->source);
	free(c->display);
	free(c->title);
}

void ts_book_free(ts_book *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		chapter_clear(&b->ch[i]);
	free(b->ch);
	for (size_t i = 0; i < b->ntemps; i++) {
		if (getpid() == b->owner)
			unlink(b->temps[i]);
		free(b->temps[i]);
	}
	free(b->temps);
	free(b->skip);
	free(b->title);
	free(b->author);
	free(b->encoding);
	free(b->text_path);
	free(b);
}

void ts_book_set_diag(ts_book *b, ts_diag_fn fn, void *ud)
{
	b->diag = fn;
	b->ud = ud;
}

size_t ts_book_skip_count(const ts_book *b)
{
	return b->nskip;
}

void ts_book_skip(const ts_book *b, size_t i, long *first, long *last)
{
	*first = b->skip[2 * i];
	*last = b->skip[2 * i + 1];
}

void ts_book_set_cancel(ts_book *b, volatile sig_atomic_t *flag)
{
	b->cancel = flag;
}

void ts_book_set_boilerplate(ts_book *b, const ts_boilerplate *bp, unsigned flags)
{
	b->bp = bp;
	b->bp_flags = flags;
}

int ts_book_unspoken(const ts_book *b, const char *line, size_t len)
{
	ts_boilerplate_check *c = b->bp ? ts_boilerplate_check_new(b->bp, b->bp_flags) : NULL;
	ts_unspoken u;
	int unspoken = c && ts_boilerplate_check_line(c, line, len, &u) && u.whole;
	ts_boilerplate_check_free(c);
	return unspoken;
}

int ts_book_set_encoding(ts_book *b, const char *name)
{
	char *copy = NULL;
	if (name && !ts_encoding_known(name))
		return TS_EINVAL;
	if (name && !(copy = ts_strdup(name)))
		return TS_ENOMEM;
	free(b->encoding);
	b->encoding = copy;
	return 0;
}

const char *ts_book_errmsg(const ts_book *b)
{
	return b->errmsg;
}
const char *ts_book_text_path(const ts_book *b)
{
	return b->text_path;
}
const char *ts_book_author(const ts_book *b)
{
	return b->author;
}

const char *ts_book_cover(const ts_book *b)
{
	return b->cover;
}

const char *ts_book_title(const ts_book *b)
{
	return b->title ? b->title : "";
}
size_t ts_book_count(const ts_book *b)
{
	return b->n;
}
const ts_chapter *ts_book_chapter(const ts_book *b, size_t i)
{
	return i < b->n ? &b->ch[i] : NULL;
}

const char *ts_book_encoding(const ts_book *b)
{
	return b->encoding;
}

pid_t ts_book_owner(const ts_book *b)
{
	return b->owner;
}

int ts_book_sweep_due(ts_book *b)
{
	int due = !b->swept;
	b->swept = 1;
	return due;
}

int ts_book_titled(const ts_book *b)
{
	return b->title != NULL;
}

/* Replace the string *field with a copy of s (NULL: none). */
static int set_string(char **field, const char *s)
{
	char *copy = NULL;
	if (s && !(copy = ts_strdup(s)))
		return TS_ENOMEM;
	free(*field);
	*field = copy;
	return 0;
}

int ts_book_set_title(ts_book *b, const char *title)
{
	return set_string(&b->title, title);
}

int ts_book_set_author(ts_book *b, const char *author)
{
	return set_string(&b->author, author);
}

void ts_book_set_cover(ts_book *b, const char *path)
{
	b->cover = path;
}

int ts_book_set_text_path(ts_book *b, const char *path)
{
	return set_string(&b->text_path, path);
}

int ts_book_keep_temp(ts_book *b, char *path)
{
	if (TS_RESIZE(b->temps, b->ntemps + 1))
		return TS_ENOMEM;
	b->temps[b->ntemps++] = path;
	return 0;
}

void ts_book_drop_temp(ts_book *b)
{
	b->ntemps--;
	unlink(b->temps[b->ntemps]);
	free(b->temps[b->ntemps]);
}

/* ---- adding an input's chapters ----------------------------------- */

int ts_intake_skip(ts_intake *in, long first, long last)
{
	ts_book *b = in->book;
	if (TS_GROW(b->skip, b->skipcap, 2 * b->nskip + 2))
		return TS_ENOMEM;
	b->skip[2 * b->nskip] = first;
	b->skip[2 * b->nskip + 1] = last;
	b->nskip++;
	in->skipped++;
	return 0;
}

void ts_intake_warn(ts_intake *in, const char *fmt, ...)
{
	char msg[TS_MSG_MAX];
	va_list ap;
	if (++in->warned > TS_INTAKE_WARNINGS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* A scan that may find the file is not UTF-8 after all keeps its
	 * warnings back until it is over: if it is thrown away, they go
	 * with it. */
	if (in->hold)
		ts_buf_append(&in->held, msg,
		              strlen(msg) + 1); /* out of memory: the warning is lost */
	else
		ts_book_diag(in->book, TS_WARNING, "%s", msg);
}

void ts_intake_done(ts_intake *in, int keep)
{
	ts_book *b = in->book;
	if (keep) {
		for (size_t i = 0; i < in->held.len; i += strlen(in->held.data + i) + 1)
			ts_book_diag(b, TS_WARNING, "%s", in->held.data + i);
		if (in->warned > TS_INTAKE_WARNINGS_MAX)
			ts_book_diag(b, TS_WARNING, "%s: and %zu more warnings like these",
			             in->display, in->warned - TS_INTAKE_WARNINGS_MAX);
	} else {
		for (; in->added > 0; in->added--)
			chapter_clear(&b->ch[--b->n]);
		b->nskip -= in->skipped;
		in->skipped = 0;
	}
	in->warned = 0;
	ts_buf_free(&in->held);
}

static int has_han(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		uint32_t c;
		int k = ts_utf8_decode(u + i, n - i, &c);
		if (k <= 0)
			return 0;
		if (ts_is_han(c))
			return 1;
		i += (size_t)k;
	}
	return 0;
}

int ts_intake_chapter(ts_intake *in, const char *title, size_t spoken_at, int front, long start,
                      long end, long line, size_t chars)
{
	ts_book *b = in->book;
	if (chars == 0 && !front) {
		ts_intake_warn(in, "%s:%ld: chapter \"%s\" has no text; skipped", in->display, line,
		               title);
		return 0;
	}
	if (TS_GROW(b->ch, b->cap, b->n + 1))
		return TS_ENOMEM;
	ts_chapter *c = &b->ch[b->n];
	memset(c, 0, sizeof *c);
	c->source = ts_strdup(in->source);
	c->display = ts_strdup(in->display);
	/* Spoken, tagged, listed: cut, and without a request for votes. */
	c->title =
	    ts_strndup(title, ts_boilerplate_title(b->bp, b->bp_flags, title, strlen(title)));
	if (c->title) {
		char *t = ts_strdup_cut(c->title, 200);
		free(c->title);
		c->title = t;
	}
	if (!c->source || !c->display || !c->title) {
		chapter_clear(c);
		return TS_ENOMEM;
	}
	/* Titles go into file names, the manifest and the playlist: no
	 * control characters (a file name may hold any). */
	for (char *t = c->title; *t; t++)
		if ((unsigned char)*t < 0x20 || *t == 0x7F)
			*t = ' ';
	c->title_spoken = has_han(title);
	/* Only while the title still holds the heading after the cut. */
	size_t n = strlen(c->title);
	if (spoken_at < n && strncmp(c->title, title, spoken_at + 1) == 0)
		c->spoken_at = spoken_at;
	c->front_matter = front;
	c->start = start;
	c->end = end;
	c->line = line;
	c->chars = chars;
	b->n++;
	in->added++;
	return 0;
}

/* A chapter, by its length (ts_book_longest_first()). */
typedef struct by_length {
	size_t chars, i;
} by_length;

/* Longer first; of the same length, the first in the book. */
static int longer_first(const void *a, const void *b)
{
	const by_length *x = a, *y = b;
	if (x->chars != y->chars)
		return x->chars < y->chars ? 1 : -1;
	return x->i < y->i ? -1 : x->i > y->i;
}

size_t *ts_book_longest_first(const ts_book *b, const char *pick, size_t *count)
{
	size_t all = ts_book_count(b), n = 0;
	size_t *order = malloc((all ? all : 1) * sizeof *order);
	by_length *l = malloc((all ? all : 1) * sizeof *l);
	if (!order || !l) {
		free(order);
		free(l);
		return NULL;
	}
	for (size_t i = 0; i < all; i++)
		if (!pick || pick[i])
			l[n++] = (by_length){ts_book_chapter(b, i)->chars, i};
	qsort(l, n, sizeof *l, longer_first);
	for (size_t k = 0; k < n; k++)
		order[k] = l[k].i;
	*count = n;
	free(l);
	return order;
}
