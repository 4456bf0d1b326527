/* normalize.c - numbers, symbols, lookalikes and acronyms (see normalize.h).
 *
 * The text of a piece is decoded into code points (lookalikes repaired on
 * the way), then scanned once: a number is read together with what stands
 * around it (a sign or currency before it; a unit, %, a range, a date or
 * clock separator after it; 第, 年, a measure word, a code keyword near
 * it), because that decides how a narrator says it.  Every rule below is a
 * table or a small function named for the reading it makes.
 *
 * Conventions chosen where narrators differ: a number that is a name is
 * said digit by digit, with 幺 for 1 when it is short (110, a room, a
 * flight: read_name_digits()) and 一 in long codes; 0 is always 零.  A
 * minus is 减 only inside an expression (a run with =, +, ×, <, ≥, a
 * power ...), else a range or a sign.  No.1 and #3 are 第一, 第三.
 *
 * Bad-input policy: characters eSpeak would misread badly (Han beyond the
 * BMP, which it reads as the digits of their code point; kana, hangul and
 * Cyrillic, which it names as "Japanese letter" and the like; emoji and
 * private-use characters, which it skips) are removed and counted, and
 * CJK Extension A characters that are not known lookalikes are kept and
 * counted, so that the caller can warn about them once per chapter.
 * Nothing else is dropped: a symbol with no reading is passed on. */
#include "zh/normalize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOLD_MAX     64 /* longest number-like tail held for the next piece */
#define CONTEXT      16 /* characters of context kept on each side of a cut */
#define MAX_COUNTED  64 /* distinct unreadable characters remembered */
#define MAX_CARDINAL 16 /* longer digit strings are read digit by digit */
#define MAX_YAO      5  /* longest name number read with 幺 for 1 (see CODE) */
#define EXPR_REACH   24 /* how far an expression is looked at around a minus */

typedef struct counted {
	uint32_t cp;
	size_t n;
} counted;

struct ts_normalizer {
	const ts_lang *lang;
	ts_buf hold;            /* tail of the previous piece, not yet read */
	uint32_t left[CONTEXT]; /* what came before it, for look-behind only */
	size_t nleft;
	size_t hold_counted; /* held characters already counted as unreadable */
	ts_buf in;           /* hold + piece */
	uint32_t *c;         /* decoded code points */
	size_t cap;
	counted seen[MAX_COUNTED];
	size_t nseen, others;
	int mark_said;  /* see ts_normalizer_mark_said() */
	ts_buf scratch; /* for mark_said() */
};

ts_normalizer *ts_normalizer_new(const ts_lang *lang)
{
	ts_normalizer *n = calloc(1, sizeof *n);
	if (n)
		n->lang = lang;
	return n;
}

void ts_normalizer_mark_said(ts_normalizer *n, int mark)
{
	n->mark_said = mark;
}

void ts_normalizer_free(ts_normalizer *n)
{
	if (!n)
		return;
	ts_buf_free(&n->hold);
	ts_buf_free(&n->in);
	ts_buf_free(&n->scratch);
	free(n->c);
	free(n);
}

/* ---- tables ------------------------------------------------------- */

/* The measure words, units, currencies and the other words read around
 * numbers are the language data's (ts_lang_words(), files under
 * voices/zh/); without it, none is recognized. */

static const char *const digit_names[] = {"零", "一", "二", "三", "四",
                                          "五", "六", "七", "八", "九"};

/* ---- character classes ------------------------------------------- */

/* Digits and letters (ASCII): ts_is_digit, ts_is_latin (util.h). */
static int is_upper(uint32_t c)
{
	return c >= 'A' && c <= 'Z';
}
static int is_range_mark(uint32_t c)
{
	return c == '-' || c == '~' || c == 0xFF5E /* ～ */ || c == 0x2014 /* — */ ||
	       c == 0x2013 /* – */ || c == 0x301C /* 〜 */ || c == 0xFF0D /* － */;
}
static int is_minus(uint32_t c)
{
	return c == '-' || c == 0x2212 || c == 0xFF0D;
}
static int is_colon(uint32_t c)
{
	return c == ':' || c == 0xFF1A;
}
/* Superscript digits and signs (x², 10⁻³): their value, '-', '+' or 0. */
static int superscript(uint32_t c)
{
	if (c == 0x2070)
		return '0';
	if (c == 0xB9)
		return '1';
	if (c == 0xB2 || c == 0xB3)
		return (int)('2' + c - 0xB2);
	if (c >= 0x2074 && c <= 0x2079)
		return (int)('4' + c - 0x2074);
	return c == 0x207B ? '-' : c == 0x207A ? '+' : 0;
}
/* Signs that make the numbers and letters around them an expression,
 * where a minus is 减 and not a range (5-3=2, x-1≥0). */
static int is_expression_mark(uint32_t c)
{
	return c == '=' || c == 0xFF1D || c == '+' || c == 0xFF0B || c == 0xD7 || c == 0xF7 ||
	       c == '*' || c == '<' || c == '>' || c == 0xFF1C || c == 0xFF1E || c == '^' ||
	       (c >= 0x2260 && c <= 0x2265) /* ≠ ≡ ≤ ≥ */ || c == 0x2248 /* ≈ */ ||
	       c == 0x221A /* √ */ || superscript(c);
}

/* Characters eSpeak reads so badly that they are removed (and counted). */
static int is_misread(uint32_t c)
{
	return (c >= 0x20000 && c <= 0x3134F) || /* Han beyond the BMP */
	       (c >= 0x3040 && c <= 0x30FF) ||   /* kana */
	       (c >= 0x1100 && c <= 0x11FF) || (c >= 0x3130 && c <= 0x318F) ||
	       (c >= 0xAC00 && c <= 0xD7AF) ||               /* hangul */
	       (c >= 0x0400 && c <= 0x04FF) ||               /* Cyrillic */
	       (c >= 0x1F000 && c <= 0x1FAFF) ||             /* emoji, pictographs */
	       (c >= 0xE000 && c <= 0xF8FF) || c >= 0xF0000; /* private use */
}

static void count_char(ts_normalizer *n, uint32_t cp)
{
	for (size_t i = 0; i < n->nseen; i++) {
		if (n->seen[i].cp == cp) {
			n->seen[i].n++;
			return;
		}
	}
	if (n->nseen < MAX_COUNTED)
		n->seen[n->nseen++] = (counted){cp, 1};
	else
		n->others++;
}

size_t ts_normalizer_unreadable(const ts_normalizer *n, ts_buf *out)
{
	size_t total = n->others;
	for (size_t i = 0; i < n->nseen; i++) {
		char u[5];
		int k = ts_utf8_encode(n->seen[i].cp, u);
		ts_buf_printf(out, "%s%.*s (U+%04X) ×%zu", i ? ", " : "", k, u,
		              (unsigned)n->seen[i].cp, n->seen[i].n);
		total += n->seen[i].n;
	}
	if (n->others)
		ts_buf_printf(out, " and %zu more", n->others);
	return total;
}

void ts_normalizer_reset_counts(ts_normalizer *n)
{
	n->nseen = 0;
	n->others = 0;
}

