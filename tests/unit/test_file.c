/* test_file.c - base/file: temporary names, their sweep, and putting a
 * chapter's files in place all or none (ts_commit_files), reading a
 * pipe whole (ts_read_full), folders made and probed (ts_make_dirs,
 * ts_dir_writable) and lock files (ts_lockfile_make, _gone). */
#include "check.h"
#include "base/file.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The text of dir/name ("" when there is none). */
static const char *get(const char *dir, const char *name)
{
	static char buf[64];
	char p[1200];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	buf[0] = '\0';
	FILE *f = fopen(p, "r");
	if (f) {
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		buf[n] = '\0';
		fclose(f);
	}
	return buf;
}

static int count_hidden(const char *dir)
{
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/* Files a and b there before, c new; each written at its temporary name. */
static void prepare(const char *dir, char *tmp[3], char *path[3], const char *gen)
{
	static const char *const names[3] = {"a", "b", "c"};
	char text[32];
	for (int i = 0; i < 3; i++) {
		char p[1200];
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		path[i] = strdup(p);
		tmp[i] = ts_temp_name(p, 777);
		CHECK(tmp[i] != NULL);
		snprintf(text, sizeof text, "%s %s", gen, names[i]);
		const char *slash = strrchr(tmp[i], '/');
		write_file_in(dir, slash + 1, text);
	}
}

static void release(char *tmp[3], char *path[3])
{
	for (int i = 0; i < 3; i++) {
		free(tmp[i]);
		free(path[i]);
	}
}

/* Does err say "PATH: cannot rename into place: " and errno e's words? */
static int names_failure(const ts_error *err, const char *path, int e)
{
	char want[1400];
	snprintf(want, sizeof want, "%s: cannot rename into place: %s", path, strerror(e));
	return strcmp(err->msg, want) == 0;
}

static void check_commit(const char *dir)
{
	char *tmp[3], *path[3];
	ts_error err = {0};
	char sub[1200];
	for (const char *n = "abc"; *n; n++) { /* a scratch folder of an earlier run */
		snprintf(sub, sizeof sub, "%s/%c", dir, *n);
		unlink(sub);
	}
	write_file_in(dir, "a", "old a");
	write_file_in(dir, "b", "old b");
	/* c cannot be replaced (a folder with a file in it): a and b stay as
	 * they were, c is not made, nothing temporary is left. */
	snprintf(sub, sizeof sub, "%s/c", dir);
	CHECK(mkdir(sub, 0777) == 0);
	write_file_in(sub, "x", "x");
	prepare(dir, tmp, path, "new");
	CHECK(count_hidden(dir) == 3);
	CHECK(ts_commit_files(dir, tmp, path, 3, 777, &err) == TS_EIO);
	CHECK(names_failure(&err, path[2], EISDIR));
	CHECK(strcmp(get(dir, "a"), "old a") == 0);
	CHECK(strcmp(get(dir, "b"), "old b") == 0);
	CHECK(count_hidden(dir) == 0);
	release(tmp, path);
	unlink(strcat(sub, "/x"));
	sub[strlen(sub) - 2] = '\0';
	CHECK(rmdir(sub) == 0);

	/* The last rename fails (its file is gone): the two done are undone. */
	prepare(dir, tmp, path, "new");
	unlink(tmp[2]);
	CHECK(ts_commit_files(dir, tmp, path, 3, 777, &err) == TS_EIO);
	CHECK(names_failure(&err, path[2], ENOENT));
	CHECK(strcmp(get(dir, "a"), "old a") == 0);
	CHECK(strcmp(get(dir, "b"), "old b") == 0);
	CHECK(access(path[2], F_OK) != 0);
	CHECK(count_hidden(dir) == 0);
	release(tmp, path);

	/* Now all three are put in place. */
	prepare(dir, tmp, path, "new");
	CHECK(ts_commit_files(dir, tmp, path, 3, 777, &err) == 0);
	CHECK(strcmp(get(dir, "a"), "new a") == 0);
	CHECK(strcmp(get(dir, "b"), "new b") == 0);
	CHECK(strcmp(get(dir, "c"), "new c") == 0);
	CHECK(count_hidden(dir) == 0);
	release(tmp, path);
	CHECK(ts_commit_files(NULL, NULL, NULL, 0, 777, &err) == 0);
}

static void check_names(const char *dir)
{
	char host[64], want[256];
	ts_host_name(host);
	char *t = ts_temp_name("out/001-x.wav", 42);
	snprintf(want, sizeof want, "out/.001-x.wav.part-42@%s", host);
	CHECK(t && strcmp(t, want) == 0);
	free(t);
	t = ts_temp_name("plain", 7);
	snprintf(want, sizeof want, ".plain.part-7@%s", host);
	CHECK(t && strcmp(t, want) == 0);
	free(t);
	/* The sweep: this owner's, and not another's still running (us). */
	char mine[128], other[128], p0[1200];
	snprintf(mine, sizeof mine, ".f.part-4242@%s", host);
	snprintf(other, sizeof other, ".g.part-%ld@%s", (long)getpid(), host);
	write_file_in(dir, mine, "1");
	write_file_in(dir, other, "2");
	write_file_in(dir, ".h.part-4242@elsewhere", "3");
	/* libzip's own temporary file beside one of ours: swept with it;
	 * another name after the host is not ours. */
	snprintf(mine, sizeof mine, ".f.part-4242@%s.aB3xY9", host);
	write_file_in(dir, mine, "4");
	snprintf(mine, sizeof mine, ".f.part-4242@%s.x", host);
	write_file_in(dir, mine, "5");
	snprintf(mine, sizeof mine, ".f.part-4242@%s", host);
	ts_temp_sweep(NULL, dir, 4242);
	CHECK(count_hidden(dir) == 3);
	snprintf(p0, sizeof p0, "%s/.f.part-4242@%s.x", dir, host);
	CHECK(unlink(p0) == 0);
	ts_temp_sweep(NULL, dir, -1); /* ours runs; the other host's is never ours */
	CHECK(count_hidden(dir) == 2);
	char p[1200];
	snprintf(p, sizeof p, "%s/%s", dir, other);
	unlink(p);
	snprintf(p, sizeof p, "%s/.h.part-4242@elsewhere", dir);
	unlink(p);
}

/* A link where a folder belongs is not followed: nothing outside root is
 * made or removed through it. */
static void check_links(const char *dir)
{
	char away[1100], lnk[1100], victim[1200], through[1200];
	const char *name;
	snprintf(away, sizeof away, "%s/away", dir);
	snprintf(lnk, sizeof lnk, "%s/state", dir);
	snprintf(victim, sizeof victim, "%s/victim", away);
	snprintf(through, sizeof through, "%s/victim", lnk);
	mkdir(away, 0777);
	unlink(lnk);
	CHECK(symlink(away, lnk) == 0);
	write_file_in(away, "victim", "theirs");
	CHECK(ts_unlink_in(dir, through) == -1 && (errno == ELOOP || errno == ENOTDIR));
	CHECK(access(victim, F_OK) == 0);
	CHECK(ts_create_excl_in(dir, lnk) == -1 && errno == EEXIST);
	CHECK(ts_dir_open(dir, "elsewhere/x", &name) == -1 && errno == EINVAL);
	snprintf(through, sizeof through, "%s/../x", dir);
	CHECK(ts_dir_open(dir, through, &name) == -1 && errno == EINVAL);
	int fd = ts_dir_open(NULL, victim, &name); /* no root: links are the caller's */
	CHECK(fd >= 0 && strcmp(name, "victim") == 0);
	if (fd >= 0)
		close(fd);
	unlink(victim);
	unlink(lnk);
	rmdir(away);
}

/* ts_read_full() reads across short reads, and tells a stream's end. */
static void check_read_full(void)
{
	int fd[2];
	char buf[16];
	CHECK(pipe(fd) == 0);
	CHECK(ts_write_full(fd[1], "abc", 3) == 0 && ts_write_full(fd[1], "defg", 4) == 0);
	CHECK(ts_read_full(fd[0], buf, 5) == 5 && memcmp(buf, "abcde", 5) == 0);
	close(fd[1]);
	CHECK(ts_read_full(fd[0], buf, 5) == 2 && memcmp(buf, "fg", 2) == 0);
	CHECK(ts_read_full(fd[0], buf, 5) == 0);
	close(fd[0]);
	CHECK(ts_read_full(-1, buf, 5) == -1 && errno == EBADF);
}

/* Folders made with their parents, and told writable by making a file
 * that is then gone. */
static void check_dirs(const char *dir)
{
	char deep[1100], file[1100], under[1200];
	snprintf(deep, sizeof deep, "%s/made/b/c", dir);
	CHECK(ts_make_dirs(deep) == 0 && ts_make_dirs(deep) == 0);
	struct stat st;
	CHECK(stat(deep, &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(ts_dir_writable(deep) == 0);
	DIR *d = opendir(deep);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.' || strncmp(e->d_name, ".tingshu-probe", 14) == 0;
	if (d)
		closedir(d);
	CHECK(n == 0); /* the probe's file is gone */
	snprintf(file, sizeof file, "%s/made", dir);
	snprintf(file, sizeof file, "%s", write_file_in(file, "plain", "x"));
	snprintf(under, sizeof under, "%s/below", file);
	CHECK(ts_make_dirs(file) == -1 && errno == ENOTDIR);
	CHECK(ts_make_dirs(under) == -1);
	snprintf(under, sizeof under, "%s/made/none", dir);
	CHECK(ts_dir_writable(under) == -1);
}

/* A lock file holds "PID HOST"; a second one at its name fails; its
 * holder is gone only when it is a process of this machine that is. */
static void check_lockfile(const char *dir)
{
	char path[1100], who[300], host[64], taken[1200] = "";
	snprintf(path, sizeof path, "%s/x.lock", dir);
	unlink(path);
	ts_host_name(host);
	CHECK(ts_lockfile_make(dir, path, host, taken, sizeof taken) == 0);
	CHECK(ts_lockfile_make(dir, path, host, taken, sizeof taken) == -1 && errno == EEXIST);
	char want[128];
	snprintf(want, sizeof want, "%ld %s\n", (long)getpid(), host);
	CHECK(strcmp(get(dir, "x.lock"), want) == 0);
	CHECK(ts_lockfile_gone(dir, path, who, sizeof who) == 0);
	snprintf(want, sizeof want, "pid %ld on %s", (long)getpid(), host);
	CHECK(strcmp(who, want) == 0);
	unlink(path);
	/* No such process here: gone; one of another machine: never known to be. */
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	snprintf(want, sizeof want, "%ld %s\n", (long)child, host);
	write_file_in(dir, "x.lock", want);
	CHECK(ts_lockfile_gone(dir, path, who, sizeof who) == 1);
	snprintf(want, sizeof want, "%ld elsewhere.example\n", (long)child);
	write_file_in(dir, "x.lock", want);
	CHECK(ts_lockfile_gone(dir, path, who, sizeof who) == 0);
	unlink(path);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_file SCRATCH_DIR\n");
		return 2;
	}
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/file_scratch", argv[1]);
	mkdir(dir, 0777);
	check_names(dir);
	check_commit(dir);
	check_links(dir);
	check_read_full();
	check_dirs(dir);
	check_lockfile(dir);
	return check_done("test_file");
}
