/* lexicon.c - the mapped pronunciation lexicon (see lexicon.h for the
 * format).
 *
 * Bad-input policy: the whole file is checked when it is opened (every
 * offset, count, index and reading of every record), so that the lookups,
 * which run for every character of a book, can trust it and stay simple.
 * A file that fails a check is refused with the reason; it is never read
 * past its end.  The checks walk each record once, a cost paid once per
 * open and small beside a build. */
#define _GNU_SOURCE /* qsort_r */
#include "zh/lexicon.h"

#include "zh/mapped.h"

#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_SIZE 76
#define CHAR_SIZE   12
#define NO_GROUP    0xFFFFFFFFu

/* The header: magic, version, size (see mapped.h), then 15 fields: the
 * counts nsyl, nchar, npages, nwords, total, max_len and the offsets of
 * the nine sections. */
static const ts_mapped_format format = {
    .what = "tingshu lexicon",
    .tool = "tools/build-lexicon.py",
    .magic = "TSLEX\0\0\0",
    .version = 1,
    .nfields = (HEADER_SIZE - TS_MAPPED_PREFIX) / 4,
    .min_size = 1,
    .max_size = SIZE_MAX,
    .bad_size = "truncated",
};

struct ts_lexicon {
	ts_mapped file;
	uint32_t nsyl, nchar, npages, nwords, max_len;
	size_t nslots;       /* pages of 256 entries */
	size_t nreadings;    /* u16 entries */
	size_t ngroup_words; /* u32 entries */
	size_t words_size;   /* bytes */
	const unsigned char *syl_off, *syl_str, *page_dir, *pages, *chars, *cps, *readings, *groups,
	    *words;
	double ln_total;
	uint16_t *by_text; /* the syllables in the order of their text */
};

/* Bytes of a word record of L characters. */
static size_t record_size(unsigned L)
{
	return 2 * (L - 1) + 1 + (3 * L + 7) / 8;
}

static const unsigned char *char_rec(const ts_lexicon *lx, int ch)
{
	return lx->chars + (size_t)ch * CHAR_SIZE;
}

static unsigned bits_at(const unsigned char *bits, unsigned k)
{
	unsigned pos = 3 * k, shift = pos % 8;
	unsigned v = bits[pos / 8] >> shift;
	if (shift > 5)
		v |= (unsigned)bits[pos / 8 + 1] << (8 - shift);
	return v & 7;
}

/* Compare a record's keys with keys[0..n). */
static int cmp_keys(const unsigned char *r, const int *keys, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		int a = ts_le16(r + 2 * k);
		if (a != keys[k])
			return a < keys[k] ? -1 : 1;
	}
	return 0;
}

/* ---- checks -------------------------------------------------------- */

/* The records of a run: keys known, in strictly ascending order, readings
 * within each character's list. */
static int check_words(const ts_lexicon *lx, int first, const unsigned char *run, unsigned L,
                       uint32_t count)
{
	size_t rs = record_size(L);
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *r = run + i * rs;
		int keys[TS_LEX_MAX_WORD];
		keys[0] = first;
		for (unsigned k = 1; k < L; k++) {
			keys[k] = ts_le16(r + 2 * (k - 1));
			if ((uint32_t)keys[k] >= lx->nchar)
				return -1;
		}
		if (i > 0 && cmp_keys(r - rs, keys + 1, L - 1) >= 0)
			return -1;
		if (r[2 * (L - 1)] == 0)
			return -1;
		const unsigned char *bits = r + 2 * (L - 1) + 1;
		for (unsigned k = 0; k < L; k++) {
			unsigned v = bits_at(bits, k);
			if (v != TS_LEX_OPEN && v >= ts_lexicon_nreadings(lx, keys[k]))
				return -1;
		}
	}
	return 0;
}

/* The header's fields (the common part is checked by ts_mapped_open()):
 * counts, and the offsets of the sections, stored in off[0..9) with the
 * file's size in off[9]; sets where each section starts. */
