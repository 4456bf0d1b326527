/* faultinject.c - an LD_PRELOAD library that makes one call of a kind fail,
 * the N-th of one process, to test the paths of a full disk, an I/O error
 * and memory running out (as SQLite tests its own with a fault-injecting
 * VFS and allocator).  sweep.sh runs tingshu under it for every N.
 *
 * Configured by the environment (read once, when the library loads):
 *
 *   TS_FAULT_KIND    what fails: write, rename, link, fsync, open, malloc;
 *                    unset or empty: nothing fails, the calls are counted
 *   TS_FAULT_N       the call that fails, counting from 1
 *   TS_FAULT_PROC    the process whose N-th call fails, by its place in the
 *                    tree of forks: "p" the process started (the default),
 *                    "p.1" its first child, "p.1.2" that child's second
 *                    child; "*": every process fails its own N-th call
 *   TS_FAULT_STICKY  1: the N-th call and every later one of the kind fail
 *                    (a disk that stays full); else only the N-th
 *   TS_FAULT_ERRNO   the errno of the failure, a number or ENOSPC, EIO,
 *                    ENOMEM, EACCES, EMFILE, EROFS, EDQUOT; default ENOSPC
 *                    for write and open, EIO for rename, link and fsync,
 *                    ENOMEM for malloc
 *   TS_FAULT_LOG     a file each process appends lines to: "fired PROC
 *                    KIND N ERRNO PID" when it injects the fault, and
 *                    "count PROC PID write=W rename=R ..." when it ends
 *                    (exit, _exit; not when killed by a signal); and the
 *                    first process "main p PID write=W ..." when its main()
 *                    starts: the calls before are the libraries' own setup,
 *                    and N counts from main() on
 *                    The "fired" line is followed by "from PROC OBJECT":
 *                    the file name of the first caller on the stack that
 *                    is not this library, the C library or the C++ one
 *                    (tingshu, or a library such as libespeak-ng.so.1)
 *   TS_FAULT_BACKTRACE  1: the "fired" line is followed by the stack of
 *                    the call that failed (for finding the code at fault)
 *
 * Why by place in the fork tree: tingshu forks a worker process per job
 * and, in each worker, a process per chapter; with -j1 those forks happen
 * in the same order every run, and each process is single-threaded, so
 * "the N-th call of process p.1.2" is the same call every run, while pids
 * and the interleaving of processes are not.  A child starts counting from
 * zero.  A process that execs starts again as "p": tingshu does not exec.
 *
 * What each kind counts:
 *   write   write, writev, pwrite, pwritev on a regular file, and the
 *           streams opened for writing on one (fopen, fdopen in a mode
 *           that writes, and stdout when it is a regular file): those are
 *           made fopencookie streams whose buffer goes out through the
 *           write() here, so an fwrite, an fflush or an fclose fails where
 *           glibc's own write would have (glibc's streams call an internal
 *           write no preloaded library can replace).  Pipes, terminals and
 *           fd 2 are left alone: they cannot run out of space, and the
 *           sweep reads the error messages on stderr.
 *   rename  rename, renameat, renameat2
 *   link    link, linkat (tingshu makes its locks whole with a link)
 *   fsync   fsync, fdatasync
 *   open    open, open64, openat, openat64, creat with O_CREAT; fopen in a
 *           mode that creates; mkstemp, mkostemp, mkstemps, mkostemps
 *   malloc  malloc, calloc, realloc, reallocarray, posix_memalign,
 *           aligned_alloc, memalign; glibc's own allocations (strdup,
 *           fopen, ...) come here too
 *
 * It works under AddressSanitizer (ASAN_OPTIONS=verify_asan_link_order=0):
 * the real functions are found with dlsym(RTLD_NEXT), which are then ASan's
 * interceptors; what dlsym allocates before they are known comes from a
 * small static arena, which free() recognizes. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* The interface this library replaces, declared here for -Wmissing-prototypes
 * where the system headers do not (or only under other names). */
void *memalign(size_t align, size_t n);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dir, const char *path, int flags);
int __openat64_2(int dir, const char *path, int flags);

enum kind { K_WRITE, K_RENAME, K_LINK, K_FSYNC, K_OPEN, K_MALLOC, K_N, K_NONE = K_N };

static const char *const kind_names[K_N] = {"write", "rename", "link", "fsync", "open", "malloc"};

