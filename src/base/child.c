/* child.c - a library call made in a child process (see child.h). */
#include "base/child.h"

#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int inline_calls;

void ts_in_child_inline(void)
{
	inline_calls = 1;
}

int ts_in_child(int (*fn)(void *arg, char *out, size_t outsz), void *arg, char *out, size_t outsz)
{
	return ts_in_child_cancel(fn, arg, out, outsz, NULL);
}

/* Wait for fd to be readable, passing a cancel on to pid (once): the
 * signal may come just before poll(), so poll looks again now and then. */
static void wait_readable(int fd, pid_t pid, volatile sig_atomic_t *cancel, int *told)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	while (cancel && !*told) {
		if (*cancel) {
			kill(pid, SIGTERM);
			*told = 1;
		} else if (poll(&p, 1, 100) > 0) {
			return;
		}
	}
}

struct ts_child {
	pid_t pid;
	int fd;
	size_t outsz;
};

ts_child *ts_child_start(int (*fn)(void *arg, char *out, size_t outsz), void *arg, char *out,
                         size_t outsz)
{
	int fd[2];
	ts_child *c = inline_calls ? NULL : malloc(sizeof *c);
	if (!c || pipe(fd) != 0) {
		free(c);
		return NULL;
	}
	pid_t pid = fork();
	if (pid == 0) {
		/* What the library says as it dies ("terminate called ...")
		 * is not for the user: the caller says what failed. */
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (null >= 0)
			dup2(null, 2);
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* nobody waits for it any more */
		close(fd[0]);
		/* The answer goes through the pipe, not the exit status: a
		 * crash caught by a sanitizer exits with a status too. */
		char rc = (char)(fn(arg, out, outsz) & 0x7F);
		_exit(ts_write_full(fd[1], &rc, 1) || ts_write_full(fd[1], out, outsz) ? 1 : 0);
	}
	close(fd[1]);
	if (pid < 0) {
		close(fd[0]);
		free(c);
		return NULL;
	}
	*c = (ts_child){.pid = pid, .fd = fd[0], .outsz = outsz};
	return c;
}

int ts_child_join(ts_child *c, char *out, volatile sig_atomic_t *cancel)
{
	char rc = -1;
	size_t got = 0, outsz = c->outsz;
	int told = 0, st = 0;
	while (got < outsz + 1) {
		wait_readable(c->fd, c->pid, cancel, &told);
		ssize_t k = got ? read(c->fd, out + got - 1, outsz + 1 - got) : read(c->fd, &rc, 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(c->fd);
	pid_t pid = c->pid;
	free(c);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || got < outsz + 1)
		return -1;
	return rc;
}

int ts_in_child_cancel(int (*fn)(void *arg, char *out, size_t outsz), void *arg, char *out,
                       size_t outsz, volatile sig_atomic_t *cancel)
{
	if (inline_calls)
		return fn(arg, out, outsz) & 0x7F;
	ts_child *c = ts_child_start(fn, arg, out, outsz);
	return c ? ts_child_join(c, out, cancel) : -1;
}
