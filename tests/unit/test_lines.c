/* test_lines.c - the data-file line reader: byte-order mark, CRLF,
 * comments, line numbers, the length limit, open errors, the size limit,
 * and pipes, devices and folders refused; and the byte-order-mark helper.
 * Usage: test_lines SCRATCH_DIR */
#include "check.h"
#include "base/file.h"
#include "base/lines.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void write_bytes(const char *path, const char *s, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(s, 1, n, f) != n) {
		fprintf(stderr, "%s: cannot write\n", path);
		check_failures++;
	}
	if (f)
		fclose(f);
}

/* Read path with max and flags; each line as "LINENO:TEXT|" into out.
 * Returns the last code of ts_lines_next() (0 at the end). */
static int read_all(const char *path, size_t max, unsigned flags, ts_buf *out, ts_lines **keep)
{
	ts_error err = {0};
	ts_lines *r;
	int orc = ts_lines_open(&r, path, max, flags, &err);
	ts_buf_clear(out);
	if (orc != 0 || !r) {
		fprintf(stderr, "%s: %s\n", path, ts_error_msg(&err));
		check_failures++;
		return orc;
	}
	char *line;
	size_t n;
	int rc;
	while ((rc = ts_lines_next(r, &line, &n)) == 1) {
		CHECK(line[n] == '\0');
		ts_buf_printf(out, "%ld:", ts_lines_lineno(r));
		ts_buf_append(out, line, n);
		ts_buf_putc(out, '|');
	}
	if (keep)
		*keep = r;
	else
		ts_lines_close(r);
	return rc;
}

static void lines_are(const char *path, unsigned flags, const char *want)
{
	ts_buf got = {0};
	int rc = read_all(path, 64, flags, &got, NULL);
	const char *g = got.data ? got.data : "";
	if (rc != 0 || strcmp(g, want) != 0) {
		fprintf(stderr, "%s (flags %u): rc %d, got \"%s\", want \"%s\"\n", path, flags, rc,
		        g, want);
		check_failures++;
	}
	ts_buf_free(&got);
}

/* path is refused at once, with "PATH: not a regular file (it is KIND)". */
static void refused(const char *path, const char *kind)
{
	ts_error err = {0};
	ts_lines *r = NULL;
	char want[1200];
	snprintf(want, sizeof want, "%s: not a regular file (it is %s)", path, kind);
	CHECK(ts_lines_open(&r, path, 4096, TS_LINES_SKIP_COMMENTS, &err) == TS_EINVAL && !r);
	if (!strstr(err.msg, want)) {
		fprintf(stderr, "%s: \"%s\", want \"%s\"\n", path, err.msg, want);
		check_failures++;
	}
	ts_lines_close(r);
}

/* A device, a folder and a pipe are refused when opened: nothing of them
 * is read (a device may never end, a pipe may never be written), and
 * opening a pipe does not wait for a writer.  An alarm makes a wait a
 * failure. */
static void check_not_regular(const char *dir)
{
	char path[1024];
	alarm(20);
	refused("/dev/zero", "a device");
	refused("/dev/null", "a device");
	refused(dir, "a folder");
	snprintf(path, sizeof path, "%s/lines-fifo", dir);
	unlink(path);
	CHECK(mkfifo(path, 0600) == 0);
	refused(path, "a named pipe"); /* no writer: an open without O_NONBLOCK waits */
	/* A writer waiting for a reader: refused all the same, unread. */
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		FILE *f = fopen(path, "w");
		if (!f)
			_exit(1);
		for (int i = 1; i <= 100000; i++)
			fprintf(f, "%d\n", i);
		_exit(fclose(f) == 0 ? 0 : 1);
	}
	CHECK(pid > 0);
	if (pid > 0) {
		usleep(50000);
		refused(path, "a named pipe");
		/* Let the writer through if it still waits, until it dies of
		 * SIGPIPE. */
		int status = 0;
		pid_t w = 0;
		for (int i = 0; i < 1000 && w == 0; i++) {
			int fd = open(path, O_RDONLY | O_NONBLOCK);
			if (fd >= 0)
				close(fd);
			if ((w = waitpid(pid, &status, WNOHANG)) == 0)
				usleep(10000);
		}
		CHECK(w == pid);
		if (w == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
		CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0)); /* nothing read it all */
	}
	unlink(path);
	/* The file checks on their own. */
	struct stat st;
	CHECK(ts_open_regular("/dev/zero", &st) == TS_NOT_REGULAR && S_ISCHR(st.st_mode));
	CHECK(ts_open_regular(dir, NULL) == TS_NOT_REGULAR);
	snprintf(path, sizeof path, "%s/no-such-file", dir);
	CHECK(ts_open_regular(path, NULL) == -1 && errno == ENOENT);
	CHECK(strcmp(ts_file_kind(S_IFDIR), "a folder") == 0);
	CHECK(strcmp(ts_file_kind(S_IFREG), "a regular file") == 0);
	alarm(0);
}