/* ---- the state of this process ------------------------------------------ */

static struct {
	int ready;      /* the real functions are known */
	enum kind kind; /* what fails */
	unsigned long n;
	int sticky;
	int err;             /* errno of a failure */
	char want[128];      /* TS_FAULT_PROC */
	char log[512];       /* TS_FAULT_LOG, or "" */
	char proc[128];      /* this process in the fork tree */
	int armed;           /* this process is the one to fail */
	unsigned long forks; /* children so far */
	unsigned long count[K_N];
	int fired;
	int logged;    /* its counts are written */
	int backtrace; /* TS_FAULT_BACKTRACE: where the fault fired, to the log */
	int quiet;     /* inside the library's own calls: nothing counts */
} st = {.kind = K_NONE};

#define REAL(ret, name, args) static ret(*real_##name) args
REAL(ssize_t, write, (int, const void *, size_t));
REAL(ssize_t, writev, (int, const struct iovec *, int));
REAL(ssize_t, pwrite, (int, const void *, size_t, off_t));
REAL(ssize_t, pwrite64, (int, const void *, size_t, off64_t));
REAL(ssize_t, pwritev, (int, const struct iovec *, int, off_t));
REAL(int, rename, (const char *, const char *));
REAL(int, renameat, (int, const char *, int, const char *));
REAL(int, renameat2, (int, const char *, int, const char *, unsigned));
REAL(int, link, (const char *, const char *));
REAL(int, linkat, (int, const char *, int, const char *, int));
REAL(int, fsync, (int));
REAL(int, fdatasync, (int));
REAL(int, open, (const char *, int, ...));
REAL(int, open64, (const char *, int, ...));
REAL(int, openat, (int, const char *, int, ...));
REAL(int, openat64, (int, const char *, int, ...));
REAL(int, __open_2, (const char *, int));
REAL(int, __open64_2, (const char *, int));
REAL(int, __openat_2, (int, const char *, int));
REAL(int, __openat64_2, (int, const char *, int));
REAL(int, mkstemp, (char *));
REAL(void *, dlopen, (const char *, int));
REAL(int, mkostemp, (char *, int));
REAL(int, mkstemps, (char *, int));
REAL(int, mkostemps, (char *, int, int));
REAL(FILE *, fopen, (const char *, const char *));
REAL(FILE *, fopen64, (const char *, const char *));
REAL(FILE *, fdopen, (int, const char *));
REAL(void *, malloc, (size_t));
REAL(void *, calloc, (size_t, size_t));
REAL(void *, realloc, (void *, size_t));
REAL(void, free, (void *));
REAL(int, posix_memalign, (void **, size_t, size_t));
REAL(void *, aligned_alloc, (size_t, size_t));
REAL(void *, memalign, (size_t, size_t));
REAL(void, _exit, (int));
REAL(void, _Exit, (int));

/* ---- the arena for what dlsym allocates --------------------------------- */

static _Alignas(16) unsigned char arena[1 << 16];
static size_t arena_used;

static void *arena_alloc(size_t n)
{
	size_t need = (n + 16 + 15) & ~(size_t)15;
	if (need > sizeof arena - arena_used)
		return NULL;
	unsigned char *p = arena + arena_used;
	arena_used += need;
	memcpy(p, &n, sizeof n);
	return p + 16;
}

static int in_arena(const void *p)
{
	return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + sizeof arena;
}

static size_t arena_size(const void *p)
{
	size_t n;
	memcpy(&n, (const unsigned char *)p - 16, sizeof n);
	return n;
}

/* ---- the log ------------------------------------------------------------- */

/* Write to the log with the system calls themselves: nothing counted,
 * nothing allocated. */
static void log_line(const char *s, size_t n)
{
	if (!st.log[0])
		return;
	int e = errno;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, st.log,
	                      O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd >= 0) {
		syscall(SYS_write, fd, s, n);
		syscall(SYS_close, fd);
	}
	errno = e;
}

typedef struct line {
	char s[512];
	size_t n;
} line;

static void put(line *l, const char *s)
{
	while (*s && l->n < sizeof l->s - 1)
		l->s[l->n++] = *s++;
}

static void put_num(line *l, unsigned long v)
{
	char d[24];
	int k = 0;
	do
		d[k++] = (char)('0' + v % 10);
	while ((v /= 10) && k < 24);
	while (k > 0 && l->n < sizeof l->s - 1)
		l->s[l->n++] = d[--k];
}

