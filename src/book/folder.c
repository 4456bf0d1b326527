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
	if (ts_make_dirs(outdir) != 0 || ts_dir_writable(outdir) != 0) {
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

/* The book files, from the entries e: the read-along page (its list of
 * chapters; their text is in their own files), playlist.m3u and
 * manifest.json.  Each is written at its temporary name, those whose
 * bytes change (an up-to-date book is not touched), and then all are put
 * in place together, after the nl files the caller landed in tmp and put
 * (which have room for 3 more) and the manifest last: book files that
 * tell of one state of the folder. */
static int put_book_files(const ts_plan *p, const ts_build_settings *set, const ts_chapter_entry *e,
                          size_t n, char **tmp, char **put, size_t nl, ts_error *err)
{
	static const char *const names[3] = {"index.html", "playlist.m3u", "manifest.json"};
	const char *title = ts_book_title(p->book);
	ts_buf text[3] = {{0}};
	char path[3][PATH_MAX];
	size_t k = nl;
	long pid = (long)getpid();
	int rc = 0;
	if (ts_readalong_html(&text[0], title, e, n))
		rc = ts_error_set(err, TS_ENOMEM, NULL);
	ts_playlist(&text[1], title, e, n);
	ts_manifest(&text[2], title, set, e, n);
	for (int i = 0; i < 3 && !rc; i++) {
		ts_plan_path(p, names[i], path[i]);
		if (ts_buf_error(&text[i]))
			rc = ts_error_set(err, ts_buf_error(&text[i]), "%s: %s", path[i],
			                  ts_strerror(ts_buf_error(&text[i])));
		else if (ts_file_holds(path[i], text[i].data, text[i].len))
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

/* Chapter i as its record r says (had: there is one) into p->listed[i];
 * the files of a chapter landing (at their temporary names) are not
 * looked for in the folder. */
static void list_chapter(const ts_plan *p, size_t i, const ts_record *r, int had, int landing)
{
	ts_listed *s = &p->listed[i];
	s->state = TS_LISTED_NOT;
	if (had && r->empty && p->keys && strcmp(r->key, p->keys[i]) == 0)
		s->state = TS_LISTED_EMPTY;
	else if (had && record_matches(p, i, r) &&
	         (landing || ts_record_files_ok(p->o.outdir, r))) {
		s->state = TS_LISTED_NAMED;
		chapter_entry(p, i, r, &s->entry);
		s->synth_rate = r->synth_rate;
		s->wpm = r->wpm;
	}
}

/* Chapter i from its record in the folder into p->listed[i].  0, or a
 * code with err filled: short of memory, a record is not taken for one
 * missing (the book files would leave its chapter out). */
static int read_chapter(const ts_plan *p, size_t i, ts_record *r, ts_error *err)
{
	ts_error re = {0};
	int got = ts_record_read(p->o.outdir, p->names[i], r, &re);
	if (ts_error_retryable(got))
		return ts_error_set(err, got, "%s", ts_error_msg(&re));
	list_chapter(p, i, r, got == 1, 0);
	return 0;
}

/* Chapter i, landed: its record, at its temporary name, into
 * p->listed[i]; the temporary names of the files it names and then of
 * the record into tmp, their places into put, from *k on.  0, or a code
 * with err filled. */
static int take_landed(const ts_plan *p, size_t i, ts_record *r, char **tmp, char **put, size_t *k,
                       ts_error *err)
{
	long pid = (long)getpid();
	char path[PATH_MAX], *rec = ts_record_file(p->o.outdir, p->names[i]);
	char *rec_tmp = rec ? ts_temp_name(rec, pid) : NULL;
	ts_error re = {0};
	int got = rec_tmp ? ts_record_read_at(rec_tmp, r, &re) : TS_ENOMEM, rc = 0;
	if (got != 1)
		rc = got == 0 ? ts_error_set(err, TS_EIO, "%s: no record of the chapter", rec_tmp)
		              : ts_error_set(err, got, "%s", ts_error_msg(&re));
	/* The timing files, the audio (the record's first), the AAC, the record. */
	for (size_t f = 1; !rc && f <= r->nfiles; f++, (*k)++) {
		ts_plan_path(p, r->files[f % r->nfiles], path);
		if (!(put[*k] = ts_strdup(path)) || !(tmp[*k] = ts_temp_name(path, pid)))
			rc = ts_error_set(err, TS_ENOMEM, NULL);
	}
	if (!rc) { /* the chapter's AAC (workers.c), if its worker made one */
		char *aac = ts_record_aac_file(p->o.outdir, p->names[i]);
		char *aac_tmp = aac ? ts_temp_name(aac, pid) : NULL;
		if (!aac_tmp)
			free(aac), rc = ts_error_set(err, TS_ENOMEM, NULL);
		else if (access(aac_tmp, F_OK) == 0)
			tmp[*k] = aac_tmp, put[(*k)++] = aac;
		else
			free(aac), free(aac_tmp);
	}
	if (!rc) {
		tmp[*k] = rec_tmp, put[(*k)++] = rec;
		list_chapter(p, i, r, 1, 1);
		return 0;
	}
	free(rec);
	free(rec_tmp);
	return rc;
}

/* The entries the book files name, from p->listed, into e: how many.
 * *complete: every chapter is named and up to date or has nothing to
 * speak, and every input could be read. */
static size_t book_entries(const ts_plan *p, ts_chapter_entry *e, int *complete)
{
	size_t k = 0;
	*complete = !p->inputs_failed;
	for (size_t i = 0; i < p->n; i++) {
		const ts_listed *s = &p->listed[i];
		*complete &= s->state != TS_LISTED_NOT;
		if (s->state != TS_LISTED_NAMED)
			continue;
		e[k] = s->entry;
		*complete &= !e[k++].outdated;
	}
	return k;
}

/* The settings the manifest tells, of a book whose first chapter named
 * is first. */
static ts_build_settings book_settings(const ts_plan *p, const ts_listed *first, int complete)
{
	int synth_rate = first ? first->synth_rate : 0;
	ts_build_settings set = {.voice = &p->rd.voice,
	                         .wpm = first ? first->wpm : 0,
	                         .rate_factor = p->o.rate,
	                         .sample_rate = ts_master_out_rate(&p->mo, p->fmt, synth_rate),
	                         .synth_rate = synth_rate,
	                         .format = p->fmt->name,
	                         .normalize = p->mo.normalize,
	                         .target_lufs = p->mo.target_lufs,
	                         .ceiling_dbtp = p->mo.ceiling_dbtp,
	                         .quality = p->o.quality,
	                         .author = p->o.author,
	                         .complete = complete,
	                         .dialogue_voices = p->voicing.dialogue != NULL,
	                         .cast = p->cast,
	                         .ncast = p->ncast};
	for (int b = 0; b < TS_BOOK_KINDS; b++)
		set.book_files[b] = p->whole[b].listed;
	return set;
}

/* The chapters landed are done with: on failure (rc) each fails with err
 * and is listed as the folder still has it. */
static void landed_done(ts_plan *p, int rc, ts_chapter_result *res, const ts_error *err, double t0)
{
	ts_record r;
	for (size_t i = 0; p->nlanded && i < p->n; i++) {
		if (!p->landed[i])
			continue;
		p->landed[i] = 0;
		p->nlanded--;
		if (!rc)
			continue;
		if (res)
			res[i].err = *err;
		p->listed[i].state = TS_LISTED_NOT;
		read_chapter(p, i, &r, NULL);
	}
	p->written_at = ts_seconds();
	p->write_s = p->written_at - t0;
}

/* ts_folder_write_book() with reread, else ts_folder_flush(). */
static int write_book(ts_plan *p, int reread, const ts_landing *l, ts_chapter_result *res,
                      int *complete, ts_error *err)
{
	size_t cap = p->nlanded * (TS_RECORD_FILES + 2) + (l ? l->n : 0) + 3, k = 0, owned, n;
	ts_chapter_entry *e = calloc(p->n ? p->n : 1, sizeof *e);
	char **tmp = calloc(cap, sizeof *tmp), **put = calloc(cap, sizeof *put);
	ts_record *r = malloc(sizeof *r);
	int rc = 0, locked = 0;
	double t0 = ts_seconds();
	if (!e || !tmp || !put || !r) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	/* Builds of other chapters into the folder write these files too:
	 * one at a time, each from the records as they are then. */
	if ((rc = ts_lock_wait(p->o.outdir, "book", BOOK_LOCK_WAIT_S, err)))
		goto out;
	locked = 1;
	for (size_t i = 0; i < p->n && !rc; i++)
		if (p->landed[i])
			rc = take_landed(p, i, r, tmp, put, &k, err);
		else if (reread)
			rc = read_chapter(p, i, r, err);
	if (rc)
		goto out;
	n = book_entries(p, e, complete);
	for (size_t i = 0; l && i < l->n; i++)
		tmp[k + i] = l->tmp[i], put[k + i] = l->path[i];
	owned = k, k += l ? l->n : 0, l = NULL;
	if (n == 0) /* the records of chapters with nothing to speak alone */
		rc = k ? ts_commit_files(p->o.outdir, tmp, put, k, (long)getpid(), err) : 0;
	else {
		const ts_listed *first = p->listed;
		while (first->state != TS_LISTED_NAMED)
			first++;
		ts_build_settings set = book_settings(p, first, *complete);
		rc = put_book_files(p, &set, e, n, tmp, put, k, err);
	}
	k = owned; /* all in place, or gone */
	/* What the book no longer has goes once the book is whole (when the
	 * build says so at its end, not as chapters land). */
	if (!rc && *complete && reread)
		ts_folder_remove_stale(p);
out:
	if (locked)
		ts_lock_release(p->o.outdir, "book");
	for (size_t i = 0; l && i < l->n; i++)
		ts_unlink_in(p->o.outdir, l->tmp[i]); /* not put in place */
	for (size_t i = 0; tmp && i < k; i++) {
		if (rc && tmp[i])
			ts_unlink_in(p->o.outdir, tmp[i]); /* not handed over */
		free(tmp[i]);
		free(put[i]);
	}
	landed_done(p, rc, res, err, t0);
	free(e);
	free(tmp);
	free(put);
	free(r);
	return rc;
}

int ts_folder_write_book(ts_plan *p, ts_chapter_result *res, int *complete, ts_error *err)
{
	return write_book(p, 1, NULL, res, complete, err);
}

int ts_folder_flush(ts_plan *p, const ts_landing *l, ts_chapter_result *res, ts_error *err)
{
	int complete;
	return write_book(p, 0, l, res, &complete, err);
}

/* Remove outdir/name, a file a record names. */
static void remove_file(const ts_plan *p, const char *name)
{
	char path[PATH_MAX];
	ts_plan_path(p, name, path);
	unlink(path);
}

/* Is name one of the files the plan's chapters make?  Only those of the
 * chapter whose number it starts with can be (NNN-: plan.c): a book of
 * thousands of chapters is not searched for each file. */
static int planned_file(const ts_plan *p, const char *name)
{
	if (name[0] < '0' || name[0] > '9')
		return 0;
	size_t i = (size_t)strtoul(name, NULL, 10) - (size_t)p->base;
	if (i >= p->n || strcmp(p->names[i], name) == 0)
		return i < p->n;
	for (int t = 0; t < TS_CUES_NFORMATS; t++)
		if (p->timing[i][t] && strcmp(p->timing[i][t], name) == 0)
			return 1;
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
