/* file.h - creating files safely in folders others may write to, opening
 * files to read that cannot make a read wait or go on without end, and
 * telling the temporary files of a process of this machine that is gone.
 *
 * Every file tingshu writes is first created under a temporary name and
 * renamed into place when complete.  Creating is exclusive and never
 * follows a symbolic link (O_CREAT|O_EXCL|O_NOFOLLOW): whatever is already
 * there under that name, a link planted by someone else included, makes
 * the creation fail instead of writing through it.
 *
 * Every file tingshu reads by name (inputs, data files) is a regular file:
 * a FIFO would make opening or reading wait for a writer that may never
 * come, a device such as /dev/zero never ends, a folder cannot be read. */
#ifndef TS_FILE_H
#define TS_FILE_H

#include "base/error.h"
#include "base/hash.h"

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Create path for writing (and reading), mode 0666 less the umask.
 * Returns a file descriptor (close-on-exec), or -1 with errno (EEXIST
 * when anything is there). */
int ts_create_excl(const char *path);

/* The same as a stream, mode "wb" or "w+b"; NULL with errno. */
FILE *ts_fcreate_excl(const char *path, const char *mode);

/* ts_open_regular()'s answer for a file that is not a regular file. */
#define TS_NOT_REGULAR (-2)

/* Open path for reading if it is a regular file.  Anything else is
 * refused without being read: a FIFO is opened without waiting for a
 * writer (O_NONBLOCK) and then refused, and a file swapped for another
 * between the check and the opening is checked again on the descriptor.
 * Returns a file descriptor (close-on-exec, blocking reads) with the
 * file's status in *st (st may be NULL); -1 with errno when it cannot be
 * opened; or TS_NOT_REGULAR with *st saying what it is (see
 * ts_file_kind()). */
int ts_open_regular(const char *path, struct stat *st);

/* The bytes of the regular file at path into h: 0, or TS_EINVAL (it
 * cannot be opened, or is not a regular file) or TS_EIO with err
 * "PATH: cannot read it: why". */
int ts_hash_file(ts_hash *h, const char *path, ts_error *err);

/* The same as a stream for mode ("r", "rb"): NULL with
 * *rc -1 and errno, or TS_NOT_REGULAR; st as for ts_open_regular(). */
FILE *ts_fopen_regular(const char *path, const char *mode, struct stat *st, int *rc);

/* Map the regular file path read-only, if it holds min to max bytes (a
 * data file of ours, `what` naming it in the message otherwise).  Returns
 * the mapping with its length in *size, or NULL with err set: TS_ENOENT,
 * TS_EIO (cannot be read, not a regular file) or TS_EINVAL (its size).
 * Release with ts_unmap_file(). */
const void *ts_map_file(const char *path, const char *what, size_t min, size_t max, size_t *size,
                        ts_error *err);
void ts_unmap_file(const void *map, size_t size);

/* The size of the regular file dir/name (not a link), or -1.  The path is
 * on the stack: short of memory, a file there is not taken for one gone. */
long long ts_file_size_in(const char *dir, const char *name);

/* Is the file at path (not a link) a regular file of exactly the len
 * bytes at data?  0 when it cannot be read. */
int ts_file_holds(const char *path, const void *data, size_t len);

/* Write all of p[0..n) to fd, going on after interruptions.  Returns 0,
 * or -1 with errno set (ENOSPC when the file takes no more). */
int ts_write_full(int fd, const void *p, size_t n);

/* Read n bytes of fd into p, going on after interruptions and short
 * reads (a pipe's): returns n, a shorter count when the stream ends
 * first (0: it had ended), or -1 with errno set. */
ssize_t ts_read_full(int fd, void *p, size_t n);

/* pread / pwrite of exactly n bytes at off.  ts_pread_full returns n, a
 * shorter count at the end of the file, or -1 with errno set;
 * ts_pwrite_full 0, or -1 with errno set. */
ssize_t ts_pread_full(int fd, void *buf, size_t n, off_t off);
int ts_pwrite_full(int fd, const void *buf, size_t n, off_t off);

/* What a file of type mode (st_mode) is, for messages: "a folder", "a
 * named pipe", "a device", "a socket", "a regular file".  Static
 * storage. */
const char *ts_file_kind(unsigned mode);

/* This machine's name as it goes into file names: letters, digits, '.',
 * '-' and '_' only ("host" when it has none), at most 63 bytes. */
void ts_host_name(char out[64]);

