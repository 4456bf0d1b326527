/* locks.c - the locks of an output folder (see locks.h): a lock is a
 * file made exclusively, written whole under a temporary name and linked
 * to its name, holding "PID HOST" of the build that holds it. */
#include "book/locks.h"

#include "book/records.h"

#include "base/file.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The lock file of name into out; -1 when the path is too long.  On the
 * stack: letting go of a lock must not need memory that may be gone. */
static int lock_path(char out[PATH_MAX], const char *outdir, const char *name)
{
	int n = snprintf(out, PATH_MAX, "%s/" TS_STATE_DIR "/locks/%s.lock", outdir, name);
	return n > 0 && n < PATH_MAX ? 0 : -1;
}

int ts_lock_take(const char *outdir, const char *name, ts_error *err)
{
	char path[PATH_MAX], host[64], who[600] = "", taken[PATH_MAX + 80];
	int rc = 0, made;
	if (lock_path(path, outdir, name))
		return ts_error_set(err, TS_EINVAL, "%s: the output folder's path is too long",
		                    outdir);
	ts_host_name(host);
	for (int tries = 0; tries < 2; tries++) {
		if ((made = ts_lockfile_make(outdir, path, host, taken, sizeof taken)) == 0)
			goto out;
		if (made == -2) {
			rc = ts_error_set(
			    err, TS_EEXIST,
			    "%s; tingshu does not touch what it did not make: remove it", taken);
			goto out;
		}
		if (errno != EEXIST) {
			rc = ts_error_set(err, ts_errno_code(errno), "%s: cannot make it: %s", path,
			                  strerror(errno));
			goto out;
		}
		if (!ts_lockfile_gone(outdir, path, who, sizeof who))
			break;
		ts_unlink_in(outdir, path); /* its build is gone: taken over */
	}
	rc = ts_error_set(err, TS_EBUSY,
	                  "%s is being built by %s (%s); wait for that build, or remove the lock "
	                  "if it is no longer running",
	                  name, who, path);
out:
	return rc;
}

int ts_lock_wait(const char *outdir, const char *name, double seconds, ts_error *err)
{
	double t0 = ts_seconds();
	ts_error e = {0}; /* why a try failed: err only when the last one did */
	int rc;
	while ((rc = ts_lock_take(outdir, name, &e)) == TS_EBUSY && ts_seconds() - t0 < seconds)
		usleep(20000);
	if (rc && err)
		*err = e;
	return rc;
}

void ts_lock_release(const char *outdir, const char *name)
{
	char path[PATH_MAX];
	if (lock_path(path, outdir, name) == 0)
		ts_unlink_in(outdir, path);
}

/* Each lock of outdir: with id NULL, those of builds that are gone are
 * removed; else TS_EBUSY with err saying who when a build of a book other
 * than id holds one of build_lock_name(), or 0. */
static int scan_locks(const char *outdir, const char *id, ts_error *err)
{
	char dir[PATH_MAX], path[PATH_MAX], who[600];
	int rc = 0, n = id ? (int)strlen(id) : 0;
	snprintf(dir, sizeof dir, "%s/" TS_STATE_DIR "/locks", outdir);
	DIR *d = ts_opendir_in(outdir, dir);
	struct dirent *e;
	while (d && !rc && (e = readdir(d))) {
		const char *name = e->d_name;
		size_t l = strlen(name);
		if (name[0] == '.' || l <= 5 || strcmp(name + l - 5, ".lock") != 0 ||
		    (id && (strncmp(name, "build-", 6) != 0 ||
		            (strncmp(name + 6, id, (size_t)n) == 0 && name[6 + n] == '-'))) ||
		    snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
			continue;
		int gone = ts_lockfile_gone(outdir, path, who, sizeof who);
		if (!id && gone)
			unlinkat(dirfd(d), name, 0);
		else if (id && !gone)
			rc = ts_error_set(
			    err, TS_EBUSY,
			    "%s is being built by %s, a build of another book (%s); wait "
			    "for that build to end, or choose another folder with -o",
			    outdir, who, path);
	}
	if (d)
		closedir(d);
	return rc;
}

void ts_lock_sweep(const char *outdir)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/" TS_STATE_DIR "/locks", outdir);
	ts_temp_sweep(outdir, dir, -1); /* locks being made by builds now gone */
	scan_locks(outdir, NULL, NULL);
}

/* The lock that says this build of book id is at work. */
static void build_lock_name(char out[256], const char *id)
{
	char host[64];
	ts_host_name(host);
	snprintf(out, 256, "build-%.32s-%ld@%s", id, (long)getpid(), host);
}

int ts_lock_build(const char *outdir, const char *id, ts_error *err)
{
	char name[256];
	int rc = ts_lock_wait(outdir, "book", 60.0, err);
	if (rc)
		return rc;
	build_lock_name(name, id);
	if (!(rc = scan_locks(outdir, id, err)))
		rc = ts_lock_take(outdir, name, err);
	ts_lock_release(outdir, "book");
	return rc;
}

void ts_lock_build_release(const char *outdir, const char *id)
{
	char name[256];
	build_lock_name(name, id);
	ts_lock_release(outdir, name);
}
