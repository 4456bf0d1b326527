/* dialogue.c - quotations and their speakers (see dialogue.h).
 *
 * A paragraph is decoded once into code points with their byte offsets;
 * the rules below work on clauses (runs between ，。！？；：) of the text
 * around each quotation.  The words they look for are the language data's
 * (dialogue_words.txt: see ts_dialogue_new()), in lists by kind. */
#define _GNU_SOURCE /* qsort_r */
#include "zh/dialogue.h"
#include "zh/quotes.h"

#include "base/lines.h"
#include "base/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a quotation's speaker may be besides a name (a group index). */
enum {
	SP_NONE = -1,    /* no one person's speech: printed "-" */
	SP_UNKNOWN = -2, /* printed "?" */
	SP_CROWD = -3,   /* several at once: printed "-", but a turn */
	SP_PENDING = -4, /* someone introduced (一人...), named later */
	SP_NOBODY = -5,  /* the clause names no subject */
	NOT_SAID = -6,   /* no clause around the quotation says who speaks */
};

enum { NAME_MAX_CPS = 8, QUOTES_MAX = 256 };

/* The kinds of words of dialogue_words.txt (documented at its top). */
enum kind {
	W_VERB,
	W_LEAD,
	W_MANNER,
	W_STOP,
	W_CROWD,
	W_TOGETHER,
	W_INTRO,
	W_COUNTED,
	W_REF,
	W_PRONOUN,
	W_LISTENER,
	W_OBJECT,
	W_OWNER,
	W_WRITING,
	W_FEMALE,
	W_ACT,
	W_TITLE,
	W_NAMING,
	W_N
};

static const char *const kind_names[W_N] = {
    [W_VERB] = "verb",       [W_LEAD] = "lead",         [W_MANNER] = "manner",
    [W_STOP] = "stop",       [W_CROWD] = "crowd",       [W_TOGETHER] = "together",
    [W_INTRO] = "intro",     [W_COUNTED] = "counted",   [W_REF] = "ref",
    [W_PRONOUN] = "pronoun", [W_LISTENER] = "listener", [W_OBJECT] = "object",
    [W_OWNER] = "owner",     [W_WRITING] = "writing",   [W_FEMALE] = "female",
    [W_ACT] = "act",         [W_TITLE] = "title",       [W_NAMING] = "naming",
};

typedef struct name {
	uint32_t cp[NAME_MAX_CPS];
	size_t len;
	int group;
	int strong;   /* seen whole before a verb, or given: preferred */
	int mentions; /* times the first reading met it in the text */
} name;

typedef struct group {
	char *canon; /* the name printed */
	char *voice; /* from the cast, or NULL */
	int cast;    /* named by the cast: its first name stays */
	int female;  /* times the book wrote of the name as a woman */
	int quotes;  /* quotations the first reading gave it */
	int rank;    /* its place among the speakers of its sex (ts_dialogue_settle), or -1 */
} group;

struct ts_dialogue {
	const char **words[W_N]; /* each kind's words (the table's), NULL-terminated */
	char *stops;             /* the "stop" characters, one string */
	name *names;
	size_t nnames, names_cap;
	int *slots; /* names by their code points: an open-addressing table of
	             * indices into names, -1 where empty (a cast file may
	             * give hundreds of thousands: no scan of them all) */
	size_t nslots;
	group *groups;
	size_t ngroups, groups_cap;
	uint32_t *cp; /* the paragraph */
	size_t *off;  /* byte offset of each code point, and of the end */
	size_t n, cap;
	const char *text;
	int last_subject; /* a group, or -1 */
	int intro;        /* the person last introduced and named, or -1 */
	int hist[2];      /* the last two speakers taking turns, latest first */
	int partner;      /* who 我 last spoke with: called by name, or who answered; -1 */
	int pending;      /* someone was introduced and is not named yet */
	int carry;        /* who the end of the paragraph before says speaks next */
	char carry_why[160];
	long para, hist_para;
	size_t unpaired; /* marks of the paragraph that did not pair */
	int open_end;    /* its last quotation was open at its end */
	int open_who;    /* and who says it, or NOT_SAID */
	int continued;   /* it goes on with the open quotation of the one before */
	size_t call;     /* where the words of the quotation being attributed start */
	int seen;        /* who was seen in a clause before its speech clause, or -1 */
	char why[256];
};

/* ---- code points -------------------------------------------------------- */

/* Does the UTF-8 word w stand at cp[i..end)?  Its length in code points,
 * or 0. */
static size_t at(const ts_dialogue *d, size_t i, size_t end, const char *w)
{
	size_t k = 0, wn = strlen(w);
	const unsigned char *s = (const unsigned char *)w;
	while (wn) {
		uint32_t c;
		int l = ts_utf8_decode(s, wn, &c);
		if (!l || i + k >= end || d->cp[i + k] != c)
			return 0;
		s += l, wn -= (size_t)l, k++;
	}
	return k;
}

/* Does cp[a..end) end with w?  Its length, or 0. */
static size_t ends(const ts_dialogue *d, size_t a, size_t end, const char *w)
{
	size_t k = ts_utf8_count(w, strlen(w));
	if (k == 0 || end - a < k)
		return 0;
	return at(d, end - k, end, w);
}

/* The longest word of list at i, its length in *len; -1 if none. */
static int word_at(const ts_dialogue *d, size_t i, size_t end, const char *const *list, size_t *len)
{
	int best = -1;
	*len = 0;
	for (int k = 0; list[k]; k++) {
		size_t l = at(d, i, end, list[k]);
		if (l > *len)
			*len = l, best = k;
	}
	return best;
}

static size_t word_ending(const ts_dialogue *d, size_t a, size_t end, const char *const *list)
{
	size_t best = 0;
	for (int k = 0; list[k]; k++) {
		size_t l = ends(d, a, end, list[k]);
		if (l > best)
			best = l;
	}
	return best;
}

static int decode(ts_dialogue *d, const char *p, size_t n)
{
	if (n + 1 > d->cap) {
		size_t cap = n + 64;
		uint32_t *cp = realloc(d->cp, cap * sizeof *cp);
		if (cp)
			d->cp = cp;
		size_t *off = realloc(d->off, (cap + 1) * sizeof *off);
		if (off)
			d->off = off;
		if (!cp || !off)
			return TS_ENOMEM;
		d->cap = cap;
	}
	size_t i = 0;
	d->n = 0;
	while (i < n) {
		uint32_t c;
		int l = ts_utf8_decode((const unsigned char *)p + i, n - i, &c);
		if (!l)
			c = 0xFFFD, l = 1; /* bad input: a replacement, never a quote */
		d->off[d->n] = i;
		d->cp[d->n++] = c;
		i += (size_t)l;
	}
	d->off[d->n] = n;
	d->text = p;
	return 0;
}

/* ---- quotations --------------------------------------------------------- */

size_t ts_quotes_find(const char *p, size_t n, ts_quote *out, size_t max)
{
	ts_dialogue *d = ts_dialogue_new(NULL) /* for its decoder */;
	ts_qspan *q = malloc(QUOTES_MAX * sizeof *q);
	size_t count = 0;
	if (!d || !q || decode(d, p, n))
		goto out;
	count = ts_zh_quotes(d->cp, d->n, NULL, q, QUOTES_MAX, NULL);
	for (size_t i = 0; i < count && i < max && i < QUOTES_MAX; i++) {
		out[i].start = d->off[q[i].start];
		out[i].end = d->off[q[i].end];
		out[i].text_start = d->off[q[i].text_start];
		out[i].text_end = d->off[q[i].text_end];
		out[i].closed = q[i].closed;
	}
out:
	free(q);
	ts_dialogue_free(d);
	return count;
}