static const char *check_header(ts_lexicon *lx, uint32_t off[10])
{
	const ts_mapped *m = &lx->file;
	lx->nsyl = m->field[0];
	lx->nchar = m->field[1];
	lx->npages = m->field[2];
	lx->nwords = m->field[3];
	uint32_t total = m->field[4];
	lx->max_len = m->field[5];
	for (int i = 0; i < 9; i++)
		off[i] = m->field[6 + i];
	off[9] = (uint32_t)m->size;
	for (int i = 0; i < 9; i++)
		if (off[i] < HEADER_SIZE || off[i] % 4 || off[i] > off[i + 1])
			return "bad section offsets";
	if (total == 0 || lx->nchar == 0 || lx->nchar > 0xFFFF || lx->nsyl == 0 ||
	    lx->nsyl > 0xFFFF || lx->max_len > TS_LEX_MAX_WORD || lx->npages > 0x10000 / 256)
		return "bad counts";
	const unsigned char **sec[9] = {&lx->syl_off,  &lx->syl_str, &lx->page_dir,
	                                &lx->pages,    &lx->chars,   &lx->cps,
	                                &lx->readings, &lx->groups,  &lx->words};
	for (int i = 0; i < 9; i++)
		if (!(*sec[i] = ts_mapped_at(m, off[i], off[i + 1] - off[i])))
			return "bad section offsets";
	lx->nslots = (off[4] - off[3]) / 512;
	lx->nreadings = (off[7] - off[6]) / 2;
	lx->ngroup_words = (off[8] - off[7]) / 4;
	lx->words_size = off[9] - off[8];
	lx->ln_total = log((double)total);
	return NULL;
}

/* The syllables, and the pages that map code points to characters. */
static const char *check_tables(const ts_lexicon *lx, const uint32_t off[10])
{
	if ((size_t)(lx->nsyl + 1) * 4 > off[1] - off[0])
		return "syllable table";
	for (uint32_t s = 0; s < lx->nsyl; s++) {
		uint32_t a = ts_le32(lx->syl_off + 4 * s), b = ts_le32(lx->syl_off + 4 * s + 4);
		if (a >= b || b > off[2] - off[1] || b - a > 8)
			return "syllable table";
	}
	if ((size_t)lx->npages * 2 > off[3] - off[2])
		return "page directory";
	for (uint32_t p = 0; p < lx->npages; p++)
		if (ts_le16(lx->page_dir + 2 * p) > lx->nslots)
			return "page directory";
	for (size_t i = 0; i < lx->nslots * 256; i++)
		if (ts_le16(lx->pages + 2 * i) > lx->nchar)
			return "pages";
	return NULL;
}

/* The characters: their code points and their readings. */
static const char *check_chars(const ts_lexicon *lx, const uint32_t off[10])
{
	if ((size_t)lx->nchar * CHAR_SIZE > off[5] - off[4] ||
	    (size_t)lx->nchar * 2 > off[6] - off[5])
		return "character table";
	/* The page table and the code points agree, both ways. */
	for (uint32_t c = 0; c < lx->nchar; c++)
		if (ts_lexicon_char(lx, ts_le16(lx->cps + 2 * c)) != (int)c)
			return "code points";
	for (uint32_t c = 0; c < lx->nchar; c++) {
		const unsigned char *r = char_rec(lx, (int)c);
		uint32_t rd = ts_le32(r), first = rd & 0xFFFFFF, n = rd >> 24;
		if (n < 1 || n > 7 || first + n > lx->nreadings || ts_le16(r + 8) >= lx->nchar)
			return "character table";
		for (uint32_t k = 0; k < n; k++)
			if (ts_le16(lx->readings + 2 * (first + k)) >= lx->nsyl)
				return "readings";
	}
	return NULL;
}

/* The word group at g of character c: its runs of words, one per length,
 * lengths ascending, then the second characters of its words, ascending,
 * each with lengths that have a run. */
