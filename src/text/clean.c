/* clean.c - make web-scraped and messy text speakable (see clean.h).
 *
 * Bad-input policy.  Nothing here fails on odd input: what cannot be
 * spoken is dropped, what might be text is kept.
 *
 * Markup.  Tags are recognised on the raw text, before entities are
 * decoded, so "&lt;p&gt;" is the visible text "<p>".  A tag is '<' and a
 * letter (<p>, <div class="x">), "</" and a letter, "<!" (<!DOCTYPE ...>,
 * <!-- comment -->) or "<?" and a letter (<?xml ...?>), with its '>' on the
 * same line at most TAG_MAX bytes away, and what stands between them
 * must look like attributes (name, name=value, name="value").  The element
 * name must be a known HTML one, or have a namespace (<o:p>), or the tag
 * attributes with values (<x a="b">), or be bare and lower case (<foo>,
 * </foo>).  Anything else is text: "3 < 5", "a<b", "a<b 并且 b>c", "<<",
 * "< 5", a "<p" never closed, "<Harry Potter>", and ＜ｐ＞ (folded to the
 * text <p> after markup is done).  Block tags (p, br, div, li, h1-h6, tr,
 * td, hr, blockquote, section, ...) are a paragraph break; other tags
 * vanish.  Comments, and script and style elements with their content,
 * vanish; they may span lines, but one left open for more than SKIP_MAX
 * bytes is given up and the text after it is spoken again (a stray "<!--"
 * must not silence the rest of a chapter).
 *
 * Entities.  Named ones from a table (nbsp amp lt gt quot hellip mdash
 * ldquo middot yen ...) and numeric ones (&#20013; &#x4e00; &#X4E00;),
 * with or without the ';' (without it, the name must end where its
 * letters end: "&nbsp&nbsp" is two spaces, "&copyright" is text).  Numeric
 * 128-159 are read as Windows-1252, as browsers do; 0, surrogates and
 * values past U+10FFFF are dropped.  An unknown name stays as text.  A
 * double-escaped entity (&amp;nbsp;) is decoded all the way: a text file
 * never means the letters "nbsp".  Decoded characters go through the rest
 * of the policy (&nbsp; is a space, &#8203; vanishes) but are never taken
 * for markup.
 *
 * Invisible and placeholder characters are removed: controls (C0 but tab,
 * DEL, C1), format characters (zero-width space and joiners, bidi marks,
 * soft hyphen, BOM, word joiner), variation selectors (they choose a
 * glyph, never a sound), private-use characters (site fonts' anti-copy
 * glyphs: no reading is known), U+FFFD, □ and 〓 (stand-ins for characters
 * that could not be encoded), and ■ (used the same way, and for censored
 * words: either way nothing can be read).  Unassigned code points are
 * kept: they may be characters newer than utf8proc's tables.
 *
 * Full-width ASCII (U+FF01-U+FF5E) is folded to ASCII: ＡＢＣ１２３％＋＝ are
 * read like ABC123%+=.  Kept as they are: ！？，；：（）, which segmentation
 * treats as sentence and clause marks, and ． unless it stands between
 * ASCII letters or digits (１２．５ -> 12.5, ｗｗｗ．ａ．ｃｏｍ -> www.a.com).
 * No other compatibility folding (NFKC would also turn … into ... and ！
 * into !): only a base followed by combining marks is composed (NFC on
 * that cluster), e.g. e + U+0301 -> é.
 *
 * Spaces (ASCII, no-break, ideographic U+3000, the other Unicode spaces,
 * tabs) fold into one ASCII space, dropped at the edges of a paragraph;
 * U+2029 PARAGRAPH SEPARATOR is a paragraph break.
 *
 * Addresses.  URLs (http:// https:// ftp://, www.…, host names under a
 * known top-level domain such as xxx.com/abc or m.xxx.cn) and e-mail
 * addresses are removed: in web novels they are watermarks and ads, and
 * spelt out letter by letter they would be noise.  They are looked for in
 * runs of ASCII URL characters, after full-width folding; punctuation
 * after an address (.,;:!?) stays.
 *
 * Decoration.  A line or paragraph made only of symbols (****, ------,
 * ======, ~~~~, ＊＊＊, ———, · · ·, #####, ☆★☆, or a lone ——) is not
 * spoken.  A run of three or more symbols at the start or end of a
 * paragraph is dropped (====简介==== -> 简介, ☆☆☆第一章☆☆☆ -> 第一章), and
 * inside text too, except that a run of dashes becomes one ——.  Runs of
 * one or two stay inside text (——, ~, -5, 约翰·史密斯).  Not symbols for
 * this purpose: … and ⋯ (a line "……" is a meaningful pause), ． . and 。,
 * ○ (a zero in 二○○八), × (××× is "so-and-so"), < and >, and emoji
 * (U+1F000-U+1FAFF), which the normalizer counts in its warning.
 *
 * Streaming.  All of this works on the pieces of a line with bounded
 * state, so a piece boundary changes nothing, with two approximations: a
 * tag or entity longer than TAG_MAX is text, and an address glued to more
 * than RUN_MAX bytes of other ASCII text (no space or Han character in
 * between) may be missed, or, when it is itself longer, be dropped up to
 * the end of its run, punctuation included.
 *
 * How.  Each character goes through four stages, each keeping a little
 * state between pieces: markup (scan: tags, entities, skipped content; a
 * tag or entity cut by the end of a piece waits in hold[]), folding and
 * removal (stage2, then compose for combining marks), addresses (stage3:
 * a run of URL characters waits in run[] until it ends), and decoration,
 * spaces and breaks (stage4, which writes the output; a run of symbols
 * waits there).  Two events travel with the characters: EV_BREAK, a
 * paragraph break, and EV_SOFT, an inline tag. */
