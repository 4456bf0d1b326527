/* g2p.c - segmentation, readings, sandhi (see g2p.h).
 *
 * Bad-input policy: any valid UTF-8 is converted; characters that are not
 * Han pass through to eSpeak unchanged and make no token; a Han character
 * the lexicon does not know passes through as itself (eSpeak reads it as
 * best it can, and the normalizer has already warned about it). */
#include "zh/g2p.h"

#include <stdlib.h>
#include <string.h>

#define MAX_MATCH TS_LEX_MAX_WORD
#define SYL_OPEN  (-2) /* to be decided by the rules, then the default */
#define SYL_NONE  (-1) /* not a Han character the lexicon knows */
#define SYL_USER  (-3) /* read as a user's lexicon says: usyl */

/* How a reading was decided (for explain). */
enum source {
	SRC_NONE,
	SRC_WORD,
	SRC_DEFAULT,
	SRC_RULE,
	SRC_SANDHI,
	SRC_USER,
	SRC_MODEL,
	SRC_SURNAME
};
static const char *const source_names[] = {"",       "",     "default", "rule",
                                           "sandhi", "user", "model",   "surname"};

/* The model's second opinion (see ask_model()).  It reads the text
 * around a polyphone, MODEL_CONTEXT characters on each side where the
 * text has them: reading costs time for every character read (g2pm.h),
 * and on CPP's development split 6, 8, 16 or 32 characters
 * read the same number of polyphones right (4: four fewer); 6 is the
 * cheapest of those. */
#define MODEL_CONTEXT 6
/* How much surer the model must be of its reading than of ours (the
 * difference of their logits) to override a rule or a default.  Chosen
 * on the CPP development split, cross-validated (the 5 folds chose 0 or
 * 0.5, and 7.25 to 8.5): tests/g2pm_policy.py.  A rule that fits is right more often
 * than the default, so it takes a large margin to override it. */
#define MODEL_MARGIN_RULE    7.25f
#define MODEL_MARGIN_DEFAULT 0.0f

/* Syllables the sandhi writes, looked up once. */
enum { YI1, YI2, YI4, YI5, BU2, BU4, BU5, NSANDHI };
static const char *const sandhi_names[NSANDHI] = {"yi1", "yi2", "yi4", "yi5", "bu2", "bu4", "bu5"};

struct ts_g2p {
	const ts_lexicon *lx;
	const ts_rules *rules;  /* may be NULL */
	const ts_userlex *user; /* may be NULL */
	const ts_g2p_model *pm; /* the model, may be NULL */
	ts_surnames *surnames;  /* may be NULL */
	ts_g2pm_run *run;       /* its working memory */
	size_t win_a, win_b;    /* the characters it last read (none: a == b) */
	unsigned stages;
	int explain;
	int sandhi_syl[NSANDHI];
	uint32_t yi, bu, yue, nian; /* 一 不 月 年, as code points */
	size_t cap;                 /* entries of the arrays below */
	uint32_t *cp;               /* the text's code points */
	uint32_t *fcp;              /* the same, traditional folded to simplified */
	size_t *off;                /* byte offset of each, and of the end */
	int *ch;                    /* lexicon character, or -1 */
	int *key;                   /* its lookup key, or -1 */
	int *syl;                   /* syllable, SYL_OPEN, SYL_NONE or SYL_USER */
	const char **usyl;          /* the syllable of SYL_USER */
	unsigned char *src;         /* enum source of each reading */
	int *rule_line;             /* the rule that decided it */
	int *msyl;                  /* the model's reading where it disagreed, or -1 */
	float *margin;              /* its margin there */
	int *osyl;                  /* the reading it overrode */
	unsigned char *osrc;        /* how that one was decided */
	size_t *wbeg, *wend;        /* the word each character is in */
	unsigned char *said;        /* had TS_READ_MARK before it */
	unsigned char *open;        /* its reading is SYL_OPEN (for surnames) */
	ts_buf plain;               /* the text without TS_READ_MARK */
	double *route;              /* best score of the rest of the run */
	size_t *next;               /* end of the best word starting here */
	const unsigned char **bits; /* its readings, NULL for a single character */
	ts_lexmatch m[MAX_MATCH];
};