/* ---- the words ------------------------------------------------------------ */

static int kind_of(const char *kind)
{
	for (int k = 0; k < W_N; k++)
		if (strcmp(kind, kind_names[k]) == 0)
			return k;
	return -1;
}

int ts_dialogue_check_words(const ts_wordtab *words, const char *file, ts_error *err)
{
	size_t nw;
	const ts_word *w = ts_wordtab_words(words, &nw);
	for (size_t i = 0; i < nw; i++) {
		int k = kind_of(w[i].said);
		if (k < 0)
			return ts_error_set(err, TS_EINVAL, "%s: %s: unknown kind '%s'", file,
			                    w[i].text, w[i].said);
		if (k == W_STOP && w[i].len != 1)
			return ts_error_set(err, TS_EINVAL, "%s: %s: a stop is one character", file,
			                    w[i].text);
	}
	return 0;
}

/* d->words and d->stops from the entries w[0..nw).  0 or TS_ENOMEM. */
static int sort_words(ts_dialogue *d, const ts_word *w, size_t nw)
{
	size_t count[W_N] = {0}, stops = 1;
	for (size_t i = 0; i < nw; i++) {
		int k = kind_of(w[i].said);
		if (k >= 0)
			count[k]++;
		if (k == W_STOP)
			stops += strlen(w[i].text);
	}
	for (int k = 0; k < W_N; k++)
		if (!(d->words[k] = calloc(count[k] + 1, sizeof *d->words[k])))
			return TS_ENOMEM;
	if (!(d->stops = calloc(stops, 1)))
		return TS_ENOMEM;
	size_t at[W_N] = {0};
	for (size_t i = 0; i < nw; i++) {
		int k = kind_of(w[i].said);
		if (k == W_STOP)
			strcat(d->stops, w[i].text);
		else if (k >= 0)
			d->words[k][at[k]++] = w[i].text;
	}
	return 0;
}

/* ---- names -------------------------------------------------------------- */

ts_dialogue *ts_dialogue_new(const ts_wordtab *words)
{
	size_t nw;
	const ts_word *w = ts_wordtab_words(words, &nw);
	ts_dialogue *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	if (sort_words(d, w, nw)) {
		ts_dialogue_free(d);
		return NULL;
	}
	ts_dialogue_chapter(d);
	return d;
}

void ts_dialogue_free(ts_dialogue *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->ngroups; i++) {
		free(d->groups[i].canon);
		free(d->groups[i].voice);
	}
	free(d->groups);
	free(d->names);
	free(d->slots);
	free(d->cp);
	free(d->off);
	for (int k = 0; k < W_N; k++)
		free(d->words[k]);
	free(d->stops);
	free(d);
}

void ts_dialogue_chapter(ts_dialogue *d)
{
	d->last_subject = -1;
	d->intro = -1;
	d->hist[0] = d->hist[1] = SP_UNKNOWN;
	d->hist_para = -10;
	d->partner = -1;
	d->pending = 0;
	d->carry = NOT_SAID;
	d->open_end = 0;
	d->open_who = NOT_SAID;
}

static size_t name_hash(const uint32_t *cp, size_t len)
{
	size_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ cp[i]) * 16777619u;
	return h ^ len;
}

/* The name of code points cp[0..len) (decoded), or -1. */
static int find_name(const ts_dialogue *d, const uint32_t *cp, size_t len)
{
	if (!d->nslots)
		return -1;
	for (size_t i = name_hash(cp, len) & (d->nslots - 1);; i = (i + 1) & (d->nslots - 1)) {
		int k = d->slots[i];
		if (k < 0 ||
		    (d->names[k].len == len && !memcmp(d->names[k].cp, cp, len * sizeof *cp)))
			return k;
	}
}

static void slot_put(ts_dialogue *d, int k)
{
	size_t i = name_hash(d->names[k].cp, d->names[k].len) & (d->nslots - 1);
	while (d->slots[i] >= 0)
		i = (i + 1) & (d->nslots - 1);
	d->slots[i] = k;
}

/* Room in the table for one more name, kept at most half full.  0 or
 * TS_ENOMEM. */
static int slots_grow(ts_dialogue *d)
{
	if (2 * (d->nnames + 1) <= d->nslots)
		return 0;
	size_t n = d->nslots ? 2 * d->nslots : 64;
	int *t = malloc(n * sizeof *t);
	if (!t)
		return TS_ENOMEM;
	free(d->slots);
	d->slots = t;
	d->nslots = n;
	memset(t, 0xff, n * sizeof *t); /* all -1 */
	for (size_t k = 0; k < d->nnames; k++)
		slot_put(d, (int)k);
	return 0;
}

static char *utf8_of(const uint32_t *cp, size_t len)
{
	char *s = malloc(len * 4 + 1), *o = s;
	if (!s)
		return NULL;
	for (size_t i = 0; i < len; i++)
		o += ts_utf8_encode(cp[i], o);
	*o = 0;
	return s;
}

/* A new group with canonical name cp[0..len); its index or TS_ENOMEM. */
static int new_group(ts_dialogue *d, const uint32_t *cp, size_t len)
{
	if (ts_grow(&d->groups, &d->groups_cap, d->ngroups + 1, sizeof *d->groups))
		return TS_ENOMEM;
	group *g = &d->groups[d->ngroups];
	memset(g, 0, sizeof *g);
	g->rank = -1;
	if (!(g->canon = utf8_of(cp, len)))
		return TS_ENOMEM;
	return (int)d->ngroups++;
}

/* Name cp[0..len) in group g (a new group when g < 0); strong when it
 * stood whole before a verb or was given, rather than cut from a longer
 * clause.  Returns the
 * name's group (the one it had when it was known), or TS_ENOMEM. */
static int add_name(ts_dialogue *d, const uint32_t *cp, size_t len, int g, int strong)
{
	if (len == 0 || len > NAME_MAX_CPS)
		return SP_UNKNOWN;
	int k = find_name(d, cp, len);
	if (k >= 0) {
		d->names[k].strong |= strong;
		return d->names[k].group;
	}
	if (g < 0 && (g = new_group(d, cp, len)) < 0)
		return g;
	if (ts_grow(&d->names, &d->names_cap, d->nnames + 1, sizeof *d->names) || slots_grow(d))
		return TS_ENOMEM;
	name *nm = &d->names[d->nnames++];
	*nm = (name){.len = len, .group = g, .strong = strong};
	memcpy(nm->cp, cp, len * sizeof *cp);
	slot_put(d, (int)(d->nnames - 1));
	return g;
}

/* Move every name of group from into group to. */
static void merge(ts_dialogue *d, int from, int to)
{
	if (from == to || from < 0 || to < 0)
		return;
	d->groups[to].female += d->groups[from].female;
	d->groups[from].female = 0;
	d->groups[to].quotes += d->groups[from].quotes;
	d->groups[from].quotes = 0;
	for (size_t i = 0; i < d->nnames; i++)
		if (d->names[i].group == from)
			d->names[i].group = to;
}

