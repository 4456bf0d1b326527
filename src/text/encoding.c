/* encoding.c - telling the encoding of a text file (byte-order marks,
 * libuchardet) and decoding it to UTF-8 (iconv).
 *
 * The input layer (input/decode.c) decides when to call what: a file with a
 * UTF-8 byte-order mark, or that is valid UTF-8 all through, is used as it
 * is; only the rest comes here. */
#include "text/encoding.h"

#include "base/child.h"
#include "base/util.h"

#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uchardet.h>

#define DECODE_BLOCK 65536
/* The UTF-8 a block becomes goes out in pieces of this size (iconv says
 * E2BIG when one is full): under 128 KB, so that allocators keep it on
 * their heap instead of mapping and unmapping it for each file. */
#define DECODE_OUT DECODE_BLOCK

int ts_encoding_known(const char *name)
{
	if (!name || !*name || strchr(name, '/'))
		return 0;
	iconv_t cd = iconv_open("UTF-8", name);
	if (cd == (iconv_t)-1)
		return 0;
	iconv_close(cd);
	return 1;
}

int ts_encoding_is_utf8(const char *name)
{
	return strcasecmp(name, "UTF-8") == 0 || strcasecmp(name, "UTF8") == 0;
}

int ts_encoding_wide(const char *name)
{
	if (!ts_encoding_known(name))
		return 0;
	/* Where a NUL byte is the NUL character, one decodes to one NUL;
	 * where it is part of a wider character, alone it decodes to nothing
	 * (or is refused). */
	iconv_t cd = iconv_open("UTF-8", name);
	char in[1] = {0}, out[8];
	char *ip = in, *op = out;
	size_t il = 1, ol = sizeof out;
	int wide =
	    iconv(cd, &ip, &il, &op, &ol) == (size_t)-1 || il != 0 || op != out + 1 || out[0] != 0;
	iconv_close(cd);
	return wide;
}

static const struct {
	const char *name;
	unsigned char mark[4];
	size_t len;
} boms[] = {
    /* UTF-32LE first: its mark starts with UTF-16LE's. */
    {"UTF-32LE", {0xFF, 0xFE, 0x00, 0x00}, 4},
    {"UTF-32BE", {0x00, 0x00, 0xFE, 0xFF}, 4},
    {"UTF-8", {0xEF, 0xBB, 0xBF}, 3},
    {"UTF-16LE", {0xFF, 0xFE}, 2},
    {"UTF-16BE", {0xFE, 0xFF}, 2},
};

size_t ts_encoding_bom(const unsigned char *p, size_t n, const char **name)
{
	for (size_t i = 0; i < sizeof boms / sizeof boms[0]; i++) {
		if (n >= boms[i].len && memcmp(p, boms[i].mark, boms[i].len) == 0) {
			*name = boms[i].name;
			return boms[i].len;
		}
	}
	return 0;
}

const char *ts_encoding_label(const char *name)
{
	if (strcasecmp(name, "CP950") == 0)
		return "Big5 (CP950)";
	if (strcasecmp(name, "BIG5-HKSCS") == 0)
		return "Big5-HKSCS";
	return name;
}

/* ---- guessing ------------------------------------------------------ */

