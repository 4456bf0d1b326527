/* file.c - exclusive creation of files, opening regular files only, and
 * what temporary names need to know of processes (see file.h). */
#include "base/file.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

int ts_create_excl(const char *path)
{
	return open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

/* fd as a stream; on failure fd is closed (and path, when not NULL,
 * removed), errno kept. */
static FILE *stream_of(int fd, const char *mode, const char *path)
{
	FILE *f = fdopen(fd, mode);
	if (!f) {
		int e = errno;
		close(fd);
		if (path)
			unlink(path);
		errno = e;
	}
	return f;
}

FILE *ts_fcreate_excl(const char *path, const char *mode)
{
	int fd = ts_create_excl(path);
	return fd < 0 ? NULL : stream_of(fd, mode, path);
}

int ts_open_regular(const char *path, struct stat *st)
{
	struct stat mine;
	if (!st)
		st = &mine;
	/* Look before opening: opening a device may already do something. */
	if (stat(path, st) != 0)
		return -1;
	if (!S_ISREG(st->st_mode))
		return TS_NOT_REGULAR;
	/* O_NONBLOCK: a FIFO put in its place meanwhile opens at once. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return TS_NOT_REGULAR;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl != -1)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

FILE *ts_fopen_regular(const char *path, const char *mode, struct stat *st, int *rc)
{
	int fd = ts_open_regular(path, st);
	*rc = fd < 0 ? fd : 0;
	if (fd < 0)
		return NULL;
	FILE *f = stream_of(fd, mode, NULL);
	if (!f)
		*rc = -1;
	return f;
}

const char *ts_file_kind(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a folder";
	case S_IFIFO: return "a named pipe";
	case S_IFCHR:
	case S_IFBLK: return "a device";
	case S_IFSOCK: return "a socket";
	default: return "not a file";
	}
}

void ts_host_name(char out[64])
{
	char h[256] = "";
	size_t k = 0;
	if (gethostname(h, sizeof h - 1) != 0)
		h[0] = '\0';
	for (const char *c = h; *c && k < 63; c++)
		out[k++] = (isalnum((unsigned char)*c) || strchr(".-_", *c)) ? *c : '_';
	out[k] = '\0';
	if (!k)
		strcpy(out, "host");
}

int ts_process_gone(long pid)
{
	if (pid <= 0 || (long)(pid_t)pid != pid)
		return 0;
	return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}
