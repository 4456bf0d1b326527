/* records.c - the chapter records of an output folder and its state
 * folder (see records.h).
 *
 * A record is a small text file, one "name value" a line, numbers written
 * so that they read back exactly (%.17g), which keeps a manifest made from
 * records byte-identical to one made as the chapters are built.
 *
 * Bad-input policy: a record that cannot be read or parsed is reported as
 * damaged; the caller builds its chapter again, which replaces it. */
#include "book/records.h"

#include "audio/write.h"
#include "base/file.h"
#include "base/lines.h"
#include "base/util.h"

#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RECORD_MAGIC "tingshu-chapter 1"

/* outdir/.tingshu/chapters[/audio] into b. */
static int record_path(ts_buf *b, const char *outdir, const char *audio)
{
	ts_buf_clear(b);
	return ts_buf_printf(b, "%s/" TS_STATE_DIR "/chapters%s%s%s", outdir, audio ? "/" : "",
	                     audio ? audio : "", audio ? ".rec" : "");
}

int ts_record_write(const char *outdir, const char *audio, ts_record *r, long owner_pid,
                    ts_error *err)
{
	ts_buf path = {0}, text = {0};
	const ts_master_report *a = &r->audio;
	ts_buf_printf(
	    &text,
	    RECORD_MAGIC "\nkey %s\nsynth_rate %d\nwpm %d\nsamples %" PRIu64
	                 "\nsentences %zu\nchars %zu\nout_rate %d\nframes %" PRIu64
	                 "\ninput_lufs %.17g\ngain_db %.17g\noutput_lufs %.17g\ntrue_peak_db %.17g"
	                 "\nlimited_s %.17g\n",
	    r->key, r->synth_rate, r->wpm, r->samples, r->sentences, r->chars, a->out_rate,
	    a->frames, a->input_lufs, a->gain_db, a->output_lufs, a->true_peak_db, a->limited_s);
	if (r->empty)
		ts_buf_printf(&text, "empty 1\n");
	for (size_t i = 0; i < r->nfiles; i++)
		ts_buf_printf(&text, "file %lld %s\n", r->sizes[i], r->files[i]);
	int rc = ts_buf_error(&text) || record_path(&path, outdir, audio)
	             ? ts_error_set(err, TS_ENOMEM, NULL)
	             : ts_write_text_temp(outdir, path.data, text.data, text.len, owner_pid, err);
	ts_buf_free(&path);
	ts_buf_free(&text);
	return rc;
}

char *ts_record_aac_file(const char *outdir, const char *audio)
{
	ts_buf b = {0};
	if (ts_buf_printf(&b, "%s/" TS_STATE_DIR "/aac/%s.aac", outdir, audio)) {
		ts_buf_free(&b);
		return NULL;
	}
	return b.data;
}