static void log_counts(void)
{
	if (st.logged)
		return;
	st.logged = 1;
	line l = {.n = 0};
	put(&l, "count ");
	put(&l, st.proc);
	put(&l, " ");
	put_num(&l, (unsigned long)getpid());
	for (int k = 0; k < K_N; k++) {
		put(&l, " ");
		put(&l, kind_names[k]);
		put(&l, "=");
		put_num(&l, st.count[k]);
	}
	put(&l, "\n");
	log_line(l.s, l.n);
}

/* The stack of the caller, to the log.  backtrace() loads libgcc on its
 * first call, which allocates: those calls are not counted. */
static void log_backtrace(void)
{
	void *frames[48];
	int e = errno;
	st.quiet = 1;
	int n = backtrace(frames, 48);
	int fd = (int)syscall(SYS_openat, AT_FDCWD, st.log,
	                      O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd >= 0) {
		backtrace_symbols_fd(frames, n, fd);
		syscall(SYS_close, fd);
	}
	st.quiet = 0;
	errno = e;
}

/* "from PROC OBJECT": whose call failed (see the top). */
static void log_from(void)
{
	void *frames[48];
	int e = errno;
	st.quiet = 1;
	int n = backtrace(frames, 48);
	const char *from = "?";
	for (int i = 1; i < n; i++) {
		Dl_info info;
		if (!dladdr(frames[i], &info) || !info.dli_fname)
			continue;
		const char *base = strrchr(info.dli_fname, '/');
		base = base ? base + 1 : info.dli_fname;
		if (strstr(base, "faultinject") || strncmp(base, "libc.so", 7) == 0 ||
		    strncmp(base, "libstdc++", 9) == 0 || strncmp(base, "libgcc_s", 8) == 0)
			continue;
		from = base;
		break;
	}
	line l = {.n = 0};
	put(&l, "from ");
	put(&l, st.proc);
	put(&l, " ");
	put(&l, from);
	put(&l, "\n");
	log_line(l.s, l.n);
	st.quiet = 0;
	errno = e;
}

/* ---- setting up ------------------------------------------------------------ */

static void copy_env(char *dst, size_t sz, const char *name, const char *dflt)
{
	const char *v = getenv(name);
	if (!v || !*v)
		v = dflt;
	size_t n = strlen(v);
	if (n >= sz)
		n = sz - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

static int errno_named(const char *s, int dflt)
{
	static const struct {
		const char *name;
		int value;
	} names[] = {{"ENOSPC", ENOSPC}, {"EIO", EIO},     {"ENOMEM", ENOMEM}, {"EACCES", EACCES},
	             {"EMFILE", EMFILE}, {"EROFS", EROFS}, {"EDQUOT", EDQUOT}};
	if (!s || !*s)
		return dflt;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(s, names[i].name) == 0)
			return names[i].value;
	int v = atoi(s);
	return v > 0 ? v : dflt;
}

static void on_fork_prepare(void)
{
	st.forks++;
}

static void on_fork_child(void)
{
	size_t n = strlen(st.proc);
	line l = {.n = 0};
	put(&l, ".");
	put_num(&l, st.forks);
	if (n + l.n < sizeof st.proc) {
		memcpy(st.proc + n, l.s, l.n);
		st.proc[n + l.n] = '\0';
	}
	st.forks = 0;
	memset(st.count, 0, sizeof st.count);
	st.fired = 0;
	st.logged = 0;
	st.armed = strcmp(st.want, "*") == 0 || strcmp(st.want, st.proc) == 0;
}

static void find_real(void)
{
#define FIND(name) real_##name = (__typeof__(real_##name))dlsym(RTLD_NEXT, #name)
	FIND(malloc);
	FIND(calloc);
	FIND(realloc);
	FIND(free);
	FIND(posix_memalign);
	FIND(aligned_alloc);
	FIND(memalign);
	FIND(write);
	FIND(writev);
	FIND(pwrite);
	FIND(pwrite64);
	FIND(pwritev);
	FIND(rename);
	FIND(renameat);
	FIND(renameat2);
	FIND(link);
	FIND(linkat);
	FIND(fsync);
	FIND(fdatasync);
	FIND(open);
	FIND(open64);
	FIND(openat);
	FIND(openat64);
	FIND(__open_2);
	FIND(__open64_2);
	FIND(__openat_2);
	FIND(__openat64_2);
	FIND(mkstemp);
	FIND(dlopen);
	FIND(mkostemp);
	FIND(mkstemps);
	FIND(mkostemps);
	FIND(fopen);
	FIND(fopen64);
	FIND(fdopen);
	FIND(_exit);
	FIND(_Exit);
#undef FIND
}

