/* lang.c - loading the language data tables (see lang.h).
 *
 * Bad-input policy for the tables: a line that is not "one character,
 * TAB, one character" is an error naming the file and line, so a broken
 * edit of a table is found at once rather than misreading a book. */
#include "zh/lang.h"

#include "zh/dialogue.h"
#include "zh/surname.h"

#include "base/lines.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* A table line is two characters and a tab; 4096 bytes leave room for any
 * comment, and a file that is not text still fails at its first line. */
#define TABLE_LINE_MAX 4096

typedef struct pair {
	uint32_t from, to;
} pair;

struct ts_lang {
	pair *look; /* sorted by from */
	size_t nlook;
	uint32_t look_min, look_max;
	ts_lexicon *lex;               /* NULL when the data has no lexicon */
	ts_rules *rules;               /* NULL when it has no rules */
	ts_g2pm *g2pm;                 /* NULL when it has no model */
	ts_g2p_model *g2p_model;       /* the same, as converters ask it */
	ts_userlex *user;              /* names.txt and the user's lexicons */
	ts_userlex *surnames;          /* surnames.txt */
	ts_wordtab *words[TS_WORDS_N]; /* NULL where the file is missing */
	ts_boilerplate *boilerplate;   /* NULL when boilerplate.txt is */
};

/* The shipped names lexicon must have no bad line: the first one is kept
 * as the error. */
typedef struct names_check {
	ts_error *err;
	int bad;
} names_check;

static void names_warn(void *ud, ts_level level, const char *msg)
{
	names_check *c = ud;
	(void)level;
	if (!c->bad)
		ts_error_set(c->err, TS_EINVAL, "%s", msg);
	c->bad = 1;
}

static int cmp_pair(const void *a, const void *b)
{
	uint32_t x = ((const pair *)a)->from, y = ((const pair *)b)->from;
	return x < y ? -1 : x > y;
}

/* One code point spanning all of s[0..n), or 0. */
static uint32_t single_char(const char *s, size_t n)
{
	uint32_t cp;
	if (n == 0 || ts_utf8_decode((const unsigned char *)s, n, &cp) != (int)n)
		return 0;
	return cp;
}

static int load_lookalikes(ts_lang *l, const char *path, ts_error *err)
{
	ts_lines *in;
	int rc = ts_lines_open(&in, path, TABLE_LINE_MAX, TS_LINES_SKIP_COMMENTS, err);
	if (rc)
		return rc;
	size_t cap = 0;
	char *line;
	int got;
	while ((got = ts_lines_next(in, &line, NULL)) > 0) {
		char *tab = strchr(line, '\t');
		uint32_t from = tab ? single_char(line, (size_t)(tab - line)) : 0;
		uint32_t to = tab ? single_char(tab + 1, strlen(tab + 1)) : 0;
		if (!from || !to) {
			rc = ts_error_set(
			    err, TS_EINVAL,
			    "%s:%ld: expected \"variant<TAB>standard\", one character each", path,
			    ts_lines_lineno(in));
			break;
		}
		if (TS_GROW(l->look, cap, l->nlook + 1)) {
			rc = ts_error_set(err, TS_ENOMEM, NULL);
			break;
		}
		l->look[l->nlook++] = (pair){from, to};
	}
	if (!rc && got < 0)
		rc = ts_error_set(err, got, "%s", ts_lines_errmsg(in));
	ts_lines_close(in);
	if (rc)
		return rc;
	if (l->nlook) {
		qsort(l->look, l->nlook, sizeof *l->look, cmp_pair);
		l->look_min = l->look[0].from;
		l->look_max = l->look[l->nlook - 1].from;
	}
	return 0;
}