static const char *check_group(const ts_lexicon *lx, uint32_t c, uint32_t g)
{
	if (g >= lx->ngroup_words)
		return "word groups";
	uint32_t n = ts_le32(lx->groups + 4 * (size_t)g);
	if (n > TS_LEX_MAX_WORD || (size_t)g + 1 + 2 * (size_t)n > lx->ngroup_words)
		return "word groups";
	unsigned prev = 1;
	uint32_t lengths = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t e = ts_le32(lx->groups + 4 * ((size_t)g + 1 + 2 * i));
		uint32_t at = ts_le32(lx->groups + 4 * ((size_t)g + 2 + 2 * i));
		unsigned L = e & 0xFF;
		uint32_t count = e >> 8;
		if (L <= prev || L > lx->max_len || at > lx->words_size ||
		    (uint64_t)count * record_size(L) > lx->words_size - at)
			return "word groups";
		prev = L;
		lengths |= 1u << (L - 1);
		if (check_words(lx, (int)c, lx->words + at, L, count))
			return "word records";
	}
	size_t p = (size_t)g + 1 + 2 * (size_t)n;
	if (p >= lx->ngroup_words)
		return "word groups";
	uint32_t np = ts_le32(lx->groups + 4 * p);
	if (np > lx->nchar || p + 1 + np > lx->ngroup_words)
		return "second characters";
	for (uint32_t i = 0; i < np; i++) {
		uint32_t e = ts_le32(lx->groups + 4 * (p + 1 + i));
		if ((e & 0xFFFF) >= lx->nchar || (e >> 16) == 0 || (e >> 16) & ~lengths ||
		    (i > 0 && (e & 0xFFFF) <= (ts_le32(lx->groups + 4 * (p + i)) & 0xFFFF)))
			return "second characters";
	}
	return NULL;
}

/* Everything the lookups rely on; 0 or a reason.  Each check may rely on
 * the ones before it. */
static const char *check(ts_lexicon *lx)
{
	uint32_t off[10];
	const char *why;
	if ((why = check_header(lx, off)) || (why = check_tables(lx, off)) ||
	    (why = check_chars(lx, off)))
		return why;
	for (uint32_t c = 0; c < lx->nchar; c++) {
		uint32_t g = ts_le32(char_rec(lx, (int)c) + 4);
		if (g != NO_GROUP && (why = check_group(lx, c, g)))
			return why;
	}
	return NULL;
}

/* ---- open and close ------------------------------------------------ */

/* Text s[0..n) against syllable t: as memcmp, the shorter first. */
static int cmp_text(const ts_lexicon *lx, const char *s, size_t n, unsigned t)
{
	size_t len;
	const char *u = ts_lexicon_syllable(lx, t, &len);
	int c = memcmp(s, u, n < len ? n : len);
	return c ? c : (n > len) - (n < len);
}

static int cmp_syllables(const void *a, const void *b, void *lx)
{
	unsigned x = *(const uint16_t *)a, y = *(const uint16_t *)b;
	size_t len;
	const char *s = ts_lexicon_syllable(lx, x, &len);
	int c = cmp_text(lx, s, len, y);
	return c ? c : (x > y) - (x < y);
}

/* lx->by_text: the syllables sorted by text, then by number, so that
 * ts_lexicon_find_syllable() is a binary search (the rules and the user's
 * lexicons look up a syllable for each line). */
static int sort_syllables(ts_lexicon *lx)
{
	lx->by_text = malloc(lx->nsyl * sizeof *lx->by_text);
	if (!lx->by_text)
		return -1;
	for (uint32_t i = 0; i < lx->nsyl; i++)
		lx->by_text[i] = (uint16_t)i;
	qsort_r(lx->by_text, lx->nsyl, sizeof *lx->by_text, cmp_syllables, lx);
	return 0;
}

ts_lexicon *ts_lexicon_open(const char *path, ts_error *err)
{
	ts_lexicon *lx = calloc(1, sizeof *lx);
	if (!lx) {
		ts_error_set(err, TS_ENOMEM, NULL);
		return NULL;
	}
	if (ts_mapped_open(&lx->file, path, &format, err)) {
		free(lx);
		return NULL;
	}
	const char *why = check(lx);
	if (why || sort_syllables(lx) != 0) {
		if (why)
			ts_mapped_bad(&lx->file, path, why, err);
		else
			ts_error_set(err, TS_ENOMEM, NULL);
		ts_lexicon_free(lx);
		lx = NULL;
	}
	return lx;
}

void ts_lexicon_free(ts_lexicon *lx)
{
	if (!lx)
		return;
	ts_mapped_close(&lx->file);
	free(lx->by_text);
	free(lx);
}

/* ---- lookups ------------------------------------------------------- */

int ts_lexicon_char(const ts_lexicon *lx, uint32_t cp)
{
	uint32_t p = cp >> 8;
	if (p >= lx->npages)
		return -1;
	unsigned slot = ts_le16(lx->page_dir + 2 * p);
	if (!slot)
		return -1;
	return (int)ts_le16(lx->pages + 2 * ((size_t)(slot - 1) * 256 + (cp & 0xFF))) - 1;
}

uint32_t ts_lexicon_cp(const ts_lexicon *lx, int ch)
{
	return ts_le16(lx->cps + 2 * (size_t)ch);
}

