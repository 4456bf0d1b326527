/* repeat.h - a chapter that a book file holds twice in a row.
 *
 * Files reposted from web-novel sites often hold a chapter twice, one
 * copy straight after the other: the same heading, the same text, give or
 * take a line of the site's.  The scan (split.c) hands each non-blank
 * line of the open chapter to ts_repeat_line() and, when the chapter
 * ends, asks ts_repeat_check() whether it is the last chapter kept over
 * again.  Only the lines of two chapters are kept (a hash and a count
 * each), so memory is in proportion to a chapter, not to the book; lines
 * are compared only when the headings match, so the scan stays linear. */
#ifndef TS_INPUT_REPEAT_H
#define TS_INPUT_REPEAT_H

#include <stddef.h>
#include <stdint.h>

/* A line's fingerprint starts as TS_REPEAT_SEED and takes each of its
 * visible characters (code points) with ts_repeat_hash(): spaces do not
 * count, so a copy that was re-indented is the same text.  FNV-1a over
 * code points: one multiplication a character (it is taken for every
 * character of a book), and a collision only makes two lines count as
 * the same in a comparison of two chapters. */
#define TS_REPEAT_SEED 14695981039346656037ull
static inline uint64_t ts_repeat_hash(uint64_t h, uint32_t cp)
{
	return (h ^ cp) * 1099511628211ull;
}

typedef struct ts_repeat_mark {
	uint64_t hash;
	size_t chars;
} ts_repeat_mark;

/* The lines of one chapter. */
typedef struct ts_repeat_lines {
	ts_repeat_mark *v;
	size_t n, cap;
	int over; /* too long (or no memory) to keep: never the same */
} ts_repeat_lines;

/* Zero it to start; ts_repeat_free() at the end. */
typedef struct ts_repeat {
	ts_repeat_lines open, kept; /* the open chapter's lines, the last kept's */
	char *kept_title;           /* NULL before a chapter was kept */
	long kept_line;
} ts_repeat;

enum {
	TS_REPEAT_NEW = 0,   /* another chapter */
	TS_REPEAT_SAME = 1,  /* the last kept again, or near enough: drop it */
	TS_REPEAT_OTHER = 2, /* the same heading over text of its own: keep it */
};

/* A non-blank line of the open chapter: its fingerprint, its visible
 * characters. */
void ts_repeat_line(ts_repeat *r, uint64_t hash, size_t chars);

/* The open chapter, titled title, has ended: is it the last chapter kept
 * again (TS_REPEAT_*)?  The same when the titles are equal but for their
 * spaces and the lines of the open chapter that the kept one does not
 * have hold at most a tenth of the characters of either (a copy, a copy
 * cut short, a copy with a line of the site's).  Unless new,
 * *kept_line is the line of the chapter kept. */
int ts_repeat_check(ts_repeat *r, const char *title, long *kept_line);

/* The open chapter is done with: kept (it becomes the one the next is
 * compared with; its heading at line) or not.  0 or TS_ENOMEM. */
int ts_repeat_close(ts_repeat *r, int kept, const char *title, long line);

void ts_repeat_free(ts_repeat *r);

#endif
