/* bookkinds.h - the kinds of whole-book file --book makes, as a table: a
 * row per kind, its make function in a module of its own (m4b.c: the
 * whole book as one M4B; epub.c: a read-aloud EPUB 3).  The book layer
 * goes through the rows: which kinds --book asks for, their names and
 * keys, making each from a ts_bookfile (bookfile.h).
 *
 * A new kind: a module with its make function, a row in bookkinds.c, and
 * TS_BOOK_KINDS one higher (a static assertion holds the two together). */
#ifndef TS_BOOKKINDS_H
#define TS_BOOKKINDS_H

#include "publish/bookfile.h"

typedef struct ts_book_kind {
	const char *name;  /* --book value, and its key in the manifest's book_files */
	const char *ext;   /* the file's extension: <book title>.EXT */
	const char *what;  /* what it is, for --book's message */
	const char *state; /* file of the output folder's state that keeps its key */
	int needs_vtt;     /* made from the .vtt timing files: --timing must include vtt */
	/* Made from the chapters' AAC (audio/aac.h): always (1), or but for
	 * chapters in MP3, which it holds as they are (2). */
	int needs_aac;
	ts_bookfile_make_fn make;
} ts_book_kind;

/* The number of rows: the size of the arrays kept per kind. */
#define TS_BOOK_KINDS 2

/* Make each kind of the set kinds of book at the temporary name of
 * paths[k], all at the same time: each but the last in a process of its
 * own (they write, and wait on the disk, each), or here when none can be
 * made.  errs[k].code: 0 when kind k was made, else what failed. */
void ts_book_kinds_make(unsigned kinds, const char *const paths[TS_BOOK_KINDS],
                        const ts_bookfile *book, ts_error errs[TS_BOOK_KINDS]);

/* The kinds, in the order the manifest lists them; static storage.  Kind
 * k is bit 1 << k of a set of kinds. */
extern const ts_book_kind ts_book_kinds[TS_BOOK_KINDS];

/* --book's comma-separated list of kind names (NULL or "none": no kind)
 * into *bits (bit 1 << k for row k): 0, or TS_EINVAL with err naming
 * what is not a kind and listing those that are, or TS_ENOMEM. */
int ts_book_kinds_parse(const char *list, unsigned *bits, ts_error *err);

/* Do the kinds (bits) want the chapters' AAC, the chapters being in the
 * audio format named format ("wav", "mp3" ...)? */
int ts_book_kinds_need_aac(unsigned kinds, const char *format);

/* TS_EINVAL with err saying that --cover goes with one of the kinds (a
 * --cover without --book), or TS_ENOMEM. */
int ts_book_kinds_cover_error(ts_error *err);

#endif