int ts_lexicon_key(const ts_lexicon *lx, int ch)
{
	return ts_le16(char_rec(lx, ch) + 8);
}

unsigned ts_lexicon_nreadings(const ts_lexicon *lx, int ch)
{
	return ts_le32(char_rec(lx, ch)) >> 24;
}

unsigned ts_lexicon_reading(const ts_lexicon *lx, int ch, unsigned k)
{
	uint32_t rd = ts_le32(char_rec(lx, ch));
	if (k >= rd >> 24)
		k = 0;
	return ts_le16(lx->readings + 2 * ((rd & 0xFFFFFF) + k));
}

const char *ts_lexicon_syllable(const ts_lexicon *lx, unsigned syl, size_t *len)
{
	if (syl >= lx->nsyl) {
		*len = 0;
		return "";
	}
	uint32_t a = ts_le32(lx->syl_off + 4 * syl), b = ts_le32(lx->syl_off + 4 * syl + 4);
	*len = b - a;
	return (const char *)lx->syl_str + a;
}

int ts_lexicon_find_syllable(const ts_lexicon *lx, const char *s, size_t n)
{
	/* The first syllable not before s: the lowest number of that text. */
	size_t lo = 0, hi = lx->nsyl;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_text(lx, s, n, lx->by_text[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < lx->nsyl && cmp_text(lx, s, n, lx->by_text[lo]) == 0 ? lx->by_text[lo] : -1;
}

double ts_lexicon_char_logp(const ts_lexicon *lx, int ch)
{
	unsigned q = char_rec(lx, ch)[10];
	return q ? (q - 1) / 16.0 - lx->ln_total : -lx->ln_total;
}

double ts_lexicon_unknown_logp(const ts_lexicon *lx)
{
	return -lx->ln_total;
}

unsigned ts_lexicon_nsyl(const ts_lexicon *lx)
{
	return lx->nsyl;
}

unsigned ts_lexicon_max_len(const ts_lexicon *lx)
{
	return lx->max_len;
}

size_t ts_lexicon_match(const ts_lexicon *lx, const int *keys, size_t n, ts_lexmatch *out,
                        size_t max)
{
	if (n < 2 || keys[0] < 0 || max == 0)
		return 0;
	uint32_t g = ts_le32(char_rec(lx, keys[0]) + 4);
	if (g == NO_GROUP)
		return 0;
	/* Only the characters the lexicon knows can be part of a word. */
	size_t known = 1;
	while (known < n && known < lx->max_len && keys[known] >= 0)
		known++;
	if (known < 2)
		return 0;
	const unsigned char *grp = lx->groups + 4 * (size_t)g;
	uint32_t ng = ts_le32(grp);
	/* The lengths of the words that start with these two characters. */
	const unsigned char *pairs = grp + 4 + 8 * (size_t)ng;
	size_t lo = 0, hi = ts_le32(pairs);
	uint32_t lengths = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t e = ts_le32(pairs + 4 + 4 * mid);
		int k2 = (int)(e & 0xFFFF);
		if (k2 == keys[1]) {
			lengths = e >> 16;
			break;
		}
		if (k2 < keys[1])
			lo = mid + 1;
		else
			hi = mid;
	}
	lengths &= known >= 16 ? 0xFFFFu : (1u << known) - 1;
	size_t found = 0;
	for (uint32_t i = 0; i < ng && found < max && lengths; i++) {
		uint32_t e = ts_le32(grp + 4 + 8 * i);
		unsigned L = e & 0xFF;
		if (!(lengths & 1u << (L - 1)))
			continue;
		lengths &= ~(1u << (L - 1));
		size_t rs = record_size(L);
		const unsigned char *run = lx->words + ts_le32(grp + 8 + 8 * i);
		lo = 0;
		hi = e >> 8;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = cmp_keys(run + mid * rs, keys + 1, L - 1);
			if (c == 0) {
				const unsigned char *r = run + mid * rs;
				out[found].len = L;
				out[found].logp = (r[2 * (L - 1)] - 1) / 16.0 - lx->ln_total;
				out[found].bits = r + 2 * (L - 1) + 1;
				found++;
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	return found;
}

unsigned ts_lexmatch_reading(const ts_lexmatch *m, unsigned k)
{
	return k < m->len ? bits_at(m->bits, k) : TS_LEX_OPEN;
}
