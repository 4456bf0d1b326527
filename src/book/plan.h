/* plan.h - the planned book as the book layer's own modules see it:
 * plan.c makes the plan, build.c runs the build, folder.c keeps the
 * output folder (its checks, the book files made from the chapter
 * records, the files a build no longer makes), wholebook.c the files of
 * --book. */
#ifndef TS_PLAN_H
#define TS_PLAN_H

#include "publish/cues.h"
#include "audio/master.h"
#include "audio/write.h"
#include "base/hash.h"
#include "book/workers.h"
#include "input/book.h"
#include "publish/bookkinds.h"
#include "publish/manifest.h"
#include "speech/reading.h"
#include "book/records.h"
#include "tingshu.h"

struct ts_plan {
	ts_build_opts o; /* its strings are the caller's */
	ts_reading rd;
	const ts_format *fmt;
	ts_master_opts mo;
	ts_book *book;
	size_t n;
	int base; /* number of the first chapter: 0 when it is the front matter */
	char **names, **paths;
	char *(*timing)[TS_CUES_NFORMATS]; /* timing file names by format */
	unsigned timing_mask;              /* TS_CUES_* */
	char *selected;                    /* per chapter: --chapters / --shard take it */
	size_t inputs_failed;
	ts_diag_fn diag;
	void *ud;
	unsigned book_kinds; /* --book: bit k for ts_book_kinds[k] */
	ts_voicing voicing;  /* --dialogue voices or a cast file: its dialogue set */
	/* Then each speaker (one person) and the preset cast, in order of
	 * first quotation: for the manifest. */
	ts_cast_pair *cast; /* the voices' names are in voicing.voices */
	size_t ncast, cast_cap;
	/* While building. */
	char (*keys)[TS_HASH_HEX]; /* of each chapter */
	/* Each whole-book file of --book, by its row of ts_book_kinds. */
	struct {
		char key[TS_HASH_HEX]; /* of the file the book makes now */
		char *name;            /* its name in the folder */
		const char *listed;    /* name when the folder holds that file, else NULL */
	} whole[TS_BOOK_KINDS];
};

/* --book's comma-separated list into p->book_kinds (bit k:
 * ts_book_kinds[k]), and what the kinds need of the other settings
 * (p->timing_mask parsed): --cover goes with a kind and is a picture they
 * can hold, a kind made from the .vtt files needs vtt in --timing.  0,
 * or TS_EINVAL with err saying what is wrong. */
int ts_wholebook_check(ts_plan *p, ts_error *err);

/* Once the chapters' keys are known: the key and name of each whole-book
 * file, and whether the folder holds it already (p->whole[].listed, which
 * the manifest goes by).  0, or a code with err filled (the cover cannot be read). */
int ts_wholebook_plan(ts_plan *p, ts_error *err);

/* The bit rate of the chapters' AAC when a whole-book file of --book is
 * made from it (publish/bookkinds.h), else 0. */
int ts_wholebook_aac_rate(const ts_plan *p);

/* Make the whole-book files that are not up to date, from the finished
 * chapters (call it when the book is complete), and put each in place
 * with its key and the manifest that names it.  0, or a code with err
 * filled. */
int ts_wholebook_update(ts_plan *p, ts_error *err);

/* Chapter i's key into p->keys[i] (p->keys holds one per chapter) and,
 * when this build is asked for it (--chapters, --shard), what it does
 * with it (ts_record_due() of its record, read into *old; *had says
 * whether there is one): 1 with *due set, 0 when it is not asked for, or
 * a negative code with err filled when its text cannot be read. */
int ts_plan_due(ts_plan *p, size_t i, ts_record *old, int *had, ts_due *due, ts_error *err);

/* Is chapter i the first of its input (the first chapter, or one read
 * from another input than the chapter before it)?  What tells a book's
 * inputs, for its identity and for the book a folder holds. */
int ts_plan_input_starts(const ts_plan *p, size_t i);

/* outdir/name into out (at least PATH_MAX bytes). */
void ts_plan_path(const ts_plan *p, const char *name, char *out);

/* The output folder can be written, holds no book but a tingshu one (a
 * manifest.json without tingshu's state is someone else's: TS_EEXIST),
 * and has its state folder.  0, 1 with err filled when it holds a
 * tingshu book but cannot be written (enough for a book with nothing to
 * make), or a code with err filled. */
int ts_folder_open(const ts_plan *p, ts_error *err);

/* Remove the temporary files of build pid of this machine, or with -1 of
 * any build of this machine that is gone (see ts_temp_sweep). */
void ts_folder_sweep(const ts_plan *p, long pid);

/* manifest.json, playlist.m3u and index.html from the chapter records:
 * exactly the chapters whose files are in the folder, the book marked
 * complete when every chapter is there and up to date (p->keys), or known
 * to have nothing to speak (an empty record of its key); once it
 * is, the files of chapters it no longer has go (ts_folder_remove_stale).
 * When no chapter is there yet, nothing is written and *present is 0.
 * Done under the folder's "book" lock.  0, or a code with err filled. */
int ts_folder_write_book(const ts_plan *p, size_t *present, int *complete, ts_error *err);

/* Put the files of chapter l->chapter in place together with the book
 * files remade to include it (its record read from its temporary file),
 * all or none (ts_commit_files()), under the "book" lock: the book files
 * never lag behind the chapters, whichever process runs short of disk or
 * memory.  The temporary files are gone either way.  0, or a code with
 * err filled. */
int ts_folder_land(const ts_plan *p, const ts_landing *l, ts_error *err);

/* Remove what no chapter of the plan owns any more: the files and record
 * of each recorded chapter not in the plan (only files its record
 * names). */
void ts_folder_remove_stale(const ts_plan *p);

/* Remove the files old named that chapter i's files no longer include
 * (a timing format dropped), or all of them when it has none now (empty:
 * nothing to speak). */
void ts_folder_remove_superseded(const ts_plan *p, size_t i, const ts_record *old, int empty);

#endif