#include "text/clean.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#define TAG_MAX      1024 /* longest tag looked at, in bytes */
#define HOLD_MAX     (TAG_MAX + 16)
#define ENT_NAME_MAX 8           /* longest entity name in the table */
#define RUN_MAX      256         /* ASCII run held while looking for addresses */
#define CLU_MAX      16          /* base and combining marks composed together */
#define SKIP_MAX     (64 * 1024) /* longest comment, script or style skipped */
#define TAG_NAME_MAX 12          /* element names compared (longer: unknown) */

/* Events passed down the stages among the characters. */
#define EV_BREAK 0x0Au     /* paragraph break ('\n' never comes as text) */
#define EV_SOFT  0x110000u /* an inline tag: ends an address, says nothing */

#define CP_FW_DOT 0xFF0Eu /* ． */

enum { SKIP_NONE, SKIP_COMMENT, SKIP_RAW };

struct ts_cleaner {
	ts_buf *out;
	int err;
	/* markup */
	int skip;                    /* inside a comment, script or style */
	char raw_name[TAG_NAME_MAX]; /* "script" or "style", for SKIP_RAW */
	int dashes;                  /* '-' just seen inside a comment */
	size_t skipped;              /* bytes skipped so far */
	size_t hold_len;             /* a tag or entity cut by a piece boundary */
	char hold[HOLD_MAX];
	/* folding */
	int prev_alnum;  /* last character was an ASCII letter or digit */
	int dot_pending; /* a ． after one waits for the next character */
	/* composition */
	int nclu;
	utf8proc_int32_t clu[CLU_MAX];
	/* addresses */
	int run_drop; /* dropping the rest of a long address */
	size_t run_len;
	char run[RUN_MAX + 4];
	/* decoration, spaces and paragraphs */
	int deco_n;    /* symbols in the current run (counted to 3) */
	int deco_gap;  /* a space since the last symbol of the run */
	int deco_dash; /* the run is all dashes */
	size_t deco_len;
	char deco[16]; /* the first two symbols of the run */
	int at_start;  /* nothing written yet in this paragraph */
	int space_pending;
	int break_pending;
};

/* ---- tables ----------------------------------------------------------- */

typedef struct entity {
	const char *name;
	uint32_t cp;
} entity;

/* Sorted by strcmp (upper case first). */
static const entity entities[] = {
    {"AMP", '&'},      {"COPY", 0xA9},     {"GT", '>'},        {"LT", '<'},
    {"QUOT", '"'},     {"REG", 0xAE},      {"amp", '&'},       {"apos", '\''},
    {"bdquo", 0x201E}, {"brvbar", 0xA6},   {"bull", 0x2022},   {"cent", 0xA2},
    {"copy", 0xA9},    {"darr", 0x2193},   {"deg", 0xB0},      {"divide", 0xF7},
    {"emsp", 0x2003},  {"ensp", 0x2002},   {"euro", 0x20AC},   {"frac12", 0xBD},
    {"frac14", 0xBC},  {"frac34", 0xBE},   {"gt", '>'},        {"hairsp", 0x200A},
    {"harr", 0x2194},  {"hearts", 0x2665}, {"hellip", 0x2026}, {"iexcl", 0xA1},
    {"iquest", 0xBF},  {"laquo", 0xAB},    {"larr", 0x2190},   {"ldquo", 0x201C},
    {"lrm", 0x200E},   {"lsaquo", 0x2039}, {"lsquo", 0x2018},  {"lt", '<'},
    {"mdash", 0x2014}, {"micro", 0xB5},    {"middot", 0xB7},   {"minus", 0x2212},
    {"nbsp", 0xA0},    {"ndash", 0x2013},  {"not", 0xAC},      {"ordm", 0xBA},
    {"para", 0xB6},    {"permil", 0x2030}, {"plusmn", 0xB1},   {"pound", 0xA3},
    {"prime", 0x2032}, {"quot", '"'},      {"raquo", 0xBB},    {"rarr", 0x2192},
    {"rdquo", 0x201D}, {"reg", 0xAE},      {"rlm", 0x200F},    {"rsaquo", 0x203A},
    {"rsquo", 0x2019}, {"sbquo", 0x201A},  {"sect", 0xA7},     {"shy", 0xAD},
    {"star", 0x2606},  {"starf", 0x2605},  {"sup1", 0xB9},     {"sup2", 0xB2},
    {"sup3", 0xB3},    {"thinsp", 0x2009}, {"times", 0xD7},    {"trade", 0x2122},
    {"uarr", 0x2191},  {"yen", 0xA5},      {"zwj", 0x200D},    {"zwnj", 0x200C},
};

/* Numeric references 128-159 mean Windows-1252 (0: undefined there). */
static const uint16_t cp1252[32] = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0,      0x017D, 0,      0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178,
};

enum { EL_INLINE = 0, EL_BLOCK = 1, EL_RAW = 2 };

typedef struct element {
	const char *name;
	int kind;
} element;

/* HTML elements, sorted.  Block ones break the paragraph; raw ones hide
 * their content. */
