/* m4b.h - the whole book as one M4B file: the chapters' AAC, each
 * encoded once (audio/aac.h), their packets one after the other in an MP4
 * with the "M4B " brand, a chapter mark at the start of each (the
 * QuickTime chapter track and the Nero chpl list, as FFmpeg's mp4 muxer
 * writes them), iTunes tags and a cover.
 *
 * Each chapter mark is where the chapter's first sample is in the file,
 * within half an AAC frame of where the chapters' lengths put it (the
 * manifest's chapter starts), and the book is as long as its chapters:
 * silent packets at the end of a chapter are left out to keep it so
 * (see packets_kept() in m4b.c).
 *
 * Streamed: a packet at a time from each chapter's AAC file, and
 * the sizes of the MP4's samples kept in an unnamed file (audio/mp4.h), so
 * that memory stays flat whatever the book's length.
 * Written at a temporary name made exclusively (ts_temp_name()), every
 * write checked. */
#ifndef TS_M4B_H
#define TS_M4B_H

#include "base/error.h"
#include "publish/bookfile.h"

#include <signal.h>
#include <stddef.h>

typedef struct ts_m4b_chapter {
	const char *title;
	const char *aac; /* path of its AAC file (audio/aac.h) */
} ts_m4b_chapter;

typedef struct ts_m4b_opts {
	const char *title;             /* the book: title and album tags */
	const char *artist;            /* the author, or NULL */
	const char *cover;             /* JPEG or PNG file, or NULL */
	long owner_pid;                /* tags the temporary name */
	volatile sig_atomic_t *cancel; /* set to stop (TS_ECANCELED), or NULL */
	int scratch; /* a file read once and removed (the EPUB's): not synced to disk */
} ts_m4b_opts;

/* Is the cover file at path one the M4B can hold (a readable regular file
 * of at most TS_M4B_COVER_MAX bytes, JPEG or PNG by its first bytes)?  0,
 * or a code with err saying what is wrong with it. */
#define TS_M4B_COVER_MAX (20u << 20)
int ts_m4b_check_cover(const char *path, ts_error *err);

/* Write the book of the n chapters ch (all at one sample rate, encoded
 * alike) at
 * the temporary name of path (ts_temp_name(path, o->owner_pid)), for the
 * caller to put in place.  Nothing is left there on failure.  0, or a code
 * with err filled. */
int ts_m4b_write(const char *path, const ts_m4b_chapter *ch, size_t n, const ts_m4b_opts *o,
                 ts_error *err);

/* The whole book as one M4B: the make function of its row of the
 * whole-book kinds (a ts_bookfile_make_fn, see bookfile.h). */
int ts_m4b_make(const char *path, const ts_bookfile *book, ts_error *err);

#endif