/* ---- reading numbers ---------------------------------------------- */

static int put(ts_buf *o, const char *s)
{
	return ts_buf_append(o, s, strlen(s));
}

/* 0-9999 as 千百十个, with one 零 for each run of inner zeros. */
static void read_group(int g, ts_buf *o)
{
	static const char *const pos[] = {"千", "百", "十", ""};
	int d[4] = {g / 1000, g / 100 % 10, g / 10 % 10, g % 10};
	int started = 0, zero = 0;
	for (int i = 0; i < 4; i++) {
		if (d[i] == 0) {
			zero = started;
			continue;
		}
		if (zero)
			put(o, "零");
		zero = 0;
		started = 1;
		put(o, digit_names[d[i]]);
		put(o, pos[i]);
	}
}

int ts_read_cardinal(const char *digits, size_t n, ts_buf *o)
{
	static const char *const mags[] = {"", "万", "亿", "万亿"};
	while (n > 1 && *digits == '0')
		digits++, n--;
	if (n > MAX_CARDINAL)
		return TS_EINVAL;
	if (n == 1 && *digits == '0')
		return put(o, "零");
	/* Groups of four digits from the right: 个, 万, 亿, 万亿. */
	int groups[4] = {0};
	int ng = 0;
	for (size_t end = n; end > 0 && ng < 4; ng++) {
		size_t start = end >= 4 ? end - 4 : 0;
		int g = 0;
		for (size_t i = start; i < end; i++)
			g = g * 10 + (digits[i] - '0');
		groups[ng] = g;
		end = start;
	}
	size_t mark = o->len;
	int any = 0, gap = 0;
	for (int i = ng - 1; i >= 0; i--) {
		int g = groups[i];
		if (g == 0) {
			gap = any;
			continue;
		}
		if (any && (gap || g < 1000))
			put(o, "零");
		gap = 0;
		read_group(g, o);
		put(o, mags[i]);
		any = 1;
	}
	/* 一十五 -> 十五, 一十五万 -> 十五万: only at the very start. */
	if (o->len - mark >= 6 && memcmp(o->data + mark, "一十", 6) == 0) {
		memmove(o->data + mark, o->data + mark + 3, o->len - mark - 3);
		o->len -= 3;
		o->data[o->len] = '\0';
	}
	return 0;
}

/* 二 at the start of a reading becomes 两 before a magnitude or alone. */
static void use_liang(ts_buf *o, size_t mark)
{
	const char *p = o->data + mark;
	size_t n = o->len - mark;
	if (n < 3 || memcmp(p, "二", 3) != 0)
		return;
	if (n == 3 || (n >= 6 && (memcmp(p + 3, "千", 3) == 0 || memcmp(p + 3, "万", 3) == 0 ||
	                          memcmp(p + 3, "亿", 3) == 0 || memcmp(p + 3, "百", 3) == 0)))
		memcpy(o->data + mark, "两", 3);
}

static void read_digits(const char *d, size_t n, ts_buf *o)
{
	for (size_t i = 0; i < n; i++)
		put(o, digit_names[d[i] - '0']);
}

/* A short number that is a name (110, a room, a flight) digit by digit,
 * 1 said 幺 as everyone says it aloud (幺幺零, 幺二零); a longer code
 * (a phone, an ID, a post code), where 一 is heard as often and reads
 * clearer in a book, with 一. */
static void read_name_digits(const char *d, size_t n, ts_buf *o)
{
	for (size_t i = 0; i < n; i++)
		put(o, d[i] == '1' && n <= MAX_YAO ? "幺" : digit_names[d[i] - '0']);
}

/* A number as written: its digits (thousands separators removed) and
 * where it stands in the code point array. */
typedef struct num {
	size_t s, e; /* [s, e) in the code points */
	char ip[40]; /* integer digits */
	size_t ni;
	char fp[40]; /* fraction digits */
	size_t nf;
	int commas; /* written with thousands separators */
	int frac;   /* has a decimal point */
} num;

static size_t digits_at(const uint32_t *c, size_t m, size_t k)
{
	size_t n = 0;
	while (k + n < m && ts_is_digit(c[k + n]))
		n++;
	return n;
}

/* Parse digits, optional ,ddd groups, optional .digits at k.  Returns 0
 * when there is no digit at k. */
static int parse_num(const uint32_t *c, size_t m, size_t k, num *x)
{
	memset(x, 0, sizeof *x);
	x->s = k;
	size_t n = digits_at(c, m, k);
	if (n == 0)
		return 0;
	if (n > sizeof x->ip - 1)
		n = sizeof x->ip - 1; /* the digits after are another number */
	size_t i = k;
	for (; i < k + n; i++)
		if (x->ni < sizeof x->ip - 1)
			x->ip[x->ni++] = (char)c[i];
	/* 1,234,567: groups of exactly three after a first group of 1-3. */
	while (n <= 3 && i + 3 < m && c[i] == ',' && digits_at(c, m, i + 1) == 3 &&
	       x->ni < sizeof x->ip - 4) {
		for (size_t j = i + 1; j < i + 4; j++)
			x->ip[x->ni++] = (char)c[j];
		i += 4;
		x->commas = 1;
	}
	if (i + 1 < m && (c[i] == '.' || c[i] == 0xFF0E) && ts_is_digit(c[i + 1])) {
		x->frac = 1;
		i++;
		while (i < m && ts_is_digit(c[i]) && x->nf < sizeof x->fp - 1)
			x->fp[x->nf++] = (char)c[i++];
	}
	x->ip[x->ni] = x->fp[x->nf] = '\0';
	x->e = i;
	return 1;
}

/* How an integer is said: a cardinal (两 or not), digit by digit, or
 * digit by digit as a name (CODE: read_name_digits()). */
typedef enum style { CARD, CARD_LIANG, DIGITS, CODE } style;

static void read_num(const num *x, style st, ts_buf *o)
{
	size_t mark = o->len;
	if (st == CODE && !x->frac)
		read_name_digits(x->ip, x->ni, o);
	else if (st == DIGITS || st == CODE || x->ni > MAX_CARDINAL)
		read_digits(x->ip, x->ni, o);
	else
		ts_read_cardinal(x->ip, x->ni, o);
	if (x->frac) {
		put(o, "点");
		read_digits(x->fp, x->nf, o);
	} else if (st == CARD_LIANG) {
		use_liang(o, mark);
	}
}

/* Does the UTF-8 word w stand in c at k? */
static int word_at(const uint32_t *c, size_t m, size_t k, const char *w)
{
	const unsigned char *p = (const unsigned char *)w;
	size_t len = strlen(w);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		int n = ts_utf8_decode(p + i, len - i, &cp);
		if (n <= 0 || k >= m || c[k] != cp)
			return 0;
		i += (size_t)n;
		k++;
	}
	return 1;
}

static size_t word_len(const char *w)
{
	return ts_utf8_count(w, strlen(w));
}

