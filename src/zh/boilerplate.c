/* boilerplate.c - the site's and uploader's lines of a web novel (see
 * boilerplate.h and the top of voices/zh/boilerplate.txt).
 *
 * A line is judged on its key: spaces of every kind and simple markup
 * (<p>, &nbsp;) dropped, full-width ASCII folded (ｗｗｗ．ａ．ｃｏｍ ->
 * www.a.com, ＰＳ： -> ps:), Latin letters lower-cased; the decoration
 * at its ends (anything but Han, kana, letters, digits and quotation
 * marks: （本章完）, 求月票！！！) does not count for ^ $ =.  A word that
 * starts or ends with a Latin letter matches only where the key has none
 * next to it (ps matches "ps:", not "psp").  The words of all patterns sit
 * in buckets by their first character, so a line is scanned once,
 * whatever the number of patterns, and its words found are then what the
 * rules are evaluated on.
 *
 * Bad-input policy: a pattern file with a kind or group that is not one,
 * or an empty word, is an error naming the entry (the file ships with the
 * voice); a line too long to be boilerplate (KEY_MAX) is story. */
#include "zh/boilerplate.h"

#include "zh/heading.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

#define KEY_MAX  4096 /* longest key judged, in bytes */
#define NBUCKETS 256
#define SEP_MIN  3 /* characters of a separator row, at least */

/* The kinds of lines dropped: the names of boilerplate.txt, what
 * --dropped says, which are the author's (kept with --keep-notes), and
 * which head a section: the lines after them are dropped too, up to the
 * next chapter heading. */
static const struct kind {
	const char *name, *reason;
	int note, section;
} kinds[] = {
    {"site", "site ad", 0, 0},
    {"marker", "end marker", 0, 0},
    {"furniture", "page furniture", 0, 0},
    {"credit", "uploader's credit", 0, 0},
    {"separator", "separator", 0, 0},
    {"note", "author's note", 1, 0},
    {"update", "update notice", 1, 0},
    {"section", "author's note", 1, 1},
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

enum { AT_ANY, AT_START, AT_END, AT_WHOLE };
enum { F_ANY = 1, F_START = 2, F_END = 4 };

typedef struct word {
	char *s; /* its key */
	size_t n;
	int next;             /* the next word of its bucket, or -1 */
	int latin_a, latin_b; /* starts, ends with an ASCII letter */
} word;

typedef struct alt {
	int word;
	int at; /* AT_* */
} alt;

typedef struct term {
	int neg;  /* !: none of the alternatives may be found */
	int only; /* %: the line is made only of the characters of its word */
	size_t a0, na;
} term;

typedef struct rule {
	int kind;
	size_t t0, nt;
	int needs_word; /* a term must find a word: a line with none cannot match */
} rule;

typedef struct group {
	const char *name; /* "@name", the table's */
	int word;
} group;

struct ts_boilerplate {
	word *w;
	size_t nw, capw;
	int bucket[NBUCKETS];
	alt *a;
	size_t na, capa;
	term *t;
	size_t nt, capt;
	rule *r;
	size_t nr, capr;
};

struct ts_boilerplate_check {
	const ts_boilerplate *bp;
	unsigned flags;
	unsigned char *found; /* F_* of each word, for the line judged */
	size_t nfound;        /* words found in it */
	int section;          /* in a section: 1 + the kind of the line that began it; else 0 */
	char key[KEY_MAX];
};

static int is_space(uint32_t cp)
{
	return cp == ' ' || cp == '\t' || cp == '\r' || cp == 0xA0 || cp == 0x3000 ||
	       (cp >= 0x2000 && cp <= 0x200F) || cp == 0x202F || cp == 0x205F || cp == 0xFEFF;
}

static int is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z');
}

static int is_letter(unsigned char c)
{
	return c >= 'a' && c <= 'z';
}