/* Detection policy for a file that is neither valid UTF-8 nor marked with
 * a byte-order mark.  Measured on windows of 5 to 500 characters of the
 * seed chapters and of other text, in GBK, GB18030 and Big5 (the figures
 * are in bench/README.md, "Figures that used to sit in code comments"):
 *
 *  1. uchardet reads the sample.  If it says UTF-16 or UTF-32 (newer
 *     versions tell them without a mark), that is the answer.
 *  2. NUL bytes in any other text mean binary data.
 *  3. A Japanese or Korean answer is believed and the file refused: their
 *     EUC byte ranges overlap the Chinese ones, so step 4 cannot tell them
 *     apart, and uchardet never gave such an answer for Chinese text here.
 *  4. Chinese text is GB18030 (a superset of GBK and GB2312) or Big5.
 *     Their byte ranges overlap - every Big5 sequence is valid GBK - and
 *     uchardet, right on longer text, names the wrong one or none at all
 *     (WINDOWS-1252, ISO-8859-7, "") for text of a few dozen characters.
 *     So both are tried strictly on the sample, and each is scored by the
 *     share of its non-ASCII characters that are common in Chinese text:
 *     the level-1 characters of GB2312 and of Big5 (3,755 and 5,401, the
 *     frequent ones by the standards' own account, taken from iconv's
 *     tables) and CJK punctuation.  Text read in the right encoding is
 *     almost all common characters; read in the wrong one it turns into
 *     kana, box drawing, private-use and rare characters and scores far
 *     lower.
 *  5. uchardet's answer stands unless the other encoding decodes with a
 *     larger share.  An encoding uchardet did not name must also have more
 *     than half of its characters common: a Latin-1 file that happens to
 *     decode as GB18030 is not taken for Chinese.  When neither decodes
 *     strictly, uchardet's answer still stands if the text before the
 *     fault is mostly common characters: the file is Chinese with a bad
 *     byte, and decoding it will report where.
 *  6. Big5 is read as CP950, the Big5 of Taiwan's Windows (glibc's BIG5
 *     maps the same; BIG5-HKSCS lacks some of its codes, such as the euro
 *     sign, and reads A1E3 as U+223C instead of the full-width tilde), and
 *     as BIG5-HKSCS only when CP950 cannot read the sample (text from Hong
 *     Kong).
 *  7. Anything else is refused: a sample with many control bytes as
 *     binary, the rest as text in an encoding we do not read.  --encoding
 *     reads any encoding iconv knows. */

enum family { FAM_NONE, FAM_GB, FAM_BIG5, FAM_UNICODE, FAM_JAPANESE_KOREAN };

static const struct {
	const char *detector; /* uchardet's name */
	enum family family;
} detector_names[] = {
    {"GB18030", FAM_GB},
    {"GBK", FAM_GB},
    {"GB2312", FAM_GB},
    {"BIG5", FAM_BIG5},
    {"CP950", FAM_BIG5},
    {"BIG5-HKSCS", FAM_BIG5},
    {"UTF-16", FAM_UNICODE},
    {"UTF-16LE", FAM_UNICODE},
    {"UTF-16BE", FAM_UNICODE},
    {"UTF-32", FAM_UNICODE},
    {"UTF-32LE", FAM_UNICODE},
    {"UTF-32BE", FAM_UNICODE},
    {"EUC-JP", FAM_JAPANESE_KOREAN},
    {"SHIFT_JIS", FAM_JAPANESE_KOREAN},
    {"EUC-KR", FAM_JAPANESE_KOREAN},
    {"UHC", FAM_JAPANESE_KOREAN},
    {"CP949", FAM_JAPANESE_KOREAN},
    {"JOHAB", FAM_JAPANESE_KOREAN},
};

/* Punctuation of Chinese text outside the Han block. */
static const struct {
	uint32_t lo, hi;
} common_punct[] = {
    {0x00B7, 0x00B7}, /* middle dot */
    {0x2010, 0x2027}, /* dashes, ‘’“”, …, ‧ */
    {0x3000, 0x303F}, /* 、。〈〉《》「」『』【】 */
    {0xFF01, 0xFF5E}, /* ，！？：；（） and other full-width forms */
};

#define HAN_FIRST 0x4E00
#define HAN_LAST  0x9FFF
#define HAN_BITS  ((HAN_LAST - HAN_FIRST + 1 + 7) / 8)

/* The level-1 (frequent) characters of a double-byte standard: leads
 * lead_lo..lead_hi, trails in the given ranges, up to code last. */
typedef struct level1 {
	const char *enc;
	unsigned lead_lo, lead_hi;
	unsigned trail_lo1, trail_hi1, trail_lo2, trail_hi2;
	unsigned last;
} level1;

static const level1 level1_sets[] = {
    {"GB18030", 0xB0, 0xD7, 0xA1, 0xFE, 0xA1, 0xFE, 0xD7F9}, /* GB2312 level 1 */
    {"CP950", 0xA4, 0xC6, 0x40, 0x7E, 0xA1, 0xFE, 0xC67E},   /* Big5 常用字 */
};

