/* slug.h - file names from titles: chapter files are NNN-<title
 * slug>.<ext>, the whole-book files <book title slug>.<ext>.
 *
 * A slug comes from text in the book, so it is made safe: no path
 * separators, no control or invisible characters, no leading dots, at
 * most TS_SLUG_MAX bytes, cut at a character boundary; spaces become
 * '_'. */
#ifndef TS_SLUG_H
#define TS_SLUG_H

#define TS_SLUG_MAX 80

/* Write the slug of title into out (at least TS_SLUG_MAX + 1 bytes).
 * An empty result becomes "chapter". */
void ts_slug(const char *title, char *out);

#endif