/* The code point of the one character s. */
static uint32_t char_of(const char *s)
{
	uint32_t c = 0;
	ts_utf8_decode((const unsigned char *)s, strlen(s), &c);
	return c;
}

ts_g2p *ts_g2p_new(const ts_lexicon *lx, const ts_rules *rules, const ts_userlex *user)
{
	ts_g2p *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->lx = lx;
	g->rules = rules;
	g->user = user;
	g->stages = TS_G2P_ALL;
	for (int k = 0; k < NSANDHI; k++)
		g->sandhi_syl[k] = ts_lexicon_find_syllable(lx, sandhi_names[k], 3);
	g->yi = char_of("一");
	g->bu = char_of("不");
	g->yue = char_of("月");
	g->nian = char_of("年");
	return g;
}

void ts_g2p_free(ts_g2p *g)
{
	if (!g)
		return;
	free(g->cp);
	free(g->fcp);
	free(g->off);
	free(g->ch);
	free(g->key);
	free(g->syl);
	free(g->usyl);
	free(g->src);
	free(g->rule_line);
	free(g->msyl);
	free(g->margin);
	free(g->osyl);
	free(g->osrc);
	ts_g2pm_run_free(g->run);
	ts_surnames_free(g->surnames);
	free(g->wbeg);
	free(g->wend);
	free(g->said);
	free(g->open);
	ts_buf_free(&g->plain);
	free(g->route);
	free(g->next);
	free(g->bits);
	free(g);
}

void ts_g2p_set_explain(ts_g2p *g, int explain)
{
	g->explain = explain;
}