static const element elements[] = {
    {"a", 0},      {"abbr", 0},     {"acronym", 0},    {"address", 1},    {"article", 1},
    {"aside", 1},  {"audio", 0},    {"b", 0},          {"base", 0},       {"bdi", 0},
    {"bdo", 0},    {"big", 0},      {"blink", 0},      {"blockquote", 1}, {"body", 1},
    {"br", 1},     {"button", 0},   {"canvas", 0},     {"caption", 1},    {"center", 1},
    {"cite", 0},   {"code", 0},     {"col", 0},        {"colgroup", 0},   {"data", 0},
    {"dd", 1},     {"del", 0},      {"details", 1},    {"dfn", 0},        {"dialog", 1},
    {"dir", 1},    {"div", 1},      {"dl", 1},         {"dt", 1},         {"em", 0},
    {"embed", 0},  {"fieldset", 1}, {"figcaption", 1}, {"figure", 1},     {"font", 0},
    {"footer", 1}, {"form", 1},     {"frame", 1},      {"frameset", 1},   {"h1", 1},
    {"h2", 1},     {"h3", 1},       {"h4", 1},         {"h5", 1},         {"h6", 1},
    {"head", 1},   {"header", 1},   {"hgroup", 1},     {"hr", 1},         {"html", 1},
    {"i", 0},      {"iframe", 0},   {"img", 0},        {"input", 0},      {"ins", 0},
    {"kbd", 0},    {"label", 0},    {"legend", 1},     {"li", 1},         {"link", 0},
    {"main", 1},   {"map", 0},      {"mark", 0},       {"marquee", 0},    {"menu", 1},
    {"meta", 0},   {"meter", 0},    {"nav", 1},        {"nobr", 0},       {"noscript", 0},
    {"object", 0}, {"ol", 1},       {"optgroup", 0},   {"option", 1},     {"output", 0},
    {"p", 1},      {"param", 0},    {"picture", 0},    {"pre", 1},        {"progress", 0},
    {"q", 0},      {"rp", 0},       {"rt", 0},         {"ruby", 0},       {"s", 0},
    {"samp", 0},   {"script", 2},   {"section", 1},    {"select", 0},     {"small", 0},
    {"source", 0}, {"span", 0},     {"strike", 0},     {"strong", 0},     {"style", 2},
    {"sub", 0},    {"summary", 1},  {"sup", 0},        {"svg", 0},        {"table", 1},
    {"tbody", 1},  {"td", 1},       {"template", 0},   {"textarea", 0},   {"tfoot", 1},
    {"th", 1},     {"thead", 1},    {"time", 0},       {"title", 1},      {"tr", 1},
    {"track", 0},  {"tt", 0},       {"u", 0},          {"ul", 1},         {"var", 0},
    {"video", 0},  {"wbr", 0},
};

/* Top-level domains that make a bare host name an address.  English and
 * pinyin words that are also domains (in, it, me, wang, ...) are left out:
 * "Dr.Wang" is a name. */
static const char *const tlds[] = {
    "asia", "biz",  "cc",  "cn",     "co",  "com",  "edu", "gov", "hk", "icu", "info", "io",
    "la",   "mobi", "net", "online", "org", "site", "top", "tv",  "tw", "vip", "xyz",
};

static int cmp_entity(const void *key, const void *el)
{
	return strcmp(key, ((const entity *)el)->name);
}

static int cmp_element(const void *key, const void *el)
{
	return strcmp(key, ((const element *)el)->name);
}

/* ---- character classes -------------------------------------------------- */

/* Digits and letters: ts_is_digit, ts_is_latin, ts_is_alnum (util.h). */

