/* wholebook.c - the files of --book that hold the whole book (see plan.h):
 * the M4B.  Made once every chapter is there, kept while its key (the
 * chapters' keys, the cover's bytes, the settings it depends on) is what
 * the folder's state says it was made with, and put in place together with
 * the manifest that names it. */
#include "book/plan.h"

#include "audio/m4b.h"
#include "base/file.h"
#include "base/util.h"
#include "book/output.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where the key of the M4B is kept: "KEY SIZE NAME". */
#define M4B_STATE TS_STATE_DIR "/book.m4b"

int ts_wholebook_parse(const char *list, unsigned *kinds, ts_error *err)
{
	*kinds = 0;
	for (const char *s = list ? list : ""; *s;) {
		size_t len = strcspn(s, ",");
		if (len == 3 && memcmp(s, "m4b", 3) == 0)
			*kinds |= TS_BOOK_M4B;
		else if (!(len == 4 && memcmp(s, "none", 4) == 0))
			return ts_error_set(err, TS_EINVAL,
			                    "--book takes a comma-separated list of m4b (the "
			                    "whole book as one audio file with chapters), or none, "
			                    "not '%.*s'",
			                    (int)len, s);
		s += len + (s[len] == ',');
	}
	return 0;
}

/* Hash the bytes of the file at path; 0 or a code with err filled. */
static int hash_file(ts_hash *h, const char *path, ts_error *err)
{
	struct stat st;
	int fd = ts_open_regular(path, &st), rc = 0;
	if (fd < 0)
		return ts_error_set(err, TS_EINVAL, "--cover %s: cannot read it: %s", path,
		                    fd == TS_NOT_REGULAR ? ts_file_kind(st.st_mode)
		                                         : strerror(errno));
	char block[65536];
	ssize_t k;
	while ((k = read(fd, block, sizeof block)) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = ts_error_set(err, TS_EIO, "--cover %s: cannot read it: %s", path,
			                  strerror(errno));
			break;
		}
		ts_hash_bytes(h, block, (size_t)k);
	}
	close(fd);
	return rc;
}

int ts_wholebook_plan(ts_plan *p, ts_error *err)
{
	p->m4b_listed = NULL;
	if (!(p->book_kinds & TS_BOOK_M4B) || !p->keys)
		return 0;
	/* <book title>.m4b; "book.m4b" for a title with nothing to keep. */
	char slug[TS_SLUG_MAX + 1];
	ts_slug(ts_book_title(p->book), slug);
	size_t len = strcmp(slug, "chapter") ? strlen(slug) : 0;
	free(p->m4b_name);
	if (!(p->m4b_name = malloc(len + 9)))
		return ts_error_set(err, TS_ENOMEM, NULL);
	snprintf(p->m4b_name, len + 9, "%s.m4b", len ? slug : "book");

	ts_hash h;
	ts_hash_init(&h);
	ts_hash_str(&h, "m4b " TS_VERSION);
	ts_hash_str(&h, ts_book_title(p->book));
	ts_hash_str(&h, p->o.author ? p->o.author : "");
	ts_hash_int(&h, p->o.quality);
	ts_hash_str(&h, p->m4b_name);
	for (size_t i = 0; i < p->n; i++)
		ts_hash_str(&h, p->keys[i]);
	int rc = p->o.cover ? hash_file(&h, p->o.cover, err) : 0;
	if (rc)
		return rc;
	ts_hash_hex(&h, p->m4b_key);

	/* Listed when the folder holds the M4B of this key, whole. */
	char path[PATH_MAX], text[PATH_MAX + 80] = "", key[TS_HASH_HEX], name2[PATH_MAX];
	long long size = -1;
	struct stat st;
	ts_plan_path(p, M4B_STATE, path);
	FILE *f = fopen(path, "re");
	if (f) {
		size_t n = fread(text, 1, sizeof text - 1, f);
		text[n] = '\0';
		fclose(f);
	}
	if (sscanf(text, "%32s %lld %4095[^\n]", key, &size, name2) == 3 &&
	    strcmp(key, p->m4b_key) == 0 && strcmp(name2, p->m4b_name) == 0) {
		ts_plan_path(p, p->m4b_name, path);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == size)
			p->m4b_listed = p->m4b_name;
	}
	return 0;
}