/* Does w end just before k (ignoring one space)? */
static int word_before(const uint32_t *c, size_t k, const char *w)
{
	size_t len = word_len(w);
	if (k > 0 && c[k - 1] == ' ')
		k--;
	return k >= len && word_at(c, k, k - len, w);
}

/* What the readers of number expressions below work on: the code points,
 * the output, the word tables.  Each returns the index after what it read. */
typedef struct reader {
	const uint32_t *c;
	size_t m;
	ts_buf *o;
	const ts_lang *lang; /* the word tables; may be NULL */
} reader;

/* The words of a table of the language data. */
static const ts_word *words(const reader *r, ts_words which, size_t *n)
{
	return ts_wordtab_words(ts_lang_words(r->lang, which), n);
}

/* The longest word of the table at k (the first of the table among those
 * as long), or NULL.  With latin set, a word ending in a Latin letter is
 * not taken when another follows it (5min is not 5m + in). */
static const ts_word *match_words(const reader *r, size_t k, ts_words which, int latin)
{
	const uint32_t *c = r->c;
	size_t m = r->m, n;
	const ts_word *w = words(r, which, &n), *best = NULL;
	for (size_t i = 0; i < n; i++) {
		size_t len = w[i].len;
		if (k >= m || c[k] != w[i].first || (best && len <= best->len) ||
		    !word_at(c, m, k, w[i].text))
			continue;
		if (latin && ts_is_latin(c[k + len - 1]) && k + len < m && ts_is_latin(c[k + len]))
			continue;
		best = &w[i];
	}
	return best;
}

/* Is a code keyword within a few characters before k? */
static int code_context(const reader *r, size_t k)
{
	size_t n;
	const ts_word *w = words(r, TS_WORDS_CODES, &n);
	for (size_t i = 0; i < n; i++)
		for (size_t back = 0; back <= 3 && back + w[i].len <= k; back++)
			if (word_at(r->c, k, k - back - w[i].len, w[i].text))
				return 1;
	return 0;
}

/* Does a number plate's start stand before k: a province (a Han
 * character), a capital letter, maybe · or a space (京A, 沪B·)? */
static int plate_before(const uint32_t *c, size_t k)
{
	if (k > 0 && (c[k - 1] == 0xB7 || c[k - 1] == ' ' || c[k - 1] == 0x30FB))
		k--;
	return k >= 2 && is_upper(c[k - 1]) && c[k - 2] >= 0x4E00 && c[k - 2] <= 0x9FFF;
}

/* Is a dial word (拨打, 打, 叫 ...) just before k, maybe with 了 between? */
static int dialled(const reader *r, size_t k)
{
	size_t n;
	const ts_word *w = words(r, TS_WORDS_DIALS, &n);
	if (k > 0 && r->c[k - 1] == ' ')
		k--;
	if (k > 0 && r->c[k - 1] == 0x4E86 /* 了 */)
		k--;
	for (size_t i = 0; i < n; i++)
		if (word_before(r->c, k, w[i].text))
			return 1;
	return 0;
}

/* The style of integer x from what stands around it; after points at the
 * first character after the whole number expression. */
static style int_style(const reader *r, const num *x, size_t after)
{
	const uint32_t *c = r->c;
	size_t m = r->m;
	size_t k = after < m && c[after] == ' ' ? after + 1 : after;
	/* 2000多年, 30余人: an approximate amount, so a duration or a count. */
	int approx = k < m && (c[k] == 0x591A /* 多 */ || c[k] == 0x4F59 /* 余 */ ||
	                       c[k] == 0x6765 /* 来 */);
	if (approx)
		k++;
	if (x->ni > MAX_CARDINAL)
		return DIGITS;
	if (x->ni > 1 && x->ip[0] == '0' && !x->commas)
		return code_context(r, x->s) ? CODE : DIGITS;
	if (x->s > 0 && word_before(c, x->s, "第"))
		return CARD;
	/* 5+2人: a number in a sum is said as in arithmetic, 二 not 两. */
	if (x->s > 0 && is_expression_mark(c[x->s - 1]) && !superscript(c[x->s - 1]))
		return CARD;
	/* An enumeration (第1、2章, 1、2、3) counts, it does not measure. */
	if ((x->s > 0 && c[x->s - 1] == 0x3001) || (after < m && c[after] == 0x3001))
		return CARD;
	/* 1米75: the centimetres of a height, said digit by digit. */
	if (x->s > 1 && c[x->s - 1] == 0x7C73 /* 米 */ && ts_is_digit(c[x->s - 2]) && !x->frac)
		return DIGITS;
	/* 90年代 -> 九十年代 but 1990年代 -> 一九九零年代; 80后 -> 八零后. */
	if (word_at(c, m, k, "年代"))
		return x->ni == 2 ? CARD : DIGITS;
	if (x->ni == 2 && word_at(c, m, k, "后") && !x->frac)
		return DIGITS;
	/* 110报警, 1203房间; 拨打120 (but 打了120个). */
	if (x->ni >= 3 && !x->frac &&
	    (match_words(r, k, TS_WORDS_HOTLINES, 0) ||
	     (dialled(r, x->s) && !match_words(r, k, TS_WORDS_MEASURES, 0) &&
	      !match_words(r, k, TS_WORDS_UNITS, 1))))
		return CODE;
	if (word_at(c, m, k, "年") && !word_at(c, m, k, "年级")) {
		if (word_before(c, x->s, "公元") || word_before(c, x->s, "公元前"))
			return DIGITS;
		/* 1000年前 is a thousand years ago; 1949年前 is before 1949. */
		int round = x->ni == 4 && memcmp(x->ip + 2, "00", 2) == 0;
		if (round && (word_at(c, m, k, "年前") || word_at(c, m, k, "年后") ||
		              word_at(c, m, k, "年来") || word_at(c, m, k, "年间")))
			return CARD_LIANG;
		if (x->ni == 4 && !approx) {
			size_t n;
			const ts_word *w = words(r, TS_WORDS_DURATIONS, &n);
			for (size_t i = 0; i < n; i++)
				if (word_before(c, x->s, w[i].text))
					return CARD_LIANG;
			return DIGITS;
		}
		return CARD_LIANG;
	}
	if (match_words(r, k, TS_WORDS_LABELS, 0))
		return CARD;
	/* 座位12A: a seat, 十二A; 京A12345, 沪B·88888: a number plate. */
	if (after < m && ts_is_latin(c[after]) && x->ni <= 2)
		return CARD;
	if (plate_before(c, x->s) && x->ni == 5)
		return CODE;
	if (code_context(r, x->s))
		return CODE;
	/* 3#楼: a number before # is a label, said with 号 (read_number_at). */
	if (after < m && (c[after] == '#' || c[after] == 0xFF03))
		return CARD;
	/* Next to Latin letters: a model name.  G20, F1 as cardinals; A380,
	 * 007 digit by digit. */
	if ((x->s > 0 && ts_is_latin(c[x->s - 1])) || (after < m && ts_is_latin(c[after])))
		return x->ni <= 2 ? CARD : DIGITS;
	/* RTX 4090: a model number after an acronym and a space. */
	if (x->ni >= 3 && x->s >= 3 && c[x->s - 1] == ' ' && is_upper(c[x->s - 2]) &&
	    is_upper(c[x->s - 3]))
		return DIGITS;
	if (match_words(r, k, TS_WORDS_MEASURES, 0))
		return CARD_LIANG;
	if (x->commas || x->ni < 7)
		return CARD;
	/* Seven digits and more with no measure word: a code (phone, ID),
	 * unless it is a round amount like 100000000. */
	if (x->ni == 11 && x->ip[0] == '1' && x->ip[1] >= '3')
		return DIGITS; /* a mobile number */
	size_t zeros = 0;
	while (zeros < x->ni && x->ip[x->ni - 1 - zeros] == '0')
		zeros++;
	return zeros * 2 >= x->ni ? CARD : DIGITS;
}

