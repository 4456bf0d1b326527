/* voice.c - load, find and list voice presets (see voice.h). */
#include "speech/voice.h"

#include "speech/espeak.h"

#include "zh/wordtab.h"

#include "base/hash.h"
#include "base/lines.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TS_INSTALL_VOICES_DIR
#define TS_INSTALL_VOICES_DIR "/usr/local/share/tingshu/voices"
#endif

/* A setting is a key and a short value (a description is under 160
 * bytes); 4096 leaves room for any comment, and a file that is not text
 * fails at its first line. */
#define PRESET_LINE_MAX 4096

void ts_voice_defaults(ts_voice *v)
{
	memset(v, 0, sizeof *v);
	snprintf(v->name, sizeof v->name, "%s", TS_VOICE_DEFAULT);
	snprintf(v->description, sizeof v->description, "Mandarin Chinese");
	snprintf(v->espeak_voice, sizeof v->espeak_voice, "cmn-latn-pinyin");
	snprintf(v->language, sizeof v->language, "zh");
	snprintf(v->latin_voice, sizeof v->latin_voice, "en");
	v->rate = 175;
	v->pitch = 50;
	v->pitch_range = 50;
	v->clause_pause_ms = 200;
	v->sentence_pause_ms = 350;
	v->paragraph_pause_ms = 700;
	v->title_pause_ms = 1200;
	v->lead_in_ms = 300;
	v->tail_ms = 1000;
	v->loudness_lufs = NAN;
}

/* The settings a preset may hold: integer ones with their ranges. */
static const struct {
	const char *key;
	size_t off;
	int min, max;
} int_keys[] = {
    {"rate", offsetof(ts_voice, rate), 80, 450},
    {"pitch", offsetof(ts_voice, pitch), 0, 100},
    {"pitch_range", offsetof(ts_voice, pitch_range), 0, 100},
    {"clause_pause_ms", offsetof(ts_voice, clause_pause_ms), 0, 10000},
    {"sentence_pause_ms", offsetof(ts_voice, sentence_pause_ms), 0, 10000},
    {"paragraph_pause_ms", offsetof(ts_voice, paragraph_pause_ms), 0, 10000},
    {"title_pause_ms", offsetof(ts_voice, title_pause_ms), 0, 10000},
    {"lead_in_ms", offsetof(ts_voice, lead_in_ms), 0, 10000},
    {"tail_ms", offsetof(ts_voice, tail_ms), 0, 10000},
};

static const struct {
	const char *key;
	size_t off, size;
} str_keys[] = {
    {"description", offsetof(ts_voice, description), sizeof(((ts_voice *)0)->description)},
    {"espeak_voice", offsetof(ts_voice, espeak_voice), sizeof(((ts_voice *)0)->espeak_voice)},
    {"variant", offsetof(ts_voice, variant), sizeof(((ts_voice *)0)->variant)},
    {"language", offsetof(ts_voice, language), sizeof(((ts_voice *)0)->language)},
    {"latin_voice", offsetof(ts_voice, latin_voice), sizeof(((ts_voice *)0)->latin_voice)},
};

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	char *e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int set_key(ts_voice *v, const char *key, const char *val, char *why, size_t whysz)
{
	for (size_t i = 0; i < sizeof int_keys / sizeof int_keys[0]; i++) {
		if (strcmp(key, int_keys[i].key) != 0)
			continue;
		char *end;
		errno = 0;
		long x = strtol(val, &end, 10);
		if (errno || end == val || *end || x < int_keys[i].min || x > int_keys[i].max) {
			snprintf(why, whysz, "%s must be a whole number from %d to %d, not \"%s\"",
			         key, int_keys[i].min, int_keys[i].max, val);
			return TS_EVOICE;
		}
		*(int *)((char *)v + int_keys[i].off) = (int)x;
		return 0;
	}
	if (strcmp(key, "loudness_lufs") == 0) {
		char *end;
		errno = 0;
		double x = strtod(val, &end);
		if (errno || end == val || *end || !(x >= -70 && x <= 0)) {
			snprintf(why, whysz, "%s must be a number from -70 to 0, not \"%s\"", key,
			         val);
			return TS_EVOICE;
		}
		v->loudness_lufs = x;
		return 0;
	}
	for (size_t i = 0; i < sizeof str_keys / sizeof str_keys[0]; i++) {
		if (strcmp(key, str_keys[i].key) != 0)
			continue;
		if (strlen(val) >= str_keys[i].size) {
			snprintf(why, whysz, "%s is too long", key);
			return TS_EVOICE;
		}
		snprintf((char *)v + str_keys[i].off, str_keys[i].size, "%s", val);
		return 0;
	}
	snprintf(why, whysz, "unknown setting \"%s\"", key);
	return TS_EVOICE;
}