static int is_xdigit(uint32_t c)
{
	return ts_is_digit(c) || (c | 0x20) - 'a' < 6;
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int is_bmp_han(uint32_t cp)
{
	return cp >= 0x4E00 && cp <= 0x9FFF;
}

/* Characters a URL or e-mail address is made of (RFC 3986). */
static int is_url_char(uint32_t cp)
{
	return cp < 0x80 &&
	       (ts_is_alnum(cp) || (cp > ' ' && strchr("-._~:/?#[]@!$&'()*+,;=%", (int)cp)));
}

/* Characters of a host name or e-mail address. */
static int is_host_char(unsigned char c)
{
	return ts_is_alnum(c) || c == '.' || c == '-' || c == '_' || c == '%' || c == '+' ||
	       c == '@';
}

static int is_dash(uint32_t cp)
{
	return cp == '-' || (cp >= 0x2010 && cp <= 0x2015) || cp == 0x2E3A || cp == 0x2E3B ||
	       cp == 0x2500 || cp == 0x2501 || cp == 0xFE58;
}

/* Symbols that decorate rather than say something (see the policy). */
static int is_deco(uint32_t cp)
{
	if (cp < 0x80)
		return cp > ' ' && strchr("*-=~_#+^|/\\", (int)cp) != NULL;
	if (is_bmp_han(cp))
		return 0;
	/* Emoji and pictographs are not decoration, however many: they go on
	 * to the normalizer, which counts each one the voice cannot read. */
	if (cp >= 0x1F000 && cp <= 0x1FAFF)
		return 0;
	switch (cp) {
	case 0xD7:   /* × */
	case 0x2025: /* ‥ */
	case 0x2026: /* … */
	case 0x22EF: /* ⋯ */
	case 0x25CB: /* ○ */
	case 0x25EF: /* ◯ */
	case 0xFE19: /* ︙ */ return 0;
	case 0xB7:   /* · */
	case 0x2022: /* • */
	case 0x2027: /* ‧ */
	case 0x203B: /* ※ */
	case 0x2042: /* ⁂ */
	case 0x30FB: /* ・ */ return 1;
	}
	switch (utf8proc_category((utf8proc_int32_t)cp)) {
	case UTF8PROC_CATEGORY_PD:
	case UTF8PROC_CATEGORY_PC:
	case UTF8PROC_CATEGORY_SM:
	case UTF8PROC_CATEGORY_SK:
	case UTF8PROC_CATEGORY_SO: return 1;
	default: return 0;
	}
}

/* A character that combines with the one before it. */
static int is_mark(uint32_t cp)
{
	if (cp < 0x300 || is_bmp_han(cp))
		return 0;
	if ((cp >= 0x1161 && cp <= 0x1175) || (cp >= 0x11A8 && cp <= 0x11C2))
		return 1; /* Hangul vowel and final jamo */
	const utf8proc_property_t *p = utf8proc_get_property((utf8proc_int32_t)cp);
	return p->combining_class != 0 || p->category == UTF8PROC_CATEGORY_MN ||
	       p->category == UTF8PROC_CATEGORY_MC || p->category == UTF8PROC_CATEGORY_ME;
}

/* ---- stage 4: decoration, spaces, paragraph breaks, output ---------- */

static void put(ts_cleaner *c, const char *s, size_t n)
{
	if (c->break_pending || c->space_pending) {
		if (ts_buf_putc(c->out, c->break_pending ? '\n' : ' '))
			c->err = TS_ENOMEM;
		c->break_pending = c->space_pending = 0;
	}
	c->at_start = 0;
	if (ts_buf_append(c->out, s, n))
		c->err = TS_ENOMEM;
}

/* The run of symbols ends: before a character (para_end 0) or at the end
 * of the paragraph. */
static void deco_end(ts_cleaner *c, int para_end)
{
	if (!c->deco_n)
		return;
	if (c->deco_n < 3 && !(para_end && c->at_start))
		put(c, c->deco, c->deco_len);
	else if (c->deco_n >= 3 && c->deco_dash && !para_end && !c->at_start)
		put(c, "\xE2\x80\x94\xE2\x80\x94", 6); /* —— */
	if (c->deco_gap && !c->at_start)
		c->space_pending = 1;
	c->deco_n = c->deco_gap = 0;
	c->deco_len = 0;
}

static void stage4(ts_cleaner *c, uint32_t cp)
{
	if (cp == ' ') {
		if (c->deco_n)
			c->deco_gap = 1;
		else if (!c->at_start)
			c->space_pending = 1;
		return;
	}
	if (cp == EV_BREAK) {
		deco_end(c, 1);
		if (!c->at_start)
			c->break_pending = 1;
		c->at_start = 1;
		c->space_pending = 0;
		return;
	}
	char b[4];
	int k = ts_utf8_encode(cp, b);
	if (is_deco(cp)) {
		if (c->deco_n < 2) {
			if (c->deco_n && c->deco_gap)
				c->deco[c->deco_len++] = ' ';
			memcpy(c->deco + c->deco_len, b, (size_t)k);
			c->deco_len += (size_t)k;
		}
		c->deco_dash = (c->deco_n == 0 || c->deco_dash) && is_dash(cp);
		if (c->deco_n < 3)
			c->deco_n++;
		c->deco_gap = 0;
		return;
	}
	deco_end(c, 0);
	put(c, b, (size_t)k);
}

/* ---- stage 3: addresses --------------------------------------------- */

static int is_tld(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof tlds / sizeof tlds[0]; i++) {
		size_t k = strlen(tlds[i]), j = 0;
		while (j < n && j < k && lower(s[j]) == tlds[i][j])
			j++;
		if (j == n && j == k)
			return 1;
	}
	return 0;
}

/* Length of "http://", "https://" or "ftp://" at s (the colon may be the
 * full-width ：, which is not folded), else 0. */
static size_t scheme_len(const char *s, size_t n)
{
	size_t i = 0;
	if (n >= 4 && lower(s[0]) == 'h' && lower(s[1]) == 't' && lower(s[2]) == 't' &&
	    lower(s[3]) == 'p')
		i = n > 4 && lower(s[4]) == 's' ? 5 : 4;
	else if (n >= 3 && lower(s[0]) == 'f' && lower(s[1]) == 't' && lower(s[2]) == 'p')
		i = 3;
	else
		return 0;
	if (i < n && s[i] == ':')
		i++;
	else if (i + 3 <= n && memcmp(s + i, "\xEF\xBC\x9A", 3) == 0)
		i += 3;
	else
		return 0;
	return i + 2 <= n && s[i] == '/' && s[i + 1] == '/' ? i + 2 : 0;
}

/* Length of the host name (labels of letters, digits and '-' joined by
 * dots) that makes up all of s[0..n) but trailing dots, else 0.  With
 * any_tld 0 its last label must be a known top-level domain. */
static size_t host_len(const char *s, size_t n, int any_tld)
{
	size_t i = 0, labels = 0, last = 0;
	for (;;) {
		size_t b = i;
		while (i < n && (ts_is_alnum((unsigned char)s[i]) || s[i] == '-'))
			i++;
		if (i == b)
			return 0;
		labels++;
		last = b;
		if (i + 1 < n && s[i] == '.' && s[i + 1] != '.') {
			i++;
			continue;
		}
		break;
	}
	size_t end = i;
	while (i < n && s[i] == '.')
		i++;
	if (i != n || labels < 2)
		return 0;
	if (any_tld) {
		for (size_t j = last; j < end; j++)
			if (!ts_is_latin((unsigned char)s[j]))
				return 0;
		return end - last >= 2 ? end : 0;
	}
	return is_tld(s + last, end - last) ? end : 0;
}

