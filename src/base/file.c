/* file.c - exclusive creation of files, opening regular files only, and
 * what temporary names need to know of processes (see file.h). */
#include "base/file.h"

#include "base/util.h"

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

/* Does s end a temporary name: "" or the suffix libzip's own temporary
 * file adds to the name it writes (".XXXXXX", mkstemp's)? */
static int name_end(const char *s)
{
	if (!*s)
		return 1;
	size_t k = 1;
	while (k <= 6 && ts_is_alnum((unsigned char)s[k]))
		k++;
	return s[0] == '.' && k == 7 && !s[7];
}

/* Is name a temporary file (".NAME.part-PID@HOST", or libzip's beside it:
 * ".NAME.part-PID@HOST.XXXXXX") to remove: of pid on this host, or with
 * pid < 0 of any process of this host that is gone? */
static int sweepable(const char *name, long pid, const char *host)
{
	const char *part = strstr(name, ".part-");
	if (name[0] != '.' || !part)
		return 0;
	char *end;
	errno = 0;
	long p = strtol(part + 6, &end, 10);
	size_t hl = strlen(host);
	if (errno || end == part + 6 || *end != '@' || strncmp(end + 1, host, hl) != 0 ||
	    !name_end(end + 1 + hl) || p <= 0)
		return 0;
	if (pid >= 0)
		return p == pid;
	return ts_process_gone(p);
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Open path's folder as named (no root to stay in). */
static int open_parent(const char *path, const char **name)
{
	char dir[PATH_MAX];
	const char *s = strrchr(path, '/');
	size_t len = !s ? 1 : s == path ? 1 : (size_t)(s - path);
	*name = base_of(path);
	if (len >= sizeof dir) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, s ? path : ".", len);
	dir[len] = '\0';
	return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int ts_dir_open(const char *root, const char *path, const char **name)
{
	if (!root)
		return open_parent(path, name);
	size_t len = strlen(root);
	if (strncmp(path, root, len) != 0 || path[len] != '/') {
		errno = EINVAL;
		return -1;
	}
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const char *rest = path + len, *slash;
	char part[NAME_MAX + 1];
	while (fd >= 0) {
		while (*rest == '/')
			rest++;
		if (!(slash = strchr(rest, '/')))
			break;
		len = (size_t)(slash - rest);
		int sub = -1;
		if (len > NAME_MAX || (len == 2 && memcmp(rest, "..", 2) == 0)) {
			errno = len > NAME_MAX ? ENAMETOOLONG : EINVAL; /* ".." leaves root */
		} else {
			memcpy(part, rest, len);
			part[len] = '\0';
			sub = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		int e = errno;
		close(fd);
		errno = e;
		fd = sub;
		rest = slash + 1;
	}
	*name = rest;
	return fd;
}

int ts_create_excl_in(const char *root, const char *path)
{
	const char *name;
	int dir = ts_dir_open(root, path, &name);
	if (dir < 0)
		return -1;
	int fd = openat(dir, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	int e = errno;
	close(dir);
	errno = e;
	return fd;
}

int ts_unlink_in(const char *root, const char *path)
{
	const char *name;
	int dir = ts_dir_open(root, path, &name), rc = -1;
	if (dir < 0)
		return -1;
	rc = unlinkat(dir, name, 0);
	int e = errno;
	close(dir);
	errno = e;
	return rc;
}

int ts_mkdir_in(const char *root, const char *path)
{
	const char *name;
	int dir = ts_dir_open(root, path, &name), fd = -1;
	if (dir >= 0 && (mkdirat(dir, name, 0777) == 0 || errno == EEXIST))
		fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (dir >= 0)
		close(dir);
	errno = e;
	return fd < 0 ? -1 : 0;
}

int ts_link_in(const char *root, const char *path, const char *to)
{
	const char *name;
	int dir = ts_dir_open(root, path, &name), rc = -1;
	if (dir < 0)
		return -1;
	rc = linkat(dir, name, dir, base_of(to), 0);
	int e = errno;
	close(dir);
	errno = e;
	return rc;
}

FILE *ts_fopen_in(const char *root, const char *path)
{
	const char *name;
	int dir = ts_dir_open(root, path, &name);
	int fd = dir < 0 ? -1 : openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int e = errno;
	if (dir >= 0)
		close(dir);
	errno = e;
	return fd < 0 ? NULL : stream_of(fd, "r", NULL);
}

DIR *ts_opendir_in(const char *root, const char *dir)
{
	char p[PATH_MAX]; /* on the stack: sweeps work when memory is short */
	const char *name;
	int n = snprintf(p, sizeof p, "%s/", dir);
	int fd = n > 0 && (size_t)n < sizeof p ? ts_dir_open(root, p, &name) : -1;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d && fd >= 0) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return d;
}

void ts_temp_sweep(const char *root, const char *dir, long pid)
{
	char host[64];
	ts_host_name(host);
	DIR *d = ts_opendir_in(root, dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)))
		if (sweepable(e->d_name, pid, host))
			unlinkat(dirfd(d), e->d_name, 0);
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

/* One file of a commit: its folder, its name there, its old file's. */
typedef struct commit_file {
	int dir;
	const char *name;
	char *old;
} commit_file;

/* Keep the file at f's name, if any, under f->old (a hard link), its
 * folder opened first.  0, or an errno value. */
static int keep_old(commit_file *f, const char *root, const char *path, long pid)
{
	if ((f->dir = ts_dir_open(root, path, &f->name)) < 0)
		return errno;
	if (!(f->old = old_name(path, pid)))
		return ENOMEM;
	unlinkat(f->dir, base_of(f->old), 0);
	if (linkat(f->dir, f->name, f->dir, base_of(f->old), 0) == 0)
		return 0;
	/* Nothing there; or a file system without hard links (FAT): then an
	 * undone commit removes the new file rather than bring the old one
	 * back. */
	int le = errno;
	free(f->old);
	f->old = NULL;
	return le != ENOENT && le != EPERM && le != ENOTSUP && le != EOPNOTSUPP && le != ENOSYS ? le
	                                                                                        : 0;
}

int ts_commit_files(const char *root, char *const *tmp, char *const *path, size_t n, long pid,
                    ts_error *err)
{
	const char *failed = NULL;
	commit_file *f = calloc(n ? n : 1, sizeof *f);
	size_t done = 0, i, opened = 0;
	int e = f ? 0 : ENOMEM;
	for (i = 0; f && i < n && !e; i++, opened++)
		if ((e = keep_old(&f[i], root, path[i], pid)) && e != ENOMEM)
			failed = path[i];
	for (; !e && done < n; done++)
		if (renameat(f[done].dir, base_of(tmp[done]), f[done].dir, f[done].name) != 0) {
			e = errno, failed = path[done];
			break;
		}
	for (i = 0; e && i < n; i++) {
		/* Undo: each file done back as it was; the temporary files gone
		 * (never through a link: ts_unlink_in()). */
		if (i < done)
			(void)(f[i].old ? renameat(f[i].dir, base_of(f[i].old), f[i].dir, f[i].name)
			                : unlinkat(f[i].dir, f[i].name, 0));
		if (i < opened && f[i].dir >= 0)
			unlinkat(f[i].dir, base_of(tmp[i]), 0);
		else
			ts_unlink_in(root, tmp[i]);
	}
	for (i = 0; f && i < opened; i++) {
		if (f[i].old)
			unlinkat(f[i].dir, base_of(f[i].old), 0);
		if (f[i].dir >= 0)
			close(f[i].dir);
		free(f[i].old);
	}
	free(f);
	if (!e)
		return 0;
	if (!failed)
		return ts_error_set(err, TS_ENOMEM, NULL);
	return ts_error_set(err, ts_errno_code(e), "%s: cannot rename into place: %s", failed,
	                    strerror(e));
}

/* n bytes of fd into p, by read() or, at, by pread() from off: see
 * ts_read_full() and ts_pread_full(). */
static ssize_t read_loop(int fd, void *p, size_t n, int at, off_t off)
{
	size_t got = 0;
	while (got < n) {
		char *to = (char *)p + got;
		ssize_t k = at ? pread(fd, to, n - got, off + (off_t)got) : read(fd, to, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

ssize_t ts_read_full(int fd, void *p, size_t n)
{
	return read_loop(fd, p, n, 0, 0);
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
	return read_loop(fd, buf, n, 1, off);
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

int ts_make_dirs(const char *dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s", dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(p, 0777) != 0 && errno != EEXIST)
		return -1;
	struct stat st;
	if (stat(p, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

int ts_dir_writable(const char *dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/.tingshu-probe-%ld", dir, (long)getpid());
	int fd = ts_create_excl(p);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(p);
	return 0;
}

int ts_lockfile_gone(const char *outdir, const char *path, char *who, size_t whosz)
{
	char text[512] = "", host[256] = "", mine[256] = "";
	long pid = 0;
	FILE *f = ts_fopen_in(outdir, path);
	if (f) {
		size_t n = fread(text, 1, sizeof text - 1, f);
		text[n] = '\0';
		fclose(f);
	}
	if (sscanf(text, "%ld %255s", &pid, host) != 2) {
		snprintf(who, whosz, "a build that is starting");
		return 0;
	}
	snprintf(who, whosz, "pid %ld on %s", pid, host);
	ts_host_name(mine);
	return strcmp(host, mine) == 0 && ts_process_gone(pid);
}

int ts_lockfile_make(const char *outdir, const char *path, const char *host, char *taken,
                     size_t takensz)
{
	char *tmp = ts_temp_name(path, (long)getpid());
	int rc = -1, e = ENOMEM;
	struct stat st;
	if (!tmp)
		goto out;
	int fd = ts_create_excl_in(outdir, tmp);
	if (fd < 0 && (e = errno) == EEXIST && lstat(tmp, &st) == 0) {
		snprintf(taken, takensz, "%s: %s is at the lock's temporary name", tmp,
		         S_ISLNK(st.st_mode)   ? "a symbolic link"
		         : S_ISDIR(st.st_mode) ? "a directory"
		                               : "a file tingshu did not make");
		rc = -2;
	}
	if (fd < 0)
		goto out;
	char text[320];
	int n = snprintf(text, sizeof text, "%ld %s\n", (long)getpid(), host);
	rc = write(fd, text, (size_t)n) == n ? 0 : -1;
	e = errno;
	close(fd);
	if (!rc && ts_link_in(outdir, tmp, path) != 0) {
		rc = -1;
		e = errno;
	}
	ts_unlink_in(outdir, tmp);
out:
	free(tmp);
	errno = e;
	return rc;
}

long long ts_file_size_in(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat st;
	int k = snprintf(p, sizeof p, "%s/%s", dir, name);
	if (k < 0 || (size_t)k >= sizeof p || lstat(p, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	return (long long)st.st_size;
}

int ts_file_holds(const char *path, const void *data, size_t len)
{
	struct stat st;
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != len)
		return 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	char block[8192];
	size_t off = 0, got;
	int same = 1;
	while (same && (got = fread(block, 1, sizeof block, f)) > 0) {
		same = off + got <= len && memcmp(block, (const char *)data + off, got) == 0;
		off += got;
	}
	fclose(f);
	return same && off == len;
}