/* A character that counts at the ends of a key: not decoration.  Quotation
 * marks count: a line that opens a quotation is dialogue, and a PS or a
 * request in it is a character's. */
static int word_char(uint32_t cp)
{
	return ts_is_han(cp) || (cp < 0x80 && (is_alnum((unsigned char)cp) || cp == '"')) ||
	       (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0xC0 && cp < 0x250) ||
	       (cp >= 0x2018 && cp <= 0x201F) || (cp >= 0x300C && cp <= 0x300F);
}

/* Markup at s[0..n): the length of a tag <p>, </div>, or of &nbsp;, else 0. */
static size_t markup(const char *s, size_t n)
{
	if (n >= 6 && memcmp(s, "&nbsp;", 6) == 0)
		return 6;
	if (n < 3 || s[0] != '<' ||
	    !(s[1] == '/' || (s[1] >= 'a' && s[1] <= 'z') || (s[1] >= 'A' && s[1] <= 'Z')))
		return 0;
	for (size_t i = 2; i < n && i < 64; i++)
		if (s[i] == '>')
			return i + 1;
	return 0;
}

/* The key of s[0..n) into out (see the top): its length, or
 * (size_t)-1 when it does not fit in cap bytes. */
static size_t make_key(const char *s, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t m = markup(s + i, n - i);
		if (m) {
			i += m;
			continue;
		}
		unsigned char lead = (unsigned char)s[i];
		if (lead >= 0xE4 && lead <= 0xE9 && n - i >= 3) {
			/* U+4000-U+9FFF (most Han): kept as it is, undecoded */
			if (o + 3 > cap)
				return (size_t)-1;
			memcpy(out + o, s + i, 3);
			o += 3, i += 3;
			continue;
		}
		uint32_t cp;
		int k = ts_utf8_decode((const unsigned char *)s + i, n - i, &cp);
		if (k <= 0) {
			i++;
			continue;
		}
		i += (size_t)k;
		if (is_space(cp))
			continue;
		if (cp >= 0xFF01 && cp <= 0xFF5E)
			cp -= 0xFEE0;
		if (cp >= 'A' && cp <= 'Z')
			cp += 'a' - 'A';
		if (o + 4 > cap)
			return (size_t)-1;
		o += (size_t)ts_utf8_encode(cp, out + o);
	}
	return o;
}