char *ts_record_file(const char *outdir, const char *audio)
{
	ts_buf b = {0};
	if (record_path(&b, outdir, audio)) {
		ts_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* One "name value" line into r; 0, or -1 when it is not one of a record. */
static int parse_line(ts_record *r, const char *line)
{
	const char *sp = strchr(line, ' ');
	if (!sp)
		return -1;
	size_t n = (size_t)(sp - line);
	const char *v = sp + 1;
	char *end = NULL;
#define IS(name) (n == strlen(name) && memcmp(line, name, n) == 0)
	if (IS("key")) {
		if (strlen(v) != TS_HASH_HEX - 1)
			return -1;
		memcpy(r->key, v, TS_HASH_HEX);
		return 0;
	}
	if (IS("file")) {
		long long size = strtoll(v, &end, 10);
		if (end == v || *end != ' ' || r->nfiles == TS_RECORD_FILES ||
		    strlen(end + 1) >= TS_RECORD_NAME || !end[1] || strchr(end + 1, '/'))
			return -1;
		r->sizes[r->nfiles] = size;
		snprintf(r->files[r->nfiles++], TS_RECORD_NAME, "%s", end + 1);
		return 0;
	}
	double d = strtod(v, &end);
	if (end == v || *end)
		return -1;
	if (IS("synth_rate"))
		r->synth_rate = (int)d;
	else if (IS("wpm"))
		r->wpm = (int)d;
	else if (IS("samples"))
		r->samples = strtoull(v, NULL, 10);
	else if (IS("sentences"))
		r->sentences = (size_t)d;
	else if (IS("chars"))
		r->chars = (size_t)d;
	else if (IS("out_rate"))
		r->audio.out_rate = (int)d;
	else if (IS("frames"))
		r->audio.frames = strtoull(v, NULL, 10);
	else if (IS("input_lufs"))
		r->audio.input_lufs = d;
	else if (IS("gain_db"))
		r->audio.gain_db = d;
	else if (IS("output_lufs"))
		r->audio.output_lufs = d;
	else if (IS("true_peak_db"))
		r->audio.true_peak_db = d;
	else if (IS("limited_s"))
		r->audio.limited_s = d;
	else if (IS("empty"))
		r->empty = d != 0;
		/* Unknown names are for later versions: skipped. */
#undef IS
	return 0;
}

int ts_record_read(const char *outdir, const char *audio, ts_record *r, ts_error *err)
{
	ts_buf path = {0};
	int rc;
	memset(r, 0, sizeof *r);
	if (record_path(&path, outdir, audio))
		rc = ts_error_set(err, TS_ENOMEM, NULL);
	else
		rc = ts_record_read_at(path.data, r, err);
	ts_buf_free(&path);
	return rc;
}

int ts_record_read_at(const char *path, ts_record *r, ts_error *err)
{
	ts_lines *in = NULL;
	char *line;
	size_t len;
	int rc = 0, got, first = 1;
	memset(r, 0, sizeof *r);
	ts_error e = {0};
	if ((rc = ts_lines_open(&in, path, 4096, 0, &e))) {
		rc = rc == TS_ENOENT ? 0 : ts_error_set(err, rc, "%s", ts_error_msg(&e));
		goto out;
	}
	while ((got = ts_lines_next(in, &line, &len)) > 0) {
		if (first ? strcmp(line, RECORD_MAGIC) != 0 : parse_line(r, line) != 0) {
			rc = ts_error_set(err, TS_EINVAL, "%s:%ld: not a chapter record", path,
			                  ts_lines_lineno(in));
			goto out;
		}
		first = 0;
	}
	if (got < 0)
		rc = ts_error_set(err, got, "%s", ts_lines_errmsg(in));
	else if (!r->key[0] || (r->nfiles == 0) != r->empty)
		rc = ts_error_set(err, TS_EINVAL, "%s: not a chapter record", path);
	else
		rc = 1;
out:
	ts_lines_close(in);
	return rc;
}

int ts_record_files_ok(const char *outdir, const ts_record *r)
{
	for (size_t i = 0; i < r->nfiles; i++)
		if (ts_file_size_in(outdir, r->files[i]) != r->sizes[i])
			return 0;
	return r->nfiles > 0;
}

ts_due ts_record_due(const char *outdir, const ts_record *r, const char *key, int force)
{
	if (!r || force || strcmp(r->key, key) != 0)
		return TS_DUE_BUILD;
	if (r->empty)
		return TS_DUE_EMPTY;
	return ts_record_files_ok(outdir, r) ? TS_DUE_KEPT : TS_DUE_BUILD;
}

void ts_record_remove(const char *outdir, const char *audio)
{
	ts_buf path = {0};
	char *aac = ts_record_aac_file(outdir, audio);
	if (record_path(&path, outdir, audio) == 0)
		ts_unlink_in(outdir, path.data);
	if (aac)
		ts_unlink_in(outdir, aac);
	ts_buf_free(&path);
	free(aac);
}

int ts_record_each(const char *outdir, void (*fn)(void *ud, const char *audio), void *ud)
{
	ts_buf path = {0};
	if (record_path(&path, outdir, NULL))
		return TS_ENOMEM;
	DIR *d = ts_opendir_in(outdir, path.data);
	ts_buf_free(&path);
	if (!d)
		return errno == ENOENT ? 0 : TS_EIO;
	struct dirent *e;
	ts_buf name = {0};
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || l <= 4 || strcmp(e->d_name + l - 4, ".rec") != 0)
			continue;
		ts_buf_clear(&name);
		if (ts_buf_append(&name, e->d_name, l - 4) == 0)
			fn(ud, name.data);
	}
	ts_buf_free(&name);
	closedir(d);
	return 0;
}

int ts_state_init(const char *outdir, ts_error *err)
{
	static const char *const dirs[4] = {"", "/chapters", "/locks", "/aac"};
	char p[PATH_MAX];
	struct stat st;
	/* Each folder made and opened where it is, never through a link, so
	 * that no record or lock is written or removed outside outdir. */
	for (int i = 0; i < 4; i++) {
		int n = snprintf(p, sizeof p, "%s/" TS_STATE_DIR "%s", outdir, dirs[i]), e;
		if (n < 0 || (size_t)n >= sizeof p)
			return ts_error_set(err, TS_EINVAL,
			                    "%s: the output folder's path is too long", outdir);
		if (ts_mkdir_in(outdir, p) == 0)
			continue;
		e = errno;
		if (e != ENOTDIR && e != ELOOP)
			return ts_error_set(err, ts_errno_code(e), "%s: cannot make it: %s", p,
			                    strerror(e));
		int link = lstat(p, &st) == 0 && S_ISLNK(st.st_mode);
		return ts_error_set(
		    err, TS_EIO,
		    "%s is %s where tingshu keeps its state, in a folder of its own: "
		    "tingshu does not follow or replace it; remove %s and build "
		    "again, or choose another folder with -o",
		    p, link ? "a symbolic link" : "not a folder", link ? "the link" : "it");
	}
	return 0;
}

int ts_state_exists(const char *outdir)
{
	ts_buf p = {0};
	struct stat st;
	int ok = ts_buf_printf(&p, "%s/" TS_STATE_DIR "/chapters", outdir) == 0 &&
	         lstat(p.data, &st) == 0 && S_ISDIR(st.st_mode);
	ts_buf_free(&p);
	return ok;
}
