/* test_plan.c - the book layer's orchestration without eSpeak's audio:
 * the plan of a book (its chapters' file names, what --chapters and
 * --shard ask for), which chapters a build is due to make for given
 * records and settings (ts_plan_due: a chapter with no record, a record
 * of another key or of files no longer there as they were is built; one
 * whose record holds its key and files is kept; --force builds all; a
 * changed setting changes every key), the whole-book files' keys and
 * whether the folder holds them (ts_wholebook_plan), and what a build
 * removes: only files a record names, never the user's, never a file a
 * chapter of the plan makes (ts_folder_remove_stale, _superseded); which
 * short chapters are spoken after the one before them, and that their
 * keys take that one's in (ts_chapter_chained, ts_chapter_key_chain).
 * Usage: test_plan VOICES_DIR BOOK.txt SCRATCHDIR */
#include "book/chapterkey.h"
#include "book/plan.h"

#include "base/file.h"

#include "check.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *voices, *book;
static char out[PATH_MAX];

static void on_diag(void *ud, ts_level level, const char *text)
{
	(void)ud, (void)level, (void)text;
}

/* A plan of the book into out with the settings changed by set. */
static ts_plan *plan_with(void (*set)(ts_build_opts *o))
{
	ts_build_opts o;
	ts_build_opts_init(&o);
	o.read.voices_dir = voices;
	o.outdir = out;
	o.jobs = 1;
	if (set)
		set(&o);
	char *in[] = {(char *)book};
	ts_plan *p = NULL;
	ts_error err = {0};
	if (ts_plan_new(&p, &o, in, 1, on_diag, NULL, &err)) {
		fprintf(stderr, "test_plan: %s\n", ts_error_msg(&err));
		CHECK(!"the plan is made");
		return NULL;
	}
	CHECK(p->keys == NULL); /* made by the build */
	p->keys = calloc(p->n, sizeof *p->keys);
	return p;
}

static void no_set(ts_build_opts *o)
{
	(void)o;
}
static void chapters_2_4(ts_build_opts *o)
{
	o->chapters = "2,4";
}
static void shard_2_of_3(ts_build_opts *o)
{
	o->shard = "2/3";
}
static void forced(ts_build_opts *o)
{
	o->force = 1;
}
static void faster(ts_build_opts *o)
{
	o->rate = 1.25;
}
static void m4b(ts_build_opts *o)
{
	o->book = "m4b";
}
static void m4b_by(ts_build_opts *o)
{
	o->book = "m4b";
	o->author = "某人";
}

/* The due of every chapter into due[], -1 for one not asked for. */
static void dues(ts_plan *p, int *due)
{
	ts_record old;
	for (size_t i = 0; i < p->n; i++) {
		ts_error err = {0};
		ts_due d = TS_DUE_BUILD;
		int had = 0, rc = ts_plan_due(p, i, &old, &had, &d, &err);
		CHECK(rc >= 0);
		due[i] = rc == 1 ? (int)d : -1;
	}
}

static void test_names_and_selection(void)
{
	ts_plan *p = plan_with(no_set);
	if (!p)
		return;
	CHECK(ts_plan_count(p) == 4);
	ts_plan_chapter c;
	ts_plan_chapter_get(p, 0, &c);
	CHECK(strcmp(c.file, "001-第一章_出门.wav") == 0);
	CHECK(strcmp(c.title, "第一章 出门") == 0 && c.line == 1);
	ts_plan_chapter_get(p, 3, &c);
	CHECK(strcmp(c.file, "004-第四章_客栈.wav") == 0);
	CHECK(p->selected[0] && p->selected[1] && p->selected[2] && p->selected[3]);
	ts_plan_free(p);

	/* --chapters by the numbers of the file names. */
	if ((p = plan_with(chapters_2_4))) {
		CHECK(!p->selected[0] && p->selected[1] && !p->selected[2] && p->selected[3]);
		ts_plan_free(p);
	}
	/* --shard 2/3: every third chapter from the second. */
	if ((p = plan_with(shard_2_of_3))) {
		CHECK(!p->selected[0] && p->selected[1] && !p->selected[2] && !p->selected[3]);
		ts_plan_free(p);
	}
}