/* A data file has at most TS_LINES_SIZE_MAX bytes: one more is refused
 * when opened (a sparse file: no disk used), and a file that grows past
 * it while read stops there. */
static void check_size_limit(const char *dir)
{
	char path[1024];
	ts_error err = {0};
	ts_lines *r = NULL;
	char *line;
	snprintf(path, sizeof path, "%s/lines-big.txt", dir);
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && ftruncate(fd, TS_LINES_SIZE_MAX + 1) == 0);
	CHECK(ts_lines_open(&r, path, 4096, 0, &err) == TS_ETOOLONG && !r);
	char want[1200];
	snprintf(want, sizeof want, "%s: too big for a data file (%ld bytes; the limit is 64 MB)",
	         path, TS_LINES_SIZE_MAX + 1);
	if (!strstr(err.msg, want)) {
		fprintf(stderr, "too big: \"%s\", want \"%s\"\n", err.msg, want);
		check_failures++;
	}
	/* Exactly the limit opens (its first line is too long: zeros). */
	CHECK(fd >= 0 && ftruncate(fd, TS_LINES_SIZE_MAX) == 0);
	CHECK(ts_lines_open(&r, path, 4096, 0, &err) == 0 && r);
	if (r) {
		CHECK(ts_lines_next(r, &line, NULL) == TS_ETOOLONG);
		CHECK(strstr(ts_lines_errmsg(r), ":1: line too long") != NULL);
		ts_lines_close(r);
		r = NULL;
	}
	/* Opened small, then grown to more than the limit of short lines. */
	CHECK(fd >= 0 && ftruncate(fd, 0) == 0 && write(fd, "a\n", 2) == 2);
	CHECK(ts_lines_open(&r, path, 4096, TS_LINES_SKIP_COMMENTS, &err) == 0 && r);
	char *block = malloc(1 << 20);
	CHECK(block != NULL);
	if (block) {
		memset(block, '\n', 1 << 20);
		for (long done = 0; fd >= 0 && done <= TS_LINES_SIZE_MAX; done += 1 << 20)
			if (write(fd, block, 1 << 20) != 1 << 20) {
				CHECK(!"cannot write the big file");
				break;
			}
	}
	free(block);
	if (r) {
		size_t n = 0;
		CHECK(ts_lines_next(r, &line, &n) == 1 && n == 1 && line[0] == 'a');
		CHECK(ts_lines_next(r, &line, &n) == TS_ETOOLONG);
		CHECK(strstr(ts_lines_errmsg(r), "too big for a data file (more than 64 MB") !=
		      NULL);
		CHECK(ts_lines_next(r, &line, &n) == TS_ETOOLONG);
		ts_lines_close(r);
	}
	if (fd >= 0)
		close(fd);
	unlink(path);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_lines SCRATCH_DIR\n");
		return 2;
	}
	char path[1024];
	ts_buf got = {0};

	/* The byte-order-mark helper. */
	CHECK(ts_utf8_bom("\xEF\xBB\xBFx", 4) == 3);
	CHECK(ts_utf8_bom("\xEF\xBB\xBF", 3) == 3);
	CHECK(ts_utf8_bom("\xEF\xBB", 2) == 0);
	CHECK(ts_utf8_bom("\xEF\xBB\xBE", 3) == 0);
	CHECK(ts_utf8_bom("abc", 3) == 0);
	CHECK(ts_utf8_bom("", 0) == 0);

	/* A byte-order mark on line 1 only; CRLF and LF; a last line with no
	 * newline; blank and comment lines kept or skipped. */
	snprintf(path, sizeof path, "%s/lines-mixed.txt", argv[1]);
	const char mixed[] = "\xEF\xBB\xBF"
	                     "a b\r\n# c\n\n \t\r\nd\te\n   # x\n\xEF\xBB\xBF"
	                     "f\r\r\n \r\r\nlast";
	write_bytes(path, mixed, sizeof mixed - 1);
	lines_are(path, 0,
	          "1:a b|2:# c|3:|4: \t|5:d\te|6:   # x|7:\xEF\xBB\xBF"
	          "f\r|8: \r|9:last|");
	lines_are(path, TS_LINES_SKIP_COMMENTS,
	          "1:a b|5:d\te|7:\xEF\xBB\xBF"
	          "f\r|9:last|");

	/* Empty files, a mark alone, a NUL byte inside a line. */
	snprintf(path, sizeof path, "%s/lines-empty.txt", argv[1]);
	write_bytes(path, "", 0);
	lines_are(path, 0, "");
	write_bytes(path, "\xEF\xBB\xBF", 3);
	lines_are(path, 0, "");
	write_bytes(path, "\xEF\xBB\xBF\n\n", 5);
	lines_are(path, 0, "1:|2:|");
	lines_are(path, TS_LINES_SKIP_COMMENTS, "");
	write_bytes(path, "a\0b\nc\n", 6);
	CHECK(read_all(path, 8, 0, &got, NULL) == 0 && got.len == 10 &&
	      memcmp(got.data, "1:a\0b|2:c|", 10) == 0);

	/* The limit: exactly max bytes pass (with or without CR, and with a
	 * mark before them); one more is TS_ETOOLONG naming file, line and
	 * limit, and stays the answer. */
	snprintf(path, sizeof path, "%s/lines-long.txt", argv[1]);
	const char longer[] = "\xEF\xBB\xBF"
	                      "12345678\n12345678\r\n# c\n123456789\nnext\n";
	write_bytes(path, longer, sizeof longer - 1);
	ts_lines *r = NULL;
	CHECK(read_all(path, 8, TS_LINES_SKIP_COMMENTS, &got, &r) == TS_ETOOLONG);
	CHECK(got.data && strcmp(got.data, "1:12345678|2:12345678|") == 0);
	if (r) {
		char want[1100];
		snprintf(want, sizeof want, "%s:4: line too long (the limit is 8 bytes)", path);
		if (!strstr(ts_lines_errmsg(r), want)) {
			fprintf(stderr, "too long: \"%s\", want \"%s\"\n", ts_lines_errmsg(r),
			        want);
			check_failures++;
		}
		CHECK(ts_lines_lineno(r) == 4);
		char *line;
		CHECK(ts_lines_next(r, &line, NULL) == TS_ETOOLONG);
		ts_lines_close(r);
	}
	/* A line far longer than the limit, without a newline. */
	char big[10000];
	memset(big, 'x', sizeof big);
	write_bytes(path, big, sizeof big);
	CHECK(read_all(path, 4096, 0, &got, NULL) == TS_ETOOLONG);

	/* Open errors name the path and say why. */
	ts_error err = {0};
	snprintf(path, sizeof path, "%s/no-such-lines.txt", argv[1]);
	CHECK(ts_lines_open(&r, path, 64, 0, &err) == TS_ENOENT && r == NULL);
	CHECK(err.code == TS_ENOENT);
	CHECK(strstr(err.msg, path) && strstr(err.msg, "No such file"));
	CHECK(ts_lines_open(&r, path, 64, 0, NULL) == TS_ENOENT && r == NULL);
	CHECK(ts_lines_open(&r, argv[1], 0, 0, &err) == TS_EINVAL && err.code == TS_EINVAL);
	ts_lines_close(NULL);

	check_not_regular(argv[1]);
	check_size_limit(argv[1]);

	/* A symbolic link to a regular file is read as the file. */
	snprintf(path, sizeof path, "%s/lines-link", argv[1]);
	unlink(path);
	char target[1100];
	snprintf(target, sizeof target, "%s/lines-empty.txt", argv[1]);
	write_bytes(target, "x\n", 2);
	CHECK(symlink(target, path) == 0);
	lines_are(path, 0, "1:x|");
	unlink(path);

	ts_buf_free(&got);
	return check_done("test_lines");
}
