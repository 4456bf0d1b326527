/* fuzz_file.h - what the loaders' fuzz targets share: the input as a file
 * the loaders open by name (a memfd, written anew for each input, opened
 * through /proc/self/fd), and checks of what they report. */
#ifndef TS_FUZZ_FILE_H
#define TS_FUZZ_FILE_H

#define _GNU_SOURCE
#include "base/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef TS_FUZZ_LANG_DIR
#define TS_FUZZ_LANG_DIR "voices/zh"
#endif

/* A property does not hold: say which, and stop (libFuzzer keeps the
 * input). */
static void fuzz_fail(const char *what)
{
	fprintf(stderr, "fuzz: %s\n", what);
	abort();
}

/* The path of a file holding data[0..size); the same path every time. */
static const char *fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("fuzz", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	return path;
}

/* The number of lines of data: a loader finds at most that many entries,
 * and names no line after it. */
static inline size_t fuzz_lines(const uint8_t *data, size_t size)
{
	size_t n = size > 0 && data[size - 1] != '\n';
	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n';
	return n;
}

/* A loader's error: its code one of the allowed (a 0-terminated list), its
 * message naming the file (but "out of memory"), and "PATH:LINE: ..."
 * naming a line that exists. */
static inline void fuzz_check_error(const ts_error *err, int rc, const char *path, size_t lines,
                                    const int *allowed)
{
	int ok = 0;
	for (const int *a = allowed; *a; a++)
		ok |= rc == *a;
	if (!ok || err->code != rc)
		fuzz_fail("a load failed with a code it should not");
	if (rc == TS_ENOMEM)
		return;
	const char *m = ts_error_msg(err);
	size_t pl = strlen(path);
	if (strncmp(m, path, pl) != 0 || m[pl] != ':')
		fuzz_fail("an error message does not start with the file's name");
	char *end;
	long line = strtol(m + pl + 1, &end, 10);
	if (end != m + pl + 1 && *end == ':' && (line < 1 || (size_t)line > lines))
		fuzz_fail("an error message names a line the file does not have");
}

#endif
