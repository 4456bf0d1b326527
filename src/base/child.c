/* child.c - a library call made in a child process (see child.h). */
#include "base/child.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int ts_in_child(int (*fn)(void *arg, char *out, size_t outsz), void *arg, char *out, size_t outsz)
{
	int fd[2];
	if (pipe(fd) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		/* What the library says as it dies ("terminate called ...")
		 * is not for the user: the caller says what failed. */
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (null >= 0)
			dup2(null, 2);
		close(fd[0]);
		int rc = fn(arg, out, outsz);
		size_t done = 0;
		while (done < outsz) {
			ssize_t k = write(fd[1], out + done, outsz - done);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				_exit(255);
			done += (size_t)k;
		}
		_exit(rc & 0xFF);
	}
	close(fd[1]);
	size_t got = 0;
	while (pid > 0 && got < outsz) {
		ssize_t k = read(fd[0], out + got, outsz - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd[0]);
	int st = 0;
	if (pid < 0)
		return -1;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(st) || got < outsz || WEXITSTATUS(st) == 255)
		return -1;
	return WEXITSTATUS(st);
}