/* The files of the word tables, and whether each holds readings. */
static const struct {
	const char *file;
	int said;
} word_files[TS_WORDS_N] = {
    [TS_WORDS_MEASURES] = {"measures.txt", 0},
    [TS_WORDS_LABELS] = {"labels.txt", 0},
    [TS_WORDS_HOTLINES] = {"hotlines.txt", 0},
    [TS_WORDS_CODES] = {"code_words.txt", 0},
    [TS_WORDS_DURATIONS] = {"duration_words.txt", 0},
    [TS_WORDS_PER] = {"per_words.txt", 0},
    [TS_WORDS_UNITS] = {"units.tsv", 1},
    [TS_WORDS_CURRENCIES] = {"currencies.tsv", 1},
    [TS_WORDS_OPERATORS] = {"operators.tsv", 1},
    [TS_WORDS_SYMBOLS] = {"symbols.tsv", 1},
    [TS_WORDS_DIALS] = {"dial_words.txt", 0},
    [TS_WORDS_MODEL_SKIP] = {"g2pm_skip.txt", 0},
    [TS_WORDS_NAME_CUES] = {"name_cues.txt", 1},
    [TS_WORDS_DIALOGUE] = {"dialogue_words.txt", 1},
    [TS_WORDS_BOILERPLATE] = {"boilerplate.txt", 1},
};

/* A new lexicon in *u with the entries of dir/file, in the format of a
 * user's lexicon, if there is such a file.  A bad line is an error: the
 * file ships with the voice. */
static int load_names(ts_userlex **u, const ts_lexicon *lx, const char *dir, const char *file,
                      ts_error *e)
{
	ts_buf path = {0};
	int rc = 0;
	if (!(*u = ts_userlex_new(lx)) || ts_buf_printf(&path, "%s/%s", dir, file))
		rc = ts_error_set(e, TS_ENOMEM, NULL);
	if (!rc) {
		names_check c = {e, 0};
		rc = ts_userlex_load(*u, path.data, names_warn, &c, e);
		if (rc == TS_ENOENT)
			rc = 0;
		if (!rc && c.bad)
			rc = TS_EINVAL;
	}
	ts_buf_free(&path);
	return rc;
}

/* Load the word tables in dir; a missing file is an empty table. */
static int load_words(ts_lang *l, const char *dir, ts_error *err)
{
	ts_buf path = {0};
	int rc = 0;
	for (int i = 0; i < TS_WORDS_N && !rc; i++) {
		ts_buf_clear(&path);
		if (ts_buf_printf(&path, "%s/%s", dir, word_files[i].file))
			return ts_error_set(err, TS_ENOMEM, NULL);
		ts_error e = {0};
		l->words[i] = ts_wordtab_load(path.data, word_files[i].said, &e);
		rc = e.code == TS_ENOENT ? 0 : e.code;
		if (!rc && i == TS_WORDS_NAME_CUES)
			rc = ts_surnames_check_cues(l->words[i], path.data, &e);
		if (!rc && i == TS_WORDS_DIALOGUE)
			rc = ts_dialogue_check_words(l->words[i], path.data, &e);
		if (!rc && i == TS_WORDS_BOILERPLATE && l->words[i] &&
		    !(l->boilerplate = ts_boilerplate_new(l->words[i], path.data, &e)))
			rc = e.code;
		if (rc)
			ts_error_set(err, rc, "%s", ts_error_msg(&e));
	}
	ts_buf_free(&path);
	return rc;
}