/* Make b an alias of a (both code point runs): a's group wins. */
static int alias(ts_dialogue *d, const uint32_t *a, size_t alen, const uint32_t *b, size_t blen)
{
	int ga = add_name(d, a, alen, -1, 1);
	if (ga < 0)
		return ga;
	int gb = find_name(d, b, blen);
	if (gb < 0)
		return add_name(d, b, blen, ga, 1) < 0 && ga >= 0 ? TS_ENOMEM : 0;
	gb = d->names[gb].group;
	if (d->groups[gb].cast && !d->groups[ga].cast)
		merge(d, ga, gb);
	else
		merge(d, gb, ga);
	return 0;
}

/* The longest known name at cp[i..end), a strong one before any other:
 * its length in *len, its index in names; or -1. */
static int name_index_at(const ts_dialogue *d, size_t i, size_t end, size_t *len)
{
	int best = -1, best_strong = 0;
	*len = 0;
	for (size_t l = 1; l <= NAME_MAX_CPS && i + l <= end; l++) {
		int k = find_name(d, d->cp + i, l);
		if (k < 0 || (best_strong && !d->names[k].strong))
			continue;
		*len = l, best = k, best_strong = d->names[k].strong;
	}
	return best;
}

/* The same, its group; or -1. */
static int name_at(const ts_dialogue *d, size_t i, size_t end, size_t *len)
{
	int k = name_index_at(d, i, end, len);
	return k < 0 ? -1 : d->names[k].group;
}

/* Short forms: a one-character name that ends a single longer name is
 * that name (飞: 张飞), and so is a name that is the end of one longer by a
 * character (宝玉: 贾宝玉). */
/* More quotations first; of as many, the one the book named first. */
static int by_quotes(const void *a, const void *b, void *ud)
{
	const group *g = ud;
	int x = *(const int *)a, y = *(const int *)b;
	if (g[x].quotes != g[y].quotes)
		return g[x].quotes > g[y].quotes ? -1 : 1;
	return (x > y) - (x < y);
}

/* The speakers without a voice in the cast, ranked within their sex, the
 * one who speaks most first: the pool's voices go to them in that turn
 * (see ts_attribution.rank). */
static void rank_speakers(ts_dialogue *d)
{
	int *order = malloc((d->ngroups ? d->ngroups : 1) * sizeof *order);
	if (!order) /* short of memory: no ranks, the pool by the name */
		return;
	size_t n = 0, turn[2] = {0, 0};
	for (size_t g = 0; g < d->ngroups; g++) {
		d->groups[g].rank = -1;
		if (d->groups[g].quotes > 0 && !d->groups[g].voice)
			order[n++] = (int)g;
	}
	qsort_r(order, n, sizeof *order, by_quotes, d->groups);
	for (size_t i = 0; i < n; i++) {
		int female = d->groups[order[i]].female > 0;
		d->groups[order[i]].rank = (int)turn[female]++;
	}
	free(order);
}

/* The longer names that end with names[s] (one character longer, and the
 * three-character ones that end with a one-character name: 瑾 of
 * 诸葛瑾), each name's list in the order of names: head[s], then next[]
 * (entry 2k or 2k+1 for names[k]; -1 ends).  Found by their ends in the
 * table, not by comparing every two names. */
static void longer_names(const ts_dialogue *d, int *head, int *next)
{
	for (size_t i = 0; i < d->nnames; i++)
		head[i] = next[2 * i] = next[2 * i + 1] = -1;
	for (size_t k = d->nnames; k-- > 0;) {
		const name *l = &d->names[k];
		for (size_t cut = 1; cut <= 2 && l->len >= 2 && l->len <= 3; cut++) {
			int s = cut < l->len ? find_name(d, l->cp + cut, l->len - cut) : -1;
			if (s >= 0 && (cut == 1 || l->len == 3))
				next[2 * k + cut - 1] = head[s], head[s] = (int)(2 * k + cut - 1);
		}
	}
}

/* The person a short form names[i] stands for (飞: 张飞): the one longer
 * name that ends with it, or of several the one the book mentions most
 * (at least twice as often as any other); -1 for none. */
static int short_form_of(const ts_dialogue *d, const int *head, const int *next, size_t i)
{
	const name *s = &d->names[i];
	int found = -1, most = 0, second = 0, many = 0;
	for (int e = head[i]; e >= 0; e = next[e]) {
		const name *l = &d->names[e / 2];
		if (l->group == s->group)
			continue;
		many += found >= 0 && found != l->group;
		if (l->mentions > most || found < 0) {
			second = most > second ? most : second;
			most = l->mentions, found = l->group;
		} else if (l->mentions > second) {
			second = l->mentions;
		}
	}
	return !many || (most >= 2 && most >= 2 * second) ? found : -1;
}

void ts_dialogue_settle(ts_dialogue *d)
{
	int *head = malloc((d->nnames ? d->nnames : 1) * sizeof *head);
	int *next = malloc((d->nnames ? 2 * d->nnames : 1) * sizeof *next);
	if (head && next) /* short of memory: the short forms stay apart */
		longer_names(d, head, next);
	for (size_t i = 0; head && next && i < d->nnames; i++) {
		name *s = &d->names[i];
		if (s->len > 2)
			continue;
		int found = short_form_of(d, head, next, i);
		if (found >= 0 && !d->groups[s->group].cast)
			merge(d, s->group, found);
	}
	free(head);
	free(next);
	rank_speakers(d);
}

/* ---- the cast ------------------------------------------------------------ */

static int cast_fail(char *why, size_t sz, const char *text)
{
	snprintf(why, sz, "%s", text);
	return TS_EINVAL;
}

int ts_dialogue_cast_line(ts_dialogue *d, const char *line, size_t len, char *why, size_t sz)
{
	const char *tab = memchr(line, '\t', len), *e = line + len;
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	if (i == len || line[i] == '#')
		return 0;
	if (!tab)
		return cast_fail(why, sz, "no TAB before the voice (NAMES<TAB>VOICE)");
	const char *v = tab + 1;
	while (v < e && (*v == ' ' || *v == '\t' || *v == '\r'))
		v++;
	const char *ve = v;
	while (ve < e && *ve != ' ' && *ve != '\t' && *ve != '\r')
		ve++;
	if (v == ve)
		return cast_fail(why, sz, "no voice after the TAB");
	if (ts_utf8_check(line, len, 1) != len)
		return cast_fail(why, sz, "not UTF-8 text");
	/* Check the names before adding any. */
	uint32_t cps[64][NAME_MAX_CPS];
	size_t lens[64], count = 0;
	const char *p = line;
	while (p < tab) {
		while (p < tab && *p == ' ')
			p++;
		size_t l = 0;
		while (p < tab && *p != ' ') {
			uint32_t c;
			int k = ts_utf8_decode((const unsigned char *)p, (size_t)(tab - p), &c);
			if (l == NAME_MAX_CPS)
				return cast_fail(why, sz, "a name longer than 8 characters");
			if (count == 64)
				return cast_fail(why, sz, "more than 64 names");
			cps[count][l++] = c;
			p += k;
		}
		if (l) {
			int k = find_name(d, cps[count], l);
			if (k >= 0 && d->groups[d->names[k].group].cast) {
				char *s = utf8_of(cps[count], l);
				snprintf(why, sz, "%s is already a name of %s", s ? s : "a name",
				         d->groups[d->names[k].group].canon);
				free(s);
				return TS_EINVAL;
			}
			lens[count++] = l;
		}
	}
	if (!count)
		return cast_fail(why, sz, "no name before the TAB");
	int g = new_group(d, cps[0], lens[0]);
	if (g < 0 || !(d->groups[g].voice = ts_strndup(v, (size_t)(ve - v))))
		return TS_ENOMEM;
	d->groups[g].cast = 1;
	for (size_t k = 0; k < count; k++) {
		int old = find_name(d, cps[k], lens[k]);
		if (old >= 0)
			merge(d, d->names[old].group, g);
		else if (add_name(d, cps[k], lens[k], g, 1) < 0)
			return TS_ENOMEM;
	}
	return 0;
}

