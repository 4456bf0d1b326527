/* wholebook.c - the files of --book that hold the whole book (see plan.h),
 * one of each kind of the publishing layer's table (publish/bookkinds.h).
 * Each is made once every chapter is there, from a description of the
 * book and its finished chapters, kept while its key (the chapters' keys,
 * the settings it depends on, the cover's bytes) is what the folder's
 * state says it was made with, and put in place together with the
 * manifest that names it. */
#include "book/plan.h"

#include "audio/aac.h"
#include "base/file.h"
#include "base/util.h"
#include "publish/bookfile.h"
#include "publish/bookkinds.h"
#include "publish/m4b.h"
#include "publish/slug.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file of the folder's state that keeps kind k's key, "KEY SIZE
 * NAME", into out (at least PATH_MAX bytes). */
static void state_path(const ts_plan *p, int k, char *out)
{
	char name[PATH_MAX];
	snprintf(name, sizeof name, "%s/%s", TS_STATE_DIR, ts_book_kinds[k].state);
	ts_plan_path(p, name, out);
}

int ts_wholebook_check(ts_plan *p, ts_error *err)
{
	const char *cover = p->o.cover;
	int rc = ts_book_kinds_parse(p->o.book, &p->book_kinds, err);
	if (rc)
		return rc;
	if (cover && !p->book_kinds)
		return ts_book_kinds_cover_error(err);
	if (cover && (rc = ts_m4b_check_cover(cover, err)))
		return rc;
	for (int k = 0; k < TS_BOOK_KINDS; k++)
		if ((p->book_kinds & 1u << k) && ts_book_kinds[k].needs_vtt &&
		    !(p->timing_mask & TS_CUES_VTT))
			return ts_error_set(err, TS_EINVAL,
			                    "--book %s pairs each sentence with its audio from the "
			                    ".vtt timing files: --timing must include vtt",
			                    ts_book_kinds[k].name);
	return 0;
}

/* The key, size and name the folder's state records for kind k: 0, or -1
 * when there is none. */
static int recorded(const ts_plan *p, int k, char key[TS_HASH_HEX], long long *size,
                    char name[PATH_MAX])
{
	char path[PATH_MAX], text[PATH_MAX + 80] = "";
	state_path(p, k, path);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	size_t n = fread(text, 1, sizeof text - 1, f);
	text[n] = '\0';
	fclose(f);
	return sscanf(text, "%32s %lld %4095[^\n]", key, size, name) == 3 && !strchr(name, '/') &&
	               name[0] != '.'
	           ? 0
	           : -1;
}

/* The key and name of kind k, and whether the folder holds it. */
static int plan_kind(ts_plan *p, int k, ts_error *err)
{
	/* <book title>.EXT; "book.EXT" for a title with nothing to keep. */
	char slug[TS_SLUG_MAX + 1];
	ts_slug(ts_book_title(p->book), slug);
	const ts_book_kind *kind = &ts_book_kinds[k];
	size_t len = strcmp(slug, "chapter") ? strlen(slug) : 0;
	size_t size = (len ? len : 4) + strlen(kind->ext) + 2;
	free(p->whole[k].name);
	if (!(p->whole[k].name = malloc(size)))
		return ts_error_set(err, TS_ENOMEM, NULL);
	snprintf(p->whole[k].name, size, "%s.%s", len ? slug : "book", kind->ext);

	ts_hash h;
	ts_hash_init(&h);
	ts_hash_str(&h, kind->name);
	ts_hash_str(&h, "assembled from the chapters' AAC");
	ts_hash_str(&h, ts_aac_version());
	ts_hash_str(&h, TS_VERSION);
	ts_hash_str(&h, ts_book_title(p->book));
	ts_hash_str(&h, p->o.author ? p->o.author : "");
	ts_hash_int(&h, p->o.quality);
	ts_hash_str(&h, p->whole[k].name);
	for (size_t i = 0; i < p->n; i++)
		ts_hash_str(&h, p->keys[i]);
	if (p->o.cover && ts_hash_file(&h, p->o.cover, err))
		return ts_error_prefix(err, "--cover");
	ts_hash_hex(&h, p->whole[k].key);

	/* Listed when the folder holds the file of this key, whole. */
	char key[TS_HASH_HEX], name[PATH_MAX], path[PATH_MAX];
	long long had = -1;
	struct stat st;
	if (recorded(p, k, key, &had, name) == 0 && strcmp(key, p->whole[k].key) == 0 &&
	    strcmp(name, p->whole[k].name) == 0) {
		ts_plan_path(p, name, path);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == had)
			p->whole[k].listed = p->whole[k].name;
	}
	return 0;
}

