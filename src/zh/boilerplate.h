/* boilerplate.h - the lines of a web-novel file that are the site's or
 * the uploader's, not the story's, and are not spoken: "remember our
 * address" and other site ads, end and continue markers (本章完,
 * 本章未完，请点击下一页), the author's notes and requests (PS：求月票),
 * uploaders' credits, update notices, separator rows, page furniture
 * (上一页 目录 下一页).
 *
 * The patterns are data: voices/zh/boilerplate.txt, a word table (see
 * wordtab.h) whose format is documented at its top, read by lang.c.  This
 * module only interprets them.  A line is judged whole, as the input
 * layer reads it (input/reader.h), so that what is dropped is the same
 * for a build, `tingshu text`, `pinyin` and `speakers`.
 *
 * An ad or note pasted after a story's sentence (路很长。www.x.com 记住本站)
 * goes, the sentence stays: the line is cut after its last sentence end
 * after which the rest matches a rule by itself, when what comes before
 * matches none.
 *
 * An author's note under a line of its own (kind section in the patterns:
 * 完本感言) goes with the lines after it, up to the next chapter heading:
 * a check carries that from line to line (one check a text read in order).
 *
 * A heading with a request tacked on (第12章 决战（求月票）) keeps the
 * heading and loses the request: a bracketed group that ends a line that
 * is a chapter heading without it (zh/heading.h), and that an author's
 * rule (kinds note and update) matches by itself. */
#ifndef TS_BOILERPLATE_H
#define TS_BOILERPLATE_H

#include "base/error.h"
#include "zh/wordtab.h"

#include <stddef.h>

typedef struct ts_boilerplate ts_boilerplate;

/* Flags of a check. */
enum {
	/* Keep the author's notes, requests and update notices (kinds note
	 * and update); the site's and uploader's lines are still dropped. */
	TS_BOILERPLATE_KEEP_NOTES = 1,
};

/* The patterns of a word table in the format of boilerplate.txt (file
 * names it in messages).  Returns NULL with err filled, naming the file
 * and the entry, for a pattern or kind that is not one (TS_EINVAL), or
 * TS_ENOMEM.  words may be NULL (no patterns: nothing is dropped).  Free
 * with ts_boilerplate_free(). */
ts_boilerplate *ts_boilerplate_new(const ts_wordtab *words, const char *file, ts_error *err);
void ts_boilerplate_free(ts_boilerplate *bp);

/* What of a line is not spoken. */
typedef struct ts_unspoken {
	const char *reason; /* "site ad", "author's note" ...; static */
	size_t start;       /* the bytes dropped are [start, the line's end) */
	int whole;          /* the whole line (start 0), else its end */
} ts_unspoken;

/* Told of each line or part of a line dropped: line (of the text read,
 * from 1), why and how much (u), and the text dropped (not
 * NUL-terminated). */
typedef void (*ts_dropped_fn)(void *ud, long line, const ts_unspoken *u, const char *text,
                              size_t len);

typedef struct ts_boilerplate_check ts_boilerplate_check;

/* A check of lines against bp (may be NULL: nothing is dropped) with
 * flags (TS_BOILERPLATE_*); its scratch memory is its own, so that bp is
 * shared.  NULL when out of memory; free with
 * ts_boilerplate_check_free(). */
ts_boilerplate_check *ts_boilerplate_check_new(const ts_boilerplate *bp, unsigned flags);
void ts_boilerplate_check_free(ts_boilerplate_check *c);

/* Judge line[0..len) (UTF-8, no line ending).  Returns 1 with *u filled
 * when it, or its end, is not to be spoken, else 0.  Lines longer than a
 * few kilobytes are story (returns 0). */
int ts_boilerplate_check_line(ts_boilerplate_check *c, const char *line, size_t len,
                              ts_unspoken *u);

/* The length of title[0..len) without a request tacked on its end (see
 * above), for a chapter's title: len when there is none (or no memory to
 * look). */
size_t ts_boilerplate_title(const ts_boilerplate *bp, unsigned flags, const char *title,
                            size_t len);

#endif