/* Length of the e-mail address that makes up s[0..n) (but trailing
 * dots), else 0. */
static size_t email_len(const char *s, size_t n)
{
	const char *at = memchr(s, '@', n);
	if (!at || at == s)
		return 0;
	size_t local = (size_t)(at - s);
	for (size_t i = 0; i < local; i++)
		if (!is_host_char((unsigned char)s[i]))
			return 0;
	size_t h = host_len(at + 1, n - local - 1, 1);
	return h ? local + 1 + h : 0;
}

/* Find the first address in r[0..n): it is r[*s..*e); *has_path says that it
 * goes on with a path to the end of the run. */
static int find_address(const char *r, size_t n, size_t *s, size_t *e, int *has_path)
{
	for (size_t p = 0; p < n; p++) {
		if (p > 0 && is_host_char((unsigned char)r[p - 1]))
			continue;
		if (scheme_len(r + p, n - p)) {
			*s = p, *e = n, *has_path = 1;
			return 1;
		}
		size_t t = p;
		while (t < n && is_host_char((unsigned char)r[t]))
			t++;
		if (t == p)
			continue;
		size_t len = email_len(r + p, t - p);
		int www = t - p > 4 && lower(r[p]) == 'w' && lower(r[p + 1]) == 'w' &&
		          lower(r[p + 2]) == 'w' && r[p + 3] == '.';
		if (!len) {
			len = host_len(r + p, t - p, www);
			*has_path = len && p + len < n && strchr("/:?#", r[p + len]);
		} else {
			*has_path = 0;
		}
		if (len) {
			*s = p, *e = p + len;
			return 1;
		}
		p = t - 1;
	}
	return 0;
}

/* Length of the URL u[0..n) without the punctuation that ends the
 * sentence around it. */
static size_t url_trim(const char *u, size_t n)
{
	while (n > 1) {
		char ch = u[n - 1];
		if (ch == ')' || ch == ']') {
			char opener = ch == ')' ? '(' : '[';
			int depth = 0;
			for (size_t i = 0; i < n; i++)
				depth += u[i] == opener ? 1 : u[i] == ch ? -1 : 0;
			if (depth >= 0)
				break;
		} else if (!strchr(".,;:!?'\"", ch)) {
			break;
		}
		n--;
	}
	return n;
}

static void pass_run(ts_cleaner *c, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint32_t cp;
		int k = ts_utf8_decode((const unsigned char *)s + i, n - i, &cp);
		if (k == 0) {
			i++;
			continue;
		}
		stage4(c, cp);
		i += (size_t)k;
	}
}

/* Pass on the held run without its addresses.  at_end 0: the run goes on
 * but the buffer is full. */
static void run_flush(ts_cleaner *c, int at_end)
{
	const char *r = c->run;
	size_t n = c->run_len, i = 0;
	c->run_len = 0;
	while (i < n) {
		size_t s, e;
		int has_path;
		if (!find_address(r + i, n - i, &s, &e, &has_path)) {
			pass_run(c, r + i, n - i);
			return;
		}
		pass_run(c, r + i, s);
		if (has_path) {
			if (!at_end) {
				c->run_drop = 1;
				return;
			}
			e = s + url_trim(r + i + s, n - i - s);
		}
		i += e > s ? e : s + 1;
	}
}

/* r[0..n) ends with the word w (lower case), not inside a longer word. */
static int ends_with_word(const char *r, size_t n, const char *w)
{
	size_t k = strlen(w);
	if (k > n)
		return 0;
	for (size_t i = 0; i < k; i++)
		if (lower(r[n - k + i]) != w[i])
			return 0;
	return n == k || !ts_is_latin((unsigned char)r[n - k - 1]);
}

/* The run so far ends with a URL scheme name, so that a full-width colon
 * may follow (ｈｔｔｐ：／／ folds to "http：//", ： being kept). */
static int after_scheme(const ts_cleaner *c)
{
	return ends_with_word(c->run, c->run_len, "http") ||
	       ends_with_word(c->run, c->run_len, "https") ||
	       ends_with_word(c->run, c->run_len, "ftp");
}

static void stage3(ts_cleaner *c, uint32_t cp)
{
	if (c->run_len || c->run_drop) {
		if (is_url_char(cp) || (cp == 0xFF1A && !c->run_drop && after_scheme(c))) {
			if (c->run_drop)
				return;
			if (c->run_len + 4 > RUN_MAX) {
				run_flush(c, 0);
				if (c->run_drop)
					return;
			}
			c->run_len += (size_t)ts_utf8_encode(cp, c->run + c->run_len);
			return;
		}
		run_flush(c, 1);
		c->run_drop = 0;
	} else if (is_url_char(cp)) {
		c->run[0] = (char)cp;
		c->run_len = 1;
		return;
	}
	if (cp != EV_SOFT)
		stage4(c, cp);
}

/* ---- stage 2: folding, removal, composition ------------------------- */

static void clu_flush(ts_cleaner *c)
{
	int n = c->nclu;
	c->nclu = 0;
	if (n == 1) {
		stage3(c, (uint32_t)c->clu[0]);
		return;
	}
	if (n == 0)
		return;
	utf8proc_uint8_t u8[CLU_MAX * 4] = {0};
	utf8proc_int32_t buf[CLU_MAX * 4];
	utf8proc_ssize_t len = 0, m;
	for (int i = 0; i < n; i++)
		len += utf8proc_encode_char(c->clu[i], u8 + len);
	m = utf8proc_decompose(u8, len, buf, CLU_MAX * 4, UTF8PROC_STABLE | UTF8PROC_COMPOSE);
	if (m > 0 && m <= CLU_MAX * 4)
		m = utf8proc_normalize_utf32(buf, m, UTF8PROC_STABLE | UTF8PROC_COMPOSE);
	if (m <= 0 || m > CLU_MAX * 4) {
		for (int i = 0; i < n; i++)
			stage3(c, (uint32_t)c->clu[i]);
		return;
	}
	for (utf8proc_ssize_t i = 0; i < m; i++)
		stage3(c, (uint32_t)buf[i]);
}

