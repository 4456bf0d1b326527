/* test_lines.c - the data-file line reader: byte-order mark, CRLF,
 * comments, line numbers, the length limit, open errors, pipes and
 * devices; and the byte-order-mark helper.
 * Usage: test_lines SCRATCH_DIR */
#include "check.h"
#include "base/lines.h"
#include "base/util.h"

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

	/* A device that never ends a line fails at once, in bounded memory. */
	r = NULL;
	CHECK(read_all("/dev/zero", 4096, TS_LINES_SKIP_COMMENTS, &got, &r) == TS_ETOOLONG);
	if (r) {
		CHECK(strstr(ts_lines_errmsg(r), "/dev/zero:1: line too long") != NULL);
		ts_lines_close(r);
	}

	/* Open errors name the path and say why. */
	ts_error err = {0};
	snprintf(path, sizeof path, "%s/no-such-lines.txt", argv[1]);
	CHECK(ts_lines_open(&r, path, 64, 0, &err) == TS_ENOENT && r == NULL);
	CHECK(err.code == TS_ENOENT);
	CHECK(strstr(err.msg, path) && strstr(err.msg, "No such file"));
	CHECK(ts_lines_open(&r, path, 64, 0, NULL) == TS_ENOENT && r == NULL);
	CHECK(ts_lines_open(&r, argv[1], 0, 0, &err) == TS_EINVAL && err.code == TS_EINVAL);
	/* A directory opens but cannot be read: TS_EIO with the path. */
	int orc = ts_lines_open(&r, argv[1], 64, 0, &err);
	if (r) {
		char *line;
		CHECK(ts_lines_next(r, &line, NULL) == TS_EIO);
		CHECK(strstr(ts_lines_errmsg(r), argv[1]) != NULL);
		ts_lines_close(r);
	} else {
		CHECK(orc == TS_EIO && err.code == TS_EIO && strstr(err.msg, argv[1]));
	}
	ts_lines_close(NULL);

	/* A pipe: more lines than a pipe holds, written by another process. */
	snprintf(path, sizeof path, "%s/lines-fifo", argv[1]);
	unlink(path);
	CHECK(mkfifo(path, 0600) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		FILE *f = fopen(path, "w");
		if (!f)
			_exit(1);
		fputs("\xEF\xBB\xBF# numbers\r\n", f);
		for (int i = 1; i <= 100000; i++)
			fprintf(f, "%d\r\n", i);
		_exit(fclose(f) == 0 ? 0 : 1);
	}
	CHECK(pid > 0);
	if (pid > 0) {
		CHECK(ts_lines_open(&r, path, 16, TS_LINES_SKIP_COMMENTS, &err) == 0 && r);
		long count = 0, bad = 0;
		char *line;
		size_t n;
		int rc = 0;
		while (r && (rc = ts_lines_next(r, &line, &n)) == 1) {
			count++;
			if (atol(line) != count || ts_lines_lineno(r) != count + 1 ||
			    n != strlen(line))
				bad++;
		}
		CHECK(rc == 0 && count == 100000 && bad == 0);
		ts_lines_close(r);
		int status = 0;
		if (!r)
			kill(pid, SIGKILL);
		CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0);
	}
	unlink(path);

	ts_buf_free(&got);
	return check_done("test_lines");
}