/* The variant and the Latin voice are eSpeak's: one it does not have is
 * an error here, at its line (eSpeak would ignore it).  0 or TS_EVOICE. */
static int check_espeak(const ts_voice *v, const char *path, long variant_line, long latin_line,
                        ts_error *err)
{
	int has = v->variant[0] ? ts_espeak_has_variant(v->variant) : 1;
	if (has == 0)
		return ts_error_set(err, TS_EVOICE,
		                    "%s:%ld: variant \"%s\": eSpeak NG has no such variant "
		                    "(its variants are the files of %s/voices/!v)",
		                    path, variant_line, v->variant, ts_espeak_data());
	if (has > 0 && latin_line && (has = ts_espeak_has_voice(v->latin_voice)) == 0)
		return ts_error_set(err, TS_EVOICE,
		                    "%s:%ld: latin_voice \"%s\": eSpeak NG has no such voice "
		                    "('espeak-ng --voices' lists them; en is English)",
		                    path, latin_line, v->latin_voice);
	if (has < 0)
		return ts_error_set(err, TS_ENOMEM,
		                    "%s: cannot check its eSpeak NG voices: eSpeak NG failed while "
		                    "reading its list of voices (out of memory?)",
		                    path);
	return 0;
}

int ts_voice_load(ts_voice *v, const char *path, ts_error *err)
{
	ts_lines *in;
	int rc = ts_lines_open(&in, path, PRESET_LINE_MAX, TS_LINES_SKIP_COMMENTS, err);
	if (rc)
		return rc;
	ts_voice_defaults(v);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t bl = strlen(base);
	if (bl > 6 && strcmp(base + bl - 6, ".voice") == 0)
		bl -= 6;
	snprintf(v->name, sizeof v->name, "%.*s", (int)bl, base);
	char *line;
	int got;
	long variant_line = 0, latin_line = 0;
	while ((got = ts_lines_next(in, &line, NULL)) > 0) {
		long lineno = ts_lines_lineno(in);
		char *s = trim(line);
		char *eq = strchr(s, '=');
		char why[256];
		if (!eq) {
			rc = ts_error_set(err, TS_EVOICE, "%s:%ld: expected \"key = value\"", path,
			                  lineno);
			break;
		}
		*eq = '\0';
		const char *key = trim(s);
		if ((rc = set_key(v, key, trim(eq + 1), why, sizeof why))) {
			ts_error_set(err, rc, "%s:%ld: %s", path, lineno, why);
			break;
		}
		if (strcmp(key, "variant") == 0)
			variant_line = lineno;
		else if (strcmp(key, "latin_voice") == 0)
			latin_line = lineno;
	}
	if (!rc && got < 0)
		rc = ts_error_set(err, got, "%s", ts_lines_errmsg(in));
	ts_lines_close(in);
	if (rc)
		return rc;
	/* DESIGN: eSpeak 1.51's cmn voice reads Chinese as English. */
	if (strcmp(v->espeak_voice, "cmn") == 0 || strcmp(v->espeak_voice, "zh") == 0)
		return ts_error_set(
		    err, TS_EVOICE,
		    "%s: espeak_voice \"%s\" reads Chinese as English words in eSpeak NG 1.51; "
		    "use cmn-latn-pinyin",
		    path, v->espeak_voice);
	if (!v->espeak_voice[0])
		return ts_error_set(err, TS_EVOICE, "%s: espeak_voice is not set", path);
	return check_espeak(v, path, variant_line, latin_line, err);
}