int ts_wholebook_plan(ts_plan *p, ts_error *err)
{
	int rc = 0;
	for (int k = 0; k < TS_BOOK_KINDS && !rc; k++) {
		p->whole[k].listed = NULL;
		if ((p->book_kinds & 1u << k) && p->keys)
			rc = plan_kind(p, k, err);
	}
	return rc;
}

/* The chapters with audio, in order: their numbers in the plan. */
static size_t *present(const ts_plan *p, size_t *n, ts_error *err)
{
	size_t *idx = calloc(p->n ? p->n : 1, sizeof *idx);
	ts_record *r = malloc(sizeof *r);
	int got = 0;
	*n = 0;
	for (size_t i = 0; idx && r && i < p->n && got >= 0; i++)
		if ((got = ts_record_read(p->o.outdir, p->names[i], r, err)) == 1 && !r->empty)
			idx[(*n)++] = i;
	if (!idx || !r)
		ts_error_set(err, TS_ENOMEM, NULL);
	if (!idx || !r || got < 0) {
		free(idx);
		idx = NULL;
	}
	free(r);
	return idx;
}

static void chapters_free(ts_bookfile_chapter *ch, size_t n)
{
	for (size_t j = 0; ch && j < n; j++) {
		free((char *)ch[j].vtt);
		free((char *)ch[j].aac);
	}
	free(ch);
}

int ts_wholebook_aac_rate(const ts_plan *p)
{
	return ts_book_kinds_need_aac(p->book_kinds, p->fmt->name) ? ts_aac_bitrate(p->o.quality)
	                                                           : 0;
}

/* The AAC of the chapters idx[0..n) that have none of their key (made
 * without --book, or by another version), encoded here one after the
 * other: the workers make it as they make a chapter. */
static int chapters_aac(const ts_plan *p, const size_t *idx, size_t n, ts_error *err)
{
	int rate = ts_wholebook_aac_rate(p), rc = 0;
	char key[TS_HASH_HEX];
	for (size_t j = 0; rate && j < n && !rc; j++) {
		char *path = ts_record_aac_file(p->o.outdir, p->names[idx[j]]);
		ts_aac_key(p->keys[idx[j]], rate, key);
		if (!path)
			rc = ts_error_set(err, TS_ENOMEM, NULL);
		else if (!ts_aac_ok(path, key))
			rc = ts_aac_make(p->o.outdir, p->paths[idx[j]], path, key, rate,
			                 (long)getpid(), p->o.cancel, err);
		free(path);
	}
	return rc;
}

/* The chapters idx[0..n) (their numbers in the plan) as the whole-book
 * files see them; NULL with err filled when out of memory.  Free with
 * chapters_free(). */
static ts_bookfile_chapter *chapters_of(const ts_plan *p, const size_t *idx, size_t n,
                                        ts_error *err)
{
	ts_bookfile_chapter *ch = calloc(n ? n : 1, sizeof *ch);
	int vtt = __builtin_ctz(TS_CUES_VTT);
	char path[PATH_MAX];
	for (size_t j = 0; ch && j < n; j++) {
		size_t i = idx[j];
		ch[j] = (ts_bookfile_chapter){ts_book_chapter(p->book, i)->title, p->paths[i], NULL,
		                              NULL};
		if (ts_wholebook_aac_rate(p) &&
		    !(ch[j].aac = ts_record_aac_file(p->o.outdir, p->names[i]))) {
			chapters_free(ch, j);
			ch = NULL;
			break;
		}
		if (!p->timing || !p->timing[i][vtt])
			continue;
		ts_plan_path(p, p->timing[i][vtt], path);
		if (!(ch[j].vtt = ts_strdup(path))) {
			chapters_free(ch, j + 1);
			ch = NULL;
		}
	}
	if (!ch)
		ts_error_set(err, TS_ENOMEM, NULL);
	return ch;
}

/* Make the kinds due of the chapters idx[0..n), each at the temporary
 * name of its path, side by side (ts_book_kinds_make()): errs[k] says. */
