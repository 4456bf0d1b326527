/* check.h - the little the unit tests share: CHECK() that counts
 * failures, and golden-file comparison (FLAC's *.ok style).
 *
 * Set TS_UPDATE_GOLDEN=1 to rewrite golden files from the current output
 * (then review the diff before committing). */
#ifndef TS_CHECK_H
#define TS_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			check_failures++;                                                          \
		}                                                                                  \
	} while (0)

/* Compare got[0..n) with the golden file; report the first differing line. */
static inline int check_golden(const char *golden, const char *got, size_t n)
{
	const char *upd = getenv("TS_UPDATE_GOLDEN");
	if (upd && *upd == '1') {
		FILE *f = fopen(golden, "wb");
		if (!f || fwrite(got, 1, n, f) != n) {
			fprintf(stderr, "%s: cannot write\n", golden);
			check_failures++;
		}
		if (f)
			fclose(f);
		return 0;
	}
	FILE *f = fopen(golden, "rb");
	if (!f) {
		fprintf(stderr, "%s: missing golden file\n", golden);
		check_failures++;
		return -1;
	}
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *want = malloc((size_t)size + 1);
	size_t got_n = fread(want, 1, (size_t)size, f);
	fclose(f);
	want[got_n] = '\0';
	int rc = 0;
	if (got_n != n || memcmp(want, got, n) != 0) {
		size_t i = 0, line = 1, ls = 0;
		while (i < n && i < got_n && want[i] == got[i]) {
			if (got[i] == '\n')
				line++, ls = i + 1;
			i++;
		}
		const char *we = strchr(want + ls, '\n');
		const char *ge = memchr(got + ls, '\n', n - ls);
		fprintf(stderr, "%s:%zu: output differs\n  want: %.*s\n  got:  %.*s\n", golden,
		        line, (int)(we ? (size_t)(we - want - ls) : got_n - ls), want + ls,
		        (int)(ge ? (size_t)(ge - got - ls) : n - ls), got + ls);
		check_failures++;
		rc = -1;
	}
	free(want);
	return rc;
}

/* The whole file, NUL-terminated; *n its size.  NULL if unreadable.
 * The caller frees it. */
static inline char *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *p = malloc((size_t)size + 1);
	*n = p ? fread(p, 1, (size_t)size, f) : 0;
	if (p)
		p[*n] = '\0';
	fclose(f);
	return p;
}

/* Write text to dir/name; its path (a static buffer, until the next call). */
static inline const char *write_file_in(const char *dir, const char *name, const char *text)
{
	static char path[1200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

/* Length of the piece of s[i..len) the streaming tests feed next: step
 * bytes (0: all the rest), moved forward to a character boundary. */
static inline size_t piece_len(const char *s, size_t len, size_t i, size_t step)
{
	size_t k = step && i + step < len ? step : len - i;
	while (i + k < len && ((unsigned char)s[i + k] & 0xC0) == 0x80)
		k++;
	return k;
}

/* A golden-file case: reads DIR/NAME.txt (counting a failure if it is
 * missing) and puts DIR/NAME.ok in golden.  The caller frees the text. */
static inline char *read_case(const char *dir, const char *name, char *golden, size_t gsz,
                              size_t *n)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s.txt", dir, name);
	snprintf(golden, gsz, "%s/%s.ok", dir, name);
	char *text = read_file(path, n);
	if (!text) {
		fprintf(stderr, "%s: cannot read\n", path);
		check_failures++;
	}
	return text;
}

static inline int check_done(const char *name)
{
	if (check_failures) {
		fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
		return 1;
	}
	printf("%s: all checks passed\n", name);
	return 0;
}

#endif