/* 1 when no process pid runs on this machine (so that the temporary
 * files named after it are left over), else 0; a process of another user
 * counts as running. */
int ts_process_gone(long pid);

/* The temporary name of path while it is written: ".NAME.part-PID@HOST"
 * in its folder, where PID is the build's parent process and HOST this
 * machine, so that an interrupted build can remove what it left, and a
 * later one what a build killed on this machine left (ts_temp_sweep); a
 * build on another machine sharing the folder is never taken for a dead
 * one.  NULL when out of memory; the caller frees it. */
char *ts_temp_name(const char *path, long owner_pid);

/* Remove the temporary files left in dir (a folder in root, or root
 * itself; root may be NULL: see ts_dir_open()) by owner pid on this
 * machine, or with pid -1 by any process of this machine that is gone. */
void ts_temp_sweep(const char *root, const char *dir, long pid);

/* Folders inside a folder tingshu owns (ROOT/.tingshu/chapters and the
 * like) are opened without following a link: a link planted where a
 * folder belongs would make tingshu write or delete files outside ROOT.
 * ROOT itself, the output folder the user names, may be a link.
 *
 * ts_dir_open() opens the folder that holds path, a path that lies in
 * root ("ROOT/A/B/NAME"): root as named, then A and B each without
 * following a link (O_DIRECTORY|O_NOFOLLOW).  *name points at NAME in
 * path ("" when path ends in '/': the folder itself).  With root NULL,
 * path's folder is opened as named.  Returns a directory descriptor
 * (close-on-exec), or -1 with errno: ENOTDIR (or ELOOP) when A or B is a
 * link or not a folder, EINVAL when path does not lie in root. */
int ts_dir_open(const char *root, const char *path, const char **name);

/* The operations of file.h on path, a path in root, through
 * ts_dir_open(): they neither follow a link where a folder belongs nor
 * reach outside root.  ts_create_excl_in() as ts_create_excl(); the
 * others return 0, or -1 with errno. */
int ts_create_excl_in(const char *root, const char *path);
int ts_unlink_in(const char *root, const char *path);
/* Make the folder path (when missing) and check that it is one: -1 with
 * ENOTDIR or ELOOP when it is a link or not a folder. */
int ts_mkdir_in(const char *root, const char *path);

/* Make dir and its parents; 0 or -1 with errno (ENOTDIR: one is not a
 * folder). */
int ts_make_dirs(const char *dir);
/* Can files be made in dir?  Told by making one (.tingshu-probe-PID):
 * access() is wrong for root and for read-only mounts.  0 or -1. */
int ts_dir_writable(const char *dir);

/* Lock files: a file at path in outdir (ts_dir_open()) that holds
 * "PID HOST" of the process that holds it.  ts_lockfile_make() writes it
 * under a temporary name and links it to path, which fails when the lock
 * exists, so that a lock is never seen half-written: 0, -1 with errno;
 * -2 when something is already at the temporary name (it is this
 * process's own: none other made it), said in taken.
 * ts_lockfile_gone(): is the process that holds the lock at path gone
 * (only one of this machine can be known to be)?  who gets "pid N on
 * HOST". */
int ts_lockfile_make(const char *outdir, const char *path, const char *host, char *taken,
                     size_t takensz);
int ts_lockfile_gone(const char *outdir, const char *path, char *who, size_t whosz);
/* Link path to the new name to in the same folder. */
int ts_link_in(const char *root, const char *path, const char *to);
/* path opened to read (a link at path itself is not followed either):
 * NULL with errno.  The caller fcloses it. */
FILE *ts_fopen_in(const char *root, const char *path);
/* The folder dir (in root, or root itself) opened to list: NULL with
 * errno.  The caller closedirs it; entries are removed with
 * unlinkat(dirfd()). */
DIR *ts_opendir_in(const char *root, const char *dir);

/* Put n finished files, each at its temporary name tmp[i], at path[i]:
 * all of them or none.  The files they replace are kept under temporary
 * names (hard links, ts_temp_name() of "NAME.old") until every new one is
 * in place; should a rename fail, those already done are undone (where
 * the file system has no hard links, by removing the new file).  The
 * temporary files are gone either way.  Each path lies in root (see
 * ts_dir_open(); NULL: anywhere), its temporary name in the same folder.
 * Returns 0, or a code with the message in *err ("PATH: cannot rename
 * into place: REASON"; err may be NULL). */
int ts_commit_files(const char *root, char *const *tmp, char *const *path, size_t n, long owner_pid,
                    ts_error *err);

#endif