/* A date written 2024-03-05, 2024/3/5 or 2024.3.5. */
static size_t read_date(const reader *r, size_t k)
{
	const uint32_t *c = r->c;
	size_t m = r->m;
	if (digits_at(c, m, k) != 4 || k + 4 >= m)
		return 0;
	uint32_t sep = c[k + 4];
	if (sep != '-' && sep != '/' && sep != '.')
		return 0;
	size_t mlen = digits_at(c, m, k + 5);
	if (mlen < 1 || mlen > 2 || k + 5 + mlen >= m || c[k + 5 + mlen] != sep)
		return 0;
	size_t d0 = k + 6 + mlen, dlen = digits_at(c, m, d0);
	if (dlen < 1 || dlen > 2 ||
	    (d0 + dlen < m && (ts_is_digit(c[d0 + dlen]) || c[d0 + dlen] == sep)))
		return 0;
	int month = 0, day = 0;
	for (size_t i = 0; i < mlen; i++)
		month = month * 10 + (int)(c[k + 5 + i] - '0');
	for (size_t i = 0; i < dlen; i++)
		day = day * 10 + (int)(c[d0 + i] - '0');
	if (month < 1 || month > 12 || day < 1 || day > 31)
		return 0;
	char y[4] = {(char)c[k], (char)c[k + 1], (char)c[k + 2], (char)c[k + 3]};
	read_digits(y, 4, r->o);
	put(r->o, "年");
	char b[16];
	snprintf(b, sizeof b, "%d", month);
	ts_read_cardinal(b, strlen(b), r->o);
	put(r->o, "月");
	snprintf(b, sizeof b, "%d", day);
	ts_read_cardinal(b, strlen(b), r->o);
	size_t end = d0 + dlen;
	if (!(end < m && (c[end] == 0x65E5 /* 日 */ || c[end] == 0x53F7 /* 号 */)))
		put(r->o, "日");
	return end;
}

/* 9:05 -> 九点零五分; 12:30:45 -> 十二点三十分四十五秒; 3:1 -> 三比一. */
static size_t read_colon(const reader *r, size_t k)
{
	const uint32_t *c = r->c;
	size_t m = r->m;
	size_t h = digits_at(c, m, k);
	if (h < 1 || k + h + 1 >= m || !is_colon(c[k + h]) || !ts_is_digit(c[k + h + 1]))
		return 0;
	size_t m0 = k + h + 1, mm = digits_at(c, m, m0);
	int hour = 0, min = 0, sec = -1;
	for (size_t i = 0; i < h && i < 3; i++)
		hour = hour * 10 + (int)(c[k + i] - '0');
	for (size_t i = 0; i < mm && i < 3; i++)
		min = min * 10 + (int)(c[m0 + i] - '0');
	size_t end = m0 + mm;
	if (end + 2 < m && is_colon(c[end]) && digits_at(c, m, end + 1) == 2 &&
	    !(end + 3 < m && ts_is_digit(c[end + 3]))) {
		sec = (int)(c[end + 1] - '0') * 10 + (int)(c[end + 2] - '0');
		if (sec > 59)
			sec = -1;
	}
	int clock = h <= 2 && mm == 2 && hour <= 24 && min <= 59 && !word_before(c, k, "比分");
	char b[16];
	if (clock) {
		size_t mark = r->o->len;
		snprintf(b, sizeof b, "%d", hour);
		ts_read_cardinal(b, strlen(b), r->o);
		use_liang(r->o, mark);
		put(r->o, "点");
		if (min > 0 || sec >= 0) {
			if (min < 10)
				put(r->o, "零");
			snprintf(b, sizeof b, "%d", min);
			ts_read_cardinal(b, strlen(b), r->o);
			put(r->o, "分");
		}
		if (sec >= 0) {
			if (sec < 10)
				put(r->o, "零");
			snprintf(b, sizeof b, "%d", sec);
			ts_read_cardinal(b, strlen(b), r->o);
			put(r->o, "秒");
			end += 3;
		}
		/* 8:00-17:00: a span of clock times. */
		size_t h2 = end + 1 < m && is_range_mark(c[end]) ? digits_at(c, m, end + 1) : 0;
		if (h2 >= 1 && h2 <= 2 && end + h2 + 2 < m && is_colon(c[end + 1 + h2]) &&
		    digits_at(c, m, end + 2 + h2) == 2) {
			put(r->o, "到");
			return read_colon(r, end + 1);
		}
		return end;
	}
	/* A score or ratio: each side as a cardinal. */
	num a, b2;
	parse_num(c, m, k, &a);
	parse_num(c, m, m0, &b2);
	read_num(&a, a.ni > MAX_CARDINAL ? DIGITS : CARD, r->o);
	put(r->o, "比");
	read_num(&b2, b2.ni > MAX_CARDINAL ? DIGITS : CARD, r->o);
	return b2.e;
}

/* Phone numbers and other codes written in groups: 138-1234-5678,
 * 010-12345678, 138 1234 5678, 6222 0212 3456 7890, +86 138 1234 5678.
 * Read digit by digit, a pause (space) between groups.  Groups split by
 * spaces are taken only in the shapes of phone and card numbers: a
 * mobile (3-4-4 from 1), a number with its area code (from 0), a 400 or
 * 800 number, four groups of four. */
static size_t read_code_groups(const reader *r, size_t k)
{
	const uint32_t *c = r->c;
	size_t m = r->m, s = k;
	int intl = c[k] == '+'; /* +86: a country code, said 加八六 */
	if (intl)
		s++;
	size_t groups = 0, total = 0, i = s, first = digits_at(c, m, s), fours = 0, shorts = 0;
	uint32_t sep = 0;
	while (i < m) {
		size_t n = digits_at(c, m, i);
		if (n == 0)
			break;
		groups++;
		total += n;
		fours += n == 4;
		shorts += n < 3 && groups > 1;
		i += n;
		if (i + 1 < m && (c[i] == '-' || c[i] == ' ') && (!sep || c[i] == sep) &&
		    ts_is_digit(c[i + 1]))
			sep = c[i++];
		else
			break;
		if ((intl || c[s] == '0') && groups == 1)
			sep = 0; /* +86 138-1234-5678, 0571-8888 6666 */
	}
	if (intl) {
		if (first < 1 || first > 3 || groups < 2 || total - first < 7)
			return 0;
	} else if (sep == ' ') {
		int mobile = first == 3 && c[s] == '1' && total == 11;
		int area = c[s] == '0' && first >= 3 && first <= 4 && total >= 10;
		int service = first == 3 && (c[s] == '4' || c[s] == '8') && c[s + 1] == '0' &&
		              c[s + 2] == '0' && total == 10;
		if (shorts || !(mobile || area || service || (groups == 4 && fours == 4)))
			return 0;
	} else {
		int area = groups == 2 && c[s] == '0' && first >= 3 && first <= 4 && total >= 10;
		if (!(groups >= 3 && total >= 7) && !area)
			return 0;
	}
	if (intl)
		put(r->o, "加");
	for (size_t j = s; j < i; j++) {
		if (c[j] == '-' || c[j] == ' ')
			put(r->o, " ");
		else
			put(r->o, digit_names[c[j] - '0']);
	}
	return i;
}