static FILE *cookie_stream(int fd, const char *mode);

/* Find the real functions, on the first call of any. */
static void setup(void)
{
	static int busy;
	if (st.ready || busy)
		return;
	busy = 1;
	find_real();
	st.ready = 1;
	busy = 0;
}

/* Read the environment, when the library is loaded: before that (while
 * other libraries are set up) nothing fails and nothing is logged, as
 * the environment may not be there yet (it is not under ASan). */
static void configure(void)
{
	char kind[32];
	copy_env(kind, sizeof kind, "TS_FAULT_KIND", "");
	for (int k = 0; k < K_N; k++)
		if (strcmp(kind, kind_names[k]) == 0)
			st.kind = (enum kind)k;
	const char *n = getenv("TS_FAULT_N");
	st.n = n ? strtoul(n, NULL, 10) : 0;
	if (st.n == 0)
		st.kind = K_NONE;
	const char *sticky = getenv("TS_FAULT_STICKY");
	st.sticky = sticky && strcmp(sticky, "1") == 0;
	static const int dflt[K_N] = {ENOSPC, EIO, EIO, EIO, ENOSPC, ENOMEM};
	st.err = errno_named(getenv("TS_FAULT_ERRNO"), st.kind < K_N ? dflt[st.kind] : EIO);
	copy_env(st.want, sizeof st.want, "TS_FAULT_PROC", "p");
	copy_env(st.log, sizeof st.log, "TS_FAULT_LOG", "");
	const char *bt = getenv("TS_FAULT_BACKTRACE");
	st.backtrace = bt && strcmp(bt, "1") == 0;
	strcpy(st.proc, "p");
	st.armed = strcmp(st.want, "*") == 0 || strcmp(st.want, st.proc) == 0;
}

__attribute__((constructor)) static void faultinject_init(void)
{
	setup();
	configure();
	pthread_atfork(on_fork_prepare, NULL, on_fork_child);
	/* stdout on a regular file: through the counted write(), like the
	 * streams fdopen makes (see the top). */
	struct stat sb;
	if (fstat(1, &sb) == 0 && S_ISREG(sb.st_mode)) {
		FILE *f = cookie_stream(1, "w");
		if (f)
			stdout = f;
	}
}

__attribute__((destructor)) static void faultinject_fini(void)
{
	log_counts();
}

/* Is this call the one to fail?  Counts it.  What it is on (a path, a
 * file descriptor or a size; -1 for none) goes to the log when it fails. */
static int hit(enum kind k, const char *path, int fd, long size)
{
	if (!st.ready)
		setup();
	if (st.quiet)
		return 0;
	unsigned long c = __atomic_add_fetch(&st.count[k], 1, __ATOMIC_RELAXED);
	if (!st.armed || k != st.kind || !(c == st.n || (st.sticky && c > st.n)))
		return 0;
	if (!st.fired) {
		st.fired = 1;
		line l = {.n = 0};
		put(&l, "fired ");
		put(&l, st.proc);
		put(&l, " ");
		put(&l, kind_names[k]);
		put(&l, " ");
		put_num(&l, c);
		put(&l, " ");
		put_num(&l, (unsigned long)st.err);
		put(&l, " ");
		put_num(&l, (unsigned long)getpid());
		put(&l, " ");
		char target[256] = "-";
		if (path) {
			size_t n =
			    strlen(path) < sizeof target - 1 ? strlen(path) : sizeof target - 1;
			memcpy(target, path, n);
			target[n] = '\0';
		} else if (fd >= 0) {
			line fdp = {.n = 0};
			put(&fdp, "/proc/self/fd/");
			put_num(&fdp, (unsigned long)fd);
			fdp.s[fdp.n] = '\0';
			long n =
			    syscall(SYS_readlinkat, AT_FDCWD, fdp.s, target, sizeof target - 1);
			target[n > 0 ? n : 0] = '\0';
		} else if (size >= 0) {
			line sz = {.n = 0};
			put_num(&sz, (unsigned long)size);
			put(&sz, " bytes");
			sz.s[sz.n] = '\0';
			memcpy(target, sz.s, sz.n + 1);
		}
		put(&l, target);
		put(&l, "\n");
		log_line(l.s, l.n);
		log_from();
		if (st.backtrace)
			log_backtrace();
	}
	return 1;
}