/* The warnings of a cast file printed; the rest are counted, as the
 * text's are (TS_INTAKE_WARNINGS_MAX). */
enum { CAST_WARNINGS_MAX = 20 };

int ts_dialogue_cast_file(ts_dialogue *d, const char *path, const ts_cast_check *chk, ts_error *err)
{
	ts_lines *r;
	int rc = ts_lines_open(&r, path, 4096, TS_LINES_SKIP_COMMENTS, err);
	if (rc)
		return rc;
	char *line, why[256], msg[1024];
	size_t len, warned = 0;
	while ((rc = ts_lines_next(r, &line, &len)) > 0) {
		if (chk->cancel && *chk->cancel) {
			rc = ts_error_set(err, TS_ECANCELED, "%s: %s", path,
			                  ts_strerror(TS_ECANCELED));
			break;
		}
		size_t groups = d->ngroups;
		int k = ts_dialogue_cast_line(d, line, len, why, sizeof why);
		if (k == TS_ENOMEM) {
			rc = ts_error_set(err, k, NULL);
			break;
		}
		/* A line taken made one group, its voice the line's. */
		if (!k && d->ngroups > groups && chk->voice_ok &&
		    (k = chk->voice_ok(chk->voice_ud, d->groups[groups].voice, err)) < 0) {
			rc = ts_error_prefix(err, "%s:%ld", path, ts_lines_lineno(r));
			break;
		}
		if (k && chk->diag && ++warned <= CAST_WARNINGS_MAX) {
			snprintf(msg, sizeof msg, "%s:%ld: %s", path, ts_lines_lineno(r), why);
			chk->diag(chk->ud, TS_WARNING, msg);
		}
	}
	if (rc < 0 && rc != TS_ENOMEM && rc != TS_ECANCELED && (!err || !err->code))
		ts_error_set(err, rc, "%s", ts_lines_errmsg(r));
	ts_lines_close(r);
	if (rc >= 0 && warned > CAST_WARNINGS_MAX && chk->diag) {
		snprintf(msg, sizeof msg, "%s: and %zu more warnings like these", path,
		         warned - CAST_WARNINGS_MAX);
		chk->diag(chk->ud, TS_WARNING, msg);
	}
	return rc < 0 ? rc : 0;
}

/* ---- clauses ------------------------------------------------------------- */

static int is_clause_end(uint32_t c)
{
	return ts_char_in(c, "，。！？；：…,.!?;:—") || c == '\n';
}

static int is_sentence_end(uint32_t c)
{
	return ts_char_in(c, "。！？!?");
}

static int contains(const ts_dialogue *d, size_t a, size_t b, const char *const *list)
{
	size_t len;
	for (size_t i = a; i < b; i++)
		if (word_at(d, i, b, list, &len) >= 0)
			return 1;
	return 0;
}

/* Skip the "lead" words at a. */
static size_t skip_lead(const ts_dialogue *d, size_t a, size_t b)
{
	size_t len = 0, ref;
	while (a < b && (ts_is_space(d->cp[a]) || (word_at(d, a, b, d->words[W_LEAD], &len) >= 0 &&
	                                           word_at(d, a, b, d->words[W_REF], &ref) < 0)))
		a += ts_is_space(d->cp[a]) ? 1 : len; /* 那 leads, 那人 refers */
	return a;
}

static size_t han_run(const ts_dialogue *d, size_t i, size_t max, const char * not );

/* A group of people: 七人, 众人, 两个. */
static int is_crowd(const ts_dialogue *d, size_t a, size_t b)
{
	size_t len;
	if (word_at(d, a, b, d->words[W_CROWD], &len) >= 0 ||
	    contains(d, a, b, d->words[W_TOGETHER]))
		return 1;
	return a + 1 < b && ts_char_in(d->cp[a], "两二三四五六七八九十几") &&
	       ts_char_in(d->cp[a + 1], "人个位");
}

/* Someone introduced near the start of cp[a..b): 一人 (SP_PENDING, to be
 * named later) or 一个小厮 (the 小厮); SP_NOBODY when nobody is. */
static int introduced(ts_dialogue *d, size_t a, size_t b)
{
	size_t len;
	for (size_t i = a; i < b && i < a + 4; i++) {
		/* 阶下一人, 座上又一人: only places before it */
		if (i > a && !ts_char_in(d->cp[i - 1], "又上下中内外前后边旁"))
			continue;
		if (word_at(d, i, b, d->words[W_INTRO], &len) >= 0)
			return SP_PENDING;
		if (word_at(d, i, b, d->words[W_COUNTED], &len) >= 0) {
			size_t e = i + len;
			while (e < b && e < i + len + 3 && ts_is_han(d->cp[e]) &&
			       !ts_char_in(d->cp[e], d->stops))
				e++;
			/* 走出一个道童，: the clause's last words, whatever they hold */
			if (e == i + len && b - e <= 3 && han_run(d, e, 3, "") == b - e)
				e = b;
			/* 轿夫道:"…"一个道: one of those who just spoke */
			if (i == a && i + len == b && d->last_subject >= 0)
				return d->last_subject;
			return e > i + len ? add_name(d, d->cp + i + len, e - i - len, -1, 0)
			                   : SP_PENDING;
		}
	}
	return SP_NOBODY;
}

/* A known name of two characters or more anywhere in cp[a..b) before a
 * listener (帐上袁术大喝, not 对罗刹): its group, or -1. */
static int name_in(const ts_dialogue *d, size_t a, size_t b)
{
	size_t len;
	for (size_t i = a; i < b; i++) {
		if (word_at(d, i, b, d->words[W_LISTENER], &len) >= 0 ||
		    word_at(d, i, b, d->words[W_OBJECT], &len) >= 0)
			return -1;
		int g = name_at(d, i, b, &len);
		if (g >= 0 && len >= 2 && i + len == b)
			return g;
	}
	return -1;
}

/* Is group g the narrator, 我? */
static int is_me(const ts_dialogue *d, int g)
{
	static const uint32_t me = 0x6211; /* 我 */
	int k = g >= 0 ? find_name(d, &me, 1) : -1;
	return k >= 0 && d->names[k].group == g;
}

/* Whom 他 or 她 means: the last subject, but never 我; then the one 我
 * was speaking with. */
static int third_person(const ts_dialogue *d)
{
	if (is_me(d, d->last_subject) && d->partner >= 0)
		return d->partner;
	return d->last_subject >= 0 ? d->last_subject : SP_UNKNOWN;
}