/* 1.2.3 or 192.168.1.1: parts joined by 点, each digit by digit. */
static size_t read_dotted(const reader *r, size_t k)
{
	const uint32_t *c = r->c;
	size_t m = r->m, i = k, parts = 0;
	while (i < m) {
		size_t n = digits_at(c, m, i);
		if (n == 0)
			break;
		parts++;
		i += n;
		if (i + 1 < m && c[i] == '.' && ts_is_digit(c[i + 1]))
			i++;
		else
			break;
	}
	if (parts < 3)
		return 0;
	for (size_t j = k; j < i; j++)
		put(r->o, c[j] == '.' ? "点" : digit_names[c[j] - '0']);
	return i;
}

static size_t read_number(const reader *r, size_t k);
static int numberish(uint32_t c);

/* Is the minus at k inside an expression: is there, in the run of
 * number-like characters around it (never past what a piece holds
 * together), a sign that only expressions have? */
static int in_expression(const reader *r, size_t k)
{
	const uint32_t *c = r->c;
	for (size_t i = k; i > 0 && k - i < EXPR_REACH && numberish(c[i - 1]); i--)
		if (is_expression_mark(c[i - 1]))
			return 1;
	for (size_t i = k + 1; i < r->m && i - k <= EXPR_REACH && numberish(c[i]); i++)
		if (is_expression_mark(c[i]))
			return 1;
	return 0;
}

/* The helpers below read what follows the number x, with sign (or NULL)
 * said before it; each returns the end of what it read, or 0 when what
 * follows x is not its kind. */

/* Percent and per mille: 百分之 before the number.  3%-5% is a range. */
static size_t read_percent(const reader *r, const num *x, const char *sign)
{
	const uint32_t *c = r->c;
	size_t m = r->m, j = x->e;
	if (!(j < m && (c[j] == '%' || c[j] == 0xFF05 || c[j] == 0x2030)))
		return 0;
	if (sign)
		put(r->o, sign);
	put(r->o, c[j] == 0x2030 ? "千分之" : "百分之");
	if (!x->frac && strcmp(x->ip, "100") == 0 && c[j] != 0x2030)
		put(r->o, "百");
	else
		read_num(x, CARD, r->o);
	j++;
	/* 3%-5% or 3%~5% */
	if (j + 1 < m && is_range_mark(c[j]) && ts_is_digit(c[j + 1])) {
		put(r->o, "到");
		return read_number(r, j + 1);
	}
	return j;
}

/* A fraction: 3/4 -> 四分之三; not when a / or a letter follows the second
 * number (1/2/3, 3/4a), nor with a decimal point on either side. */
static size_t read_fraction(const reader *r, const num *x, const char *sign)
{
	const uint32_t *c = r->c;
	size_t m = r->m, j = x->e;
	num d;
	if (x->frac || !(j + 1 < m && c[j] == '/' && ts_is_digit(c[j + 1])))
		return 0;
	parse_num(c, m, j + 1, &d);
	if (d.frac || (d.e < m && (c[d.e] == '/' || ts_is_latin(c[d.e]))))
		return 0;
	if (sign)
		put(r->o, sign);
	if (strspn(d.ip, "0") == d.ni) {
		read_num(x, CARD, r->o);
		put(r->o, "除以零");
	} else {
		read_num(&d, CARD, r->o);
		put(r->o, "分之");
		read_num(x, CARD, r->o);
	}
	return d.e;
}

/* 2022-2023赛季: are x and y, ending before after, a span of years, both
 * said digit by digit?  1000-2000元 is an amount. */
static int is_year_span(const reader *r, const num *x, const num *y, size_t after)
{
	const uint32_t *c = r->c;
	size_t m = r->m;
	int years = !x->frac && !y->frac && x->ni == 4 && y->ni == 4 && x->ip[0] >= '1' &&
	            x->ip[0] <= '2' && y->ip[0] >= '1' && y->ip[0] <= '2' &&
	            strcmp(y->ip, x->ip) > 0;
	if (years && !word_at(c, m, after, "年") && !word_at(c, m, after, "赛季") &&
	    !word_at(c, m, after, "学年") && !word_at(c, m, after, "年度"))
		years =
		    !(after < m && (match_words(r, after, TS_WORDS_MEASURES, 0) ||
		                    match_words(r, after, TS_WORDS_UNITS, 1) || c[after] == '%')) &&
		    memcmp(x->ip + 2, "00", 2) != 0 && memcmp(y->ip + 2, "00", 2) != 0;
	return years;
}

/* A range: 3-5天, 3~5, 3—5; the unit after the second number decides how
 * both are said (两到三个).  5 - 3 with spaces, or followed by =, is a
 * subtraction, not a range. */
static size_t read_range(const reader *r, const num *x, const char *sign)
{
	const uint32_t *c = r->c;
	size_t m = r->m, rj = x->e;
	if (!(rj + 1 < m && is_range_mark(c[rj]) &&
	      (ts_is_digit(c[rj + 1]) ||
	       (rj + 2 < m && is_minus(c[rj + 1]) && ts_is_digit(c[rj + 2])))))
		return 0;
	num y;
	size_t ys = ts_is_digit(c[rj + 1]) ? rj + 1 : rj + 2;
	parse_num(c, m, ys, &y);
	size_t after = y.e;
	if (is_minus(c[rj]) && in_expression(r, rj))
		return 0;
	/* i7-13700K: parts of a model name, not a range. */
	if (is_minus(c[rj]) &&
	    ((x->s > 0 && ts_is_latin(c[x->s - 1])) ||
	     (after < m && ts_is_latin(c[after]) && !match_words(r, after, TS_WORDS_UNITS, 1))))
		return 0;
	int score = 0; /* 比分1-2, 比分是3-1 */
	for (size_t back = 0; back <= 2 && back + 2 <= x->s && !score; back++)
		score = word_at(c, x->s, x->s - back - 2, "比分");
	if (!sign && !x->frac && !y.frac && score) {
		read_num(x, CARD, r->o); /* 比分1-2: a score */
		put(r->o, "比");
		read_num(&y, CARD, r->o);
		return after;
	}
	if (!sign && is_year_span(r, x, &y, after)) {
		read_digits(x->ip, 4, r->o);
		put(r->o, "到");
		read_digits(y.ip, 4, r->o);
		return after;
	}
	int pct = after < m && (c[after] == '%' || c[after] == 0xFF05);
	if (sign)
		put(r->o, sign);
	if (pct)
		put(r->o, "百分之");
	read_num(x, pct ? CARD : int_style(r, x, after), r->o);
	put(r->o, "到");
	return read_number(r, rj + 1);
}