static int fail_with(int rc)
{
	errno = st.err;
	return rc;
}

/* ---- main ------------------------------------------------------------------------ */

typedef int (*main_fn)(int, char **, char **);
static main_fn real_main;

/* main() with the counts of the calls before it logged: those are made by
 * the dynamic loader and the constructors of libraries (libgomp's, for
 * one, exits on its own when its first allocation fails). */
static int logged_main(int argc, char **argv, char **envp)
{
	line l = {.n = 0};
	put(&l, "main ");
	put(&l, st.proc);
	put(&l, " ");
	put_num(&l, (unsigned long)getpid());
	for (int k = 0; k < K_N; k++) {
		put(&l, " ");
		put(&l, kind_names[k]);
		put(&l, "=");
		put_num(&l, st.count[k]);
	}
	put(&l, "\n");
	log_line(l.s, l.n);
	/* The calls of main() count from 1: how many the constructors make
	 * varies from run to run (about 2,200 allocations, since FFmpeg's
	 * libraries and theirs are linked). */
	memset(st.count, 0, sizeof st.count);
	return real_main(argc, argv, envp);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end);

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end)
{
	int (*next)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *) =
	    (__typeof__(next))dlsym(RTLD_NEXT, "__libc_start_main");
	real_main = main;
	return next(logged_main, argc, argv, init, fini, rtld_fini, stack_end);
}

/* ---- ending a process ------------------------------------------------------- */

void _exit(int status)
{
	log_counts();
	if (!real__exit)
		setup();
	real__exit(status);
	__builtin_unreachable();
}

void _Exit(int status)
{
	log_counts();
	if (!real__Exit)
		setup();
	real__Exit(status);
	__builtin_unreachable();
}

/* ---- write ------------------------------------------------------------------ */