enum {
	STRICT = 1, /* only names known */
	INSIDE = 2, /* a known name just before the verb, after other words */
	BEFORE = 4, /* a clause before the speech clause, in its sentence */
};

/* The known name's group an object verb that opens cp[a..b) is followed
 * by (见承, 拦住太师, 见了秦琼), or -1; not 被, whose name acts. */
static int object_first(const ts_dialogue *d, size_t a, size_t b)
{
	size_t len, nl;
	while (a < b && ts_is_space(d->cp[a]))
		a++;
	if (word_at(d, a, b, d->words[W_OBJECT], &len) < 0 || name_at(d, a, b, &nl) >= 0 ||
	    at(d, a, b, "被"))
		return -1;
	a += len;
	a += at(d, a, b, "了");
	return name_at(d, a, b, &nl);
}

/* Who the words cp[a..b) before a verb name: a group, or SP_*.  A name
 * not known yet is learnt unless mode has STRICT. */
static int subject(ts_dialogue *d, size_t a, size_t b, int mode, const char **how)
{
	size_t len;
	int strict = mode & STRICT;
	/* 子服入，见承面有忧色，笑曰: who is seen before the speech clause is
	 * not who speaks (见 leads only in the speech clause: 见一人道) */
	int seen = (mode & BEFORE) ? object_first(d, a, b) : -1;
	if (seen >= 0) {
		d->seen = seen;
		return SP_NOBODY;
	}
	a = skip_lead(d, a, b);
	if (word_at(d, a, b, d->words[W_OWNER], &len) >= 0)
		a += len;
	if (at(d, a, b, "被") && name_at(d, a + 1, b, &len) >= 0) /* 被胡屠户啐: he acts */
		a++;
	int acted = 0, act = 0; /* 太守看罢: an act after the name, left out */
	while (b > a && ((len = word_ending(d, a, b, d->words[W_MANNER])) > 0 ||
	                 (act = (len = word_ending(d, a, b, d->words[W_ACT])) > 0))) {
		b -= len;
		acted |= act;
	}
	if (a >= b)
		return SP_NOBODY;
	/* 茂公请秦琼、单雄信三人: who is asked is no part of the subject */
	size_t nl;
	if (name_at(d, a, b, &nl) >= 0 && word_at(d, a + nl, b, d->words[W_OBJECT], &len) >= 0 &&
	    contains(d, a + nl, b, d->words[W_TOGETHER]))
		b = a + nl;
	/* 从事巩志: a title before a name is no part of it; a title that is
	 * a known name before words that are not (太师收鞭问曰) is the name */
	size_t tl;
	if (word_at(d, a, b, d->words[W_TITLE], &len) >= 0 && b - a - len >= 2 &&
	    (name_at(d, a + len, b, &nl) >= 0 ||
	     (han_run(d, a + len, 3, d->stops) >= 2 && !(name_at(d, a, b, &tl) >= 0 && tl == len))))
		a += len;
	/* 唤秦琼上堂，道: who is called is not who speaks */
	if (word_at(d, a, b, d->words[W_OBJECT], &len) >= 0 && name_at(d, a, b, &nl) < 0 &&
	    name_at(d, a + len, b, &nl) >= 0)
		return SP_NOBODY;
	/* 翻身问童子曰, 令诸将: an act with its subject left out */
	if (word_at(d, a, b, d->words[W_ACT], &len) >= 0 && name_at(d, a, b, &nl) < 0) {
		*how = "an act, not a name";
		return SP_NOBODY;
	}
	*how = "crowd";
	if (is_crowd(d, a, b))
		return SP_CROWD;
	*how = "introduced";
	int g = introduced(d, a, b);
	if (g != SP_NOBODY)
		return g;
	if (word_at(d, a, b, d->words[W_REF], &len) >= 0)
		return d->pending || d->intro < 0 ? SP_PENDING : d->intro;
	*how = acted ? "name, the act after it left out" : "name";
	if ((g = name_at(d, a, b, &len)) >= 0)
		return g;
	if (at(d, a, b, "我") && !at(d, a, b, "我们") && !at(d, a, b, "我的"))
		return add_name(d, d->cp + a, 1, -1, 1);
	if (word_at(d, a, b, d->words[W_PRONOUN], &len) >= 0) {
		*how = "pronoun";
		return third_person(d);
	}
	if (word_at(d, a, b, d->words[W_LISTENER], &len) >= 0)
		return SP_NOBODY;
	*how = "a name just before the verb";
	if ((mode & INSIDE) && (g = name_in(d, a, b)) >= 0)
		return g;
	if (ts_char_in(d->cp[a], d->stops))
		return SP_NOBODY;
	size_t e = a;
	while (e < b && ts_is_han(d->cp[e]) && !(e > a && ts_char_in(d->cp[e], d->stops)))
		e++;
	/* 分明的叫道: what ends with 的 or 地 says how, it names no one */
	int adverb = ts_char_in(d->cp[b - 1], "的地");
	int whole = e == b && b - a <= 3 && !adverb;
	if (adverb && e + 1 >= b)
		return SP_NOBODY;
	if (strict || !(whole || (e < b && e - a >= 2 && e - a <= 3)))
		return SP_NOBODY;
	*how = acted ? "new name, the act after it left out" : "new name";
	return add_name(d, d->cp + a, e - a, -1, whole);
}

/* The start of the clause that ends at b. */
static size_t clause_start(const ts_dialogue *d, size_t lo, size_t b)
{
	while (b > lo && !is_clause_end(d->cp[b - 1]) && ts_zh_quote_closer(d->cp[b - 1]) == 0 &&
	       d->cp[b - 1] != '"' && d->cp[b - 1] != '\'' && d->cp[b - 1] != 0x201D &&
	       d->cp[b - 1] != 0x300D && d->cp[b - 1] != 0x300F)
		b--;
	return b;
}

/* Trim the punctuation and spaces at the end of cp[a..b). */
static size_t trim_end(const ts_dialogue *d, size_t a, size_t b, int *colon)
{
	*colon = 0;
	while (b > a && (ts_is_space(d->cp[b - 1]) || ts_char_in(d->cp[b - 1], "：:，,"))) {
		*colon |= ts_char_in(d->cp[b - 1], "：:");
		b--;
	}
	return b;
}

/* ---- speakers ------------------------------------------------------------ */

typedef struct said {
	size_t q[QUOTES_MAX][2];
	ts_qspan span[QUOTES_MAX];
	int who[QUOTES_MAX];
	char why[QUOTES_MAX][160];
} said;

/* A verb ending cp[a..b), or, in a clause that ends with a colon, the
 * first verb in it: its position, or b when there is none. */
static size_t verb_of(const ts_dialogue *d, size_t a, size_t b, int colon, size_t *vlen)
{
	*vlen = word_ending(d, a, b, d->words[W_VERB]);
	if (*vlen)
		return b - *vlen;
	for (size_t i = a; colon && i < b; i++)
		if (word_at(d, i, b, d->words[W_VERB], vlen) >= 0)
			return i;
	return b;
}

