/* child.h - a library call made in a child process, for the calls that
 * crash rather than fail when memory runs short: eSpeak NG reading its
 * list of voices uses a FILE it does not check, uchardet (C++) throws
 * std::bad_alloc through C, which aborts.  In a child, such a crash is the
 * child's, and an error here. */
#ifndef TS_CHILD_H
#define TS_CHILD_H

#include <stddef.h>

/* Run fn(arg, out, outsz) in a child process, and copy the outsz bytes it
 * leaves in out back to out.  Returns what fn returned (0 to 127), or -1
 * when no child could be made or it did not finish (killed by a signal,
 * or stopped by a sanitizer). */
int ts_in_child(int (*fn)(void *arg, char *out, size_t outsz), void *arg, char *out, size_t outsz);

#endif