/* Put a record of chapter i of p with key as a build would, its audio
 * file of size bytes made too. */
static void record(const ts_plan *p, size_t i, const char *key, int size)
{
	char path[PATH_MAX + 300];
	snprintf(path, sizeof path, "%s/%s", out, p->names[i]);
	FILE *f = fopen(path, "w");
	for (int k = 0; f && k < size; k++)
		fputc('x', f);
	if (f)
		fclose(f);
	ts_record r = {.nfiles = 1, .synth_rate = 22050, .wpm = 175};
	snprintf(r.key, sizeof r.key, "%s", key);
	snprintf(r.files[0], TS_RECORD_NAME, "%s", p->names[i]);
	r.sizes[0] = size;
	ts_error err = {0};
	char *rec = ts_record_file(out, p->names[i]);
	char *tmp = rec ? ts_temp_name(rec, (long)getpid()) : NULL;
	CHECK(ts_record_write(out, p->names[i], &r, (long)getpid(), &err) == 0);
	CHECK(tmp && ts_commit_files(NULL, &tmp, &rec, 1, (long)getpid(), &err) == 0);
	free(tmp);
	free(rec);
}

static void test_due(void)
{
	ts_error err = {0};
	CHECK(ts_state_init(out, &err) == 0);
	ts_plan *p = plan_with(no_set);
	if (!p)
		return;
	int due[4];
	/* No records: every chapter is built. */
	dues(p, due);
	for (int i = 0; i < 4; i++)
		CHECK(due[i] == TS_DUE_BUILD);
	/* Keys are hashes, and each chapter's its own. */
	CHECK(strlen(p->keys[0]) == TS_HASH_HEX - 1 && strcmp(p->keys[0], p->keys[1]) != 0);

	/* Chapters 1 and 2 built with their keys, 3 with another key, 4
	 * built but its file changed since. */
	record(p, 0, p->keys[0], 10);
	record(p, 1, p->keys[1], 20);
	record(p, 2, "0123456789abcdef0123456789abcdef", 30);
	record(p, 3, p->keys[3], 40);
	char path[PATH_MAX + 300];
	snprintf(path, sizeof path, "%s/%s", out, p->names[3]);
	FILE *f = fopen(path, "a");
	if (f) {
		fputc('y', f);
		fclose(f);
	}
	dues(p, due);
	CHECK(due[0] == TS_DUE_KEPT && due[1] == TS_DUE_KEPT);
	CHECK(due[2] == TS_DUE_BUILD && due[3] == TS_DUE_BUILD);
	char k0[TS_HASH_HEX];
	memcpy(k0, p->keys[0], sizeof k0);
	ts_plan_free(p);

	/* The same plan again: the same keys. */
	if ((p = plan_with(no_set))) {
		dues(p, due);
		CHECK(strcmp(p->keys[0], k0) == 0 && due[0] == TS_DUE_KEPT);
		ts_plan_free(p);
	}
	/* --force builds every chapter. */
	if ((p = plan_with(forced))) {
		dues(p, due);
		for (int i = 0; i < 4; i++)
			CHECK(due[i] == TS_DUE_BUILD);
		ts_plan_free(p);
	}
	/* A setting every chapter depends on: new keys, all built. */
	if ((p = plan_with(faster))) {
		dues(p, due);
		CHECK(strcmp(p->keys[0], k0) != 0);
		for (int i = 0; i < 4; i++)
			CHECK(due[i] == TS_DUE_BUILD);
		ts_plan_free(p);
	}
	/* Only the chapters asked for are decided. */
	if ((p = plan_with(chapters_2_4))) {
		dues(p, due);
		CHECK(due[0] == -1 && due[1] == TS_DUE_KEPT && due[2] == -1);
		CHECK(due[3] == TS_DUE_BUILD);
		/* Every chapter's key is made, for the whole-book files. */
		CHECK(strcmp(p->keys[0], k0) == 0);
		ts_plan_free(p);
	}
	/* A record of nothing to speak, of the chapter's key: skipped again,
	 * unless forced. */
	ts_record r = {.empty = 1};
	memcpy(r.key, k0, sizeof r.key);
	CHECK(ts_record_due(out, &r, k0, 0) == TS_DUE_EMPTY);
	CHECK(ts_record_due(out, &r, k0, 1) == TS_DUE_BUILD);
	CHECK(ts_record_due(out, NULL, k0, 0) == TS_DUE_BUILD);
}

