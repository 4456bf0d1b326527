/* reading.c - the voice, language data and lexicons a book is read with
 * (see reading.h). */
#include "speech/reading.h"

#include "base/util.h"
#include "text/encoding.h"

#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int ts_reading_voices_dir(const char *voices_dir, char *dir, size_t sz, ts_error *err)
{
	if (ts_voices_dir(voices_dir, dir, sz) == 0)
		return 0;
	if (voices_dir)
		return ts_error_set(err, TS_EVOICE, "voices directory %s does not exist",
		                    voices_dir);
	return ts_error_set(err, TS_EVOICE,
	                    "cannot find the voices directory (looked beside the program and in "
	                    "%s); use --voices-dir DIR or set TINGSHU_VOICES",
	                    dir);
}

/* The code of a voice or data file's failure: TS_EVOICE (exit 2: the
 * file is bad), but want of memory or disk stays what it is (exit 75). */
static int voice_code(int rc)
{
	return ts_error_retryable(rc) ? rc : TS_EVOICE;
}

/* The preset and the language data beside it. */
static int load_voice(ts_reading *r, const ts_read_opts *o, ts_error *err)
{
	const char *name = o->voice ? o->voice : TS_VOICE_DEFAULT;
	char vdir[PATH_MAX];
	if (ts_reading_voices_dir(o->voices_dir, vdir, sizeof vdir, err))
		return TS_EVOICE;
	ts_voice *v = &r->voice;
	ts_error e = {0};
	int rc = ts_voice_find(v, vdir, name, &e);
	if (rc)
		return ts_error_set(err, voice_code(rc), "%s", ts_error_msg(&e));
	if (!v->language[0] || strchr(v->language, '/') || v->language[0] == '.')
		return ts_error_set(
		    err, TS_EVOICE,
		    "voice %s: language \"%s\" must be the name of a directory beside the presets",
		    v->name, v->language);
	/* The data sits beside the preset; a preset copied elsewhere (a
	 * --voices-dir of the user's, or --voice PATH) uses the shipped data. */
	char dir[PATH_MAX + 64], shipped[PATH_MAX];
	const char *slash = strrchr(name, '/');
	if (slash)
		snprintf(dir, sizeof dir, "%.*s/%s", (int)(slash - name), name, v->language);
	else
		snprintf(dir, sizeof dir, "%s/%s", vdir, v->language);
	struct stat st;
	if (stat(dir, &st) != 0 && ts_voices_dir(NULL, shipped, sizeof shipped) == 0)
		snprintf(dir, sizeof dir, "%s/%s", shipped, v->language);
	r->lang = ts_lang_load(dir, &e);
	if (!r->lang)
		return ts_error_set(err, voice_code(e.code),
		                    "voice %s: cannot load its language data: %s", v->name,
		                    ts_error_msg(&e));
	return 0;
}

/* lexicon.txt in the folder of an input (or in an input that is a
 * folder) into path; 0, or -1 when there is none to read. */
static int lexicon_beside(const char *in, char *path, size_t sz)
{
	struct stat st;
	if (strcmp(in, "-") == 0 || stat(in, &st) != 0)
		return -1;
	const char *slash = strrchr(in, '/');
	if (S_ISDIR(st.st_mode))
		snprintf(path, sz, "%s/lexicon.txt", in);
	else if (slash)
		snprintf(path, sz, "%.*s/lexicon.txt", (int)(slash - in), in);
	else
		snprintf(path, sz, "lexicon.txt");
	return stat(path, &st) == 0 ? 0 : -1;
}

/* The user's lexicons: a lexicon.txt beside each input, then each
 * --lexicon file in order, so that the later ones win. */
