/* file.c - exclusive creation of files, opening regular files only, and
 * what temporary names need to know of processes (see file.h). */
#include "base/file.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
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

const void *ts_map_file(const char *path, const char *what, size_t min, size_t max, size_t *size,
                        ts_error *err)
{
	struct stat st;
	int fd = ts_open_regular(path, &st);
	if (fd == TS_NOT_REGULAR) {
		ts_error_set(err, TS_EIO, "%s: %s, not a regular file", path,
		             ts_file_kind(st.st_mode));
		return NULL;
	}
	if (fd < 0) {
		ts_error_set(err, errno == ENOENT ? TS_ENOENT : TS_EIO, "%s: %s", path,
		             strerror(errno));
		return NULL;
	}
	void *map = NULL;
	if ((uintmax_t)st.st_size < min || (uintmax_t)st.st_size > max) {
		ts_error_set(err, TS_EINVAL, "%s: not a %s (%lld bytes)", path, what,
		             (long long)st.st_size);
	} else if ((map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) ==
	           MAP_FAILED) {
		ts_error_set(err, TS_EIO, "%s: cannot map: %s", path, strerror(errno));
		map = NULL;
	} else {
		*size = (size_t)st.st_size;
	}
	close(fd);
	return map;
}

void ts_unmap_file(const void *map, size_t size)
{
	if (map)
		munmap((void *)map, size);
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

char *ts_temp_name(const char *path, long pid)
{
	char host[64];
	ts_host_name(host);
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dir = slash ? (int)(slash - path) + 1 : 0;
	size_t len = strlen(path) + 96;
	char *t = malloc(len);
	if (t)
		snprintf(t, len, "%.*s.%s.part-%ld@%s", dir, path, base, pid, host);
	return t;
}

/* Is name a temporary file (".NAME.part-PID@HOST") to remove: of pid on
 * this host, or with pid < 0 of any process of this host that is gone? */
static int sweepable(const char *name, long pid, const char *host)
{
	const char *part = strstr(name, ".part-");
	if (name[0] != '.' || !part)
		return 0;
	char *end;
	errno = 0;
	long p = strtol(part + 6, &end, 10);
	if (errno || end == part + 6 || *end != '@' || strcmp(end + 1, host) != 0 || p <= 0)
		return 0;
	if (pid >= 0)
		return p == pid;
	return ts_process_gone(p);
}

void ts_temp_sweep(const char *dir, long pid)
{
	char host[64];
	ts_host_name(host);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char p[PATH_MAX]; /* on the stack: the sweep works when memory is short */
	while ((e = readdir(d))) {
		int n = sweepable(e->d_name, pid, host)
		            ? snprintf(p, sizeof p, "%s/%s", dir, e->d_name)
		            : -1;
		if (n > 0 && (size_t)n < sizeof p)
			unlink(p);
	}
	closedir(d);
}

/* The name under which path's old file is kept while a commit is made. */
static char *old_name(const char *path, long pid)
{
	size_t len = strlen(path);
	char *with = malloc(len + 5);
	if (!with)
		return NULL;
	memcpy(with, path, len);
	memcpy(with + len, ".old", 5);
	char *t = ts_temp_name(with, pid);
	free(with);
	return t;
}

int ts_commit_files(char *const *tmp, char *const *path, size_t n, long pid, ts_error *err)
{
	const char *failed = NULL;
	char **old = calloc(n ? n : 1, sizeof *old);
	size_t done = 0, i;
	int e = 0;
	for (i = 0; old && i < n && !e; i++) {
		/* Keep the file there now, if any. */
		if (!(old[i] = old_name(path[i], pid))) {
			e = ENOMEM;
			break;
		}
		unlink(old[i]);
		if (link(path[i], old[i]) != 0) {
			/* Nothing there; or a file system without hard links
			 * (FAT): then an undone commit removes the new file
			 * rather than bring the old one back. */
			int le = errno;
			free(old[i]);
			old[i] = NULL;
			if (le != ENOENT && le != EPERM && le != ENOTSUP && le != EOPNOTSUPP &&
			    le != ENOSYS)
				e = le, failed = path[i];
		}
	}
	if (!old)
		e = ENOMEM;
	for (; !e && done < n; done++)
		if (rename(tmp[done], path[done]) != 0) {
			e = errno, failed = path[done];
			break;
		}
	if (e) {
		/* Undo: each file done back as it was. */
		while (done-- > 0)
			(void)(old[done] ? rename(old[done], path[done]) : unlink(path[done]));
		for (i = 0; i < n; i++)
			unlink(tmp[i]);
	}
	for (i = 0; old && i < n; i++) {
		if (old[i])
			unlink(old[i]);
		free(old[i]);
	}
	free(old);
	if (!e)
		return 0;
	if (!failed)
		return ts_error_set(err, TS_ENOMEM, NULL);
	return ts_error_set(err, ts_errno_code(e), "%s: cannot rename into place: %s", failed,
	                    strerror(e));
}

int ts_write_full(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0) {
		ssize_t k = write(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = ENOSPC;
			return -1;
		}
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

ssize_t ts_pread_full(int fd, void *buf, size_t n, off_t off)
{
	size_t done = 0;
	while (done < n) {
		ssize_t k = pread(fd, (char *)buf + done, n - done, off + (off_t)done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		done += (size_t)k;
	}
	return (ssize_t)done;
}

int ts_pwrite_full(int fd, const void *buf, size_t n, off_t off)
{
	size_t done = 0;
	while (done < n) {
		ssize_t k = pwrite(fd, (const char *)buf + done, n - done, off + (off_t)done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		done += (size_t)k;
	}
	return 0;
}

int ts_hash_file(ts_hash *h, const char *path, ts_error *err)
{
	struct stat st;
	int fd = ts_open_regular(path, &st), rc = 0;
	if (fd < 0)
		return ts_error_set(err, TS_EINVAL, "%s: cannot read it: %s", path,
		                    fd == TS_NOT_REGULAR ? ts_file_kind(st.st_mode)
		                                         : strerror(errno));
	char block[65536];
	ssize_t k;
	while ((k = read(fd, block, sizeof block)) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = ts_error_set(err, TS_EIO, "%s: cannot read it: %s", path,
			                  strerror(errno));
			break;
		}
		ts_hash_bytes(h, block, (size_t)k);
	}
	close(fd);
	return rc;
}
