/* stdin.c - the standard input kind of input ("-"): a book sent through a
 * pipe, copied into a temporary file that the book owns (workers read
 * chapters by name, and a pipe cannot be read twice), then read as a text
 * file is (decode.c, split.c).  Displayed as "stdin". */
#include "input/kind.h"

#include "input/book.h"
#include "input/decode.h"
#include "text/encoding.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Standard input is copied into a temporary file (the stdin copy), and
 * checked as it comes, so that neither the disk it takes nor the time
 * depend on what is sent (`tingshu text - </dev/zero`):
 *  - It holds at most TINGSHU_STDIN_MAX bytes (a number, or one with K, M
 *    or G: 512M, 2G), by default STDIN_MAX_DEFAULT: 256 MB, some 85
 *    million Chinese characters in UTF-8, room for the longest web novels
 *    (tens of millions).  More is an error as soon as it is read.
 *  - A NUL byte is binary data, as in a file (decode.c), unless the
 *    text has NUL bytes in its characters: it is UTF-16 or UTF-32 given
 *    with --encoding, marked with a byte-order mark or, when the first
 *    NUL comes in the first TS_INPUT_SAMPLE bytes, detected from them as a
 *    file's encoding is.  The first NUL byte that is not text stops it.
 *  - The caller's cancel flag is checked before each read and at least
 *    every STDIN_POLL_MS while none comes: a signal that interrupts a read
 *    is not waited out, nor one that comes between the check and the read
 *    (where the read would wait for input that may never come).
 * A copy that failed is removed at once. */

#define STDIN_MAX_DEFAULT (256L << 20)
#define STDIN_POLL_MS     200

/* The most standard input may hold into *max: 0, or TS_EINVAL (reported)
 * for a TINGSHU_STDIN_MAX that is not a size. */
static int stdin_limit(ts_book *b, long *max)
{
	const char *v = getenv("TINGSHU_STDIN_MAX");
	*max = STDIN_MAX_DEFAULT;
	if (!v || !*v)
		return 0;
	char *end;
	errno = 0;
	long long n = strtoll(v, &end, 10);
	int shift = *end == 'K' || *end == 'k'   ? 10
	            : *end == 'M' || *end == 'm' ? 20
	            : *end == 'G' || *end == 'g' ? 30
	                                         : 0;
	if (shift)
		end++;
	if (errno || *v < '0' || *v > '9' || *end || n <= 0 || n > (LONG_MAX >> shift)) {
		ts_book_diag(
		    b, TS_ERROR,
		    "TINGSHU_STDIN_MAX=%s: not a size (a number of bytes, or with K, M or G: "
		    "512M, 2G)",
		    v);
		return TS_EINVAL;
	}
	*max = (long)(n << shift);
	return 0;
}

/* A size for messages: "256 MB", "1 GB", "1000 bytes". */
static void size_text(long n, char *out, size_t sz)
{
	static const char *const units[] = {"GB", "MB", "KB"};
	for (int i = 0; i < 3; i++) {
		long unit = 1L << (30 - 10 * i);
		if (n >= unit && n % unit == 0) {
			snprintf(out, sz, "%ld %s", n / unit, units[i]);
			return;
		}
	}
	snprintf(out, sz, "%ld bytes", n);
}

/* Read standard input into buf until n bytes or its end: 0 with *got
 * bytes (fewer than n only at the end), TS_ECANCELED when asked to stop,
 * TS_EIO with errno. */
static int read_stdin(const ts_book *b, char *buf, size_t n, size_t *got)
{
	*got = 0;
	while (*got < n) {
		if (ts_book_cancelled(b))
			return TS_ECANCELED;
		struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
		int ready = poll(&p, 1, STDIN_POLL_MS);
		if (ready == 0 || (ready < 0 && errno == EINTR))
			continue; /* (another error is the read's to report) */
		ssize_t k = read(STDIN_FILENO, buf + *got, n - *got);
		if (k == 0)
			break;
		if (k < 0 && errno != EINTR)
			return TS_EIO;
		if (k > 0)
			*got += (size_t)k;
	}
	return 0;
}

/* Standard input as it is copied. */
typedef struct stdin_copy {
	ts_book *b;
	long max;   /* bytes allowed */
	long off;   /* bytes read so far */
	long line;  /* line of byte off */
	int nul_ok; /* NUL bytes are part of the text's characters */
} stdin_copy;