static int add_lexicons(ts_reading *r, const ts_read_opts *o, char *const *inputs, size_t n,
                        ts_diag_fn diag, void *ud, ts_error *err)
{
	char path[PATH_MAX + 16], seen[8][PATH_MAX + 16];
	ts_error e = {0};
	size_t nseen = 0;
	for (size_t i = 0; i < n; i++) {
		if (lexicon_beside(inputs[i], path, sizeof path))
			continue;
		int dup = 0;
		for (size_t k = 0; k < nseen && !dup; k++)
			dup = strcmp(seen[k], path) == 0;
		if (dup)
			continue;
		if (nseen < 8)
			snprintf(seen[nseen++], sizeof seen[0], "%s", path);
		if (ts_lang_add_lexicon(r->lang, path, diag, ud, &e))
			return ts_error_set(err, voice_code(e.code), "lexicon %s",
			                    ts_error_msg(&e));
	}
	for (size_t i = 0; i < o->nlexicons; i++)
		if (ts_lang_add_lexicon(r->lang, o->lexicons[i], diag, ud, &e))
			return ts_error_set(err, voice_code(e.code), "--lexicon %s",
			                    ts_error_msg(&e));
	return 0;
}

int ts_reading_load(ts_reading *r, const ts_read_opts *o, char *const *inputs, size_t ninputs,
                    ts_diag_fn diag, void *ud, ts_error *err)
{
	memset(r, 0, sizeof *r);
	if (o->encoding && !ts_encoding_known(o->encoding))
		return ts_error_set(err, TS_EINVAL,
		                    "unknown encoding '%s' (for example UTF-8, GB18030, BIG5, "
		                    "UTF-16LE; 'iconv -l' lists all)",
		                    o->encoding);
	int rc = load_voice(r, o, err);
	if (!rc) {
		r->boilerplate = ts_lang_boilerplate(r->lang);
		r->boilerplate_flags = o->keep_notes ? TS_BOILERPLATE_KEEP_NOTES : 0;
	}
	return rc ? rc : add_lexicons(r, o, inputs, ninputs, diag, ud, err);
}

void ts_reading_free(ts_reading *r)
{
	ts_lang_free(r->lang);
	r->lang = NULL;
}

int ts_voices_each(const char *voices_dir,
                   void (*fn)(void *ud, const char *name, const char *description,
                              const char *error),
                   void *ud, ts_error *err)
{
	char dir[PATH_MAX];
	if (ts_reading_voices_dir(voices_dir, dir, sizeof dir, err))
		return TS_EVOICE;
	char **names;
	int n = ts_voice_list(dir, &names);
	if (n < 0)
		return ts_error_set(err, n, "%s: %s", dir, ts_strerror(n));
	for (int i = 0; i < n; i++) {
		ts_voice v;
		ts_error e = {0};
		if (ts_voice_find(&v, dir, names[i], &e) == 0)
			fn(ud, names[i], v.description, NULL);
		else
			fn(ud, names[i], NULL, ts_error_msg(&e));
		free(names[i]);
	}
	free(names);
	if (n == 0)
		ts_error_set(err, 0, "no voice presets (*.voice) in %s", dir);
	return n;
}

typedef struct voices_out {
	ts_write_fn out;
	void *out_ud;
	ts_diag_fn diag;
	void *ud;
	size_t *bad;
	int rc; /* of out */
} voices_out;

static void print_voice(void *ud, const char *name, const char *description, const char *error)
{
	voices_out *v = ud;
	if (error) {
		if (v->diag)
			v->diag(v->ud, TS_WARNING, error);
		(*v->bad)++;
		return;
	}
	ts_buf line = {0};
	ts_buf_printf(&line, "%-12s %s%s\n", name, description,
	              strcmp(name, TS_VOICE_DEFAULT) == 0 ? " [default]" : "");
	if (!v->rc)
		v->rc = ts_buf_error(&line) ? ts_buf_error(&line)
		                            : v->out(v->out_ud, line.data, line.len);
	ts_buf_free(&line);
}

int ts_voices_print(const char *voices_dir, ts_write_fn out, void *out_ud, ts_diag_fn diag,
                    void *ud, size_t *bad, ts_error *err)
{
	voices_out v = {out, out_ud, diag, ud, bad, 0};
	*bad = 0;
	int n = ts_voices_each(voices_dir, print_voice, &v, err);
	if (n < 0)
		return n;
	if (n == 0 && diag)
		diag(ud, TS_WARNING, ts_error_msg(err));
	return v.rc;
}
