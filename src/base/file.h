/* file.h - creating files safely in folders others may write to.
 *
 * Every file tingshu writes is first created under a temporary name and
 * renamed into place when complete.  Creating is exclusive and never
 * follows a symbolic link (O_CREAT|O_EXCL|O_NOFOLLOW): whatever is already
 * there under that name, a link planted by someone else included, makes
 * the creation fail instead of writing through it. */
#ifndef TS_FILE_H
#define TS_FILE_H

#include <stdio.h>

/* Create path for writing (and reading), mode 0666 less the umask.
 * Returns a file descriptor (close-on-exec), or -1 with errno (EEXIST
 * when anything is there). */
int ts_create_excl(const char *path);

/* The same as a stream, mode "wb" or "w+b"; NULL with errno. */
FILE *ts_fcreate_excl(const char *path, const char *mode);

#endif