static void compose(ts_cleaner *c, uint32_t cp)
{
	if (cp != EV_SOFT && c->nclu > 0 && c->nclu < CLU_MAX && is_mark(cp)) {
		c->clu[c->nclu++] = (utf8proc_int32_t)cp;
		return;
	}
	clu_flush(c);
	if (cp == ' ' || cp == EV_BREAK || cp == EV_SOFT) {
		stage3(c, cp);
		return;
	}
	c->clu[0] = (utf8proc_int32_t)cp;
	c->nclu = 1;
}

/* What a non-ASCII character becomes: itself, its ASCII fold, ' ',
 * EV_BREAK, or 0 to drop it. */
static uint32_t fold_char(uint32_t cp)
{
	if (cp >= 0xFF01 && cp <= 0xFF5E) {
		switch (cp) {
		case 0xFF01: /* ！ */
		case 0xFF08: /* （ */
		case 0xFF09: /* ） */
		case 0xFF0C: /* ， */
		case 0xFF1A: /* ： */
		case 0xFF1B: /* ； */
		case 0xFF1F: /* ？ */
		case CP_FW_DOT: return cp;
		}
		return cp - 0xFEE0;
	}
	switch (cp) {
	case 0x25A0: /* ■ */
	case 0x25A1: /* □ */
	case 0x3013: /* 〓 */
	case 0xFFFD: return 0;
	}
	if ((cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0100 && cp <= 0xE01EF) ||
	    (cp >= 0x180B && cp <= 0x180F))
		return 0; /* variation selectors */
	switch (utf8proc_category((utf8proc_int32_t)cp)) {
	case UTF8PROC_CATEGORY_CC:
	case UTF8PROC_CATEGORY_CF:
	case UTF8PROC_CATEGORY_CO:
	case UTF8PROC_CATEGORY_CS: return 0;
	case UTF8PROC_CATEGORY_ZS:
	case UTF8PROC_CATEGORY_ZL: return ' ';
	case UTF8PROC_CATEGORY_ZP: return EV_BREAK;
	default: return cp;
	}
}

static void stage2(ts_cleaner *c, uint32_t cp)
{
	if (cp < 0x80) {
		if (cp < 0x20 || cp == 0x7F) {
			if (cp == '\t')
				cp = ' ';
			else if (cp != EV_BREAK)
				return;
		}
	} else if (cp == EV_SOFT) {
		compose(c, cp);
		return;
	} else if (!is_bmp_han(cp) && !(cp = fold_char(cp))) {
		return;
	}
	if (c->dot_pending) {
		c->dot_pending = 0;
		if (ts_is_alnum(cp)) {
			compose(c, '.');
		} else {
			compose(c, CP_FW_DOT);
			c->prev_alnum = 0;
		}
	}
	if (cp == CP_FW_DOT && c->prev_alnum) {
		c->dot_pending = 1;
		return;
	}
	c->prev_alnum = ts_is_alnum(cp);
	compose(c, cp);
}

/* ---- stage 1: markup ------------------------------------------------ */

typedef struct tag {
	enum { TAG_OPEN, TAG_CLOSE, TAG_COMMENT, TAG_OTHER } kind;
	int block;
	int raw;
	char name[TAG_NAME_MAX];
} tag;

static int is_space_byte(unsigned char c)
{
	return c == ' ' || c == '\t';
}

static int is_attr_name_char(unsigned char c)
{
	return ts_is_alnum(c) || c == '-' || c == '_' || c == '.' || c == ':' || c == '@';
}

/* Scan attributes from s[i] to the '>' of the tag: names of ASCII letters
 * (href, data-id, xml:lang), values quoted or not (title='a > b', alt=图).
 * Returns the index after the '>', 0 when this is not a tag, -1 when the
 * text ends first.  *names counts the attributes, *eq those with a
 * value; *slash is set when the tag ends with "/>". */
static long scan_attrs(const unsigned char *u, size_t n, size_t i, int *names, int *eq, int *slash)
{
	for (;;) {
		while (i < n && is_space_byte(u[i]))
			i++;
		if (i >= n)
			return -1;
		if (u[i] == '>')
			return (long)i + 1;
		if (u[i] == '/') {
			*slash = i + 1 < n && u[i + 1] == '>';
			i++;
			continue;
		}
		*slash = 0;
		if (!ts_is_latin(u[i]) && u[i] != '_' && u[i] != ':' && u[i] != '@')
			return 0;
		while (i < n && is_attr_name_char(u[i]))
			i++;
		(*names)++;
		while (i < n && is_space_byte(u[i]))
			i++;
		if (i >= n)
			return -1;
		if (u[i] != '=')
			continue; /* an attribute without a value */
		(*eq)++;
		i++;
		while (i < n && is_space_byte(u[i]))
			i++;
		if (i >= n)
			return -1;
		if (u[i] == '"' || u[i] == '\'') {
			const unsigned char *q = memchr(u + i + 1, u[i], n - i - 1);
			if (!q)
				return -1;
			i = (size_t)(q - u) + 1;
			continue;
		}
		size_t v = i;
		while (i < n && !is_space_byte(u[i]) && u[i] != '<' && u[i] != '>')
			i++;
		if (i == v || (i < n && u[i] != '>' && !is_space_byte(u[i])))
			return i >= n ? -1 : 0;
	}
}

