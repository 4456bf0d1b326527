/* child.h - a library call made in a child process, for the calls that
 * crash rather than fail when memory runs short: eSpeak NG reading its
 * list of voices uses a FILE it does not check, uchardet (C++) throws
 * std::bad_alloc through C, which aborts.  In a child, such a crash is the
 * child's, and an error here. */
#ifndef TS_CHILD_H
#define TS_CHILD_H

#include <signal.h>
#include <stddef.h>

/* Run fn(arg, out, outsz) in a child process, and copy the outsz bytes it
 * leaves in out back to out.  Returns what fn returned (0 to 127), or -1
 * when no child could be made or it did not finish (killed by a signal,
 * or stopped by a sanitizer). */
int ts_in_child(int (*fn)(void *arg, char *out, size_t outsz), void *arg, char *out, size_t outsz);

/* ts_in_child(), and when *cancel is set (a signal this process caught,
 * its child not: a kill names one process), SIGTERM to the child, whose
 * fn is to see the flag its copy of the handler sets and stop.  cancel
 * may be NULL. */
int ts_in_child_cancel(int (*fn)(void *arg, char *out, size_t outsz), void *arg, char *out,
                       size_t outsz, volatile sig_atomic_t *cancel);

/* ts_in_child_cancel() in two halves, so that this process does something
 * else meanwhile: fn started in a child process (out: where it writes,
 * in its copy of this process), or NULL when none could be made (or calls
 * are made here: see below; then call fn here); then waited for, out
 * filled, c freed, what ts_in_child_cancel() would return. */
typedef struct ts_child ts_child;
ts_child *ts_child_start(int (*fn)(void *arg, char *out, size_t outsz), void *arg, char *out,
                         size_t outsz);
int ts_child_join(ts_child *c, char *out, volatile sig_atomic_t *cancel);

/* From now on, make the calls of ts_in_child in this process.  For fuzz
 * targets: a fork per input would take most of their time (a sanitizer's
 * shadow memory makes it slow), and a crash in the library is then what
 * the fuzzer reports. */
void ts_in_child_inline(void);

#endif