static void set_han(unsigned char *han, uint32_t c)
{
	if (c >= HAN_FIRST && c <= HAN_LAST)
		han[(c - HAN_FIRST) >> 3] |= (unsigned char)(1u << ((c - HAN_FIRST) & 7));
}

/* Fill the bit set han with the level-1 characters of both standards,
 * decoded one code at a time so that a code iconv does not map is just
 * skipped.  Without iconv support the set stays empty and only uchardet
 * decides. */
static int common_han(unsigned char *han)
{
	memset(han, 0, HAN_BITS);
	for (size_t s = 0; s < sizeof level1_sets / sizeof level1_sets[0]; s++) {
		const level1 *l = &level1_sets[s];
		iconv_t cd = iconv_open("UTF-32LE", l->enc);
		if (cd == (iconv_t)-1 && errno == ENOMEM)
			return TS_ENOMEM; /* not "no such encoding": the guess would differ */
		if (cd == (iconv_t)-1)
			continue;
		for (unsigned lead = l->lead_lo; lead <= l->lead_hi; lead++) {
			for (unsigned t = l->trail_lo1; t <= l->trail_hi2; t++) {
				if ((t > l->trail_hi1 && t < l->trail_lo2) ||
				    (lead << 8 | t) > l->last)
					continue;
				char in[2] = {(char)lead, (char)t};
				unsigned char out[8];
				char *ip = in, *op = (char *)out;
				size_t il = 2, ol = sizeof out;
				if (iconv(cd, &ip, &il, &op, &ol) != (size_t)-1 &&
				    op - (char *)out == 4)
					set_han(han, (uint32_t)out[0] | (uint32_t)out[1] << 8 |
					                 (uint32_t)out[2] << 16 |
					                 (uint32_t)out[3] << 24);
			}
		}
		iconv_close(cd);
	}
	return 0;
}

static int is_common(uint32_t c, const unsigned char *han)
{
	if (c >= HAN_FIRST && c <= HAN_LAST)
		return han[(c - HAN_FIRST) >> 3] >> ((c - HAN_FIRST) & 7) & 1;
	for (size_t i = 0; i < sizeof common_punct / sizeof common_punct[0]; i++)
		if (c >= common_punct[i].lo && c <= common_punct[i].hi)
			return 1;
	return 0;
}

/* One encoding tried on the sample. */
typedef struct trial {
	const char *name;
	int valid;               /* the sample decodes strictly */
	int nomem;               /* iconv could not start: out of memory */
	size_t nonascii, common; /* characters decoded (up to the first fault) */
} trial;

/* Decode s[0..n) strictly from t->name and count its characters. */
static void try_decode(trial *t, const char *s, size_t n, int whole, const unsigned char *han)
{
	t->valid = 0;
	t->nonascii = t->common = 0;
	iconv_t cd = iconv_open("UTF-32LE", t->name);
	if (cd == (iconv_t)-1) {
		t->nomem = errno == ENOMEM;
		return;
	}
	char *ip = (char *)s;
	size_t il = n;
	unsigned char out[4096];
	for (;;) {
		char *op = (char *)out;
		size_t ol = sizeof out;
		size_t r = iconv(cd, &ip, &il, &op, &ol);
		int e = errno;
		for (unsigned char *p = out; p + 4 <= (unsigned char *)op; p += 4) {
			uint32_t c = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			             (uint32_t)p[3] << 24;
			if (c >= 0x80) {
				t->nonascii++;
				t->common += (size_t)is_common(c, han);
			}
		}
		if (r != (size_t)-1) {
			t->valid = 1;
			break;
		}
		if (e == E2BIG)
			continue;
		/* EINVAL: the sample ends inside a character, which is fine
		 * when it is not the whole file. */
		t->valid = e == EINVAL && !whole;
		break;
	}
	iconv_close(cd);
}

/* Does a have a larger share of common characters than b? */
static int more_common(const trial *a, const trial *b)
{
	/* a->common / a->nonascii > b->common / b->nonascii, without division. */
	return (uint64_t)a->common * b->nonascii > (uint64_t)b->common * a->nonascii;
}