/* Length of the tag at s[0] == '<', 0 when it is text, -1 when more text
 * is needed to tell (never when final or n >= TAG_MAX).  An element name
 * must be known, or have a namespace (o:p), or attributes with values, or
 * be bare and lower case (<foo>, </foo>): "<Harry Potter>" is text. */
static long parse_tag(const char *s, size_t n, int final, tag *t)
{
	const unsigned char *u = (const unsigned char *)s;
	long more = final || n >= TAG_MAX ? 0 : -1;
	size_t lim = n < TAG_MAX ? n : TAG_MAX;
	memset(t, 0, sizeof *t);
	if (n < 3)
		return more;
	if (u[1] == '!' || u[1] == '?') {
		/* <!-- comment -->, <!DOCTYPE ...>, <![CDATA[...]]>, <?xml ...?> */
		if (u[1] == '!' && u[2] == '-') {
			if (n < 4)
				return more;
			t->kind = TAG_COMMENT;
			return u[3] == '-' ? 4 : 0;
		}
		if (!ts_is_latin(u[2]) && !(u[1] == '!' && u[2] == '['))
			return 0;
		t->kind = TAG_OTHER;
		for (size_t i = 3; i < lim; i++) {
			if (u[i] == '>')
				return (long)i + 1;
			if (u[i] == '<')
				return 0;
		}
		return lim == n ? more : 0;
	}
	t->kind = u[1] == '/' ? TAG_CLOSE : TAG_OPEN;
	size_t b = t->kind == TAG_CLOSE ? 2 : 1, i = b;
	if (!ts_is_latin(u[b]))
		return 0;
	int colon = 0, upper = 0;
	while (i < lim &&
	       (ts_is_alnum(u[i]) || u[i] == '-' || u[i] == '_' || u[i] == '.' || u[i] == ':')) {
		colon |= u[i] == ':';
		upper |= u[i] >= 'A' && u[i] <= 'Z';
		i++;
	}
	if (i >= lim)
		return lim == n ? more : 0;
	if (u[i] != '>' && u[i] != '/' && !is_space_byte(u[i]))
		return 0;
	const element *el = NULL;
	size_t len = i - b;
	if (len < sizeof t->name) {
		for (size_t k = 0; k < len; k++)
			t->name[k] = (char)lower(u[b + k]);
		t->name[len] = '\0';
		el = bsearch(t->name, elements, sizeof elements / sizeof elements[0],
		             sizeof elements[0], cmp_element);
	}
	int names = 0, eq = 0, slash = 0;
	long r = scan_attrs(u, lim, i, &names, &eq, &slash);
	if (r < 0)
		return lim == n ? more : 0;
	if (r == 0 || !(el || colon || eq || (!upper && !names)))
		return 0;
	if (el) {
		t->block = el->kind == EL_BLOCK;
		t->raw = el->kind == EL_RAW && t->kind == TAG_OPEN && !slash;
	}
	return r;
}

/* The entity whose name starts at s[i] (after the '&'): returns the index
 * after it, 0 when it is text, -1 when more text is needed to tell. */