/* Writes that can fail for want of space: to a regular file, not stderr. */
static int counted_fd(int fd)
{
	struct stat sb;
	return fd != 2 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	if (!st.ready)
		setup();
	if (counted_fd(fd) && hit(K_WRITE, NULL, fd, -1))
		return fail_with(-1);
	return real_write(fd, buf, n);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	if (!st.ready)
		setup();
	if (counted_fd(fd) && hit(K_WRITE, NULL, fd, -1))
		return fail_with(-1);
	return real_writev(fd, iov, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	if (!st.ready)
		setup();
	if (counted_fd(fd) && hit(K_WRITE, NULL, fd, -1))
		return fail_with(-1);
	return real_pwrite(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	if (!st.ready)
		setup();
	if (counted_fd(fd) && hit(K_WRITE, NULL, fd, -1))
		return fail_with(-1);
	return real_pwrite64(fd, buf, n, off);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	if (!st.ready)
		setup();
	if (counted_fd(fd) && hit(K_WRITE, NULL, fd, -1))
		return fail_with(-1);
	return real_pwritev(fd, iov, n, off);
}

/* The streams: their buffers go out through write() above.  The cookie
 * is the file descriptor itself, so that a stream allocates nothing more
 * than glibc's own do. */
static int cookie_fd(void *c)
{
	return (int)(intptr_t)c;
}

static ssize_t cookie_read(void *c, char *buf, size_t n)
{
	return read(cookie_fd(c), buf, n);
}

/* What was written, short on an error (errno set), as glibc's own file
 * streams do: never -1, which fopencookie's callers would count as bytes. */
static ssize_t cookie_write(void *c, const char *buf, size_t n)
{
	size_t done = 0;
	while (done < n) {
		ssize_t k = write(cookie_fd(c), buf + done, n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		done += (size_t)k;
	}
	return (ssize_t)done;
}

static int cookie_seek(void *c, off64_t *pos, int whence)
{
	off64_t at = lseek64(cookie_fd(c), *pos, whence);
	if (at < 0)
		return -1;
	*pos = at;
	return 0;
}

static int cookie_close(void *c)
{
	return close(cookie_fd(c));
}

static FILE *cookie_stream(int fd, const char *mode)
{
	return fopencookie((void *)(intptr_t)fd, mode,
	                   (cookie_io_functions_t){.read = cookie_read,
	                                           .write = cookie_write,
	                                           .seek = cookie_seek,
	                                           .close = cookie_close});
}

static int writes(const char *mode)
{
	return mode[0] == 'w' || mode[0] == 'a' || strchr(mode, '+') != NULL;
}

FILE *fdopen(int fd, const char *mode)
{
	if (!st.ready)
		setup();
	struct stat sb;
	if (!writes(mode) || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
		return real_fdopen(fd, mode);
	if (mode[0] == 'a') {
		int fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl | O_APPEND) < 0)
			return NULL;
	}
	return cookie_stream(fd, mode);
}

static FILE *open_stream(FILE *(*real)(const char *, const char *), const char *path,
                         const char *mode)
{
	if (!st.ready)
		setup();
	if (!writes(mode))
		return real(path, mode);
	int flags = strchr(mode, '+') ? O_RDWR : O_WRONLY;
	if (mode[0] == 'w')
		flags |= O_CREAT | O_TRUNC;
	else if (mode[0] == 'a')
		flags |= O_CREAT | O_APPEND;
	if (strchr(mode, 'x'))
		flags |= O_EXCL;
	if (strchr(mode, 'e'))
		flags |= O_CLOEXEC;
	int fd = open(path, flags, 0666);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, mode);
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

FILE *fopen(const char *path, const char *mode)
{
	return open_stream(real_fopen, path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	return open_stream(real_fopen64, path, mode);
}

/* ---- rename, link, fsync ------------------------------------------------------ */

int rename(const char *from, const char *to)
{
	if (hit(K_RENAME, from, -1, -1))
		return fail_with(-1);
	return real_rename(from, to);
}

int renameat(int fd1, const char *from, int fd2, const char *to)
{
	if (hit(K_RENAME, from, -1, -1))
		return fail_with(-1);
	return real_renameat(fd1, from, fd2, to);
}

int renameat2(int fd1, const char *from, int fd2, const char *to, unsigned flags)
{
	if (hit(K_RENAME, from, -1, -1))
		return fail_with(-1);
	return real_renameat2(fd1, from, fd2, to, flags);
}

int link(const char *from, const char *to)
{
	if (hit(K_LINK, to, -1, -1))
		return fail_with(-1);
	return real_link(from, to);
}

int linkat(int fd1, const char *from, int fd2, const char *to, int flags)
{
	if (hit(K_LINK, to, -1, -1))
		return fail_with(-1);
	return real_linkat(fd1, from, fd2, to, flags);
}

int fsync(int fd)
{
	if (hit(K_FSYNC, NULL, fd, -1))
		return fail_with(-1);
	return real_fsync(fd);
}

int fdatasync(int fd)
{
	if (hit(K_FSYNC, NULL, fd, -1))
		return fail_with(-1);
	return real_fdatasync(fd);
}

/* ---- open ---------------------------------------------------------------------- */

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	if ((flags & O_CREAT) && hit(K_OPEN, path, -1, -1))
		return fail_with(-1);
	if (!st.ready)
		setup();
	return real_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	if ((flags & O_CREAT) && hit(K_OPEN, path, -1, -1))
		return fail_with(-1);
	if (!st.ready)
		setup();
	return real_open64(path, flags, mode);
}

int openat(int dir, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	if ((flags & O_CREAT) && hit(K_OPEN, path, -1, -1))
		return fail_with(-1);
	if (!st.ready)
		setup();
	return real_openat(dir, path, flags, mode);
}

int openat64(int dir, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	if ((flags & O_CREAT) && hit(K_OPEN, path, -1, -1))
		return fail_with(-1);
	if (!st.ready)
		setup();
	return real_openat64(dir, path, flags, mode);
}

/* The fortified entries take no mode: they are never called with O_CREAT. */
int __open_2(const char *path, int flags)
{
	if (!st.ready)
		setup();
	return real___open_2(path, flags);
}

int __open64_2(const char *path, int flags)
{
	if (!st.ready)
		setup();
	return real___open64_2(path, flags);
}

int __openat_2(int dir, const char *path, int flags)
{
	if (!st.ready)
		setup();
	return real___openat_2(dir, path, flags);
}

int __openat64_2(int dir, const char *path, int flags)
{
	if (!st.ready)
		setup();
	return real___openat64_2(dir, path, flags);
}

int creat(const char *path, mode_t mode)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
}

int creat64(const char *path, mode_t mode)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
}

