/* decode.c - a text input as UTF-8 on disk (see decode.h): the encoding
 * policy (ts_input_scan(), which reads a file as it is when it is UTF-8
 * and decodes it into a temporary copy with text/encoding.c when not),
 * and the temporary files of a book, named so that the next run can tell
 * and sweep those that a killed run left behind.
 *
 * Why the detection and conversion stay in text/encoding.c: they know
 * bytes and encodings only, no book, file or message; the policy - what
 * is tried in which order, what is said when it fails - is the input's,
 * and lives here. */
#include "input/decode.h"

#include "input/split.h"
#include "text/encoding.h"
#include "base/file.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ts_input_temp_code(int e)
{
	int rc = ts_errno_code(e);
	return rc == TS_EIO ? TS_ETEMP : rc;
}

/* ---- temporary files ---------------------------------------------- */

/* Temporary files are TMPDIR/tingshu-WHAT-PID@HOST-XXXXXX (WHAT is stdin,
 * utf8, epub or cover, PID the process that made it, HOST this machine as
 * ts_host_name() writes it).  The book removes its own when freed, and a
 * run stopped by a signal frees it; what a run that was killed (kill -9,
 * a crash) left is removed by the next run on this machine that adds an
 * input (ts_input_sweep()).  A file of a process that still runs, of another
 * user or of another machine sharing TMPDIR is left alone. */
static const char *temp_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	return tmp && *tmp ? tmp : "/tmp";
}

/* Is name a temporary file of a process of this machine that is gone? */
static int temp_left_over(const char *name, const char *host)
{
	static const char *const kinds[] = {"tingshu-stdin-", "tingshu-utf8-", "tingshu-epub-",
	                                    "tingshu-cover-"};
	const char *p = NULL;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && !p; i++)
		if (strncmp(name, kinds[i], strlen(kinds[i])) == 0)
			p = name + strlen(kinds[i]);
	if (!p || *p < '0' || *p > '9')
		return 0;
	char *end;
	errno = 0;
	long pid = strtol(p, &end, 10);
	size_t hl = strlen(host);
	/* "@HOST-" and the six characters mkstemp() chose */
	if (errno || *end != '@' || strlen(end + 1) != hl + 7 || strncmp(end + 1, host, hl) != 0 ||
	    end[1 + hl] != '-')
		return 0;
	return ts_process_gone(pid);
}

void ts_input_sweep(void)
{
	char host[64];
	ts_host_name(host);
	const char *dir = temp_dir();
	DIR *d = opendir(dir);
	if (!d)
		return;
	ts_buf p = {0};
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (!temp_left_over(e->d_name, host))
			continue;
		ts_buf_clear(&p);
		if (ts_buf_printf(&p, "%s/%s", dir, e->d_name) == 0 && lstat(p.data, &st) == 0 &&
		    S_ISREG(st.st_mode) && st.st_uid == getuid())
			unlink(p.data);
	}
	ts_buf_free(&p);
	closedir(d);
}

int ts_input_temp(ts_book *b, const char *what, const char *display, FILE **fp, const char **path)
{
	char host[64];
	ts_buf name = {0};
	ts_host_name(host);
	if (ts_buf_printf(&name, "%s/tingshu-%s-%ld@%s-XXXXXX", temp_dir(), what,
	                  (long)ts_book_owner(b), host))
		return TS_ENOMEM;
	int fd = mkstemp(name.data);
	if (fd < 0) {
		int e = errno;
		ts_book_diag(b, TS_ERROR, "%s: cannot make a temporary file %s: %s", display,
		             name.data, strerror(e));
		ts_buf_free(&name);
		return ts_input_temp_code(e);
	}
	*fp = fdopen(fd, "wb");
	if (!*fp || ts_book_keep_temp(b, name.data)) {
		if (*fp)
			fclose(*fp);
		else
			close(fd);
		unlink(name.data);
		ts_buf_free(&name);
		return TS_ENOMEM;
	}
	*path = name.data;
	return 0;
}

/* ---- the encoding policy ------------------------------------------ */