static long entity_at(const char *s, size_t n, size_t i, int final, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	int may_wait = !final && n < TAG_MAX;
	if (i >= n)
		return may_wait ? -1 : 0;
	if (u[i] == '#') {
		size_t j = i + 1;
		int hex = j < n && (u[j] == 'x' || u[j] == 'X');
		j += (size_t)hex;
		size_t d = j;
		uint32_t v = 0;
		while (j < n && (hex ? is_xdigit(u[j]) : ts_is_digit(u[j]))) {
			if (j - d >= 8)
				return 0;
			v = v * (hex ? 16 : 10) +
			    (ts_is_digit(u[j]) ? u[j] - '0' : (u[j] | 0x20) - 'a' + 10);
			j++;
		}
		if (j >= n && may_wait)
			return -1;
		if (j == d)
			return 0;
		if (v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
			v = 0xFFFD;
		else if (v >= 0x80 && v <= 0x9F)
			v = cp1252[v - 0x80] ? cp1252[v - 0x80] : 0xFFFD;
		else if (v == '\n' || v == '\r' || v == '\f')
			v = ' ';
		*cp = v;
		return (long)(j < n && u[j] == ';' ? j + 1 : j);
	}
	size_t j = i;
	while (j < n && ts_is_alnum(u[j]) && j - i <= ENT_NAME_MAX)
		j++;
	if (j >= n && may_wait)
		return -1;
	if (j == i || j - i > ENT_NAME_MAX)
		return 0;
	char name[ENT_NAME_MAX + 1];
	memcpy(name, s + i, j - i);
	name[j - i] = '\0';
	const entity *e = bsearch(name, entities, sizeof entities / sizeof entities[0],
	                          sizeof entities[0], cmp_entity);
	if (!e)
		return 0;
	*cp = e->cp;
	return (long)(j < n && u[j] == ';' ? j + 1 : j);
}

/* Length of the entity at s[0] == '&', 0 when it is text, -1 when more
 * text is needed.  &amp;nbsp; is decoded all the way. */
static long parse_entity(const char *s, size_t n, int final, uint32_t *cp)
{
	long end = entity_at(s, n, 1, final, cp);
	while (end > 0 && *cp == '&' && s[end - 1] == ';' && end < TAG_MAX / 2) {
		uint32_t inner;
		long e2 = entity_at(s, n, (size_t)end, final, &inner);
		if (e2 < 0)
			return -1;
		if (e2 == 0)
			break;
		*cp = inner;
		end = e2;
	}
	return end;
}

static void on_tag(ts_cleaner *c, const tag *t)
{
	if (t->kind == TAG_COMMENT) {
		c->skip = SKIP_COMMENT;
		c->dashes = 0;
		c->skipped = 0;
	} else if (t->raw) {
		c->skip = SKIP_RAW;
		memcpy(c->raw_name, t->name, sizeof c->raw_name);
		c->skipped = 0;
	}
	stage2(c, t->block ? EV_BREAK : EV_SOFT);
}

/* Skip inside a comment or a raw element; returns the bytes used, or -1
 * when more text is needed to tell whether its end is here. */
static long skip_bytes(ts_cleaner *c, const char *s, size_t n, int final)
{
	size_t i = 0;
	while (i < n && c->skip) {
		unsigned char b = (unsigned char)s[i];
		if (c->skip == SKIP_COMMENT) {
			if (b == '>' && c->dashes >= 2)
				c->skip = SKIP_NONE;
			c->dashes = b == '-' ? (c->dashes ? 2 : 1) : 0;
			i++;
		} else if (b == '<') {
			tag t;
			long r = parse_tag(s + i, n - i, final, &t);
			if (r < 0)
				return i ? (long)i : -1;
			if (r > 0 && t.kind == TAG_CLOSE && strcmp(t.name, c->raw_name) == 0) {
				c->skip = SKIP_NONE;
				i += (size_t)r;
			} else {
				i++;
			}
		} else {
			i++;
		}
		if (++c->skipped > SKIP_MAX)
			c->skip = SKIP_NONE;
	}
	return (long)i;
}

/* Clean s[0..n); returns how much was used: all of it but a tag or entity
 * that needs more text to be recognised (never when final). */
static size_t scan(ts_cleaner *c, const char *s, size_t n, int final)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		unsigned char b = u[i];
		if (c->skip) {
			long r = skip_bytes(c, s + i, n - i, final);
			if (r < 0)
				return i;
			i += (size_t)r;
			if (!c->skip)
				stage2(c, EV_SOFT);
			continue;
		}
		if (b == '<') {
			tag t;
			long r = parse_tag(s + i, n - i, final, &t);
			if (r < 0)
				return i;
			if (r > 0) {
				on_tag(c, &t);
				i += (size_t)r;
				continue;
			}
		} else if (b == '&') {
			uint32_t cp;
			long r = parse_entity(s + i, n - i, final, &cp);
			if (r < 0)
				return i;
			if (r > 0) {
				stage2(c, cp);
				i += (size_t)r;
				continue;
			}
		}
		if (b < 0x80) {
			stage2(c, b);
			i++;
			continue;
		}
		uint32_t cp;
		int k = ts_utf8_decode(u + i, n - i, &cp);
		if (k == 0) { /* not reached for validated input */
			i++;
			continue;
		}
		stage2(c, cp);
		i += (size_t)k;
	}
	return i;
}

/* ---- the line ------------------------------------------------------- */

static void end_line(ts_cleaner *c)
{
	if (c->dot_pending) {
		c->dot_pending = 0;
		compose(c, CP_FW_DOT);
	}
	c->prev_alnum = 0;
	clu_flush(c);
	if (c->run_len || c->run_drop)
		run_flush(c, 1);
	c->run_drop = 0;
	deco_end(c, 1);
	c->at_start = 1;
	c->space_pending = c->break_pending = 0;
}

ts_cleaner *ts_cleaner_new(void)
{
	ts_cleaner *c = malloc(sizeof *c);
	if (c)
		ts_cleaner_reset(c);
	return c;
}

void ts_cleaner_free(ts_cleaner *c)
{
	free(c);
}

void ts_cleaner_reset(ts_cleaner *c)
{
	memset(c, 0, sizeof *c);
	c->at_start = 1;
}

int ts_clean_flush(ts_cleaner *c, ts_buf *out)
{
	c->out = out;
	c->err = 0;
	stage2(c, EV_SOFT);
	c->out = NULL;
	return c->err;
}

int ts_clean_piece(ts_cleaner *c, const char *text, size_t len, int line_end, ts_buf *out)
{
	size_t i = 0;
	c->out = out;
	c->err = 0;
	/* Finish a tag or entity held from the last piece: add text to it
	 * (whole characters) until it is known, at most TAG_MAX bytes. */
	while (c->hold_len > 0) {
		size_t take = len - i;
		if (take > HOLD_MAX - c->hold_len) {
			take = HOLD_MAX - c->hold_len;
			while (take > 0 && ((unsigned char)text[i + take] & 0xC0) == 0x80)
				take--;
		}
		memcpy(c->hold + c->hold_len, text + i, take);
		c->hold_len += take;
		i += take;
		size_t used = scan(c, c->hold, c->hold_len, line_end && i == len);
		memmove(c->hold, c->hold + used, c->hold_len - used);
		c->hold_len -= used;
		if (i == len)
			break;
	}
	if (i < len) {
		size_t used = scan(c, text + i, len - i, line_end);
		c->hold_len = len - i - used; /* < TAG_MAX */
		memcpy(c->hold, text + i + used, c->hold_len);
	}
	if (line_end)
		end_line(c);
	c->out = NULL;
	return c->err;
}