void ts_g2p_set_stages(ts_g2p *g, unsigned stages)
{
	g->stages = stages;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

struct ts_g2p_model {
	const ts_lexicon *lx;
	const ts_g2pm *m;
	int *syl_class; /* the model's class of each syllable, or -1 */
	uint32_t *skip; /* characters not to ask it about, ascending */
	size_t nskip;
};

ts_g2p_model *ts_g2p_model_new(const ts_lexicon *lx, const ts_g2pm *m, const ts_wordtab *skip)
{
	ts_g2p_model *pm = calloc(1, sizeof *pm);
	size_t nw;
	const ts_word *w = ts_wordtab_words(skip, &nw);
	unsigned nsyl = ts_lexicon_nsyl(lx);
	if (pm) {
		pm->syl_class = malloc((nsyl ? nsyl : 1) * sizeof *pm->syl_class);
		pm->skip = malloc((nw ? nw : 1) * sizeof *pm->skip);
	}
	if (!pm || !pm->syl_class || !pm->skip) {
		ts_g2p_model_free(pm);
		return NULL;
	}
	pm->lx = lx;
	pm->m = m;
	for (size_t k = 0; k < nw; k++)
		if (w[k].len == 1) /* a character, not a word */
			pm->skip[pm->nskip++] = w[k].first;
	qsort(pm->skip, pm->nskip, sizeof *pm->skip, cmp_u32);
	for (unsigned s = 0; s < nsyl; s++) {
		size_t len;
		const char *p = ts_lexicon_syllable(lx, s, &len);
		pm->syl_class[s] = ts_g2pm_find_class(m, p, len);
	}
	return pm;
}

void ts_g2p_model_free(ts_g2p_model *pm)
{
	if (!pm)
		return;
	free(pm->syl_class);
	free(pm->skip);
	free(pm);
}

int ts_g2p_set_model(ts_g2p *g, const ts_g2p_model *pm)
{
	ts_g2pm_run_free(g->run);
	g->run = NULL;
	g->pm = NULL;
	if (!pm)
		return 0;
	if (pm->lx != g->lx)
		return TS_EINVAL;
	if (!(g->run = ts_g2pm_run_new(pm->m)))
		return TS_ENOMEM;
	g->pm = pm;
	return 0;
}

/* Room for n characters (and one more: the end).  The first array finds
 * the new capacity, the others follow; g->cap changes only when all have
 * grown. */
static int reserve(ts_g2p *g, size_t n)
{
	if (n + 1 <= g->cap)
		return 0;
	size_t cap = g->cap;
	if (TS_GROW(g->cp, cap, n + 1) || TS_RESIZE(g->fcp, cap) || TS_RESIZE(g->off, cap) ||
	    TS_RESIZE(g->ch, cap) || TS_RESIZE(g->key, cap) || TS_RESIZE(g->syl, cap) ||
	    TS_RESIZE(g->usyl, cap) || TS_RESIZE(g->src, cap) || TS_RESIZE(g->rule_line, cap) ||
	    TS_RESIZE(g->wbeg, cap) || TS_RESIZE(g->wend, cap) || TS_RESIZE(g->route, cap) ||
	    TS_RESIZE(g->next, cap) || TS_RESIZE(g->bits, cap) || TS_RESIZE(g->msyl, cap) ||
	    TS_RESIZE(g->margin, cap) || TS_RESIZE(g->osyl, cap) || TS_RESIZE(g->osrc, cap) ||
	    TS_RESIZE(g->said, cap) || TS_RESIZE(g->open, cap))
		return TS_ENOMEM;
	g->cap = cap;
	return 0;
}

static int is_han_at(const ts_g2p *g, size_t i, size_t n)
{
	return i < n && ts_is_han(g->cp[i]);
}

/* ---- words --------------------------------------------------------- */

/* Maximum-probability segmentation of the Han run [a, b), right to left
 * as jieba does: route[i] is the best score of text[i..b). */
static void segment_run(ts_g2p *g, size_t a, size_t b)
{
	const ts_lexicon *lx = g->lx;
	int words = (g->stages & TS_G2P_WORDS) != 0;
	g->route[b] = 0;
	for (size_t i = b; i-- > a;) {
		double best = (g->ch[i] >= 0 ? ts_lexicon_char_logp(lx, g->ch[i])
		                             : ts_lexicon_unknown_logp(lx)) +
		              g->route[i + 1];
		size_t end = i + 1;
		const unsigned char *bits = NULL;
		size_t nm = words ? ts_lexicon_match(lx, g->key + i, b - i, g->m, MAX_MATCH) : 0;
		for (size_t k = 0; k < nm; k++) {
			double s = g->m[k].logp + g->route[i + g->m[k].len];
			if (s >= best) { /* ties go to the longer word */
				best = s;
				end = i + g->m[k].len;
				bits = g->m[k].bits;
			}
		}
		g->route[i] = best;
		g->next[i] = end;
		g->bits[i] = bits;
	}
	for (size_t i = a; i < b;) {
		size_t j = g->next[i];
		ts_lexmatch w = {.len = (unsigned)(j - i), .bits = g->bits[i]};
		for (size_t k = i; k < j; k++) {
			g->wbeg[k] = i;
			g->wend[k] = j;
			unsigned r =
			    w.bits ? ts_lexmatch_reading(&w, (unsigned)(k - i)) : TS_LEX_OPEN;
			if (g->ch[k] < 0) {
				g->syl[k] = SYL_NONE;
			} else if (r == TS_LEX_OPEN) {
				g->syl[k] = SYL_OPEN;
			} else {
				g->syl[k] = (int)ts_lexicon_reading(g->lx, g->key[k], r);
				g->src[k] = SRC_WORD;
			}
		}
		i = j;
	}
}

/* The words of the user's lexicons in the Han run [a, b), leftmost and
 * longest first: they are read as written, and the lexicon segments what
 * lies between them. */
static void user_words(ts_g2p *g, size_t a, size_t b)
{
	size_t gap = a;
	for (size_t i = a; i < b;) {
		size_t e, m = g->user ? ts_userlex_match(g->user, g->fcp + i, b - i, &e) : 0;
		if (!m) {
			i++;
			continue;
		}
		if (gap < i)
			segment_run(g, gap, i);
		for (size_t k = 0; k < m; k++) {
			g->syl[i + k] = SYL_USER;
			g->usyl[i + k] = ts_userlex_syllable(g->user, e, k);
			g->src[i + k] = SRC_USER;
			g->wbeg[i + k] = i;
			g->wend[i + k] = i + m;
		}
		i += m;
		gap = i;
	}
	if (gap < b)
		segment_run(g, gap, b);
}

/* ---- surnames ------------------------------------------------------ */

int ts_g2p_set_surnames(ts_g2p *g, const ts_userlex *table, const ts_wordtab *cues)
{
	ts_surnames_free(g->surnames);
	g->surnames = NULL;
	if (table && ts_userlex_count(table) > 0 && !(g->surnames = ts_surnames_new(table, cues)))
		return TS_ENOMEM;
	return 0;
}

/* Read the m characters of the surname at i as entry e of the table says,
 * unless a user's word took one of them. */
static void read_surname(ts_g2p *g, size_t i, size_t m, size_t e)
{
	for (size_t k = 0; k < m; k++)
		if (g->syl[i + k] == SYL_USER || g->syl[i + k] == SYL_NONE)
			return;
	for (size_t k = 0; k < m; k++) {
		g->syl[i + k] = SYL_USER;
		g->usyl[i + k] = ts_userlex_syllable(ts_surnames_table(g->surnames), e, k);
		g->src[i + k] = SRC_SURNAME;
	}
}

/* The first n characters of g as the rules and the surnames see them
 * (see sentence.h): the folded text and its words, borrowed from g. */
static ts_sentence sentence_of(const ts_g2p *g, size_t n)
{
	return (ts_sentence){
	    .cp = g->fcp, .n = n, .wbeg = g->wbeg, .wend = g->wend, .open = g->open};
}

#define MAX_NAMES 8 /* full names remembered in one text */

/* Surnames starting personal names (see surname.h).  A full name found so
 * (surname and given name) is a name wherever else it stands in the text
 * as words of its own, with or without a cue there. */
static void find_surnames(ts_g2p *g, size_t n)
{
	ts_sentence x = sentence_of(g, n);
	size_t at[MAX_NAMES], len[MAX_NAMES], nnames = 0;
	for (size_t i = 0; i < n; i++)
		g->open[i] = g->syl[i] == SYL_OPEN;
	for (size_t i = 0; i < n; i++) {
		size_t e, given,
		    m = ts_is_han(g->cp[i]) ? ts_surname_at(g->surnames, &x, i, &e, &given) : 0;
		if (!m)
			continue;
		read_surname(g, i, m, e);
		if (given && nnames < MAX_NAMES) {
			at[nnames] = i;
			len[nnames++] = m + given;
		}
		i += m - 1;
	}
	const ts_userlex *table = ts_surnames_table(g->surnames);
	for (size_t k = 0; k < nnames; k++)
		for (size_t i = 0; i + len[k] <= n; i++) {
			size_t e, m, b = i + len[k];
			if (g->src[i] == SRC_SURNAME || !g->open[i] || g->wbeg[i] != i ||
			    g->wend[b - 1] != b ||
			    memcmp(g->fcp + i, g->fcp + at[k], len[k] * sizeof *g->fcp) != 0 ||
			    (m = ts_userlex_match(table, g->fcp + i, n - i, &e)) == 0)
				continue;
			read_surname(g, i, m, e);
		}
}

/* Let the model read the window of text around character i, unless the
 * one it last read serves. */
static int model_read(ts_g2p *g, size_t i, size_t n)
{
	size_t a = g->win_a, b = g->win_b;
	if (a < b && (a == 0 || a + MODEL_CONTEXT <= i) && i < b &&
	    (b == n || i + MODEL_CONTEXT < b))
		return 0;
	a = i > MODEL_CONTEXT ? i - MODEL_CONTEXT : 0;
	b = i + MODEL_CONTEXT + 1 < n ? i + MODEL_CONTEXT + 1 : n;
	g->win_a = g->win_b = 0;
	int rc = ts_g2pm_encode(g->run, g->fcp + a, b - a);
	if (!rc) {
		g->win_a = a;
		g->win_b = b;
	}
	return rc;
}

/* Is syllable a (ours) neutral and b the same syllable in a full tone?
 * The model follows CPP's labels, which read full tones where the
 * dictionary reads a neutral one: ours stay. */
static int neutral_convention(const ts_g2p *g, unsigned a, unsigned b)
{
	size_t la, lb;
	const char *sa = ts_lexicon_syllable(g->lx, a, &la),
	           *sb = ts_lexicon_syllable(g->lx, b, &lb);
	return la == lb && la > 1 && sa[la - 1] == '5' && memcmp(sa, sb, la - 1) == 0;
}

/* The model's opinion on the reading of character i (decided by a rule or
 * the default): it scores the character's readings it knows, and its
 * choice replaces ours when its margin is large enough.  一 and 不 are
 * left to the sandhi.  Returns 0 or TS_ENOMEM. */
static int ask_model(ts_g2p *g, size_t i, size_t n)
{
	int ch = g->ch[i];
	unsigned nr = ts_lexicon_nreadings(g->lx, ch);
	if (nr < 2 || g->fcp[i] == g->yi || g->fcp[i] == g->bu ||
	    bsearch(&g->fcp[i], g->pm->skip, g->pm->nskip, sizeof *g->pm->skip, cmp_u32))
		return 0;
	/* Only the readings both the lexicon and the model give the
	 * character: the model was trained to choose among its own. */
	int mcls[TS_G2PM_MAX_READINGS], cls[TS_LEX_OPEN];
	unsigned mk = ts_g2pm_readings(g->pm->m, g->fcp[i], mcls);
	unsigned syl[TS_LEX_OPEN];
	size_t k = 0, ours = TS_LEX_OPEN;
	for (unsigned j = 0; j < nr && k < TS_LEX_OPEN; j++) {
		unsigned s = ts_lexicon_reading(g->lx, ch, j), known = 0;
		for (unsigned q = 0; q < mk; q++)
			known |= mcls[q] == g->pm->syl_class[s];
		if (!known)
			continue;
		if ((int)s == g->syl[i])
			ours = k;
		cls[k] = g->pm->syl_class[s];
		syl[k++] = s;
	}
	if (k < 2 || ours == TS_LEX_OPEN)
		return 0;
	int rc = model_read(g, i, n);
	if (rc)
		return rc;
	float logit[TS_LEX_OPEN];
	ts_g2pm_score(g->run, i - g->win_a, cls, k, logit);
	size_t best = ours;
	for (size_t j = 0; j < k; j++)
		if (logit[j] > logit[best])
			best = j;
	if (best == ours || neutral_convention(g, syl[ours], syl[best]))
		return 0;
	g->msyl[i] = (int)syl[best];
	g->margin[i] = logit[best] - logit[ours];
	float need = g->src[i] == SRC_RULE ? MODEL_MARGIN_RULE : MODEL_MARGIN_DEFAULT;
	if (g->margin[i] > need) {
		g->osyl[i] = g->syl[i];
		g->osrc[i] = g->src[i];
		g->syl[i] = (int)syl[best];
		g->src[i] = SRC_MODEL;
	}
	return 0;
}

/* Readings the words left open: the context rules, then the most common
 * reading, then the model's opinion.  The rules and the model see the
 * text with traditional characters folded, so that one rule serves both
 * scripts.  Returns 0 or TS_ENOMEM. */
static int decide_open(ts_g2p *g, size_t n)
{
	ts_sentence ctx = sentence_of(g, n);
	int rules = g->rules && (g->stages & TS_G2P_RULES);
	int model = g->pm && (g->stages & TS_G2P_MODEL);
	g->win_a = g->win_b = 0;
	for (size_t i = 0; i < n; i++) {
		if (g->syl[i] != SYL_OPEN)
			continue;
		int line = 0;
		int s = rules ? ts_rules_apply(g->rules, &ctx, i, &line) : -1;
		if (s >= 0) {
			g->syl[i] = s;
			g->src[i] = SRC_RULE;
			g->rule_line[i] = line;
		} else {
			g->syl[i] = (int)ts_lexicon_reading(g->lx, g->ch[i], 0);
			g->src[i] = SRC_DEFAULT;
		}
		int rc = model ? ask_model(g, i, n) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- tone sandhi of 一 and 不 ------------------------------------- */

/* The syllable of character i, or NULL; *len gets its length. */
static const char *syllable_at(const ts_g2p *g, size_t i, size_t *len)
{
	if (g->syl[i] == SYL_USER) {
		*len = strlen(g->usyl[i]);
		return g->usyl[i];
	}
	if (g->syl[i] < 0)
		return NULL;
	return ts_lexicon_syllable(g->lx, (unsigned)g->syl[i], len);
}

/* Tone digit of the syllable of character i (1-5), 0 for none. */
static int tone_at(const ts_g2p *g, size_t i)
{
	size_t len;
	const char *p = syllable_at(g, i, &len);
	return p && len > 0 && p[len - 1] >= '1' && p[len - 1] <= '5' ? p[len - 1] - '0' : 0;
}

/* Numerals before 一 that make it part of a number (十一, 一百零一). */
static const char numerals_before[] = "零〇一二三四五六七八九十百千万亿第初";
/* Digits after 一 that make it read digit by digit (一九四五, 一一零). */
static const char digits_after[] = "零〇一二三四五六七八九十";
/* Magnitudes after 一: sandhi as usual (一百 yi4, 一万 yi2). */
static const char magnitudes[] = "百千万亿";
/* Ordinal labels after 一 (一号, 一楼, 一级): first, not one. */
static const char labels[] = "号楼届栋级";
/* After 一月: it is January (一月份, 一月初, 一月五日). */
static const char after_month[] = "份初中底末一二三四五六七八九十日号";

/* The reading of 一 (lexically yi1) at i, by the rules of Putonghua:
 * yi1 in numbers, ordinals, dates and at the end of a word or phrase;
 * yi5 between a doubled verb (看一看); else yi2 before a fourth tone and
 * yi4 before the others. */
static int sandhi_yi(const ts_g2p *g, size_t i, size_t n)
{
	int han_before = i > 0 && is_han_at(g, i - 1, n);
	int han_after = is_han_at(g, i + 1, n);
	uint32_t prev = han_before ? g->fcp[i - 1] : 0, next = han_after ? g->fcp[i + 1] : 0;
	uint32_t next2 = is_han_at(g, i + 2, n) ? g->fcp[i + 2] : 0;
	if (!han_after || !tone_at(g, i + 1))
		return YI1;
	if (g->wbeg[i] < i && g->wend[i] == i + 1) /* last of a word: 统一, 唯一 */
		return YI1;
	if (ts_char_in(next, magnitudes))
		goto tone;
	if (ts_char_in(prev, numerals_before) || ts_char_in(next, digits_after) ||
	    ts_char_in(next, labels))
		return YI1;
	if (next == g->yue && (prev == g->nian || !next2 || ts_char_in(next2, after_month)))
		return YI1;
	/* 看一看 (but not 一天一天: the second 一 is not between a doubled verb) */
	if (han_before && prev == next && !(i >= 2 && g->fcp[i - 2] == g->yi))
		return YI5;
tone:;
	int t = tone_at(g, i + 1);
	return t == 4 || t == 5 ? YI2 : YI4;
}

/* The reading of 不 (lexically bu4) at i: bu5 between a doubled word
 * (好不好), bu2 before a fourth tone. */
static int sandhi_bu(const ts_g2p *g, size_t i, size_t n)
{
	if (!is_han_at(g, i + 1, n) || !tone_at(g, i + 1))
		return BU4;
	if (i > 0 && is_han_at(g, i - 1, n) && g->fcp[i - 1] == g->fcp[i + 1])
		return BU5;
	return tone_at(g, i + 1) == 4 ? BU2 : BU4;
}

static void sandhi(ts_g2p *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int k = -1;
		if (g->fcp[i] == g->yi && g->syl[i] == g->sandhi_syl[YI1])
			k = sandhi_yi(g, i, n);
		else if (g->fcp[i] == g->bu && g->syl[i] == g->sandhi_syl[BU4])
			k = sandhi_bu(g, i, n);
		if (k < 0 || g->sandhi_syl[k] < 0 || g->sandhi_syl[k] == g->syl[i])
			continue;
		g->syl[i] = g->sandhi_syl[k];
		g->src[i] = SRC_SANDHI;
	}
}

/* ---- output -------------------------------------------------------- */

/* HOW of a rule or another source. */
static int explain_how(const ts_g2p *g, unsigned src, size_t i, ts_buf *tokens)
{
	if (src == SRC_RULE)
		return ts_buf_printf(tokens, "rule:%d", g->rule_line[i]);
	return ts_buf_printf(tokens, "%s", source_names[src]);
}

/* CHAR=SYLLABLE/HOW for explain. */
static int explain_token(const ts_g2p *g, const char *text, size_t i, ts_buf *tokens)
{
	int rc = ts_buf_printf(tokens, "%.*s=", (int)(g->off[i + 1] - g->off[i]), text + g->off[i]);
	size_t len;
	const char *s = syllable_at(g, i, &len);
	if (!s) {
		s = text + g->off[i];
		len = g->off[i + 1] - g->off[i];
	}
	rc = rc ? rc : ts_buf_append(tokens, s, len);
	if (rc || g->src[i] == SRC_NONE)
		return rc;
	if (g->src[i] == SRC_WORD)
		return ts_buf_printf(tokens, "/%.*s",
		                     (int)(g->off[g->wend[i]] - g->off[g->wbeg[i]]),
		                     text + g->off[g->wbeg[i]]);
	if (g->src[i] == SRC_MODEL) {
		s = ts_lexicon_syllable(g->lx, (unsigned)g->osyl[i], &len);
		rc = ts_buf_printf(tokens, "/model+%.2f(", (double)g->margin[i]);
		rc = rc ? rc : explain_how(g, g->osrc[i], i, tokens);
		return rc ? rc : ts_buf_printf(tokens, "=%.*s)", (int)len, s);
	}
	rc = ts_buf_putc(tokens, '/');
	rc = rc ? rc : explain_how(g, g->src[i], i, tokens);
	if (rc || g->msyl[i] < 0 || (g->src[i] != SRC_RULE && g->src[i] != SRC_DEFAULT))
		return rc;
	s = ts_lexicon_syllable(g->lx, (unsigned)g->msyl[i], &len);
	return ts_buf_printf(tokens, "(model=%.*s+%.2f)", (int)len, s, (double)g->margin[i]);
}

/* Append what eSpeak is given and the tokens. */
static int emit(ts_g2p *g, const char *text, size_t n, ts_buf *spoken, ts_buf *tokens)
{
	int rc = 0;
	int after_syl = 0; /* the last thing in spoken is a syllable */
	int first_token = 1;
	if (tokens && tokens->len > 0 && tokens->data[tokens->len - 1] != '\n' &&
	    tokens->data[tokens->len - 1] != ' ')
		first_token = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		size_t len;
		const char *s = syllable_at(g, i, &len);
		int han = ts_is_han(g->cp[i]);
		if (!s) {
			s = text + g->off[i];
			len = g->off[i + 1] - g->off[i];
		}
		if (han && tokens) {
			if (!first_token)
				rc = ts_buf_putc(tokens, ' ');
			if (!rc && g->said[i])
				rc = ts_buf_putc(tokens, '[');
			if (!rc)
				rc = g->explain ? explain_token(g, text, i, tokens)
				                : ts_buf_append(tokens, s, len);
			if (!rc && g->said[i])
				rc = ts_buf_putc(tokens, ']');
			first_token = 0;
		}
		if (!spoken || rc)
			continue;
		/* A syllable stands apart from the syllable or Latin word next
		 * to it; other characters are kept as they are. */
		if (spoken->len > 0 && (han || after_syl) &&
		    (after_syl || ts_is_alnum((unsigned char)spoken->data[spoken->len - 1])) &&
		    (han || ts_is_alnum((unsigned char)s[0])))
			rc = ts_buf_putc(spoken, ' ');
		rc = rc ? rc : ts_buf_append(spoken, s, len);
		after_syl = han;
	}
	return rc;
}

/* The text without the TS_READ_MARKs in it, in g->plain; the characters
 * they stood before are marked in g->said (by their index in the text
 * without them).  Returns 0 or TS_ENOMEM. */
static int drop_marks(ts_g2p *g, const char **text, size_t *len)
{
	ts_buf_clear(&g->plain);
	memset(g->said, 0, *len);
	size_t n = 0;
	for (size_t i = 0; i < *len;) {
		if ((*text)[i] == TS_READ_MARK) {
			g->said[n] = 1;
			i++;
			continue;
		}
		uint32_t c;
		int k = ts_utf8_decode((const unsigned char *)*text + i, *len - i, &c);
		k = k > 0 ? k : 1;
		ts_buf_append(&g->plain, *text + i, (size_t)k);
		i += (size_t)k;
		n++;
	}
	if (ts_buf_error(&g->plain))
		return ts_buf_error(&g->plain);
	*text = g->plain.data ? g->plain.data : "";
	*len = g->plain.len;
	return 0;
}

int ts_g2p_convert(ts_g2p *g, const char *text, size_t len, ts_buf *spoken, ts_buf *tokens)
{
	int rc;
	size_t n = 0;
	if ((rc = reserve(g, len)))
		return rc;
	if (memchr(text, TS_READ_MARK, len)) {
		if ((rc = drop_marks(g, &text, &len)))
			return rc;
	} else {
		memset(g->said, 0, len + 1);
	}
	for (size_t i = 0; i < len;) {
		uint32_t c;
		int k = ts_utf8_decode((const unsigned char *)text + i, len - i, &c);
		if (k <= 0) { /* not valid UTF-8: taken byte by byte, as is */
			c = 0xFFFD;
			k = 1;
		}
		g->cp[n] = c;
		g->off[n] = i;
		int han = ts_is_han(c);
		g->ch[n] = han ? ts_lexicon_char(g->lx, c) : -1;
		g->key[n] = g->ch[n] >= 0 ? ts_lexicon_key(g->lx, g->ch[n]) : -1;
		g->fcp[n] = g->key[n] >= 0 ? ts_lexicon_cp(g->lx, g->key[n]) : c;
		g->syl[n] = SYL_NONE;
		g->src[n] = SRC_NONE;
		g->msyl[n] = -1;
		g->wbeg[n] = n;
		g->wend[n] = n + 1;
		n++;
		i += (size_t)k;
	}
	g->off[n] = len;
	for (size_t a = 0; a < n;) {
		if (!ts_is_han(g->cp[a])) {
			a++;
			continue;
		}
		size_t b = a;
		while (b < n && ts_is_han(g->cp[b]))
			b++;
		user_words(g, a, b);
		a = b;
	}
	if (g->surnames && (g->stages & TS_G2P_RULES))
		find_surnames(g, n);
	if ((rc = decide_open(g, n)))
		return rc;
	if (g->stages & TS_G2P_SANDHI)
		sandhi(g, n);
	return emit(g, text, n, spoken, tokens);
}