int mkstemp(char *tmpl)
{
	if (hit(K_OPEN, tmpl, -1, -1))
		return fail_with(-1);
	return real_mkstemp(tmpl);
}

int mkstemp64(char *tmpl)
{
	return mkstemp(tmpl);
}

int mkostemp(char *tmpl, int flags)
{
	if (hit(K_OPEN, tmpl, -1, -1))
		return fail_with(-1);
	return real_mkostemp(tmpl, flags);
}

int mkostemp64(char *tmpl, int flags)
{
	return mkostemp(tmpl, flags);
}

int mkstemps(char *tmpl, int suffix)
{
	if (hit(K_OPEN, tmpl, -1, -1))
		return fail_with(-1);
	return real_mkstemps(tmpl, suffix);
}

int mkstemps64(char *tmpl, int suffix)
{
	return mkstemps(tmpl, suffix);
}

int mkostemps(char *tmpl, int suffix, int flags)
{
	if (hit(K_OPEN, tmpl, -1, -1))
		return fail_with(-1);
	return real_mkostemps(tmpl, suffix, flags);
}

int mkostemps64(char *tmpl, int suffix, int flags)
{
	return mkostemps(tmpl, suffix, flags);
}

/* ---- malloc --------------------------------------------------------------------- */

/* Before the real functions are known (dlsym allocates while it finds
 * them), or while they are being found, the arena serves. */
static int early(void)
{
	if (!st.ready)
		setup();
	return !real_malloc;
}

/* What the dynamic loader does in dlopen() (and the constructors of the
 * libraries it loads) is their setup, as it is before main() for the
 * libraries tingshu is linked with: nothing counts in it.  tingshu opens
 * libavcodec only to make an M4B, and the number of allocations in
 * loading it and its hundred libraries varies from run to run, which
 * would leave no N to sweep. */
void *dlopen(const char *file, int mode)
{
	if (!st.ready)
		setup();
	int quiet = st.quiet;
	st.quiet = 1;
	void *h = real_dlopen(file, mode);
	st.quiet = quiet;
	return h;
}

void *malloc(size_t n)
{
	if (early())
		return arena_alloc(n);
	if (hit(K_MALLOC, NULL, -1, (long)n)) {
		errno = ENOMEM;
		return NULL;
	}
	return real_malloc(n);
}

void *calloc(size_t k, size_t n)
{
	if (early()) {
		if (n && k > SIZE_MAX / n)
			return NULL;
		return arena_alloc(k * n); /* static memory: zeroed */
	}
	if (hit(K_MALLOC, NULL, -1, (long)(k * n))) {
		errno = ENOMEM;
		return NULL;
	}
	return real_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
	if (early()) {
		void *q = arena_alloc(n);
		if (q && p)
			memcpy(q, p, arena_size(p) < n ? arena_size(p) : n);
		return q;
	}
	if (hit(K_MALLOC, NULL, -1, (long)n)) {
		errno = ENOMEM;
		return NULL;
	}
	if (p && in_arena(p)) {
		void *q = real_malloc(n);
		if (q)
			memcpy(q, p, arena_size(p) < n ? arena_size(p) : n);
		return q;
	}
	return real_realloc(p, n);
}

void *reallocarray(void *p, size_t k, size_t n)
{
	if (n && k > SIZE_MAX / n) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, k * n);
}

void free(void *p)
{
	if (!p || in_arena(p))
		return;
	if (early())
		return;
	real_free(p);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	if (early())
		return ENOMEM;
	if (hit(K_MALLOC, NULL, -1, (long)n))
		return ENOMEM;
	return real_posix_memalign(out, align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	if (early())
		return NULL;
	if (hit(K_MALLOC, NULL, -1, (long)n)) {
		errno = ENOMEM;
		return NULL;
	}
	return real_aligned_alloc(align, n);
}

void *memalign(size_t align, size_t n)
{
	if (early())
		return NULL;
	if (hit(K_MALLOC, NULL, -1, (long)n)) {
		errno = ENOMEM;
		return NULL;
	}
	return real_memalign(align, n);
}
