/* lines.c - the one reader of data files (see lines.h).
 *
 * A byte at a time from stdio's buffer into a buffer of the longest line
 * allowed: the memory is that buffer and stdio's, whatever the file holds.
 * Only regular files are read (base/file.c opens them), and only their
 * first TS_LINES_SIZE_MAX bytes: the time is bounded too. */
#include "base/lines.h"

#include "base/file.h"
#include "base/util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ts_lines {
	FILE *f;
	size_t max;     /* longest line allowed, in bytes */
	unsigned flags; /* TS_LINES_* */
	long lineno;    /* of the line last read */
	long left;      /* bytes that may still be read: TS_LINES_SIZE_MAX in all */
	int first;      /* the first line is being read: a byte-order mark may start it */
	int err;        /* 0, or the error every later call returns */
	char errmsg[1024];
	char *path;
	char *buf; /* max + 2 bytes: the line, a CR, the NUL */
};

int ts_lines_open(ts_lines **out, const char *path, size_t max_len, unsigned flags, ts_error *err)
{
	ts_lines *r = NULL;
	int rc = 0;
	*out = NULL;
	if (max_len == 0 || max_len > SIZE_MAX / 2) {
		rc = ts_error_set(err, TS_EINVAL, "%s: bad line length limit %zu", path, max_len);
		goto fail;
	}
	r = calloc(1, sizeof *r);
	if (!r || !(r->path = ts_strdup(path)) || !(r->buf = malloc(max_len + 2))) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto fail;
	}
	struct stat st;
	int orc;
	if (!(r->f = ts_fopen_regular(path, "r", &st, &orc))) {
		int e = errno;
		if (orc == TS_NOT_REGULAR)
			rc = ts_error_set(err, TS_EINVAL, "%s: not a regular file (it is %s)", path,
			                  ts_file_kind(st.st_mode));
		else
			rc = ts_error_set(err, e == ENOENT ? TS_ENOENT : ts_errno_code(e), "%s: %s",
			                  path, strerror(e));
		goto fail;
	}
	if (st.st_size > TS_LINES_SIZE_MAX) {
		rc = ts_error_set(err, TS_ETOOLONG,
		                  "%s: too big for a data file (%lld bytes; the limit is %ld MB)",
		                  path, (long long)st.st_size, TS_LINES_SIZE_MAX >> 20);
		goto fail;
	}
	r->left = TS_LINES_SIZE_MAX;
	r->max = max_len;
	r->flags = flags;
	r->first = 1;
	*out = r;
	return 0;
fail:
	ts_lines_close(r);
	return rc;
}

static int fail(ts_lines *r, int code)
{
	if (code == TS_ETOOLONG)
		snprintf(r->errmsg, sizeof r->errmsg,
		         "%s:%ld: line too long (the limit is %zu bytes); is this a text file?",
		         r->path, r->lineno, r->max);
	else
		snprintf(r->errmsg, sizeof r->errmsg, "%s: %s", r->path,
		         errno ? strerror(errno) : "read error");
	return r->err = code;
}

/* The file has more than TS_LINES_SIZE_MAX bytes after all: it grew, or
 * it is one of those that say they have none (/proc). */
static int too_big(ts_lines *r)
{
	snprintf(r->errmsg, sizeof r->errmsg,
	         "%s: too big for a data file (more than %ld MB, the limit)", r->path,
	         TS_LINES_SIZE_MAX >> 20);
	return r->err = TS_ETOOLONG;
}

/* Is s[0..n) blank or a comment? */
static int is_comment(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
		i++;
	return i == n || s[i] == '#';
}

int ts_lines_next(ts_lines *r, char **line, size_t *len)
{
	if (r->err)
		return r->err;
	for (;;) {
		size_t n = 0;
		int c;
		while ((c = getc_unlocked(r->f)) != EOF) {
			if (--r->left < 0)
				return too_big(r);
			if (c == '\n')
				break;
			if (n > r->max) { /* max + 1 bytes and more to come: too long, CR or not */
				r->lineno++;
				return fail(r, TS_ETOOLONG);
			}
			r->buf[n++] = (char)c;
			if (r->first && n == 3) { /* a byte-order mark, as Windows editors write */
				r->first = 0;
				n -= ts_utf8_bom(r->buf, n);
			}
		}
		if (c == EOF && ferror(r->f))
			return fail(r, TS_EIO);
		if (c == EOF && n == 0)
			return 0;
		r->first = 0;
		r->lineno++;
		if (n > 0 && r->buf[n - 1] == '\r')
			n--;
		if (n > r->max)
			return fail(r, TS_ETOOLONG);
		r->buf[n] = '\0';
		if ((r->flags & TS_LINES_SKIP_COMMENTS) && is_comment(r->buf, n))
			continue;
		*line = r->buf;
		if (len)
			*len = n;
		return 1;
	}
}

long ts_lines_lineno(const ts_lines *r)
{
	return r->lineno;
}

const char *ts_lines_errmsg(const ts_lines *r)
{
	return r->errmsg;
}

void ts_lines_close(ts_lines *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	free(r->path);
	free(r->buf);
	free(r);
}