/* Where the words of the quotation whose mark is at qs start. */
static size_t words_of(const ts_dialogue *d, size_t qs)
{
	size_t i = qs + 1;
	while (i < d->n &&
	       (ts_is_space(d->cp[i]) || ts_zh_quote_closer(d->cp[i]) || d->cp[i] == '"'))
		i++;
	return i;
}

/* Does the quotation being attributed open by calling group g: by a
 * known name of two characters or more (国舅连日不朝), or by a title one
 * of g's names ends with (太守休怪 for 金太守)? */
static int calls(const ts_dialogue *d, int g)
{
	size_t i = d->call, len;
	if (g < 0 || i >= d->n)
		return 0;
	size_t end = d->n < i + 8 ? d->n : i + 8;
	if (word_at(d, i, end, d->words[W_TITLE], &len) >= 0) {
		for (size_t k = 0; k < d->nnames; k++) {
			const name *m = &d->names[k];
			if (m->group == g && m->len > len &&
			    !memcmp(m->cp + m->len - len, d->cp + i, len * sizeof *m->cp))
				return 1;
		}
	}
	int h = name_at(d, i, end, &len);
	return h >= 0 && len >= 2 && h == g;
}

/* The subject of the speech clause cp[cs..v), or of the clauses before
 * it in its sentence (from lo), or of the sentence before. */
static int subject_back(ts_dialogue *d, size_t lo, size_t cs, size_t v, int inside,
                        const char **how)
{
	/* A clause after the first of its sentence mostly leaves its subject
	 * out: the words before its verb (争辩道) are a new name only when no
	 * clause before names anyone. */
	int first = cs == lo || is_sentence_end(d->cp[cs - 1]);
	d->seen = -1;
	int s = subject(d, cs, v, (first ? 0 : STRICT) | inside, how);
	size_t e = cs;
	while (s == SP_NOBODY && e > lo) {
		while (e > lo && is_clause_end(d->cp[e - 1]) && !is_sentence_end(d->cp[e - 1]))
			e--;
		if (e == lo || is_sentence_end(d->cp[e - 1]))
			break;
		size_t pcs = clause_start(d, lo, e);
		if (pcs == e) /* a quotation mark: the clause before is not this sentence's */
			break;
		s = subject(d, pcs, e,
		            (pcs == lo || is_sentence_end(d->cp[pcs - 1]) ? 0 : STRICT) | INSIDE |
		                BEFORE,
		            how);
		e = pcs;
	}
	/* 旋…见巩志立于城上，叫曰：“太守……”: no one opens by calling
	 * himself, so the one seen speaks */
	if (d->seen >= 0 && s >= 0 && calls(d, s)) {
		*how = "the one seen: the quotation calls the other";
		return d->seen;
	}
	if (s >= 0 && d->seen >= 0)
		*how = "the one who sees, not the one seen";
	if (s == SP_NOBODY && !first)
		s = subject(d, cs, v, inside, how);
	if (s == SP_NOBODY) {
		*how = "omitted subject: the one before";
		s = d->last_subject >= 0 ? d->last_subject : SP_UNKNOWN;
		if (d->seen >= 0 && calls(d, s)) {
			*how = "the one seen: the quotation calls the other";
			s = d->seen;
		}
	}
	return s;
}

static void verb_text(const ts_dialogue *d, size_t v, size_t vlen, char *out, size_t sz)
{
	size_t bytes = d->off[v + vlen] - d->off[v];
	snprintf(out, sz, "%.*s", (int)(bytes < sz ? bytes : sz - 1), d->text + d->off[v]);
}

/* The speaker the clause before a quotation at qs names (the text before
 * it starts at lo), NOT_SAID when it introduces no speech. */
static int from_lead(ts_dialogue *d, size_t lo, size_t qs, char *why, size_t sz)
{
	int colon;
	size_t b = trim_end(d, lo, qs, &colon), vlen;
	if (b == lo)
		return NOT_SAID;
	size_t cs = clause_start(d, lo, b);
	size_t len;
	for (size_t i = cs; i < b; i++)
		if (word_at(d, i, b, d->words[W_WRITING], &len) >= 0) {
			snprintf(why, sz, "not speech: something written or recited (%.*s)",
			         (int)(d->off[i + len] - d->off[i]), d->text + d->off[i]);
			return SP_NONE;
		}
	size_t v = verb_of(d, cs, b, colon, &vlen);
	if (v == b && !colon)
		return NOT_SAID;
	const char *how = "name";
	d->call = words_of(d, qs);
	int s = subject_back(d, lo, cs, v, INSIDE, &how);
	char verb[32];
	verb_text(d, v, vlen, verb, sizeof verb);
	snprintf(why, sz, "the clause before, %s%s: %s", vlen ? "verb " : "a colon", verb, how);
	return s;
}

/* The speaker the clause after a quotation (cp[qe..hi)) names:
 * “……”X说。  NOT_SAID when it names none or introduces the next one. */
static int from_after(ts_dialogue *d, size_t qe, size_t hi, char *why, size_t sz)
{
	/* The first clause of the sentence after it that ends with a verb
	 * (“……”我惶恐着，站起来说。), its subject or the first clause's. */
	size_t cs = qe, vlen = 0, ce = qe;
	for (int clause = 0; clause < 3 && cs < hi; clause++) {
		ce = cs;
		while (ce < hi && !is_clause_end(d->cp[ce]))
			ce++;
		if (ce == cs || (ce < hi && ts_char_in(d->cp[ce], "：:")))
			return NOT_SAID;
		if ((vlen = word_ending(d, cs, ce, d->words[W_VERB])) > 0)
			break;
		if (ce >= hi || is_sentence_end(d->cp[ce]))
			return NOT_SAID;
		cs = ce + 1;
	}
	if (!vlen)
		return NOT_SAID;
	const char *how = "name";
	int s = subject(d, cs, ce - vlen, cs > qe ? STRICT : INSIDE, &how);
	if (s == SP_NOBODY && cs > qe)
		s = subject(d, qe, cs - 1, 0, &how);
	if (s == SP_NOBODY)
		s = d->last_subject >= 0 ? d->last_subject : SP_UNKNOWN, how = "omitted subject";
	char verb[32];
	verb_text(d, ce - vlen, vlen, verb, sizeof verb);
	snprintf(why, sz, "the clause after, verb %s: %s", verb, how);
	return s;
}

/* A quotation that goes on with the sentence of the one before
 * (……唱喏道：“提辖恕罪。”便叫副手掇条凳子来，“提辖请坐。”): its
 * speaker, or NOT_SAID. */
static int goes_on(const ts_dialogue *d, const said *s, size_t k, char *why, size_t sz)
{
	size_t lo = s->q[k - 1][1], qs = s->q[k][0], len;
	if (qs == lo || !ts_char_in(d->cp[qs - 1], "，：,:") || s->who[k - 1] < 0)
		return NOT_SAID;
	size_t a = skip_lead(d, lo, qs);
	if (a == lo || name_at(d, a, qs, &len) >= 0)
		return NOT_SAID;
	for (size_t i = lo; i < qs; i++)
		if (is_sentence_end(d->cp[i]))
			return NOT_SAID;
	snprintf(why, sz, "the sentence of the quotation before goes on");
	return s->who[k - 1];
}