int ts_voice_find(ts_voice *v, const char *dir, const char *name, ts_error *err)
{
	if (strchr(name, '/'))
		return ts_voice_load(v, name, err);
	for (const char *p = name; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return ts_error_set(err, TS_EVOICE, "invalid voice name \"%s\"", name);
	}
	ts_buf path = {0};
	if (ts_buf_printf(&path, "%s/%s.voice", dir, name))
		return ts_error_set(err, TS_ENOMEM, NULL);
	int rc = ts_voice_load(v, path.data, err);
	if (rc == TS_ENOENT)
		rc = ts_error_set(err, TS_EVOICE,
		                  "unknown voice \"%s\" (no %s); 'tingshu voices' lists them", name,
		                  path.data);
	ts_buf_free(&path);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ts_voice_list(const char *dir, char ***names)
{
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT ? TS_ENOENT : TS_EIO;
	char **list = NULL;
	size_t cap = 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l <= 6 || strcmp(e->d_name + l - 6, ".voice") != 0 || e->d_name[0] == '.')
			continue;
		if (TS_GROW(list, cap, (size_t)n + 1) ||
		    !(list[n] = ts_strndup(e->d_name, l - 6))) {
			for (int i = 0; i < n; i++)
				free(list[i]);
			free(list);
			closedir(d);
			return TS_ENOMEM;
		}
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(list, (size_t)n, sizeof *list, cmp_names);
	*names = list;
	return n;
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int ts_voices_dir(const char *explicit_dir, char *out, size_t outsz)
{
	if (explicit_dir) {
		snprintf(out, outsz, "%s", explicit_dir);
		return is_dir(out) ? 0 : TS_ENOENT;
	}
	const char *env = getenv("TINGSHU_VOICES");
	if (env && *env) {
		snprintf(out, outsz, "%s", env);
		return is_dir(out) ? 0 : TS_ENOENT;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			/* Installed: PREFIX/bin/tingshu and PREFIX/share/tingshu/voices. */
			snprintf(out, outsz, "%s/../share/tingshu/voices", exe);
			if (is_dir(out))
				return 0;
			/* Build tree: the build copies voices/ beside the binary. */
			snprintf(out, outsz, "%s/voices", exe);
			if (is_dir(out))
				return 0;
		}
	}
	snprintf(out, outsz, "%s", TS_INSTALL_VOICES_DIR);
	return is_dir(out) ? 0 : TS_ENOENT;
}

/* ---- the cache of presets ----------------------------------------------- */

typedef struct cached_voice {
	char *name;
	ts_voice v;
	ts_error err; /* err.code != 0: the preset did not load */
} cached_voice;

struct ts_voice_cache {
	char *dir;
	cached_voice **e;
	size_t n, cap;
	ts_wordtab *pool; /* cast_pool.txt, read on first use */
	int pool_read;
};

/* The file of the pool of cast voices, in a voices directory. */
#define POOL_FILE "cast_pool.txt"

ts_voice_cache *ts_voice_cache_new(const char *dir)
{
	ts_voice_cache *c = calloc(1, sizeof *c);
	if (c && !(c->dir = ts_strdup(dir))) {
		free(c);
		c = NULL;
	}
	return c;
}

void ts_voice_cache_free(ts_voice_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i]->name);
		free(c->e[i]);
	}
	free(c->e);
	free(c->dir);
	ts_wordtab_free(c->pool);
	free(c);
}

/* c->pool from the voices directory, or else the shipped one. */
static void read_pool(ts_voice_cache *c)
{
	char path[PATH_MAX + 32], shipped[PATH_MAX];
	ts_error e = {0};
	c->pool_read = 1;
	snprintf(path, sizeof path, "%s/%s", c->dir, POOL_FILE);
	c->pool = ts_wordtab_load(path, 1, &e);
	if (!c->pool && e.code == TS_ENOENT && ts_voices_dir(NULL, shipped, sizeof shipped) == 0) {
		snprintf(path, sizeof path, "%s/%s", shipped, POOL_FILE);
		c->pool = ts_wordtab_load(path, 1, &e);
	}
}

const char *ts_voice_cache_pool(ts_voice_cache *c, int female, int rank, const char *speaker)
{
	if (!c->pool_read)
		read_pool(c);
	const char *sex = female ? "female" : "male";
	size_t nw, n = 0, k;
	const ts_word *w = ts_wordtab_words(c->pool, &nw);
	for (size_t i = 0; i < nw; i++)
		n += strcmp(w[i].said, sex) == 0;
	if (n == 0)
		return NULL;
	if (rank >= 0) {
		k = (size_t)rank % n;
	} else {
		k = ts_fnv32(speaker, strlen(speaker)) % n;
	}
	for (size_t i = 0; i < nw; i++)
		if (strcmp(w[i].said, sex) == 0 && k-- == 0)
			return w[i].text;
	return NULL;
}

const ts_voice *ts_voice_cache_get(ts_voice_cache *c, const char *name, ts_error *err)
{
	cached_voice *cv = NULL;
	for (size_t i = 0; i < c->n && !cv; i++)
		if (strcmp(c->e[i]->name, name) == 0)
			cv = c->e[i];
	if (!cv) {
		if (ts_grow(&c->e, &c->cap, c->n + 1, sizeof *c->e) ||
		    !(cv = calloc(1, sizeof *cv)) || !(cv->name = ts_strdup(name))) {
			free(cv);
			ts_error_set(err, TS_ENOMEM, NULL);
			return NULL;
		}
		ts_voice_find(&cv->v, c->dir, name, &cv->err);
		c->e[c->n++] = cv;
	}
	if (cv->err.code) {
		if (err)
			*err = cv->err;
		return NULL;
	}
	return &cv->v;
}