/* A unit, maybe after a space: 5kg, 3.5 km, 37℃. */
static size_t read_with_unit(const reader *r, const num *x, const char *sign)
{
	size_t j = x->e;
	size_t uj = j < r->m && r->c[j] == ' ' ? j + 1 : j;
	const ts_word *u = match_words(r, uj, TS_WORDS_UNITS, 1);
	if (!u)
		return 0;
	if (sign)
		put(r->o, sign);
	/* 256GB -> 二五六G B: a size in Latin letters that is a power of two
	 * of three digits or more is said digit by digit (500GB is 五百). */
	style st = x->ni >= 7 && !x->commas ? CARD : CARD_LIANG;
	if (ts_is_latin((unsigned char)u->said[0]) && !x->frac && x->ni >= 3 && x->ni <= 6) {
		unsigned long v = strtoul(x->ip, NULL, 10);
		if ((v & (v - 1)) == 0)
			st = DIGITS;
	}
	read_num(x, st, r->o);
	put(r->o, u->said);
	return uj + u->len;
}

/* A number at k: a date, a time, a code or a dotted number, or a number
 * with what follows it: %, ‰, a fraction, a range, a unit. */
static size_t read_number_at(const reader *r, size_t k, const char *sign)
{
	size_t end;
	if (!sign) {
		if ((end = read_date(r, k)) || (end = read_colon(r, k)) ||
		    (end = read_code_groups(r, k)) || (end = read_dotted(r, k)))
			return end;
	}
	num x;
	parse_num(r->c, r->m, k, &x);
	if ((end = read_percent(r, &x, sign)) || (end = read_fraction(r, &x, sign)) ||
	    (end = read_range(r, &x, sign)) || (end = read_with_unit(r, &x, sign)))
		return end;
	if (sign)
		put(r->o, sign);
	read_num(&x, x.frac ? CARD : int_style(r, &x, x.e), r->o);
	if (!sign && !x.frac && x.e < r->m && (r->c[x.e] == '#' || r->c[x.e] == 0xFF03)) {
		put(r->o, "号"); /* 3#楼 -> 三号楼 */
		return x.e + 1;
	}
	return x.e;
}

/* A number, with what may stand before it: a currency sign, a sign. */
static size_t read_number(const reader *r, size_t k)
{
	const uint32_t *c = r->c;
	size_t m = r->m;
	const ts_word *cur = match_words(r, k, TS_WORDS_CURRENCIES, 1);
	if (cur && k + cur->len < m && ts_is_digit(c[k + cur->len])) {
		size_t end = read_number_at(r, k + cur->len, NULL);
		/* ¥1.5万 -> 一点五万元: the magnitude before the currency. */
		for (; end < m && (c[end] == 0x4E07 /* 万 */ || c[end] == 0x4EBF /* 亿 */); end++)
			put(r->o, c[end] == 0x4E07 ? "万" : "亿");
		if (!(end < m && (c[end] == 0x5143 /* 元 */ || c[end] == 0x5757 /* 块 */)))
			put(r->o, cur->said);
		return end;
	}
	size_t end;
	if (c[k] == '+' && (end = read_code_groups(r, k)))
		return end;
	const char *sign = NULL;
	size_t s = k;
	if (is_minus(c[k]))
		sign = "负";
	else if (c[k] == 0xB1 /* ± */)
		sign = "正负";
	else if (c[k] == '+')
		sign = "正";
	if (sign)
		s++;
	return read_number_at(r, s, sign);
}

/* Does a number start at k (maybe after a sign or currency sign)? */
static int number_starts(const reader *r, size_t k)
{
	const uint32_t *c = r->c;
	size_t m = r->m;
	if (ts_is_digit(c[k]))
		return 1;
	const ts_word *cur = match_words(r, k, TS_WORDS_CURRENCIES, 1);
	if (cur && k + cur->len < m && ts_is_digit(c[k + cur->len]))
		return 1;
	/* A sign only where it cannot be an operator or a hyphen: not after
	 * a letter, a digit or a closing bracket. */
	if ((is_minus(c[k]) || c[k] == 0xB1 || c[k] == '+') && k + 1 < m && ts_is_digit(c[k + 1])) {
		uint32_t p = k > 0 ? c[k - 1] : ' ';
		return !ts_is_digit(p) && !ts_is_latin(p) && p != ')' && p != 0xFF09 && p != '%' &&
		       !superscript(p);
	}
	return 0;
}

/* A letter standing alone as a variable (x, the b of 2b), not a word. */
static int is_variable(const uint32_t *c, size_t m, size_t k)
{
	return k < m && ts_is_latin(c[k]) && (k + 1 >= m || !ts_is_latin(c[k + 1])) &&
	       (k == 0 || !ts_is_latin(c[k - 1]));
}

/* Can an operand end at p: a number, a variable, a power, a bracket? */
static int operand_ends(const uint32_t *c, size_t m, size_t p)
{
	return ts_is_digit(c[p]) || c[p] == '%' || c[p] == ')' || superscript(c[p]) ||
	       is_variable(c, m, p) || c[p] == 0x3C0 /* π */;
}

/* Can an operand start at n? */
static int operand_starts(const uint32_t *c, size_t m, size_t n)
{
	return n < m && (ts_is_digit(c[n]) || is_variable(c, m, n) || c[n] == '(' ||
	                 c[n] == 0x221A /* √ */ || c[n] == 0x3C0 ||
	                 (is_minus(c[n]) && n + 1 < m && ts_is_digit(c[n + 1])));
}

/* An operator between two operands: 1+1=2 -> 一加一等于二, a*b -> a乘以b,
 * and a minus in an expression: 5-3=2 -> 五减三等于二, x-1≥0. */
static size_t read_operator(const reader *r, size_t k)
{
	const uint32_t *c = r->c;
	size_t m = r->m;
	if (k == 0)
		return 0;
	size_t p = k - 1;
	if (c[p] == ' ' && p > 0)
		p--;
	/* y=-x: the sign of a variable after a relation or an operator. */
	if (is_minus(c[k]) && is_variable(c, m, k + 1) &&
	    (is_expression_mark(c[p]) || c[p] == '(')) {
		put(r->o, "负");
		return k + 1;
	}
	/* < and > only before a number when nothing is compared with it: <60
	 * is 小于六十, <三体> is a title, not a comparison. */
	int lt = c[k] == '<' || c[k] == '>' || c[k] == 0xFF1C || c[k] == 0xFF1E;
	if (!operand_ends(c, m, p) &&
	    !(lt && k + 1 < m && (ts_is_digit(c[k + 1]) || is_minus(c[k + 1]))))
		return 0;
	const ts_word *op = match_words(r, k, TS_WORDS_OPERATORS, 1);
	const char *word = op ? op->said : NULL;
	size_t len = op ? op->len : 0;
	/* A minus between spaced numbers (5 - 3), or in an expression. */
	if (!op && is_minus(c[k]) &&
	    ((c[k - 1] == ' ' && k + 1 < m && c[k + 1] == ' ') || in_expression(r, k)))
		word = "减", len = 1;
	if (!word)
		return 0;
	size_t n = k + len;
	if (n < m && c[n] == ' ')
		n++;
	if (!operand_starts(c, m, n))
		return 0;
	put(r->o, word);
	return n;
}