/* The length of the UTF-8 character that starts with byte c (valid text). */
static size_t char_len(unsigned char c)
{
	return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

/* The bucket of the words that start with the character at s[0..k): its
 * bytes hashed, so a line is scanned without decoding it. */
static unsigned bucket_of(const char *s, size_t k)
{
	uint32_t h = 0;
	for (size_t i = 0; i < k; i++)
		h = h * 31 + (unsigned char)s[i];
	return (unsigned)((h * 2654435761u) >> 24) & (NBUCKETS - 1);
}

/* The word of key s[0..n) (a new one, or the same met before): its
 * index, or -1 when out of memory. */
static int add_word(ts_boilerplate *bp, const char *s, size_t n)
{
	size_t k = char_len((unsigned char)s[0]);
	unsigned b = bucket_of(s, k < n ? k : n);
	for (int i = bp->bucket[b]; i >= 0; i = bp->w[i].next)
		if (bp->w[i].n == n && memcmp(bp->w[i].s, s, n) == 0)
			return i;
	if (TS_GROW(bp->w, bp->capw, bp->nw + 1))
		return -1;
	char *copy = ts_strndup(s, n);
	if (!copy)
		return -1;
	word *w = &bp->w[bp->nw];
	*w = (word){copy, n, bp->bucket[b], is_letter((unsigned char)s[0]),
	            is_letter((unsigned char)s[n - 1])};
	bp->bucket[b] = (int)bp->nw;
	return (int)bp->nw++;
}

static int add_alt(ts_boilerplate *bp, int w, int at)
{
	if (TS_GROW(bp->a, bp->capa, bp->na + 1))
		return TS_ENOMEM;
	bp->a[bp->na++] = (alt){w, at};
	return 0;
}

/* One alternative of a term, s[0..n): "^word", "word$", "=word",
 * "@group" (each with its anchors).  0, TS_EINVAL (why says why) or
 * TS_ENOMEM. */
static int parse_alt(ts_boilerplate *bp, const group *g, size_t ng, const char *s, size_t n,
                     const char **why)
{
	int at = AT_ANY;
	if (n && (*s == '^' || *s == '=')) {
		at = *s == '^' ? AT_START : AT_WHOLE;
		s++, n--;
	}
	if (n && s[n - 1] == '$') {
		at = at == AT_START || at == AT_WHOLE ? AT_WHOLE : AT_END;
		n--;
	}
	if (n && *s == '@') {
		size_t before = bp->na;
		for (size_t i = 0; i < ng; i++)
			if (strlen(g[i].name) == n && memcmp(g[i].name, s, n) == 0 &&
			    add_alt(bp, g[i].word, at))
				return TS_ENOMEM;
		*why = "a group with no words";
		return bp->na > before ? 0 : TS_EINVAL;
	}
	char key[256];
	size_t kn = make_key(s, n, key, sizeof key);
	*why = "an empty or too long word";
	if (kn == 0 || kn == (size_t)-1)
		return TS_EINVAL;
	int w = add_word(bp, key, kn);
	return w < 0 ? TS_ENOMEM : add_alt(bp, w, at);
}

/* A rule's pattern p: terms separated by spaces, alternatives by |. */
static int parse_rule(ts_boilerplate *bp, const group *g, size_t ng, const char *p, int kind,
                      const char **why)
{
	if (TS_GROW(bp->r, bp->capr, bp->nr + 1))
		return TS_ENOMEM;
	rule *r = &bp->r[bp->nr];
	*r = (rule){kind, bp->nt, 0, 0};
	int rc = 0;
	while (*p && !rc) {
		size_t n = strcspn(p, " ");
		if (n == 0) {
			p++;
			continue;
		}
		if (TS_GROW(bp->t, bp->capt, bp->nt + 1))
			return TS_ENOMEM;
		term t = {.neg = *p == '!', .only = *p == '%'};
		size_t skip = t.neg || t.only ? 1 : 0;
		t.a0 = bp->na;
		for (const char *s = p + skip, *end = p + n; s < end && !rc;) {
			size_t m =
			    (size_t)(memchr(s, '|', (size_t)(end - s))
			                 ? (const char *)memchr(s, '|', (size_t)(end - s)) - s
			                 : end - s);
			rc = parse_alt(bp, g, ng, s, m, why);
			s += m + 1;
		}
		t.na = bp->na - t.a0;
		if (!rc && t.na == 0)
			rc = (*why = "an empty term", TS_EINVAL);
		bp->t[bp->nt++] = t;
		r->nt++;
		r->needs_word |= !t.neg && !t.only;
		p += n;
	}
	if (!rc && r->nt == 0)
		rc = (*why = "an empty pattern", TS_EINVAL);
	if (!rc)
		bp->nr++;
	return rc;
}

static int kind_of(const char *name)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (strcmp(kinds[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* The groups' words first (a rule may name a group defined below it),
 * then the rules, in the order of the file. */
static int load(ts_boilerplate *bp, const ts_word *e, size_t n, group **g, size_t *ng,
                const char **why, size_t *bad)
{
	size_t cap = 0;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		if (e[i].said[0] != '@')
			continue;
		char key[256];
		size_t kn = make_key(e[i].text, strlen(e[i].text), key, sizeof key);
		int w = kn && kn != (size_t)-1 ? add_word(bp, key, kn) : -2;
		if (w == -2)
			rc = (*why = "an empty or too long word", *bad = i, TS_EINVAL);
		else if (w < 0 || TS_GROW(*g, cap, *ng + 1))
			rc = TS_ENOMEM;
		else
			(*g)[(*ng)++] = (group){e[i].said, w};
	}
	for (size_t i = 0; i < n && !rc; i++) {
		if (e[i].said[0] == '@')
			continue;
		int kind = kind_of(e[i].said);
		*bad = i;
		if (kind < 0)
			rc =
			    (*why = "not a kind (site, marker, furniture, credit, separator, note, "
			            "update, section) or @group",
			     TS_EINVAL);
		else
			rc = parse_rule(bp, *g, *ng, e[i].text, kind, why);
	}
	return rc;
}

ts_boilerplate *ts_boilerplate_new(const ts_wordtab *words, const char *file, ts_error *err)
{
	ts_boilerplate *bp = calloc(1, sizeof *bp);
	if (!bp) {
		ts_error_set(err, TS_ENOMEM, NULL);
		return NULL;
	}
	for (size_t i = 0; i < NBUCKETS; i++)
		bp->bucket[i] = -1;
	size_t n, bad = 0, ng = 0;
	const ts_word *e = ts_wordtab_words(words, &n);
	group *g = NULL;
	const char *why = "";
	int rc = load(bp, e, n, &g, &ng, &why, &bad);
	free(g);
	if (rc == TS_EINVAL)
		ts_error_set(err, rc, "%s: \"%s<TAB>%s\": %s", file, e[bad].text, e[bad].said, why);
	else if (rc)
		ts_error_set(err, rc, NULL);
	if (rc) {
		ts_boilerplate_free(bp);
		return NULL;
	}
	return bp;
}

void ts_boilerplate_free(ts_boilerplate *bp)
{
	if (!bp)
		return;
	for (size_t i = 0; i < bp->nw; i++)
		free(bp->w[i].s);
	free(bp->w);
	free(bp->a);
	free(bp->t);
	free(bp->r);
	free(bp);
}

ts_boilerplate_check *ts_boilerplate_check_new(const ts_boilerplate *bp, unsigned flags)
{
	ts_boilerplate_check *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->bp = bp;
	c->flags = flags;
	if (bp && bp->nw && !(c->found = calloc(bp->nw, 1))) {
		free(c);
		return NULL;
	}
	return c;
}

void ts_boilerplate_check_free(ts_boilerplate_check *c)
{
	if (!c)
		return;
	free(c->found);
	free(c);
}

/* The words of the patterns found in key[a..b), the key trimmed of its
 * decoration, into c->found. */
static void find_words(ts_boilerplate_check *c, const char *key, size_t a, size_t b)
{
	const ts_boilerplate *bp = c->bp;
	memset(c->found, 0, bp->nw);
	c->nfound = 0;
	for (size_t i = a; i < b;) {
		size_t k = char_len((unsigned char)key[i]);
		if (k > b - i)
			break;
		for (int j = bp->bucket[bucket_of(key + i, k)]; j >= 0; j = bp->w[j].next) {
			const word *w = &bp->w[j];
			/* The first character's last byte tells most words of a
			 * bucket apart before a whole comparison. */
			if (w->n > b - i || w->n < k || w->s[k - 1] != key[i + k - 1] ||
			    memcmp(key + i, w->s, w->n) != 0)
				continue;
			if ((w->latin_a && i > 0 && is_letter((unsigned char)key[i - 1])) ||
			    (w->latin_b && i + w->n < b && is_letter((unsigned char)key[i + w->n])))
				continue;
			c->nfound += !c->found[j];
			c->found[j] |= F_ANY | (i == a ? F_START : 0) | (i + w->n == b ? F_END : 0);
		}
		i += k;
	}
}

/* Is the character u[0..n) one of w's? */
static int has_char(const word *w, const char *u, size_t n)
{
	for (size_t i = 0; i + n <= w->n; i++)
		if (memcmp(w->s + i, u, n) == 0)
			return 1;
	return 0;
}

/* Is the whole key made of the characters of word w, SEP_MIN at least? */
static int only_chars(const word *w, const char *key, size_t n)
{
	size_t count = 0;
	for (size_t i = 0; i < n; count++) {
		size_t k = char_len((unsigned char)key[i]);
		if (k > n - i || !has_char(w, key + i, k))
			return 0;
		i += k;
	}
	return count >= SEP_MIN;
}

static int term_holds(const ts_boilerplate_check *c, const term *t, const char *key, size_t n,
                      size_t a, size_t b)
{
	const ts_boilerplate *bp = c->bp;
	int any = 0;
	for (size_t i = 0; i < t->na && !any; i++) {
		const alt *al = &bp->a[t->a0 + i];
		const word *w = &bp->w[al->word];
		unsigned f = c->found[al->word];
		if (t->only)
			any = only_chars(w, key, n);
		else if (al->at == AT_WHOLE)
			any = (f & F_START) && w->n == b - a;
		else
			any = al->at == AT_START ? (f & F_START) != 0
			      : al->at == AT_END ? (f & F_END) != 0
			                         : f != 0;
	}
	return t->neg ? !any : any;
}

/* The kind of the first rule key[0..n) matches (only the author's with
 * notes_only), or -1. */
static int judge_key(ts_boilerplate_check *c, const char *key, size_t n, int notes_only)
{
	const ts_boilerplate *bp = c->bp;
	size_t a = 0, b = n;
	while (a < b) {
		uint32_t cp;
		int k = ts_utf8_decode((const unsigned char *)key + a, b - a, &cp);
		if (k <= 0 || word_char(cp))
			break;
		a += (size_t)k;
	}
	while (b > a) {
		size_t s = b - 1;
		while (s > a && ((unsigned char)key[s] & 0xC0) == 0x80)
			s--;
		uint32_t cp;
		if (ts_utf8_decode((const unsigned char *)key + s, b - s, &cp) <= 0 ||
		    word_char(cp))
			break;
		b = s;
	}
	find_words(c, key, a, b);
	for (size_t i = 0; i < bp->nr; i++) {
		const rule *r = &bp->r[i];
		int note = kinds[r->kind].note;
		if ((note && (c->flags & TS_BOILERPLATE_KEEP_NOTES)) || (notes_only && !note) ||
		    (r->needs_word && !c->nfound))
			continue;
		size_t k = 0;
		while (k < r->nt && term_holds(c, &bp->t[r->t0 + k], key, n, a, b))
			k++;
		if (k == r->nt)
			return r->kind;
	}
	return -1;
}

static int is_heading(const char *s, size_t n)
{
	char out[TS_HEADING_BYTES];
	return n < TS_HEADING_BYTES && ts_heading_line(s, n, out, sizeof out) != TS_HEADING_NONE;
}

/* Brackets a request tacked on a heading may be in. */
static const char *const brackets[][2] = {
    {"（", "）"}, {"(", ")"}, {"【", "】"}, {"[", "]"}, {"〔", "〕"},
};

/* Where a request tacked on the heading line[0..n) starts, or n; *kind
 * gets the kind of its rule. */
static size_t heading_tail(ts_boilerplate_check *c, const char *line, size_t n, int *kind)
{
	while (n && line[n - 1] == ' ')
		n--;
	for (size_t i = 0; i < sizeof brackets / sizeof brackets[0]; i++) {
		const char *open = brackets[i][0], *close = brackets[i][1];
		size_t ol = strlen(open), cl = strlen(close);
		if (n < ol + cl || memcmp(line + n - cl, close, cl) != 0)
			continue;
		size_t o = n - cl;
		while (o > 0 && !(o >= ol && memcmp(line + o - ol, open, ol) == 0))
			o--;
		if (o < ol)
			return n;
		size_t kn = make_key(line + o, n - cl - o, c->key, sizeof c->key);
		if (kn == 0 || kn == (size_t)-1 || (*kind = judge_key(c, c->key, kn, 1)) < 0 ||
		    !is_heading(line, o - ol))
			return n;
		return o - ol;
	}
	return n;
}

/* The kind of the first rule s[0..n) matches, or -1. */
static int judge(ts_boilerplate_check *c, const char *s, size_t n)
{
	size_t kn = make_key(s, n, c->key, sizeof c->key);
	return kn == 0 || kn == (size_t)-1 ? -1 : judge_key(c, c->key, kn, 0);
}

/* Does a sentence end at s[i] (。！？!? …)? */
static size_t sentence_end(const char *s, size_t n, size_t i)
{
	static const char *const ends[] = {"。", "！", "？", "!", "?", "…"};
	for (size_t k = 0; k < sizeof ends / sizeof ends[0]; k++) {
		size_t l = strlen(ends[k]);
		if (l <= n - i && memcmp(s + i, ends[k], l) == 0)
			return l;
	}
	return 0;
}

/* Where an ad or a note that a story line ends with starts (ads are
 * pasted after a story's sentence: 他说完就走了。www.x.com 记住本站), or 0
 * when the whole line line[0..n), which matched a rule, is boilerplate:
 * the last sentence end after which the rest matches a rule by itself and
 * before which the line matches none. */
static size_t pasted_tail(ts_boilerplate_check *c, const char *line, size_t n, int *kind)
{
	size_t best = 0;
	for (size_t i = 0; i < n;) {
		size_t l = sentence_end(line, n, i);
		if (!l) {
			i++;
			continue;
		}
		i += l;
		while (i < n && (l = sentence_end(line, n, i)) != 0)
			i += l;
		/* closing quotes and brackets stay with the sentence */
		while (i < n &&
		       (strchr("\")]", line[i]) ||
		        (n - i >= 3 && (!memcmp(line + i, "”", 3) || !memcmp(line + i, "」", 3) ||
		                        !memcmp(line + i, "』", 3) || !memcmp(line + i, "）", 3)))))
			i += line[i] & 0x80 ? 3 : 1;
		int k = i < n ? judge(c, line + i, n - i) : -1;
		if (k >= 0) {
			best = i;
			*kind = k;
		}
	}
	return best && judge(c, line, best) < 0 ? best : 0;
}

int ts_boilerplate_check_line(ts_boilerplate_check *c, const char *line, size_t len, ts_unspoken *u)
{
	if (!c->bp || !c->bp->nr)
		return 0;
	/* In a section: every line up to the next chapter heading, which
	 * ends it and is judged as any line. */
	if (c->section && is_heading(line, len))
		c->section = 0;
	if (c->section) { /* a line with nothing to speak is not listed */
		*u = (ts_unspoken){kinds[c->section - 1].reason, 0, 1};
		return make_key(line, len, c->key, sizeof c->key) != 0;
	}
	int kind = judge(c, line, len);
	if (kind >= 0 && !is_heading(line, len)) {
		if (kinds[kind].section) {
			c->section = kind + 1;
			*u = (ts_unspoken){kinds[kind].reason, 0, 1};
			return 1;
		}
		int part = kind;
		size_t tail = pasted_tail(c, line, len, &part);
		*u = (ts_unspoken){kinds[tail ? part : kind].reason, tail, tail == 0};
		return 1;
	}
	size_t tail = heading_tail(c, line, len, &kind);
	if (tail < len) {
		*u = (ts_unspoken){kinds[kind].reason, tail, 0};
		return 1;
	}
	return 0;
}

size_t ts_boilerplate_title(const ts_boilerplate *bp, unsigned flags, const char *title, size_t len)
{
	ts_boilerplate_check *c = bp ? ts_boilerplate_check_new(bp, flags) : NULL;
	int kind;
	size_t n = c ? heading_tail(c, title, len, &kind) : len;
	ts_boilerplate_check_free(c);
	while (n > 0 && n < len && title[n - 1] == ' ')
		n--;
	return n;
}