/* How the encoding of a file was decided, for messages. */
enum origin { BY_OPTION, BY_MARK, BY_GUESS };

static const char *const origin_advice[] = {
    [BY_OPTION] = "the file is not in the encoding given; give the right one with --encoding "
                  "NAME, or convert the file to UTF-8",
    [BY_MARK] = "its byte-order mark says so, but the text is not; give its encoding with "
                "--encoding NAME, or convert the file to UTF-8",
    [BY_GUESS] = "that is the encoding detected, which may be wrong; give the right one with "
                 "--encoding NAME, or convert the file to UTF-8",
};

/* Decode the file at path from enc, after its first skip bytes (a
 * byte-order mark), into a UTF-8 temporary file, and scan that. */
static int scan_decoded(ts_book *b, const char *path, const char *display, int mode_book,
                        const char *enc, long skip, enum origin origin)
{
	const char *tmp = NULL;
	FILE *out = NULL;
	ts_decode_fault fault;
	const char *label = ts_encoding_label(enc);
	int rc;
	FILE *in = ts_book_open_input(b, path, display, &rc);
	if (!in)
		return rc;
	if (fseek(in, skip, SEEK_SET) != 0) {
		ts_book_diag(b, TS_ERROR, "%s: cannot read: %s", display, strerror(errno));
		rc = TS_EIO;
		goto out;
	}
	if ((rc = ts_input_temp(b, "utf8", display, &out, &tmp)))
		goto out;
	rc = ts_encoding_decode_cancel(in, skip, enc, out, ts_book_cancel_flag(b), &fault);
	int e = errno;
	if (fclose(out) != 0 && rc == 0) {
		e = errno;
		rc = TS_EIO;
	}
	switch (rc) {
	case 0: break;
	case TS_EDECODE:
		if (fault.truncated) {
			ts_book_diag(
			    b, TS_ERROR,
			    "%s:%ld: the file ends inside a %s character (byte %ld): it was cut "
			    "short, or is not %s",
			    display, fault.line, label, fault.offset, label);
		} else {
			char bytes[32] = "";
			for (size_t i = 0; i < fault.nbytes && i < 2; i++)
				snprintf(bytes + strlen(bytes), sizeof bytes - strlen(bytes),
				         "%s0x%02X", i ? " " : "", fault.bytes[i]);
			ts_book_diag(b, TS_ERROR, "%s:%ld: invalid %s at byte %ld (%s): %s",
			             display, fault.line, label, fault.offset, bytes,
			             origin_advice[origin]);
		}
		break;
	case TS_EBINARY:
		ts_book_diag(b, TS_ERROR,
		             "%s:%ld: NUL character (read as %s): this is a binary file, not text",
		             display, fault.line, label);
		break;
	case TS_EINVAL:
		ts_book_diag(b, TS_ERROR, "%s: iconv cannot read the encoding %s", display, enc);
		break;
	case TS_EIO:
		ts_book_diag(b, TS_ERROR, "%s: cannot decode it into %s: %s", display, tmp,
		             strerror(e));
		rc = ts_input_temp_code(e);
		break;
	case TS_ECANCELED: ts_book_stopped(b, display); break;
	default: break;
	}
	if (rc) {
		ts_book_drop_temp(b);
		goto out;
	}
	rc = ts_split_file(b, tmp, display, mode_book, TS_SCAN_STRICT, NULL);
out:
	fclose(in);
	return rc;
}

/* The file is not UTF-8 (fault says where that showed): guess its
 * encoding from its first TS_INPUT_SAMPLE bytes, decode it and scan it. */
