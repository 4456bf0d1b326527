/* wordtab.h - a table of words of the language data, read from a file:
 * the measure words, units, currencies and other words the normalizer
 * looks for around numbers and symbols (see lang.h for the files).
 *
 * A file is UTF-8, one entry a line: WORD, or WRITTEN<TAB>SAID in a
 * table of readings (SAID may be empty).  Blank lines and lines starting
 * with # are skipped, but "#<TAB>SAID" is the entry for the sign # itself.
 * The entries keep the order of the file: the caller decides what a tie
 * between them means. */
#ifndef TS_WORDTAB_H
#define TS_WORDTAB_H

#include "base/error.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ts_word {
	const char *text; /* as written, UTF-8, never empty */
	size_t len;       /* its length in characters */
	uint32_t first;   /* its first character: a quick test before a match */
	const char *said; /* its reading; "" in a plain list of words */
} ts_word;

typedef struct ts_wordtab ts_wordtab;

/* Read the table in path; with said set, each line is WRITTEN<TAB>SAID,
 * else a WORD alone.  Returns NULL with err filled (file and line) on
 * failure: TS_ENOENT when there is no such file, TS_EIO, TS_ETOOLONG,
 * TS_ENOMEM, or TS_EINVAL for a line that is not an entry.  Free with
 * ts_wordtab_free(). */
ts_wordtab *ts_wordtab_load(const char *path, int said, ts_error *err);
void ts_wordtab_free(ts_wordtab *t);

/* The entries of t, in the order of the file; *n gets how many (0 for a
 * NULL table).  Owned by the table. */
const ts_word *ts_wordtab_words(const ts_wordtab *t, size_t *n);

#endif