/* The whole-book key of kind 0 (m4b) of a plan with set, its chapters'
 * keys all made. */
static void whole_key(void (*set)(ts_build_opts *o), char key[TS_HASH_HEX], int edit)
{
	ts_plan *p = plan_with(set);
	key[0] = '\0';
	if (!p)
		return;
	int due[4];
	dues(p, due);
	if (edit) /* a chapter built from other text */
		p->keys[2][0] = p->keys[2][0] == 'a' ? 'b' : 'a';
	ts_error err = {0};
	CHECK(ts_wholebook_plan(p, &err) == 0);
	CHECK(p->book_kinds == 1u);
	CHECK(strcmp(p->whole[0].name, "short_book.m4b") == 0);
	memcpy(key, p->whole[0].key, TS_HASH_HEX);
	CHECK(p->whole[0].listed == NULL); /* the folder does not hold it */
	ts_plan_free(p);
}

static void test_wholebook_keys(void)
{
	char a[TS_HASH_HEX], b[TS_HASH_HEX], c[TS_HASH_HEX], d[TS_HASH_HEX];
	whole_key(m4b, a, 0);
	whole_key(m4b, b, 0);
	CHECK(a[0] && strcmp(a, b) == 0); /* the same book: the same key */
	whole_key(m4b_by, c, 0);
	CHECK(strcmp(a, c) != 0); /* its tags changed */
	whole_key(m4b, d, 1);
	CHECK(strcmp(a, d) != 0); /* one chapter changed */

	/* The folder holds the file of that key, whole: listed, not made
	 * again; at another size (damaged), it is not. */
	ts_plan *p = plan_with(m4b);
	if (!p)
		return;
	int due[4];
	dues(p, due);
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/short_book.m4b", out);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("m4b!", f);
		fclose(f);
	}
	snprintf(path, sizeof path, "%s/.tingshu/book.m4b", out);
	for (int size = 4; size <= 5; size++) {
		if ((f = fopen(path, "w"))) {
			fprintf(f, "%s %d short_book.m4b\n", a, size);
			fclose(f);
		}
		ts_error err = {0};
		CHECK(ts_wholebook_plan(p, &err) == 0);
		CHECK(size == 4 ? p->whole[0].listed != NULL : p->whole[0].listed == NULL);
	}
	ts_plan_free(p);
}

static int present(const char *name)
{
	char path[PATH_MAX + 300];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", out, name);
	return lstat(path, &st) == 0;
}

static void put(const char *name)
{
	char path[PATH_MAX + 300];
	snprintf(path, sizeof path, "%s/%s", out, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("x", f);
		fclose(f);
	}
}

static void test_removed(void)
{
	ts_plan *p = plan_with(no_set);
	if (!p)
		return;
	/* A chapter of an earlier version of the book, no longer in it: its
	 * recorded files go, and its record; the user's file beside them,
	 * and a file of the same name as a timing file the plan makes,
	 * stay. */
	ts_record r = {.nfiles = 3};
	memcpy(r.key, "0123456789abcdef0123456789abcdef", TS_HASH_HEX);
	snprintf(r.files[0], TS_RECORD_NAME, "009-old.wav");
	snprintf(r.files[1], TS_RECORD_NAME, "009-old.srt");
	snprintf(r.files[2], TS_RECORD_NAME, "%s", p->timing[0][0]); /* 001-....srt */
	put("009-old.wav");
	put("009-old.srt");
	put("009-old.txt"); /* the user's */
	put(p->timing[0][0]);
	ts_error err = {0};
	char *rec = ts_record_file(out, "009-old.wav");
	char *tmp = rec ? ts_temp_name(rec, (long)getpid()) : NULL;
	CHECK(ts_record_write(out, "009-old.wav", &r, (long)getpid(), &err) == 0);
	CHECK(tmp && ts_commit_files(NULL, &tmp, &rec, 1, (long)getpid(), &err) == 0);
	free(tmp);
	free(rec);
	ts_folder_remove_stale(p);
	CHECK(!present("009-old.wav") && !present("009-old.srt"));
	CHECK(!present(".tingshu/chapters/009-old.wav.rec"));
	CHECK(present("009-old.txt"));
	CHECK(present(p->timing[0][0]));
	/* The chapters of the plan keep their records (test_due's). */
	CHECK(present(".tingshu/chapters/001-第一章_出门.wav.rec"));

	/* A chapter built again that no longer makes a file of its old
	 * record (a timing format dropped): that file goes, the others stay;
	 * one that now has nothing to speak loses them all. */
	ts_record old = {.nfiles = 3};
	snprintf(old.files[0], TS_RECORD_NAME, "%s", p->names[1]);
	snprintf(old.files[1], TS_RECORD_NAME, "%s", p->timing[1][0]);
	snprintf(old.files[2], TS_RECORD_NAME, "002-第二章_路上.lrc");
	put(p->names[1]);
	put(p->timing[1][0]);
	put("002-第二章_路上.lrc");
	ts_folder_remove_superseded(p, 1, &old, 0);
	CHECK(present(p->names[1]) && present(p->timing[1][0]));
	CHECK(!present("002-第二章_路上.lrc"));
	ts_folder_remove_superseded(p, 1, &old, 1);
	CHECK(!present(p->names[1]) && !present(p->timing[1][0]));
	ts_plan_free(p);
}