static int scan_guessed(ts_book *b, const char *path, const char *display, int mode_book,
                        const ts_utf8_fault *fault)
{
	ts_guess g;
	int rc;
	FILE *f = ts_book_open_input(b, path, display, &rc);
	if (!f)
		return rc;
	/* No more than the file holds (and a byte to see it end): a chapter
	 * of a few kilobytes does not map and unmap a quarter megabyte. */
	struct stat st;
	size_t cap = TS_INPUT_SAMPLE;
	if (fstat(fileno(f), &st) == 0 && st.st_size >= 0 && st.st_size < (off_t)cap)
		cap = (size_t)st.st_size + 1;
	char *sample = malloc(cap);
	if (!sample) {
		fclose(f);
		return TS_ENOMEM;
	}
	size_t n = fread(sample, 1, cap, f);
	int whole = n < cap || fgetc(f) == EOF;
	if (ferror(f)) {
		rc = TS_EIO;
		ts_book_diag(b, TS_ERROR, "%s: read error: %s", display, strerror(errno));
		fclose(f);
		goto out;
	}
	fclose(f);
	rc = ts_encoding_guess(sample, n, whole, &g);
	switch (rc) {
	case 0: rc = scan_decoded(b, path, display, mode_book, g.name, 0, BY_GUESS); break;
	case TS_EBINARY:
		if (g.nul >= 0) {
			long line = 1;
			for (long i = 0; i < g.nul; i++)
				line += sample[i] == '\n';
			ts_book_diag(
			    b, TS_ERROR,
			    "%s:%ld: NUL byte at byte %ld: this is a binary file, not text (if it "
			    "is "
			    "UTF-16 without a byte-order mark, give --encoding UTF-16LE or "
			    "UTF-16BE)",
			    display, line, g.nul);
		} else {
			ts_book_diag(
			    b, TS_ERROR,
			    "%s: binary file, not text: %zu control bytes in its first %zu, and "
			    "it is "
			    "not UTF-8, GB18030 or Big5",
			    display, g.controls, n);
		}
		break;
	case TS_EDECODE:
		ts_book_diag(
		    b, TS_ERROR,
		    "%s:%ld: invalid UTF-8 at byte %ld (0x%02X), and the file is not GB18030 or "
		    "Big5 "
		    "text either%s%s%s; give its encoding with --encoding NAME, or convert it to "
		    "UTF-8",
		    display, fault->line, fault->offset, fault->byte,
		    g.detector[0] ? " (uchardet guesses " : "", g.detector,
		    g.detector[0] ? ")" : "");
		break;
	default: break;
	}
out:
	free(sample);
	return rc;
}

/* Scan one file, first turning it into UTF-8 text if need be.  The
 * policy, in order:
 *  1. An encoding given with ts_book_set_encoding() (--encoding) is used:
 *     UTF-8 is scanned as it is, and an invalid byte is an error.
 *  2. A byte-order mark tells the encoding: UTF-8 is scanned as it is,
 *     UTF-16 and UTF-32 are decoded.
 *  3. The file is scanned as UTF-8.  When all of it is valid, that was
 *     all: the common case costs one pass and no copy.
 *  4. When it is not (an invalid byte or a NUL), that scan is undone and
 *     encoding.c guesses the encoding from the start of the file (GB18030
 *     or Big5, or binary); the file is decoded into a UTF-8 temporary
 *     file owned by the book, and that is scanned: the chapters' source
 *     is the temporary file, their display name the user's. */
int ts_input_scan(ts_book *b, const char *path, const char *display, int mode_book)
{
	const char *enc = ts_book_encoding(b);
	size_t mark = 0;
	if (!enc) {
		unsigned char head[4];
		int rc;
		FILE *f = ts_book_open_input(b, path, display, &rc);
		if (!f)
			return rc;
		mark = ts_encoding_bom(head, fread(head, 1, sizeof head, f), &enc);
		fclose(f);
	}
	if (enc && !ts_encoding_is_utf8(enc))
		return scan_decoded(b, path, display, mode_book, enc, (long)mark,
		                    ts_book_encoding(b) ? BY_OPTION : BY_MARK);
	ts_utf8_fault fault;
	int rc =
	    ts_split_file(b, path, display, mode_book, enc ? TS_SCAN_STRICT : TS_SCAN_TRY, &fault);
	if (rc != TS_NOT_UTF8)
		return rc;
	return scan_guessed(b, path, display, mode_book, &fault);
}