/* A power after an operand: x² -> x的平方, 2³ -> 二的立方, 10⁻⁶ and 10^-6
 * -> 十的负六次方, 2^n -> 二的n次方. */
static size_t read_power(const reader *r, size_t k)
{
	const uint32_t *c = r->c;
	size_t m = r->m, e = k;
	char d[8];
	size_t nd = 0;
	int neg = 0;
	if (k == 0 || !(ts_is_digit(c[k - 1]) || ts_is_latin(c[k - 1]) || c[k - 1] == ')' ||
	                c[k - 1] == 0x3C0))
		return 0;
	if (c[k] == '^') {
		e = k + 1;
		if (e < m && is_minus(c[e]))
			neg = 1, e++;
		if (e < m && !neg && is_variable(c, m, e)) {
			char ch[5];
			put(r->o, "的");
			ts_buf_append(r->o, ch, (size_t)ts_utf8_encode(c[e], ch));
			put(r->o, "次方");
			return e + 1;
		}
		while (e < m && ts_is_digit(c[e]) && nd < sizeof d - 1)
			d[nd++] = (char)c[e++];
	} else {
		for (; e < m && superscript(c[e]) && nd < sizeof d - 1; e++) {
			int v = superscript(c[e]);
			if (v == '-' && e == k)
				neg = 1;
			else if (v >= '0' && v <= '9')
				d[nd++] = (char)v;
			else if (e > k)
				break;
		}
	}
	if (nd == 0)
		return 0;
	put(r->o, "的");
	/* x², 2³: 平方, 立方; but the powers of ten are 十的二次方, 十的三次方. */
	int ten = k >= 2 && c[k - 1] == '0' && c[k - 2] == '1' && (k < 3 || !ts_is_digit(c[k - 3]));
	if (!neg && !ten && nd == 1 && (d[0] == '2' || d[0] == '3')) {
		put(r->o, d[0] == '2' ? "平方" : "立方");
		return e;
	}
	if (neg)
		put(r->o, "负");
	ts_read_cardinal(d, nd, r->o);
	put(r->o, "次方");
	return e;
}

/* A Western ordinal: No.1, No. 12, #3 -> 第一, 第十二, 第三 (a number of
 * one to three digits); longer numbers after No. are codes. */
static size_t read_ordinal(const reader *r, size_t k)
{
	const uint32_t *c = r->c;
	size_t m = r->m, n = k;
	if (k > 0 && (ts_is_latin(c[k - 1]) || ts_is_digit(c[k - 1])))
		return 0;
	if (c[k] == '#' || c[k] == 0xFF03)
		n = k + 1;
	else if ((c[k] == 'N' || c[k] == 'n') && k + 2 < m &&
	         (c[k + 1] == 'o' || c[k + 1] == 'O') && (c[k + 2] == '.' || c[k + 2] == 0xFF0E))
		n = k + 3 < m && c[k + 3] == ' ' ? k + 4 : k + 3;
	else
		return 0;
	size_t nd = digits_at(c, m, n);
	if (nd < 1 || nd > 3 || c[n] == '0' ||
	    (n + nd + 1 < m && (c[n + nd] == '.' || c[n + nd] == ',') &&
	     ts_is_digit(c[n + nd + 1])))
		return 0;
	char d[4] = {0};
	for (size_t i = 0; i < nd; i++)
		d[i] = (char)c[n + i];
	put(r->o, "第");
	ts_read_cardinal(d, nd, r->o);
	return n + nd;
}

/* Latin letters: acronyms (2-6 capitals) are spelled letter by letter. */
static size_t read_latin(const reader *r, size_t k)
{
	const uint32_t *c = r->c;
	size_t m = r->m, e = k;
	while (e < m && ts_is_latin(c[e]))
		e++;
	size_t n = e - k;
	int caps = 1;
	for (size_t i = k; i < e; i++)
		caps &= is_upper(c[i]);
	char ch[5];
	if (caps && n >= 2 && n <= 6) {
		for (size_t i = k; i < e; i++) {
			if (i > k)
				put(r->o, " ");
			ts_buf_putc(r->o, (char)c[i]);
		}
	} else {
		for (size_t i = k; i < e; i++)
			ts_buf_append(r->o, ch, (size_t)ts_utf8_encode(c[i], ch));
	}
	return e;
}

/* Is c looked up in the symbols table: ASCII, full-width forms, and the
 * signs of Latin-1, Greek and the blocks from ‰ to the mathematical
 * operators (not the quotes and dashes before ‰, nor CJK punctuation). */
static int symbolic(uint32_t c)
{
	return c < 0x80 || (c >= 0xFF00 && c < 0xFF60) || (c >= 0xA0 && c <= 0xFF) ||
	       (c >= 0x370 && c < 0x400) || (c >= 0x2030 && c < 0x2400) || c == 0x25B3 /* △ */;
}

/* One step of the reading at c[k] that is not Chinese passing as it is:
 * a number, an expression, a Latin word or a symbol read as words.
 * Returns where the next step starts, or 0 when c[k] is kept as it is. */
static size_t read_step(const reader *r, size_t k)
{
	const uint32_t *c = r->c;
	size_t m = r->m, next;
	if ((next = read_ordinal(r, k)))
		return next;
	if (number_starts(r, k))
		return read_number(r, k);
	if ((next = read_power(r, k)) || (next = read_operator(r, k)))
		return next;
	if (ts_is_latin(c[k]))
		return read_latin(r, k);
	if (c[k] == '/' || c[k] == 0xFF0F) {
		/* x/2=3: 除以 in an expression; 次/分: 每; 他/她: 或. */
		if (k > 0 && operand_ends(c, m, k - 1) && operand_starts(c, m, k + 1) &&
		    in_expression(r, k))
			put(r->o, "除以");
		else
			put(r->o,
			    k + 1 < m && match_words(r, k + 1, TS_WORDS_PER, 0) ? "每" : "或");
		return k + 1;
	}
	const ts_word *sym = symbolic(c[k]) ? match_words(r, k, TS_WORDS_SYMBOLS, 1) : NULL;
	if (sym) {
		put(r->o, sym->said);
		return k + sym->len;
	}
	return 0;
}

/* The step that read c[k, next) appended o[from, o->len): put
 * TS_READ_MARK before each Han character of it that is not one of the
 * Han characters of c[k, next) (年 of 1644年 is the book's; 一六四四 are
 * said for its digits).  Those are matched in order, leftmost first.
 * scratch is working memory. */