/* “……”阿Q忽然抢上去: who acts right after a quotation said it. */
static int acts_after(ts_dialogue *d, size_t qe, size_t hi, char *why, size_t sz)
{
	size_t len;
	if (qe == hi || is_clause_end(d->cp[qe]))
		return NOT_SAID;
	size_t a = skip_lead(d, qe, hi);
	a += at(d, a, hi, "是"); /* 这是驼背五少爷到了 */
	int g = name_at(d, a, hi, &len);
	if (g < 0)
		return NOT_SAID;
	snprintf(why, sz, "who acts right after it");
	return g;
}

/* Does the quotation cp[qs..qe) hold no punctuation (a word, a title)? */
static int unpunctuated(const ts_dialogue *d, size_t qs, size_t qe)
{
	for (size_t i = qs + 1; i + 1 < qe; i++)
		if (ts_char_in(d->cp[i], "，。！？；…,!?"))
			return 0;
	return 1;
}

/* Is the quotation cp[qs..qe) inside a clause (text from lo, a character
 * right before its mark: 念一声"唵"字真言)? */
static int embedded(const ts_dialogue *d, size_t lo, size_t qs)
{
	return qs > lo && !is_clause_end(d->cp[qs - 1]) && !ts_is_space(d->cp[qs - 1]);
}

/* A quotation no clause attributes: a quoted word or title, or a turn. */
static int unsaid(ts_dialogue *d, size_t lo, size_t qs, size_t qe, char *why, size_t sz)
{
	if (unpunctuated(d, qs, qe) && (embedded(d, lo, qs) || qe - qs <= 8)) {
		snprintf(why, sz, "not speech: a quoted word or title");
		return SP_NONE;
	}
	if (d->hist[0] != SP_UNKNOWN && d->hist[1] != SP_UNKNOWN && d->hist[0] != d->hist[1] &&
	    d->para - d->hist_para <= 2) {
		snprintf(why, sz, "turns: the other of the last two speakers");
		return d->hist[1];
	}
	snprintf(why, sz, "no clause names a speaker");
	return SP_UNKNOWN;
}

/* Who 我 speaks with: the first known name, not the speaker's, that a
 * quotation cp[qs..qe) of 我's calls (闰土哥，你来了), or the last other
 * one who spoke. */
static void partner_of(ts_dialogue *d, int w, size_t qs, size_t qe)
{
	size_t len;
	if (w >= 0 && !is_me(d, w)) {
		d->partner = w;
		return;
	}
	if (w < 0)
		return;
	for (size_t i = qs; i < qe; i++) {
		int g = name_at(d, i, qe, &len);
		if (g >= 0 && g != w && len >= 2) {
			d->partner = g;
			return;
		}
	}
}

static void heard(ts_dialogue *d, int s)
{
	if (s >= 0)
		d->last_subject = s;
	if (s >= 0 || s == SP_CROWD) {
		if (s != d->hist[0])
			d->hist[1] = d->hist[0], d->hist[0] = s;
		d->hist_para = d->para;
	}
}

/* 远远地一个汉子，: someone introduced at the end of a sentence's first
 * clause from s: their group, or -1. */
static int counted_at_end(ts_dialogue *d, size_t s, size_t b)
{
	size_t ce = s, len;
	while (ce < b && !is_clause_end(d->cp[ce]))
		ce++;
	for (size_t i = s; i + 2 < ce; i++)
		if (at(d, i, ce, "一个") && ce - i - 2 <= 3 &&
		    han_run(d, i + 2, 3, d->stops) == ce - i - 2)
			return name_at(d, i + 2, ce, &len) >= 0
			           ? name_at(d, i + 2, ce, &len)
			           : add_name(d, d->cp + i + 2, ce - i - 2, -1, 0);
	return -1;
}

/* A name that starts a sentence of narration cp[a..b) is its subject, and
 * so is someone introduced there. */
static void narration(ts_dialogue *d, size_t a, size_t b)
{
	size_t len;
	for (size_t i = a; i < b; i++) {
		if (i > a && !is_sentence_end(d->cp[i - 1]))
			continue;
		size_t s = skip_lead(d, i, b);
		int g = name_at(d, s, b, &len);
		if (g >= 0)
			d->last_subject = g;
		else if (word_at(d, s, b, d->words[W_PRONOUN], &len) >= 0 && third_person(d) >= 0)
			d->last_subject = third_person(d); /* 他站住了 */
		else if ((g = counted_at_end(d, s, b)) >= 0)
			d->last_subject = g;
	}
}

/* ---- names the book states ----------------------------------------------- */

/* Han characters from i, at most max, not one of the characters of not. */
static size_t han_run(const ts_dialogue *d, size_t i, size_t max, const char * not )
{
	size_t k = 0;
	while (i + k < d->n && k < max && ts_is_han(d->cp[i + k]) &&
	       !ts_char_in(d->cp[i + k], not ))
		k++;
	return k;
}

/* 姓X名Y(，字Z) at i: the group of XY, or -1. */
static int surname_given(ts_dialogue *d, size_t i)
{
	if (!at(d, i, d->n, "姓") || i + 3 >= d->n || !at(d, i + 2, d->n, "名"))
		return -1;
	size_t gl = han_run(d, i + 3, 2, "字，。也");
	if (!gl)
		return -1;
	uint32_t full[NAME_MAX_CPS];
	full[0] = d->cp[i + 1];
	memcpy(full + 1, d->cp + i + 3, gl * sizeof *full);
	int g = add_name(d, full, gl + 1, -1, 1);
	size_t z = i + 3 + gl;
	z += z < d->n && ts_char_in(d->cp[z], "，,");
	if (g >= 0 && z < d->n && at(d, z, d->n, "字")) {
		size_t zl = han_run(d, z + 1, 2, "，。");
		if (zl == 2)
			alias(d, full, gl + 1, d->cp + z + 1, zl);
	}
	return g;
}

/* X字Y at a clause start: Y is X's courtesy name. */
static void courtesy(ts_dialogue *d, size_t cs)
{
	size_t a = skip_lead(d, cs, d->n), l = han_run(d, a, 4, "字，。");
	if ((l == 2 || l == 3) && a + l < d->n && at(d, a + l, d->n, "字")) {
		size_t zl = han_run(d, a + l + 1, 2, "，。");
		if (zl == 2)
			alias(d, d->cp + a, l, d->cp + a + l + 1, zl);
	}
}

/* 乃X也 or 乃X， at i (X named: 视之，乃常山赵子龙也; 认得是同案的秀才
 * 金有年，): X's group, or -1. */
static int named_after(ts_dialogue *d, size_t i)
{
	size_t wl;
	if (word_at(d, i, d->n, d->words[W_NAMING], &wl) < 0)
		return -1;
	i += wl - 1; /* the words of the name follow i + 1 */
	size_t l = han_run(d, i + 1, 8, "也，。");
	if (l < 2 || i + 1 + l >= d->n || !ts_char_in(d->cp[i + 1 + l], "也，。"))
		return -1;
	size_t best = 0, len;
	int g = -1;
	for (size_t k = i + 1; k < i + 1 + l; k++) {
		int h = name_at(d, k, i + 1 + l, &len);
		if (h >= 0 && len > best)
			best = len, g = h;
	}
	if (g >= 0)
		return g;
	size_t nl = l < 3 ? l : 3;
	return add_name(d, d->cp + i + 1 + l - nl, nl, -1, 1);
}

