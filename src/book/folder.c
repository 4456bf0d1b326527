/* folder.c - the output folder of a book (see plan.h): its checks, the
 * manifest, playlist and read-along page made from the chapter records,
 * and the removal of files a build no longer makes: only files a record
 * names, so that nothing tingshu did not make is ever deleted. */
#include "publish/manifest.h"
#include "publish/playlist.h"
#include "book/locks.h"
#include "book/plan.h"
#include "publish/readalong.h"

#include "base/file.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ts_plan_path(const ts_plan *p, const char *name, char *out)
{
	snprintf(out, PATH_MAX, "%s/%s", p->o.outdir, name);
}

/* Make dir and its parents; 0 or -1 with errno. */
static int make_dirs(const char *dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s", dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(p, 0777) != 0 && errno != EEXIST)
		return -1;
	struct stat st;
	if (stat(p, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* Can we create files in dir?  Checked by doing it: access() is wrong
 * for root and for read-only mounts. */
static int probe_writable(const char *dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/.tingshu-probe-%ld", dir, (long)getpid());
	int fd = ts_create_excl(p);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(p);
	return 0;
}

/* Was the manifest (or page) at path written by tingshu?  Its first lines
 * say. */
static int by_tingshu(const char *path, const char *mark)
{
	char head[512] = "";
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t n = fread(head, 1, sizeof head - 1, f);
	fclose(f);
	head[n] = '\0';
	return strstr(head, mark) != NULL;
}

/* Does the folder hold another book than p's (see
 * ts_manifest_other_book())?  TS_EEXIST with err saying which. */
static int another_book(const ts_plan *p, const char *manifest, ts_error *err)
{
	const char **src = calloc(p->n ? 2 * p->n : 1, sizeof *src);
	size_t n = 0;
	ts_buf what = {0};
	for (size_t i = 0; src && i < p->n; i++) {
		if (ts_plan_input_starts(p, i))
			src[n++] = ts_book_chapter(p->book, i)->display;
		src[n++] = p->names[i];
	}
	int rc = src ? ts_manifest_other_book(manifest, ts_book_title(p->book), src, n, &what)
	             : TS_ENOMEM;
	if (rc < 0)
		rc = ts_error_set(err, rc, NULL);
	else if (rc == 1)
		rc = ts_error_set(err, TS_EEXIST,
		                  "%s holds another book, %s: tingshu will not replace it without "
		                  "--force; build with --force to replace it, or choose another "
		                  "folder with -o",
		                  p->o.outdir, what.data);
	free(src);
	ts_buf_free(&what);
	return rc;
}

int ts_folder_open(const ts_plan *p, ts_error *err)
{
	static const char *const names[3] = {"manifest.json", "index.html", "playlist.m3u"};
	const char *outdir = p->o.outdir;
	if (make_dirs(outdir) != 0 || probe_writable(outdir) != 0) {
		int e = errno;
		ts_error_set(err, TS_EIO, "cannot write to output folder %s: %s", outdir,
		             strerror(e));
		return (e == EACCES || e == EPERM || e == EROFS) && ts_state_exists(outdir)
		           ? 1
		           : TS_EIO;
	}
	char path[3][PATH_MAX];
	struct stat st;
	int state = ts_state_exists(outdir), ours[3];
	for (int i = 0; i < 3; i++)
		ts_plan_path(p, names[i], path[i]);
	/* What tingshu wrote says so; a playlist says nothing: the book's
	 * manifest beside it, or its state, makes it tingshu's. */
	ours[0] = by_tingshu(path[0], "\"generator\": \"tingshu ");
	ours[1] = by_tingshu(path[1], "<meta name=\"generator\" content=\"tingshu\">");
	ours[2] = ours[0];
	for (int i = 0; i < 3 && !state; i++)
		if (lstat(path[i], &st) == 0 && !ours[i])
			return ts_error_set(
			    err, TS_EEXIST,
			    "%s holds %s %s that tingshu did not write: it is not a "
			    "tingshu audiobook, and tingshu will not write over its "
			    "files; choose another folder with -o",
			    outdir, i == 1 ? "an" : "a", names[i]);
	int rc = ours[0] && !p->o.force ? another_book(p, path[0], err) : 0;
	return rc ? rc : ts_state_init(outdir, err);
}

/* The manifest's entry of chapter i, from its record. */
static void chapter_entry(const ts_plan *p, size_t i, const ts_record *r, ts_chapter_entry *e)
{
	const ts_chapter *ch = ts_book_chapter(p->book, i);
	e->index = (int)i + p->base;
	e->title = ch->title;
	e->source = ch->display;
	e->audio = p->names[i];
	for (int t = 0; t < TS_CUES_NFORMATS; t++)
		e->timing[t] = p->timing[i][t];
	e->duration_s = (double)r->samples / (r->synth_rate ? r->synth_rate : 1);
	e->sentences = r->sentences;
	e->chars = r->chars;
	e->front_matter = ch->front_matter;
	e->outdated = !p->keys || strcmp(r->key, p->keys[i]) != 0;
	e->input_lufs = r->audio.input_lufs;
	e->gain_db = r->audio.gain_db;
	e->output_lufs = r->audio.output_lufs;
	e->true_peak_db = r->audio.true_peak_db;
	e->limited_s = r->audio.limited_s;
}

/* Is the record of chapter i the files this plan names for it? */
static int record_matches(const ts_plan *p, size_t i, const ts_record *r)
{
	size_t k = 1;
	if (strcmp(r->files[0], p->names[i]) != 0)
		return 0;
	for (int t = 0; t < TS_CUES_NFORMATS; t++) {
		if (!p->timing[i][t])
			continue;
		if (k >= r->nfiles || strcmp(r->files[k], p->timing[i][t]) != 0)
			return 0;
		k++;
	}
	return k == r->nfiles;
}

/* Does the file at path hold exactly text? */
static int same_content(const char *path, const ts_buf *text)
{
	struct stat st;
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != text->len)
		return 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	char block[8192];
	size_t off = 0, got;
	int same = 1;
	while (same && (got = fread(block, 1, sizeof block, f)) > 0) {
		same = off + got <= text->len && memcmp(block, text->data + off, got) == 0;
		off += got;
	}
	fclose(f);
	return same && off == text->len;
}

/* The book files, from the records: the read-along page (its list of
 * chapters; their text is in their own files), playlist.m3u and
 * manifest.json.  Each is written at its temporary name, those whose
 * bytes change (an up-to-date book is not touched), and then all are put
 * in place together, after the files of the chapter landing (l, may be
 * NULL) and the manifest last: book files that tell of one state of the
 * folder. */
static int put_book_files(const ts_plan *p, const ts_build_settings *set, const ts_chapter_entry *e,
                          size_t n, const ts_landing *l, long pid, ts_error *err)
{
	static const char *const names[3] = {"index.html", "playlist.m3u", "manifest.json"};
	const char *title = ts_book_title(p->book);
	ts_buf text[3] = {{0}};
	char path[3][PATH_MAX], *tmp[TS_RECORD_FILES + 4] = {0}, *put[TS_RECORD_FILES + 4];
	size_t nl = l ? l->n : 0, k = nl;
	int rc = 0;
	for (size_t i = 0; i < nl; i++)
		tmp[i] = l->tmp[i], put[i] = l->path[i];
	if (ts_readalong_html(&text[0], title, e, n))
		rc = ts_error_set(err, TS_ENOMEM, NULL);
	ts_playlist(&text[1], title, e, n);
	ts_manifest(&text[2], title, set, e, n);
	for (int i = 0; i < 3 && !rc; i++) {
		ts_plan_path(p, names[i], path[i]);
		if (ts_buf_error(&text[i]))
			rc = ts_error_set(err, ts_buf_error(&text[i]), "%s: %s", path[i],
			                  ts_strerror(ts_buf_error(&text[i])));
		else if (same_content(path[i], &text[i]))
			continue;
		else if (!(tmp[k] = ts_temp_name(path[i], pid)))
			rc = ts_error_set(err, TS_ENOMEM, NULL); /* named before it is made */
		else if (!(rc = ts_write_text_temp(p->o.outdir, path[i],
		                                   text[i].data ? text[i].data : "", text[i].len,
		                                   pid, err)))
			put[k++] = path[i];
		else
			free(tmp[k]), tmp[k] = NULL;
	}
	if (!rc && k)
		rc = ts_commit_files(p->o.outdir, tmp, put, k, pid, err);
	else
		for (size_t i = 0; i < k; i++)
			unlink(tmp[i]); /* written, not put in place */
	for (size_t i = nl; i < k; i++)
		free(tmp[i]);
	for (int i = 0; i < 3; i++)
		ts_buf_free(&text[i]);
	return rc;
}

/* Longest wait for another build to finish writing the book files. */
#define BOOK_LOCK_WAIT_S 60.0

/* The record of chapter i, from the folder or, for the chapter landing,
 * from its temporary file: 1, 0 when there is none, or a negative code. */
static int chapter_record(const ts_plan *p, const ts_landing *l, size_t i, ts_record *r,
                          ts_error *err)
{
	if (l && l->chapter == i)
		return ts_record_read_at(l->tmp[l->n - 1], r, err);
	return ts_record_read(p->o.outdir, p->names[i], r, err);
}

/* ts_folder_write_book(), and ts_folder_land() with l. */
static int write_book(const ts_plan *p, const ts_landing *l, size_t *present, int *complete,
                      ts_error *err)
{
	ts_chapter_entry *e = calloc(p->n ? p->n : 1, sizeof *e);
	ts_record *r = malloc(sizeof *r);
	int rc = 0, synth_rate = 0, wpm = 0, locked = 0;
	long pid = l ? l->owner_pid : (long)getpid();
	int at_end = l == NULL; /* the build's own call, not a chapter landing */
	size_t k = 0;
	*complete = 1;
	*present = 0;
	if (!e || !r) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	/* Builds of other chapters into the folder write these files too:
	 * one at a time, each from the records as they are then. */
	if ((rc = ts_lock_wait(p->o.outdir, "book", BOOK_LOCK_WAIT_S, err)))
		goto out;
	locked = 1;
	for (size_t i = 0; i < p->n; i++) {
		ts_error re = {0};
		int landing = l && l->chapter == i;
		int got = chapter_record(p, l, i, r, &re), had = got == 1;
		/* Short of memory, a record is not taken for one missing: the
		 * book files would leave its chapter out. */
		if (ts_error_retryable(got) || (landing && !had)) {
			rc = ts_error_set(err, got ? got : TS_EIO, "%s", ts_error_msg(&re));
			goto out;
		}
		if (had && r->empty && p->keys && strcmp(r->key, p->keys[i]) == 0)
			continue; /* nothing to speak: not in the book */
		if (!had || !record_matches(p, i, r) ||
		    (!landing && !ts_record_files_ok(p->o.outdir, r))) {
			*complete = 0;
			continue;
		}
		chapter_entry(p, i, r, &e[k]);
		*complete &= !e[k++].outdated;
		if (!synth_rate)
			synth_rate = r->synth_rate, wpm = r->wpm;
	}
	*present = k;
	/* An input that could not be read leaves its chapters out of the plan:
	 * the book is not whole, and their files stay. */
	if (p->inputs_failed)
		*complete = 0;
	if (k == 0) {
		if (l) /* a chapter with nothing to speak: its record alone */
			rc = ts_commit_files(p->o.outdir, l->tmp, l->path, l->n, pid, err);
		l = NULL;
		goto out;
	}
	ts_build_settings set = {.voice = &p->rd.voice,
	                         .wpm = wpm,
	                         .rate_factor = p->o.rate,
	                         .sample_rate = ts_master_out_rate(&p->mo, p->fmt, synth_rate),
	                         .synth_rate = synth_rate,
	                         .format = p->fmt->name,
	                         .normalize = p->mo.normalize,
	                         .target_lufs = p->mo.target_lufs,
	                         .ceiling_dbtp = p->mo.ceiling_dbtp,
	                         .quality = p->o.quality,
	                         .author = p->o.author,
	                         .complete = *complete,
	                         .dialogue_voices = p->voicing.dialogue != NULL,
	                         .cast = p->cast,
	                         .ncast = p->ncast};
	for (int b = 0; b < TS_BOOK_KINDS; b++)
		set.book_files[b] = p->whole[b].listed;
	rc = put_book_files(p, &set, e, k, l, pid, err);
	l = NULL; /* its files are in place, or gone */
	/* What the book no longer has goes once the book is whole (when the
	 * build says so at its end, not as a chapter lands). */
	if (!rc && *complete && at_end)
		ts_folder_remove_stale(p);
out:
	if (locked)
		ts_lock_release(p->o.outdir, "book");
	for (size_t i = 0; l && i < l->n; i++)
		ts_unlink_in(p->o.outdir, l->tmp[i]); /* not put in place */
	free(e);
	free(r);
	return rc;
}

int ts_folder_write_book(const ts_plan *p, size_t *present, int *complete, ts_error *err)
{
	return write_book(p, NULL, present, complete, err);
}

int ts_folder_land(const ts_plan *p, const ts_landing *l, ts_error *err)
{
	size_t present;
	int complete;
	return write_book(p, l, &present, &complete, err);
}

/* Remove outdir/name, a file a record names. */
static void remove_file(const ts_plan *p, const char *name)
{
	char path[PATH_MAX];
	ts_plan_path(p, name, path);
	unlink(path);
}

/* Is name one of the files the plan's chapters make? */
static int planned_file(const ts_plan *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++) {
		if (strcmp(p->names[i], name) == 0)
			return 1;
		for (int t = 0; t < TS_CUES_NFORMATS; t++)
			if (p->timing[i][t] && strcmp(p->timing[i][t], name) == 0)
				return 1;
	}
	return 0;
}

static void remove_if_stale(void *ud, const char *audio)
{
	const ts_plan *p = ud;
	if (planned_file(p, audio))
		return;
	/* Its files, but those a chapter of the book now makes under the same
	 * name (the timing files of a book built again in another format). */
	ts_record r;
	int got = ts_record_read(p->o.outdir, audio, &r, NULL);
	if (ts_error_retryable(got))
		return; /* kept for a later build to read */
	if (got == 1)
		for (size_t i = 0; i < r.nfiles; i++)
			if (!planned_file(p, r.files[i]))
				remove_file(p, r.files[i]);
	ts_record_remove(p->o.outdir, audio);
}

void ts_folder_remove_stale(const ts_plan *p)
{
	ts_record_each(p->o.outdir, remove_if_stale, (void *)p);
}

void ts_folder_remove_superseded(const ts_plan *p, size_t i, const ts_record *old, int empty)
{
	for (size_t k = 0; k < old->nfiles; k++) {
		int kept = !empty && strcmp(old->files[k], p->names[i]) == 0;
		for (int t = 0; t < TS_CUES_NFORMATS && !kept && !empty; t++)
			kept = p->timing[i][t] && strcmp(old->files[k], p->timing[i][t]) == 0;
		if (!kept)
			remove_file(p, old->files[k]);
	}
}

void ts_folder_sweep(const ts_plan *p, long pid)
{
	char dir[PATH_MAX];
	if (pid < 0)
		ts_lock_sweep(p->o.outdir);
	ts_temp_sweep(p->o.outdir, p->o.outdir, pid);
	ts_plan_path(p, TS_STATE_DIR "/chapters", dir);
	ts_temp_sweep(p->o.outdir, dir, pid);
	ts_plan_path(p, TS_STATE_DIR "/aac", dir);
	ts_temp_sweep(p->o.outdir, dir, pid);
}