static void mark_said(const uint32_t *c, size_t k, size_t next, ts_buf *o, size_t from,
                      ts_buf *scratch)
{
	ts_buf_clear(scratch);
	if (ts_buf_append(scratch, o->data + from, o->len - from)) {
		o->err = ts_buf_error(scratch); /* out of memory: o keeps the error */
		return;
	}
	o->len = from;
	const unsigned char *s = (const unsigned char *)scratch->data;
	for (size_t i = 0; i < scratch->len;) {
		uint32_t cp;
		int len = ts_utf8_decode(s + i, scratch->len - i, &cp);
		if (len <= 0)
			len = 1;
		while (k < next && !ts_is_han(c[k]))
			k++;
		if (ts_is_han(cp) && k < next && c[k] == cp)
			k++;
		else if (ts_is_han(cp))
			ts_buf_putc(o, TS_READ_MARK);
		ts_buf_append(o, scratch->data + i, (size_t)len);
		i += (size_t)len;
	}
}

/* Read c[start, end); c[0, start) and c[end, m) are context only. */
static void normalize_codepoints(ts_normalizer *n, const uint32_t *c, size_t m, size_t start,
                                 size_t end, ts_buf *o)
{
	reader r = {c, m, o, n->lang};
	char u[5];
	size_t k = start;
	while (k < end) {
		/* Most text is Chinese that passes as it is: a fast path. */
		if (c[k] >= 0x3400 && c[k] < 0xA000) {
			size_t e = k + 1;
			while (e < end && c[e] >= 0x3400 && c[e] < 0xA000)
				e++;
			if (ts_buf_reserve(o, (e - k) * 3))
				return; /* out of memory: o keeps the error */
			for (; k < e; k++)
				o->len += (size_t)ts_utf8_encode(c[k], o->data + o->len);
			o->data[o->len] = '\0';
			continue;
		}
		size_t from = o->len, next = read_step(&r, k);
		if (!next) {
			ts_buf_append(o, u, (size_t)ts_utf8_encode(c[k], u));
			k++;
			continue;
		}
		if (n->mark_said)
			mark_said(c, k, next, o, from, &n->scratch);
		k = next;
	}
}

/* Where a piece may be cut without splitting a number expression: before
 * a trailing run of characters that can belong to one. */
static int numberish(uint32_t c)
{
	return ts_is_digit(c) || ts_is_latin(c) || c == '.' || c == ',' || is_colon(c) ||
	       c == '/' || c == '%' || is_range_mark(c) || c == '+' || c == ' ' || c == '$' ||
	       c == 0xA5 || c == 0xFFE5 || c == 0xB0 || c == 0x2103 || c == 0x2109 || c == 0xFF05 ||
	       c == 0x2030 || c == 0xB1 || c == 0xB2 || c == 0xB3 || c == 0x20AC || c == 0xA3 ||
	       c == 0xD7 || c == 0xF7 || c == '=' || c == '<' || c == '>' || c == 0x2265 ||
	       c == 0x2264 || c == 0x2212 || (c >= 0x3380 && c <= 0x33DF) /* ㎡ ㎞ ... */ ||
	       c == '#' || c == 0xFF03 || c == '^' || c == '*' || c == '(' || c == ')' ||
	       c == 0xFF0B || c == 0xFF1D || c == 0xFF1C || c == 0xFF1E || c == 0xFF0D ||
	       c == 0x3C0 /* π */ || superscript(c) || c == 0x2032 || c == 0x2033 /* ′ ″ */ ||
	       c == 0x221A || c == 0x221B || c == 0x221E /* √ ∛ ∞ */ || c == 0x2260 ||
	       c == 0x2248 /* ≠ ≈ */ || c == 0xFF0E || c == 0x4E07 ||
	       c == 0x4EBF /* 万 亿, read with a currency: ¥1.5万 */;
}

int ts_normalize_piece(ts_normalizer *n, const char *text, size_t len, int end, ts_buf *out)
{
	int line_end = end && end != TS_NORM_SENTENCE_END;
	ts_buf_clear(&n->in);
	if (ts_buf_append(&n->in, n->hold.data ? n->hold.data : "", n->hold.len) ||
	    ts_buf_append(&n->in, text, len))
		return TS_ENOMEM;
	ts_buf_clear(&n->hold);
	if (TS_GROW(n->c, n->cap, n->nleft + n->in.len + 1))
		return TS_ENOMEM;
	/* The context before this piece, then the piece decoded, repairing
	 * lookalikes and setting aside what eSpeak misreads. */
	memcpy(n->c, n->left, n->nleft * sizeof *n->c);
	size_t start = n->nleft, m = start;
	const unsigned char *s = (const unsigned char *)n->in.data;
	for (size_t i = 0; i < n->in.len;) {
		uint32_t cp;
		int k = ts_utf8_decode(s + i, n->in.len - i, &cp);
		if (k <= 0) {
			i++;
			continue;
		}
		i += (size_t)k;
		uint32_t std = ts_lang_lookalike(n->lang, cp);
		if (std)
			cp = std;
		if (n->hold_counted > 0) {
			n->hold_counted--; /* counted when it first arrived */
		} else if (!std && cp >= 0x3400 && cp <= 0x4DBF) {
			count_char(n, cp); /* kept: eSpeak may know it */
		} else if (is_misread(cp)) {
			count_char(n, cp);
		}
		if (is_misread(cp))
			continue;
		if ((cp >= 0xFF10 && cp <= 0xFF19) || (cp >= 0xFF21 && cp <= 0xFF3A) ||
		    (cp >= 0xFF41 && cp <= 0xFF5A))
			cp -= 0xFEE0; /* full-width digits and letters */
		n->c[m++] = cp;
	}
	/* Unless the line or a sentence ends here, keep the last characters
	 * for the next piece: a number there may go on, or what follows it
	 * may decide how it is read.  The cut never falls inside a
	 * number-like run, unless the run is longer than the hold: then what
	 * is held is not even looked at, or a number or word read up to the
	 * cut would run past it and be read again with the next piece. */
	size_t cut = m, seen = m;
	if (!end) {
		cut = m > start + CONTEXT ? m - CONTEXT : start;
		while (cut > start && m - cut < CONTEXT + HOLD_MAX && numberish(n->c[cut - 1]) &&
		       numberish(n->c[cut]))
			cut--;
		if (cut > start && numberish(n->c[cut - 1]) && numberish(n->c[cut]))
			seen = cut;
		char u[5];
		for (size_t i = cut; i < m; i++)
			if (ts_buf_append(&n->hold, u, (size_t)ts_utf8_encode(n->c[i], u)))
				return TS_ENOMEM;
		n->hold_counted = m - cut;
	}
	normalize_codepoints(n, n->c, seen, start, cut, out);
	if (ts_buf_error(out))
		return ts_buf_error(out);
	/* Look-behind context for the next piece. */
	size_t keep = cut < CONTEXT ? cut : CONTEXT;
	memmove(n->left, n->c + cut - keep, keep * sizeof *n->c);
	n->nleft = line_end ? 0 : keep;
	return 0;
}
