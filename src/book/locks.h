/* locks.h - who builds what in an output folder: a lock per chapter
 * being built and one for the book files, in OUT/.tingshu/locks/. */
#ifndef TS_LOCKS_H
#define TS_LOCKS_H

#include "base/error.h"

/* Locks: outdir/.tingshu/locks/NAME.lock, made exclusively, holding the
 * pid and the machine of the build that holds it, so that one build at a
 * time writes a chapter (NAME: its audio file) or the book files ("book"),
 * also from several machines sharing the folder.  A lock whose build is
 * gone (same machine, no such process) is taken over.  Returns 0 when
 * taken, TS_EBUSY with err saying who holds it, or another code. */
int ts_lock_take(const char *outdir, const char *name, ts_error *err);

/* The same, waiting up to seconds for the holder to let go. */
int ts_lock_wait(const char *outdir, const char *name, double seconds, ts_error *err);

/* One book at a time in a folder: this build of the book whose identity
 * is id (hex digits: its title and inputs) says so in outdir, unless a
 * build of another book that is not gone already does (TS_EBUSY with err
 * saying who), checked and said under the "book" lock, which the
 * clean-up of a finished book also holds: a build never deletes the
 * chapters of another book being built.  Builds of the same book (its
 * parts, --shard) go on together.  Returns 0 or a code; let go with
 * ts_lock_build_release(). */
int ts_lock_build(const char *outdir, const char *id, ts_error *err);
void ts_lock_build_release(const char *outdir, const char *id);

/* Remove the locks of builds of this machine that are gone (kill -9). */
void ts_lock_sweep(const char *outdir);

/* Let go of a lock this process holds. */
void ts_lock_release(const char *outdir, const char *name);

#endif