/* The name of the M4B the folder's state records, into name ("" when
 * none). */
static void recorded_name(const ts_plan *p, char name[PATH_MAX])
{
	char path[PATH_MAX], text[PATH_MAX + 80] = "";
	long long size;
	char key[TS_HASH_HEX];
	ts_plan_path(p, M4B_STATE, path);
	name[0] = '\0';
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	size_t n = fread(text, 1, sizeof text - 1, f);
	text[n] = '\0';
	fclose(f);
	if (sscanf(text, "%32s %lld %4095[^\n]", key, &size, name) != 3 || strchr(name, '/'))
		name[0] = '\0';
}

/* The chapters with audio, in order, for the M4B. */
static ts_m4b_chapter *m4b_chapters(const ts_plan *p, size_t *k, ts_error *err)
{
	ts_m4b_chapter *ch = calloc(p->n ? p->n : 1, sizeof *ch);
	ts_record *r = malloc(sizeof *r);
	*k = 0;
	for (size_t i = 0; ch && r && i < p->n; i++) {
		int got = ts_record_read(p->o.outdir, p->names[i], r, err);
		if (got < 0) {
			free(ch);
			free(r);
			return NULL;
		}
		if (got == 1 && !r->empty)
			ch[(*k)++] =
			    (ts_m4b_chapter){ts_book_chapter(p->book, i)->title, p->paths[i]};
	}
	if (!ch || !r) {
		free(ch);
		ch = NULL;
		ts_error_set(err, TS_ENOMEM, NULL);
	}
	free(r);
	return ch;
}

int ts_wholebook_update(ts_plan *p, ts_error *err)
{
	if (!(p->book_kinds & TS_BOOK_M4B) || p->m4b_listed)
		return 0;
	char path[PATH_MAX], state[PATH_MAX], old[PATH_MAX], text[PATH_MAX + 80];
	char *tmp[2] = {0}, *put[2] = {path, state};
	size_t k;
	int rc;
	ts_m4b_chapter *ch = m4b_chapters(p, &k, err);
	if (!ch)
		return err->code ? err->code : TS_ENOMEM;
	ts_plan_path(p, p->m4b_name, path);
	ts_plan_path(p, M4B_STATE, state);
	recorded_name(p, old);
	if (p->diag) {
		snprintf(text, sizeof text, "making %s: the whole book as one audio file",
		         p->m4b_name);
		p->diag(p->ud, TS_INFO, text);
	}
	ts_m4b_opts o = {.title = ts_book_title(p->book),
	                 .artist = p->o.author,
	                 .cover = p->o.cover,
	                 .quality = p->o.quality,
	                 .owner_pid = (long)getpid()};
	if ((rc = ts_m4b_write(path, ch, k, &o, err)))
		goto out;
	struct stat st;
	if (!(tmp[0] = ts_temp_name(path, o.owner_pid)) || stat(tmp[0], &st) != 0) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	int n = snprintf(text, sizeof text, "%s %lld %s\n", p->m4b_key, (long long)st.st_size,
	                 p->m4b_name);
	if ((rc = ts_write_text_temp(state, text, (size_t)n, o.owner_pid, err)))
		goto out;
	if (!(tmp[1] = ts_temp_name(state, o.owner_pid))) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	/* The M4B, its key, then the manifest that names it. */
	ts_landing l = {
	    .chapter = SIZE_MAX, .tmp = tmp, .path = put, .n = 2, .owner_pid = o.owner_pid};
	p->m4b_listed = p->m4b_name;
	if ((rc = ts_folder_land(p, &l, err)))
		p->m4b_listed = NULL;
	else if (old[0] && strcmp(old, p->m4b_name) != 0) {
		ts_plan_path(p, old, path); /* the M4B of the book's former title */
		unlink(path);
	}
	goto done; /* in place, or gone */
out:
	if (rc) { /* what ts_m4b_write() or the key left */
		char *t = ts_temp_name(path, o.owner_pid);
		if (t)
			unlink(t);
		free(t);
		t = ts_temp_name(state, o.owner_pid);
		if (t)
			unlink(t);
		free(t);
	}
done:
	free(tmp[0]);
	free(tmp[1]);
	free(ch);
	return rc;
}
