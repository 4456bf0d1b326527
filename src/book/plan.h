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

/* A chapter as the book files name it. */
typedef enum ts_listing {
	TS_LISTED_NOT, /* not named: missing, not as planned, or damaged (the book is not whole) */
	TS_LISTED_NAMED, /* named, as entry says */
	TS_LISTED_EMPTY, /* nothing to speak (an empty record of its key): not in the book */
} ts_listing;

/* Files to put in place with the book files (ts_folder_flush()):
 * tmp[i], a temporary name (ts_temp_name() of this process), at path[i]. */
typedef struct ts_landing {
	char *const *tmp, *const *path;
	size_t n;
} ts_landing;

typedef struct ts_listed {
	ts_listing state;
	ts_chapter_entry entry;
	int synth_rate, wpm; /* of its record */
} ts_listed;

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
	/* What the book files said when last written, per chapter; the
	 * chapters built since, their files at their temporary names (the
	 * record names them), to be put in place with the next book files;
	 * and when (ts_seconds()) they were last written, in how long. */
	ts_listed *listed;
	char *landed;
	size_t nlanded;
	double written_at, write_s;
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

/* Chapter i's key into p->keys[i] (p->keys holds one per chapter; call it
 * in order: a key may take in the one before, ts_chapter_key_chain()) and,
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

/* manifest.json, playlist.m3u and index.html from the chapter records,
 * each read again (p->listed gets what they say): exactly the chapters
 * whose files are in the folder, the book marked complete when every
 * chapter is there and up to date (p->keys), or known to have nothing to
 * speak (an empty record of its key); once it is, the files of chapters
 * it no longer has go (ts_folder_remove_stale).  The chapters landed
 * (p->landed) go into place with them (ts_folder_flush()).  When no
 * chapter is there yet, no book file is written.  0, or a code with err
 * filled. */
int ts_folder_write_book(ts_plan *p, ts_chapter_result *res, int *complete, ts_error *err);

/* The book files from p->listed, with the files of the chapters built
 * since they were written (p->landed: each as its record, at its
 * temporary name, says) and then l's (may be NULL) put in place before
 * them, all or none (ts_commit_files()), under the folder's "book" lock:
 * a book file never names a file that is not there.  The temporary files
 * are gone either way; on failure each chapter landed fails with err
 * (res[chapter], when res is not NULL) and is as it was before.  0, or a
 * code with err filled. */
int ts_folder_flush(ts_plan *p, const ts_landing *l, ts_chapter_result *res, ts_error *err);

/* Remove what no chapter of the plan owns any more: the files and record
 * of each recorded chapter not in the plan (only files its record
 * names). */
void ts_folder_remove_stale(const ts_plan *p);

/* Remove the files old named that chapter i's files no longer include
 * (a timing format dropped), or all of them when it has none now (empty:
 * nothing to speak). */
void ts_folder_remove_superseded(const ts_plan *p, size_t i, const ts_record *old, int empty);

#endif
