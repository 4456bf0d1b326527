/* bookfile.h - a book as its whole-book files see it: the title, author
 * and cover, and the finished chapters in order, each with its audio file
 * and its WebVTT timing file.  Nothing of how the book was planned or
 * built: each kind of whole-book file (bookkinds.h) is made from this
 * alone. */
#ifndef TS_BOOKFILE_H
#define TS_BOOKFILE_H

#include "base/error.h"

#include <signal.h>
#include <stddef.h>

/* A finished chapter. */
typedef struct ts_bookfile_chapter {
	const char *title;
	const char *audio; /* path of its audio file */
	const char *vtt;   /* path of its WebVTT timing file, or NULL: none written */
	const char *aac;   /* path of its AAC (audio/aac.h), or NULL: none made */
} ts_bookfile_chapter;

/* The book; its strings and chapters are the caller's. */
typedef struct ts_bookfile {
	const char *title;
	const char *author;       /* or NULL */
	const char *cover;        /* a JPEG or PNG file (checked), or NULL */
	int quality;              /* --quality, or TS_QUALITY_DEFAULT */
	const char *audio_format; /* the chapters' audio format: "wav", "mp3" ... */
	/* The folder where a kind may make files on the way: named there
	 * with ts_temp_name() and removed before its make function returns. */
	const char *workdir;
	long owner_pid; /* tags the temporary names */
	const ts_bookfile_chapter *chapters;
	size_t n;
	/* Set (by a signal handler) to stop: the make function then fails
	 * with TS_ECANCELED, nothing left.  NULL: never. */
	volatile sig_atomic_t *cancel;
} ts_bookfile;

/* Make a whole-book file of book at the temporary name of path
 * (ts_temp_name(path, book->owner_pid)), for the caller to put in place;
 * nothing is left there on failure.  0, or a code with err filled. */
typedef int (*ts_bookfile_make_fn)(const char *path, const ts_bookfile *book, ts_error *err);

#endif