/* Are NUL bytes part of the characters of the text that starts with
 * buf[0..n) (all of it when whole)? */
static int nul_in_text(const ts_book *b, const char *buf, size_t n, int whole)
{
	const char *enc = ts_book_encoding(b);
	ts_guess g;
	if (!enc)
		ts_encoding_bom((const unsigned char *)buf, n, &enc);
	if (enc)
		return ts_encoding_wide(enc);
	if (!memchr(buf, 0, n))
		return 0;
	return ts_encoding_guess(buf, n, whole, &g) == 0 && g.name && ts_encoding_wide(g.name);
}

/* Check the next n bytes of standard input, buf (the first ones when
 * first): 0, or TS_EBINARY or TS_ETOOLONG, reported. */
static int copy_check(stdin_copy *s, const char *buf, size_t n, int first)
{
	const char *nul = s->nul_ok ? NULL : memchr(buf, 0, n);
	size_t upto = nul ? (size_t)(nul - buf) : n;
	for (const char *q = buf; !s->nul_ok && (q = memchr(q, '\n', upto - (size_t)(q - buf)));
	     q++)
		s->line++;
	if (nul) {
		ts_book_diag(s->b, TS_ERROR,
		             "stdin:%ld: NUL byte at byte %ld: this is a binary file, not text%s",
		             s->line, s->off + (long)upto,
		             first && !ts_book_encoding(s->b)
		                 ? " (if it is UTF-16 without a byte-order mark, give "
		                   "--encoding UTF-16LE or UTF-16BE)"
		                 : "");
		return TS_EBINARY;
	}
	if ((long)n > s->max - s->off) {
		char max[32];
		size_text(s->max, max, sizeof max);
		ts_book_diag(
		    s->b, TS_ERROR,
		    "stdin: more than %s, the most standard input may hold; give the book as a "
		    "file, or raise the limit with TINGSHU_STDIN_MAX (e.g. TINGSHU_STDIN_MAX=1G)",
		    max);
		return TS_ETOOLONG;
	}
	s->off += (long)n;
	return 0;
}

/* Copy standard input into a temporary file of the book, checked (see
 * above); *out is its path. */
static int copy_stdin(ts_book *b, const char **out)
{
	stdin_copy s = {.b = b, .line = 1};
	FILE *f;
	const char *name;
	int rc = stdin_limit(b, &s.max);
	if (rc || (rc = ts_input_temp(b, "stdin", "stdin", &f, &name)))
		return rc;
	char *buf = malloc(TS_INPUT_SAMPLE);
	if (!buf)
		rc = TS_ENOMEM;
	for (int first = 1; buf; first = 0) {
		size_t n;
		if ((rc = read_stdin(b, buf, TS_INPUT_SAMPLE, &n))) {
			if (rc == TS_ECANCELED)
				ts_book_stopped(b, "stdin");
			else
				ts_book_diag(b, TS_ERROR, "stdin: read error: %s", strerror(errno));
			break;
		}
		if (first)
			s.nul_ok = nul_in_text(b, buf, n, n < TS_INPUT_SAMPLE);
		if ((rc = copy_check(&s, buf, n, first)))
			break;
		if (n > 0 && fwrite(buf, 1, n, f) != n) {
			rc = ts_input_temp_code(errno);
			ts_book_diag(b, TS_ERROR, "stdin: cannot write temporary file %s: %s", name,
			             strerror(errno));
			break;
		}
		if (n < TS_INPUT_SAMPLE)
			break;
	}
	free(buf);
	if (fclose(f) != 0 && !rc) {
		rc = ts_input_temp_code(errno);
		ts_book_diag(b, TS_ERROR, "stdin: cannot write temporary file %s: %s", name,
		             strerror(errno));
	}
	if (rc)
		ts_book_drop_temp(b);
	else
		*out = name;
	return rc;
}

static int stdin_sniff(const char *path, const struct stat *st)
{
	(void)st;
	return strcmp(path, "-") == 0;
}

static int stdin_open(ts_book *b, const char *path)
{
	const char *copy;
	(void)path;
	int rc = copy_stdin(b, &copy);
	if (rc)
		return rc;
	return ts_input_scan(b, copy, "stdin", 1);
}

const ts_input_kind ts_input_stdin = {"standard input", "stdin", stdin_sniff, stdin_open};
