/* file.c - exclusive creation of files (see file.h). */
#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int ts_create_excl(const char *path)
{
	return open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

FILE *ts_fcreate_excl(const char *path, const char *mode)
{
	int fd = ts_create_excl(path);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, mode);
	if (!f) {
		int e = errno;
		close(fd);
		unlink(path);
		errno = e;
	}
	return f;
}