static int mostly_common(const trial *t)
{
	return t->nonascii > 0 && 2 * t->common > t->nonascii;
}

/* uchardet's answer as one of ours: its family, and for Unicode its name
 * (static storage) in *name. */
static enum family detector_family(const char *said, const char **name)
{
	for (size_t i = 0; i < sizeof detector_names / sizeof detector_names[0]; i++) {
		if (strcasecmp(said, detector_names[i].detector) == 0) {
			*name = detector_names[i].detector;
			return detector_names[i].family;
		}
	}
	return FAM_NONE;
}

struct sample {
	const char *s;
	size_t n;
};

/* uchardet's name for the sample in, into out.  uchardet is C++: short of
 * memory it throws std::bad_alloc, which aborts a C program, so it runs
 * in a child (ts_in_child()). */
static int detect(void *in, char *out, size_t outsz)
{
	const struct sample *s = in;
	memset(out, 0, outsz);
	uchardet_t ud = uchardet_new();
	if (!ud || uchardet_handle_data(ud, s->s, s->n) != 0) {
		if (ud)
			uchardet_delete(ud);
		return 1;
	}
	uchardet_data_end(ud);
	const char *said = uchardet_get_charset(ud);
	snprintf(out, outsz, "%s", said ? said : "");
	uchardet_delete(ud);
	return 0;
}

int ts_encoding_guess(const char *sample, size_t n, int whole, ts_guess *g)
{
	memset(g, 0, sizeof *g);
	g->nul = -1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)sample[i];
		if (c == 0 && g->nul < 0)
			g->nul = (long)i;
		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' &&
		     c != 0x1B) ||
		    c == 0x7F)
			g->controls++;
	}

	struct sample in = {sample, n};
	if (ts_in_child(detect, &in, g->detector, sizeof g->detector) != 0)
		return TS_ENOMEM;
	g->detector[sizeof g->detector - 1] = '\0';

	const char *unicode = NULL;
	enum family fam = detector_family(g->detector, &unicode);
	if (fam == FAM_UNICODE) {
		g->name = unicode;
		return 0;
	}
	if (g->nul >= 0)
		return TS_EBINARY;
	if (fam == FAM_JAPANESE_KOREAN)
		return TS_EDECODE;

	unsigned char *han = malloc(HAN_BITS);
	if (!han)
		return TS_ENOMEM;
	if (common_han(han)) {
		free(han);
		return TS_ENOMEM;
	}
	trial gb = {.name = "GB18030"}, big5 = {.name = "CP950"}, hk = {.name = "BIG5-HKSCS"};
	try_decode(&gb, sample, n, whole, han);
	try_decode(&big5, sample, n, whole, han);
	if (!big5.valid && !big5.nomem) {
		try_decode(&hk, sample, n, whole, han);
		if (hk.valid)
			big5 = hk;
	}
	free(han);
	if (gb.nomem || big5.nomem || hk.nomem)
		return TS_ENOMEM;

	/* uchardet's pick first, then the other; the other wins only with a
	 * larger share, and a pick uchardet did not make must be mostly
	 * common characters. */
	trial *named = fam == FAM_GB ? &gb : fam == FAM_BIG5 ? &big5 : NULL;
	trial *other = fam == FAM_BIG5 ? &gb : &big5;
	trial *pick = NULL;
	if (named && named->valid)
		pick = named;
	if (!named && gb.valid && mostly_common(&gb))
		pick = &gb; /* no opinion from uchardet: GB18030 is tried first */
	if (other->valid && mostly_common(other) && (!pick || more_common(other, pick)))
		pick = other;
	/* Chinese text in uchardet's encoding but for a bad byte: decoding
	 * the file will say where that is. */
	if (!pick && named && mostly_common(named))
		pick = named;
	if (pick) {
		g->name = pick->name;
		return 0;
	}
	/* Text has hardly any control bytes; binary data has about one in
	 * ten. */
	return g->controls * 100 > n ? TS_EBINARY : TS_EDECODE;
}