/* Chapter c of the book test_chained() writes: short, but chapter 2 is
 * long (1,000 characters or more); edit changes chapter c's text. */
static void write_chapters(const char *path, int edit)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	for (int c = 0; f && c < 6; c++) {
		fprintf(f, "第%d章\n%s他走进了院子。\n", c + 1, c == edit ? "那天晚上，" : "");
		for (int k = 0; c == 2 && k < 100; k++)
			fputs("风吹过山谷里的竹林。", f); /* 10 characters */
		fputs("\n", f);
	}
	if (f)
		fclose(f);
}

/* The keys of the chapters of the book at path, into keys. */
static int keys_of(const char *path, char (*keys)[TS_HASH_HEX], int *chained)
{
	const char *was = book;
	book = path;
	ts_plan *p = plan_with(no_set);
	book = was;
	if (!p)
		return -1;
	int due[6];
	CHECK(p->n == 6);
	if (p->n == 6) {
		dues(p, due);
		memcpy(keys, p->keys, 6 * sizeof *keys);
		for (size_t i = 0; i < 6; i++)
			chained[i] = ts_chapter_chained(p->book, i);
	}
	ts_plan_free(p);
	return 0;
}

static void test_chained(void)
{
	char path[PATH_MAX + 16], keys[3][6][TS_HASH_HEX];
	int chained[6],
	    want[6] = {0, 1, 0, 0, 0, 1}; /* 2 is long, 3 follows it, 4 begins a group */
	snprintf(path, sizeof path, "%s/chained.txt", out);
	write_chapters(path, -1);
	if (keys_of(path, keys[0], chained))
		return;
	for (int i = 0; i < 6; i++)
		CHECK(chained[i] == want[i]);
	/* An edit of chapter 0 changes the key of chapter 1, spoken after it,
	 * and no other; one of chapter 4, chapter 5's. */
	write_chapters(path, 0);
	keys_of(path, keys[1], chained);
	write_chapters(path, 4);
	keys_of(path, keys[2], chained);
	for (int i = 0; i < 6; i++) {
		CHECK((strcmp(keys[0][i], keys[1][i]) != 0) == (i <= 1));
		CHECK((strcmp(keys[0][i], keys[2][i]) != 0) == (i >= 4));
	}
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: test_plan VOICES_DIR BOOK.txt SCRATCHDIR\n");
		return 2;
	}
	voices = argv[1];
	book = argv[2];
	snprintf(out, sizeof out, "%s/plan_scratch", argv[3]);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
	if (system(cmd) != 0 || mkdir(out, 0777) != 0) {
		fprintf(stderr, "%s: cannot make it\n", out);
		return 2;
	}
	test_names_and_selection();
	test_due();
	test_wholebook_keys();
	test_removed();
	test_chained();
	if (check_failures)
		fprintf(stderr, "test_plan: %d checks failed\n", check_failures);
	return check_failures ? 1 : 0;
}
