/* lexicon.h - the compiled pronunciation lexicon of a voice (for Chinese:
 * voices/zh/lexicon.bin, made by tools/build-lexicon.py from open data).
 *
 * It answers the two questions the g2p stage asks: which words of the
 * lexicon does the text at a position start with (with their frequency
 * and the reading of each of their characters), and how can a character
 * be read (most common reading first).  The file is mapped into memory
 * and used in place: opening it costs a few checks, not a parse, and
 * worker processes share its pages.
 *
 * Binary format, version 1.  All integers little-endian; every section
 * starts on a 4-byte boundary; offsets count bytes from the file start.
 *
 *   header (76 bytes)
 *     char magic[8]     "TSLEX\0\0\0"
 *     u32 version       1
 *     u32 file_size
 *     u32 nsyl          syllables ("zhong1", "lv4", tone 5 = neutral)
 *     u32 nchar         characters (BMP Han only)
 *     u32 npages        pages of 256 code points covered (cp < npages*256)
 *     u32 nwords        words of two characters or more
 *     u32 total         sum of word frequencies (ln(freq/total) scores a word)
 *     u32 max_len       longest word, in characters
 *     u32 off_syl_off   u32[nsyl+1]: syllable s is syl_str[off[s]..off[s+1])
 *     u32 off_syl_str   ASCII, not terminated
 *     u32 off_page_dir  u16[npages]: 0 = no character in the page, else
 *                       1 + its slot in pages
 *     u32 off_pages     u16[256] per slot: 0 = no character, else 1 + the
 *                       character's index
 *     u32 off_chars     nchar records of 12 bytes, in code point order:
 *                         u32 readings  low 24 bits: first entry in the
 *                                       readings array; high 8: count (1-7)
 *                         u32 group     index in the groups array of the
 *                                       words this character starts, or
 *                                       0xFFFFFFFF
 *                         u16 key       index of the character words are
 *                                       looked up by: its simplified form
 *                                       when it has exactly one (後 -> 后),
 *                                       else itself
 *                         u8  freq      the character as a one-character
 *                                       word: 0 = not one, else
 *                                       1 + round(16 ln(freq))
 *                         u8  reserved
 *     u32 off_cps       u16[nchar]: the code point of each character
 *     u32 off_readings  u16 syllable indexes, most common reading first
 *     u32 off_groups    u32 array; a group is: u32 n, then n pairs
 *                         (L | count << 8, byte offset in the words area)
 *                       for the words of L characters (ascending L) that
 *                       start with the character, each run of count
 *                       records sorted by key; then u32 m, and m entries
 *                         key2 | lengths << 16
 *                       sorted by key2: the second characters of those
 *                       words, with bit L-1 of lengths set when a word of
 *                       L characters starts with the two (a lookup only
 *                       searches the runs of those lengths)
 *     u32 off_words     word records of a run, each:
 *                         u16 key[L-1]  keys of characters 2..L
 *                         u8  freq      1 + round(16 ln(freq))
 *                         u8  bits[(3L+7)/8]  3 bits per character, the
 *                                       first in the lowest bits: index in
 *                                       the readings of the character's
 *                                       key, or 7 = open (the lexicon does
 *                                       not decide; context rules do)
 *
 * Words and their readings are stored under their keys, so simplified and
 * traditional text find the same entry. */
#ifndef TS_LEXICON_H
#define TS_LEXICON_H

#include "base/error.h"

#include <stddef.h>
#include <stdint.h>

#define TS_LEX_OPEN     7  /* reading index: not decided by the word */
#define TS_LEX_MAX_WORD 16 /* longest word the format allows */

typedef struct ts_lexicon ts_lexicon;

/* One word the text starts with. */
typedef struct ts_lexmatch {
	unsigned len;              /* characters */
	double logp;               /* ln(freq / total) */
	const unsigned char *bits; /* reading indexes, see ts_lexmatch_reading() */
} ts_lexmatch;

/* Map the lexicon file at path.  Returns NULL with err (may be NULL) set
 * to TS_ENOENT, TS_EIO, TS_EINVAL for a file that is not a lexicon of
 * this version, or TS_ENOMEM, with a message naming the file.  Free with
 * ts_lexicon_free(). */
ts_lexicon *ts_lexicon_open(const char *path, ts_error *err);
void ts_lexicon_free(ts_lexicon *lx);

/* Index of the character cp, or -1 when the lexicon does not know it. */
int ts_lexicon_char(const ts_lexicon *lx, uint32_t cp);

/* Key of character ch (an index from ts_lexicon_char()): the character
 * words are looked up by. */
int ts_lexicon_key(const ts_lexicon *lx, int ch);

/* The code point of character ch. */
uint32_t ts_lexicon_cp(const ts_lexicon *lx, int ch);

/* Number of readings of character ch (1-7), and the k-th (0 = most
 * common) as a syllable index. */
unsigned ts_lexicon_nreadings(const ts_lexicon *lx, int ch);
unsigned ts_lexicon_reading(const ts_lexicon *lx, int ch, unsigned k);

/* The syllable with index syl, tone digit included ("hang2"); *len gets
 * its length.  Not NUL-terminated; points into the mapped file. */
const char *ts_lexicon_syllable(const ts_lexicon *lx, unsigned syl, size_t *len);

/* Index of the syllable spelled s[0..n) ("hang2"), or -1. */
int ts_lexicon_find_syllable(const ts_lexicon *lx, const char *s, size_t n);

/* ln(freq / total) of character ch as a one-character word, or of a word
 * seen once when it is not one. */
double ts_lexicon_char_logp(const ts_lexicon *lx, int ch);

/* The score of a word the lexicon does not have: ln(1 / total). */
double ts_lexicon_unknown_logp(const ts_lexicon *lx);

/* Number of syllables (indexes are below it). */
unsigned ts_lexicon_nsyl(const ts_lexicon *lx);

/* Longest word, in characters. */
unsigned ts_lexicon_max_len(const ts_lexicon *lx);

/* Words of two characters or more that keys[0..n) starts with (keys from
 * ts_lexicon_key(), -1 for characters the lexicon does not know), shortest
 * first.  Stores at most max of them in out and returns how many. */
size_t ts_lexicon_match(const ts_lexicon *lx, const int *keys, size_t n, ts_lexmatch *out,
                        size_t max);

/* Reading index of the k-th character of a match: an index into the
 * readings of that character's key, or TS_LEX_OPEN. */
unsigned ts_lexmatch_reading(const ts_lexmatch *m, unsigned k);

#endif