/* ---- decoding ----------------------------------------------------- */

/* Write decoded text, counting lines and refusing NUL characters. */
static int emit(const char *p, size_t n, FILE *out, ts_decode_fault *fault)
{
	const char *nul = memchr(p, '\0', n);
	size_t upto = nul ? (size_t)(nul - p) : n;
	for (const char *q = p; (q = memchr(q, '\n', upto - (size_t)(q - p))) != NULL; q++)
		fault->line++;
	if (nul)
		return TS_EBINARY;
	if (n && fwrite(p, 1, n, out) != n)
		return TS_EIO;
	return 0;
}

int ts_encoding_decode(FILE *in, long at, const char *enc, FILE *out, ts_decode_fault *fault)
{
	return ts_encoding_decode_cancel(in, at, enc, out, NULL, fault);
}

int ts_encoding_decode_cancel(FILE *in, long at, const char *enc, FILE *out,
                              volatile sig_atomic_t *cancel, ts_decode_fault *fault)
{
	int rc = 0;
	char *ibuf = NULL, *obuf = NULL;
	memset(fault, 0, sizeof *fault);
	fault->line = 1;
	fault->offset = -1;
	iconv_t cd = iconv_open("UTF-8", enc);
	if (cd == (iconv_t)-1)
		return errno == ENOMEM ? TS_ENOMEM : TS_EINVAL;
	/* A block's output (up to 3 times its size: a one-byte code to a
	 * three-byte character) may take several rounds of obuf (E2BIG). */
	ibuf = malloc(DECODE_BLOCK);
	obuf = malloc(DECODE_OUT);
	if (!ibuf || !obuf) {
		rc = TS_ENOMEM;
		goto out;
	}
	size_t have = 0; /* bytes in ibuf: the unread tail of the last block, then new ones */
	long off = at;   /* file offset of ibuf[0] */
	for (;;) {
		if (cancel && *cancel) {
			rc = TS_ECANCELED;
			goto out;
		}
		size_t got = fread(ibuf + have, 1, DECODE_BLOCK - have, in);
		if (got == 0 && ferror(in)) {
			rc = TS_EIO;
			goto out;
		}
		have += got;
		char *ip = ibuf;
		size_t il = have;
		while (il > 0) {
			char *op = obuf;
			size_t ol = DECODE_OUT;
			size_t r = iconv(cd, &ip, &il, &op, &ol);
			int e = errno;
			if ((rc = emit(obuf, (size_t)(op - obuf), out, fault)))
				goto out;
			if (r != (size_t)-1 || e == EINVAL)
				break; /* all done, or a character continues in the next block */
			if (e != E2BIG) {
				fault->offset = off + (long)(ip - ibuf);
				fault->nbytes = il < sizeof fault->bytes ? il : sizeof fault->bytes;
				memcpy(fault->bytes, ip, fault->nbytes);
				rc = TS_EDECODE;
				goto out;
			}
		}
		off += (long)(have - il);
		memmove(ibuf, ip, il);
		have = il;
		if (got == 0 || have == DECODE_BLOCK) {
			if (have > 0) {
				/* The file ends inside a character (or a "character"
				 * never ends: no progress on a whole block). */
				fault->offset = off;
				fault->nbytes =
				    have < sizeof fault->bytes ? have : sizeof fault->bytes;
				memcpy(fault->bytes, ibuf, fault->nbytes);
				fault->truncated = got == 0;
				rc = TS_EDECODE;
				goto out;
			}
			if (got == 0)
				break;
		}
	}
	/* Stateful encodings (ISO-2022, UTF-7) may owe a last character. */
	char *op = obuf;
	size_t ol = DECODE_OUT;
	if (iconv(cd, NULL, NULL, &op, &ol) == (size_t)-1) {
		rc = TS_EDECODE;
		goto out;
	}
	if ((rc = emit(obuf, (size_t)(op - obuf), out, fault)))
		goto out;
	if (fflush(out) != 0)
		rc = TS_EIO;
out:
	free(ibuf);
	free(obuf);
	iconv_close(cd);
	return rc;
}