static int make_kinds(const ts_plan *p, unsigned due, const size_t *idx, size_t n,
                      ts_error errs[TS_BOOK_KINDS], ts_error *err)
{
	char path[TS_BOOK_KINDS][PATH_MAX], text[PATH_MAX + 80];
	const char *paths[TS_BOOK_KINDS] = {0};
	ts_bookfile_chapter *ch = chapters_of(p, idx, n, err);
	if (!ch)
		return TS_ENOMEM;
	for (int k = 0; k < TS_BOOK_KINDS; k++)
		if (due & 1u << k) {
			ts_plan_path(p, p->whole[k].name, path[k]);
			paths[k] = path[k];
			if (p->diag &&
			    snprintf(text, sizeof text, "making %s: the whole book in one file",
			             p->whole[k].name) > 0)
				p->diag(p->ud, TS_INFO, text);
		}
	ts_bookfile book = {.title = ts_book_title(p->book),
	                    .author = p->o.author,
	                    .cover = p->o.cover,
	                    .quality = p->o.quality,
	                    .audio_format = p->fmt->name,
	                    .workdir = p->o.outdir,
	                    .owner_pid = (long)getpid(),
	                    .chapters = ch,
	                    .n = n,
	                    .cancel = p->o.cancel};
	ts_book_kinds_make(due, paths, &book, errs);
	chapters_free(ch, n);
	return 0;
}

/* Kind k, made at its temporary name (made: 0, or what failed), put in
 * place with its key and the manifest that names it; not keep: removed. */
static int update_kind(ts_plan *p, int k, const ts_error *made, int keep, ts_error *err)
{
	char path[PATH_MAX], state[PATH_MAX], old[PATH_MAX], key[TS_HASH_HEX], text[PATH_MAX + 80];
	char *tmp[2] = {0}, *put[2] = {path, state};
	long long size;
	long pid = (long)getpid();
	struct stat st;
	int rc;
	ts_plan_path(p, p->whole[k].name, path);
	state_path(p, k, state);
	if (recorded(p, k, key, &size, old) != 0)
		old[0] = '\0';
	if (made->code) /* nothing left */
		return keep ? (*err = *made).code : 0;
	/* Stopped as it was finished (assembly takes moments): not put in place. */
	if (!keep || (p->o.cancel && *p->o.cancel)) {
		rc = keep ? ts_error_set(err, TS_ECANCELED, "interrupted") : 0;
		goto fail;
	}
	if (!(tmp[0] = ts_temp_name(path, pid)) || stat(tmp[0], &st) != 0) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto fail;
	}
	int len = snprintf(text, sizeof text, "%s %lld %s\n", p->whole[k].key,
	                   (long long)st.st_size, p->whole[k].name);
	if ((rc = ts_write_text_temp(p->o.outdir, state, text, (size_t)len, pid, err)))
		goto fail;
	if (!(tmp[1] = ts_temp_name(state, pid))) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto fail;
	}
	/* The file, its key, then the manifest that names it. */
	ts_landing l = {.tmp = tmp, .path = put, .n = 2};
	p->whole[k].listed = p->whole[k].name;
	if ((rc = ts_folder_flush(p, &l, NULL, err)))
		p->whole[k].listed = NULL;
	else if (old[0] && strcmp(old, p->whole[k].name) != 0) {
		ts_plan_path(p, old, path); /* the file of the book's former title */
		unlink(path);
	}
	free(tmp[0]);
	free(tmp[1]);
	return rc; /* in place, or gone */
fail:
	for (int i = 0; i < 2; i++) {
		char *t = tmp[i] ? tmp[i] : ts_temp_name(i ? state : path, pid);
		if (t)
			ts_unlink_in(p->o.outdir, t);
		if (t != tmp[i])
			free(t);
	}
	free(tmp[0]);
	free(tmp[1]);
	return rc;
}

int ts_wholebook_update(ts_plan *p, ts_error *err)
{
	int rc = 0, k, stopped = -1;
	unsigned due = 0;
	size_t n = 0, *idx = NULL;
	ts_error errs[TS_BOOK_KINDS];
	for (k = 0; k < TS_BOOK_KINDS; k++)
		due |= p->book_kinds & 1u << k && !p->whole[k].listed ? 1u << k : 0;
	if (!due)
		return 0;
	if (!(idx = present(p, &n, err)))
		return err->code ? err->code : TS_ENOMEM;
	if (!(rc = chapters_aac(p, idx, n, err)))
		rc = p->o.cancel && *p->o.cancel ? TS_ECANCELED
		                                 : make_kinds(p, due, idx, n, errs, err);
	/* Each put in place in order; after a failure, the others removed. */
	for (k = 0; k < TS_BOOK_KINDS && (!rc || stopped >= 0); k++) {
		int r = due & 1u << k ? update_kind(p, k, &errs[k], !rc, err) : 0;
		if (r && !rc)
			rc = r, stopped = k;
	}
	/* Stopped: what was being made is gone, the file made before kept. */
	if (rc == TS_ECANCELED)
		ts_error_set(err, rc, "interrupted while making %s; unfinished files removed",
		             p->whole[stopped >= 0 ? stopped : __builtin_ctz(due)].name);
	free(idx);
	return rc;
}