ts_lang *ts_lang_load(const char *dir, ts_error *err)
{
	ts_error own; /* the optional files' codes are needed when err is NULL */
	ts_error *e = err ? err : &own;
	ts_lang *l = calloc(1, sizeof *l);
	ts_buf path = {0};
	if (!l || ts_buf_printf(&path, "%s/lookalikes.tsv", dir)) {
		free(l);
		ts_error_set(err, TS_ENOMEM, NULL);
		return NULL;
	}
	int rc = load_lookalikes(l, path.data, e);
	ts_buf_clear(&path);
	if (!rc && (rc = ts_buf_printf(&path, "%s/lexicon.bin", dir)) != 0)
		ts_error_set(e, rc, NULL);
	if (!rc && !(l->lex = ts_lexicon_open(path.data, e)) &&
	    (rc = e->code) == TS_ENOENT) /* optional: eSpeak then reads the characters */
		rc = 0;
	ts_buf_clear(&path);
	if (!rc && l->lex && (rc = ts_buf_printf(&path, "%s/polyphones.txt", dir)) != 0)
		ts_error_set(e, rc, NULL);
	if (!rc && l->lex && !(l->rules = ts_rules_load(path.data, l->lex, e)) &&
	    (rc = e->code) == TS_ENOENT)
		rc = 0;
	ts_buf_clear(&path);
	if (!rc && l->lex && (rc = ts_buf_printf(&path, "%s/g2pm.bin", dir)) != 0)
		ts_error_set(e, rc, NULL);
	if (!rc && l->lex && !(l->g2pm = ts_g2pm_open(path.data, e)) && (rc = e->code) == TS_ENOENT)
		rc = 0;
	ts_buf_clear(&path);
	if (!rc)
		rc = load_names(&l->user, l->lex, dir, "names.txt", e);
	if (!rc)
		rc = load_names(&l->surnames, l->lex, dir, "surnames.txt", e);
	if (!rc)
		rc = load_words(l, dir, e);
	if (!rc && l->g2pm &&
	    !(l->g2p_model = ts_g2p_model_new(l->lex, l->g2pm, l->words[TS_WORDS_MODEL_SKIP])))
		rc = ts_error_set(e, TS_ENOMEM, NULL);
	ts_buf_free(&path);
	if (rc) {
		ts_lang_free(l);
		return NULL;
	}
	return l;
}

void ts_lang_free(ts_lang *l)
{
	if (!l)
		return;
	free(l->look);
	ts_rules_free(l->rules);
	ts_g2p_model_free(l->g2p_model);
	ts_g2pm_free(l->g2pm);
	ts_userlex_free(l->user);
	ts_userlex_free(l->surnames);
	ts_lexicon_free(l->lex);
	for (int i = 0; i < TS_WORDS_N; i++)
		ts_wordtab_free(l->words[i]);
	ts_boilerplate_free(l->boilerplate);
	free(l);
}

uint32_t ts_lang_lookalike(const ts_lang *l, uint32_t cp)
{
	if (!l || l->nlook == 0 || cp < l->look_min || cp > l->look_max)
		return 0;
	size_t lo = 0, hi = l->nlook;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (l->look[mid].from < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->nlook && l->look[lo].from == cp ? l->look[lo].to : 0;
}

size_t ts_lang_lookalike_count(const ts_lang *l)
{
	return l ? l->nlook : 0;
}

const ts_lexicon *ts_lang_lexicon(const ts_lang *l)
{
	return l ? l->lex : NULL;
}

const ts_g2p_model *ts_lang_g2p_model(const ts_lang *l)
{
	return l ? l->g2p_model : NULL;
}

const ts_rules *ts_lang_rules(const ts_lang *l)
{
	return l ? l->rules : NULL;
}

const ts_userlex *ts_lang_userlex(const ts_lang *l)
{
	return l ? l->user : NULL;
}

const ts_userlex *ts_lang_surnames(const ts_lang *l)
{
	return l ? l->surnames : NULL;
}

const ts_wordtab *ts_lang_words(const ts_lang *l, ts_words which)
{
	return l && (unsigned)which < TS_WORDS_N ? l->words[which] : NULL;
}

const ts_boilerplate *ts_lang_boilerplate(const ts_lang *l)
{
	return l ? l->boilerplate : NULL;
}

int ts_lang_add_lexicon(ts_lang *l, const char *path, ts_diag_fn diag, void *ud, ts_error *err)
{
	return ts_userlex_load(l->user, path, diag, ud, err);
}