/* The person introduced (一人...) whose name this paragraph gives after
 * position from: a group, or -1. */
static int intro_named(ts_dialogue *d, size_t from)
{
	for (size_t i = from; i < d->n; i++) {
		int g = surname_given(d, i);
		if (g < 0)
			g = named_after(d, i);
		if (g >= 0)
			return g;
	}
	return -1;
}

/* ---- a paragraph ---------------------------------------------------------- */

/* The speakers of the quotations of the decoded paragraph into s; their
 * count. */
static size_t attribute(ts_dialogue *d, said *s)
{
	size_t nq = ts_zh_quotes(d->cp, d->n, d->words[W_VERB], s->span, QUOTES_MAX, &d->unpaired);
	if (nq > QUOTES_MAX)
		nq = QUOTES_MAX;
	for (size_t k = 0; k < nq; k++)
		s->q[k][0] = s->span[k].start, s->q[k][1] = s->span[k].end;
	/* A quotation over paragraphs opens each with a mark: the speaker of
	 * the one before goes on. */
	int opens = nq && skip_lead(d, 0, s->q[0][0]) == s->q[0][0] &&
	            s->span[0].text_start > s->span[0].start;
	if (d->open_end && opens && d->open_who != NOT_SAID) {
		d->carry = d->open_who;
		snprintf(d->carry_why, sizeof d->carry_why, "a quotation over paragraphs goes on");
	}
	d->continued = d->open_end && opens;
	for (size_t i = 0; i < d->n; i++)
		if (i == 0 || is_clause_end(d->cp[i - 1]))
			courtesy(d, i);
	for (size_t k = 0; k < nq; k++) {
		size_t lo = k ? s->q[k - 1][1] : 0, qs = s->q[k][0], qe = s->q[k][1];
		size_t hi = k + 1 < nq ? s->q[k + 1][0] : d->n;
		char *why = s->why[k];
		narration(d, lo, qs);
		int w = from_lead(d, lo, qs, why, sizeof s->why[k]);
		if (w == NOT_SAID && k == 0 && skip_lead(d, 0, qs) == qs && d->carry != NOT_SAID) {
			w = d->carry;
			snprintf(why, sizeof s->why[k], "%s", d->carry_why);
		}
		if (w == NOT_SAID && k > 0)
			w = goes_on(d, s, k, why, sizeof s->why[k]);
		/* 念一声"唵"字真言: a word quoted inside a clause, whatever follows */
		if (w == NOT_SAID && embedded(d, lo, qs) && unpunctuated(d, qs, qe)) {
			snprintf(why, sizeof s->why[k], "not speech: a quoted word or title");
			w = SP_NONE;
		}
		if (w == NOT_SAID)
			w = from_after(d, qe, hi, why, sizeof s->why[k]);
		if (w == NOT_SAID)
			w = acts_after(d, qe, hi, why, sizeof s->why[k]);
		if (w == NOT_SAID)
			w = unsaid(d, lo, qs, qe, why, sizeof s->why[k]);
		if (w == SP_NOBODY)
			w = SP_UNKNOWN;
		if (w == SP_PENDING) {
			int g = intro_named(d, qs);
			d->pending = g < 0;
			if (g >= 0) {
				d->intro = g;
				for (size_t j = 0; j < k; j++)
					if (s->who[j] == SP_PENDING)
						s->who[j] = g;
				w = g;
				size_t l = strlen(why);
				snprintf(why + l, sizeof s->why[k] - l, ", named after");
			}
		}
		s->who[k] = w;
		partner_of(d, w, qs, qe);
		heard(d, w);
	}
	for (size_t k = 0; k < nq; k++)
		if (s->who[k] == SP_PENDING)
			s->who[k] = SP_UNKNOWN;
	size_t text = 0;
	while (text < d->n && ts_is_space(d->cp[text]))
		text++;
	if (text < d->n) { /* a blank line does not end a quotation over paragraphs */
		d->open_end = nq && !s->span[nq - 1].closed && s->q[nq - 1][1] == d->n;
		d->open_who =
		    d->open_end && s->who[nq - 1] != SP_UNKNOWN ? s->who[nq - 1] : NOT_SAID;
	}
	/* A paragraph that ends introducing speech (从旁说：) gives its
	 * speaker to a paragraph that starts with a quotation. */
	size_t tail = nq ? s->q[nq - 1][1] : 0;
	narration(d, tail, d->n);
	d->carry = from_lead(d, tail, d->n, d->carry_why, sizeof d->carry_why);
	if (d->carry == SP_PENDING || d->carry == SP_NOBODY)
		d->carry = SP_UNKNOWN;
	d->pending = 0;
	d->para++;
	return nq;
}

/* ---- women ------------------------------------------------------------- */

/* The names of the paragraph written of as a woman: marked (above), or
 * followed in their sentence by 她. */
static void women(ts_dialogue *d)
{
	size_t len, wl;
	for (size_t i = 0; i < d->n; i++) {
		int nk = name_index_at(d, i, d->n, &len);
		if (nk < 0)
			continue;
		int g = d->names[nk].group;
		d->names[nk].mentions++;
		size_t e = i + len, k = e;
		int she = word_ending(d, i, e, d->words[W_FEMALE]) > 0 ||
		          word_at(d, e, d->n, d->words[W_FEMALE], &wl) >= 0;
		for (; !she && k < d->n && !is_sentence_end(d->cp[k]) && k < e + 12; k++)
			she = d->cp[k] == 0x5979 && /* 她, not 她们 */
			      !(k + 1 < d->n && d->cp[k + 1] == 0x4EEC);
		d->groups[g].female += she;
		i = e - 1;
	}
}

int ts_dialogue_learn(ts_dialogue *d, const char *p, size_t n)
{
	said *s = malloc(sizeof *s);
	int rc = s ? decode(d, p, n) : TS_ENOMEM;
	if (!rc) {
		size_t nq = attribute(d, s);
		for (size_t k = 0; k < nq; k++)
			if (s->who[k] >= 0)
				d->groups[s->who[k]].quotes++;
		women(d);
	}
	free(s);
	return rc;
}

int ts_dialogue_attribute(ts_dialogue *d, const char *p, size_t n, ts_attribution_fn fn, void *ud)
{
	said *s = malloc(sizeof *s);
	int rc = s ? decode(d, p, n) : TS_ENOMEM;
	size_t nq = rc ? 0 : attribute(d, s);
	for (size_t k = 0; !rc && k < nq; k++) {
		int w = s->who[k];
		ts_attribution a = {
		    .quote = p + d->off[s->q[k][0]],
		    .quote_len = d->off[s->q[k][1]] - d->off[s->q[k][0]],
		    .speaker = w >= 0            ? d->groups[w].canon
		               : w == SP_UNKNOWN ? "?"
		                                 : "-",
		    .voice = w >= 0 ? d->groups[w].voice : NULL,
		    .female = w >= 0 && d->groups[w].female > 0,
		    .rank = w >= 0 ? d->groups[w].rank : -1,
		    .why = s->why[k],
		};
		rc = fn(ud, &a);
	}
	free(s);
	return rc;
}

void ts_dialogue_marks(const ts_dialogue *d, size_t *unpaired, int *left_open, int *continued)
{
	*unpaired = d->unpaired;
	*left_open = d->open_end;
	*continued = d->continued;
}
