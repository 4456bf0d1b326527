/* manifest.c - manifest.json (see manifest.h). */
#include "publish/manifest.h"

#include "base/file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TS_VERSION
#define TS_VERSION "0"
#endif

/* A finite number in format f, or null. */
static int json_number(ts_buf *b, double v, const char *f)
{
	return isfinite(v) ? ts_buf_printf(b, f, v) : ts_buf_printf(b, "null");
}

/* The "settings" object's members, after its opening brace. */
static int settings(ts_buf *b, const ts_build_settings *set)
{
	const ts_voice *v = set->voice;
	int rc = ts_buf_printf(b, "\n    \"espeak_voice\": ");
	rc |= ts_json_string(b, v->espeak_voice);
	rc |= ts_buf_printf(b, ",\n    \"variant\": ");
	rc |= ts_json_string(b, v->variant);
	rc |= ts_buf_printf(
	    b,
	    ",\n    \"rate_wpm\": %d,\n    \"rate_factor\": %.3g,\n    \"pitch\": %d,\n"
	    "    \"pitch_range\": %d,\n    \"clause_pause_ms\": %d,\n"
	    "    \"sentence_pause_ms\": %d,\n    \"paragraph_pause_ms\": %d,\n"
	    "    \"title_pause_ms\": %d,\n    \"lead_in_ms\": %d,\n    \"tail_ms\": %d,\n"
	    "    \"sample_rate\": %d,\n    \"channels\": 1,\n    \"format\": ",
	    set->wpm, set->rate_factor, v->pitch, v->pitch_range, v->clause_pause_ms,
	    v->sentence_pause_ms, v->paragraph_pause_ms, v->title_pause_ms, v->lead_in_ms,
	    v->tail_ms, set->sample_rate);
	rc |= ts_json_string(b, set->format);
	rc |= ts_buf_printf(b, ",\n    \"quality\": ");
	rc |= set->quality >= 0 ? ts_buf_printf(b, "%d", set->quality) : ts_buf_printf(b, "null");
	rc |= ts_buf_printf(b, ",\n    \"author\": ");
	rc |= set->author ? ts_json_string(b, set->author) : ts_buf_printf(b, "null");
	rc |= ts_buf_printf(b, ",\n    \"synth_sample_rate\": %d,\n    \"loudness\": ",
	                    set->synth_rate ? set->synth_rate : set->sample_rate);
	if (set->normalize)
		rc |=
		    ts_buf_printf(b,
		                  "{\n      \"standard\": \"EBU R 128 (ITU-R BS.1770-4)\",\n"
		                  "      \"target_lufs\": %.1f,\n      \"true_peak_ceiling_dbtp\": "
		                  "%.1f\n    }",
		                  set->target_lufs, set->ceiling_dbtp);
	else
		rc |= ts_buf_printf(b, "null");
	if (set->dialogue_voices) {
		/* Only then: a plain build's manifest is as it always was. */
		rc |= ts_buf_printf(b, ",\n    \"dialogue\": \"voices\",\n    \"cast\": {");
		for (size_t i = 0; i < set->ncast; i++) {
			rc |= ts_buf_printf(b, "%s\n      ", i ? "," : "");
			rc |= ts_json_string(b, set->cast[i].speaker);
			rc |= ts_buf_printf(b, ": ");
			rc |= ts_json_string(b, set->cast[i].voice);
		}
		rc |= ts_buf_printf(b, "%s}", set->ncast ? "\n    " : "");
	}
	return rc;
}

/* The "book_files" object, braces included: a member per whole-book
 * kind made. */
static int book_files(ts_buf *b, const ts_build_settings *set)
{
	int rc = ts_buf_printf(b, "{"), any = 0;
	for (int k = 0; k < TS_BOOK_KINDS; k++) {
		if (!set->book_files[k])
			continue;
		rc |= ts_buf_printf(b, "%s\n    \"%s\": ", any++ ? "," : "", ts_book_kinds[k].name);
		rc |= ts_json_string(b, set->book_files[k]);
	}
	if (any)
		rc |= ts_buf_printf(b, "\n  ");
	return rc | ts_buf_printf(b, "}");
}

/* One chapter's object, braces included; its level only when the book
 * is leveled. */
static int chapter(ts_buf *b, const ts_chapter_entry *c, int normalize)
{
	int rc = ts_buf_printf(b, "{\n      \"index\": %d,\n      \"title\": ", c->index);
	rc |= ts_json_string(b, c->title);
	rc |= ts_buf_printf(b, ",\n      \"source\": ");
	rc |= ts_json_string(b, c->source);
	rc |= ts_buf_printf(b, ",\n      \"audio\": ");
	rc |= ts_json_string(b, c->audio);
	rc |= ts_buf_printf(b, ",\n      \"timing\": {");
	int nt = 0;
	for (int t = 0; t < TS_CUES_NTIMING; t++) { /* the page's script is the page's part */
		if (!c->timing[t])
			continue;
		rc |= ts_buf_printf(b, "%s\"%s\": ", nt++ ? ", " : "", ts_cues_name(t));
		rc |= ts_json_string(b, c->timing[t]);
	}
	rc |= ts_buf_putc(b, '}');
	rc |= ts_buf_printf(b,
	                    ",\n      \"duration_s\": %.3f,\n      \"sentences\": %zu,\n"
	                    "      \"chars\": %zu,\n      \"front_matter\": %s",
	                    c->duration_s, c->sentences, c->chars,
	                    c->front_matter ? "true" : "false");
	if (c->outdated)
		rc |= ts_buf_printf(b, ",\n      \"outdated\": true");
	if (normalize) {
		rc |= ts_buf_printf(b, ",\n      \"loudness\": {\"input_lufs\": ");
		rc |= json_number(b, c->input_lufs, "%.2f");
		rc |= ts_buf_printf(b, ", \"gain_db\": ");
		rc |= json_number(b, c->gain_db, "%.2f");
		rc |= ts_buf_printf(b, ", \"output_lufs\": ");
		rc |= json_number(b, c->output_lufs, "%.2f");
		rc |= ts_buf_printf(b, ", \"true_peak_dbtp\": ");
		rc |= json_number(b, c->true_peak_db, "%.2f");
		rc |= ts_buf_printf(b, ", \"limited_s\": ");
		rc |= json_number(b, c->limited_s, "%.3f");
		rc |= ts_buf_printf(b, "}");
	}
	return rc | ts_buf_printf(b, "\n    }");
}

int ts_manifest(ts_buf *b, const char *book_title, const ts_build_settings *set,
                const ts_chapter_entry *ch, size_t n)
{
	int rc = 0;
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += ch[i].duration_s;
	rc |= ts_buf_printf(b, "{\n  \"generator\": \"tingshu %s\",\n  \"title\": ", TS_VERSION);
	rc |= ts_json_string(b, book_title);
	rc |= ts_buf_printf(
	    b, ",\n  \"complete\": %s,\n  \"voice\": ", set->complete ? "true" : "false");
	rc |= ts_json_string(b, set->voice->name);
	rc |= ts_buf_printf(b, ",\n  \"settings\": {");
	rc |= settings(b, set);
	rc |= ts_buf_printf(b, "\n  },\n  \"duration_s\": %.3f,\n  \"book_files\": ", total);
	rc |= book_files(b, set);
	rc |= ts_buf_printf(b, ",\n  \"chapters\": [");
	for (size_t i = 0; i < n; i++) {
		rc |= ts_buf_printf(b, "%s\n    ", i ? "," : "");
		rc |= chapter(b, &ch[i], set->normalize);
	}
	rc |= ts_buf_printf(b, "%s]\n}\n", n ? "\n  " : "");
	return rc ? TS_ENOMEM : 0;
}

/* The length of the JSON string literal at s, its quotes included; 0
 * when there is none. */
static size_t json_literal(const char *s)
{
	for (size_t i = 1; *s == '"' && s[i]; i++) {
		if (s[i] == '\\' && s[i + 1])
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return 0;
}

/* Does the literal at v (length vl) say s? */
static int says(const char *v, size_t vl, const char *s, ts_buf *tmp)
{
	ts_buf_clear(tmp);
	ts_json_string(tmp, s);
	return !ts_buf_error(tmp) && tmp->len == vl && memcmp(tmp->data, v, vl) == 0;
}

/* A JSON string literal: its bytes, quotes included. */
typedef struct literal {
	const char *s;
	size_t len;
} literal;

static int literal_cmp(const void *a, const void *b)
{
	const literal *x = a, *y = b;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->s, y->s, x->len);
}

/* Is one of the manifest's "source" or "audio" values among names (the
 * n sorted literals of lits)?  The first source into *first, *fl. */
static int any_named(const char *text, const literal *lits, size_t n, const char **first,
                     size_t *fl)
{
	for (int f = 0; f < 2; f++) {
		const char *field = f ? "\"audio\": " : "\"source\": ", *s = text, *v;
		size_t len = strlen(field);
		for (; (s = strstr(s, field)); s = v) {
			literal key = {v = s + len, json_literal(s + len)};
			if (!f && !*first)
				*first = key.s, *fl = key.len;
			if (bsearch(&key, lits, n, sizeof *lits, literal_cmp))
				return 1;
		}
	}
	return 0;
}

/* Of ts_manifest_other_book(): the manifest's text in text.  The names
 * are sorted: a book of thousands of chapters is not compared name by
 * name with each of another's. */
static int other_book(const char *text, const char *title, const char *const *names, size_t n,
                      ts_buf *what)
{
	ts_buf tmp = {0}, lits = {0};
	size_t *end = calloc(n ? n : 1, sizeof *end);
	literal *sorted = calloc(n ? n : 1, sizeof *sorted);
	const char *t = strstr(text, "\n  \"title\": "), *first = NULL;
	size_t tl = t ? json_literal(t += 12) : 0, fl = 0;
	int other = end && sorted && tl && !says(t, tl, title, &tmp);
	for (size_t i = 0; other && i < n; i++) {
		ts_json_string(&lits, names[i]);
		end[i] = lits.len;
	}
	if (other && !ts_buf_error(&lits)) {
		for (size_t i = 0; i < n; i++)
			sorted[i] = (literal){lits.data + (i ? end[i - 1] : 0),
			                      end[i] - (i ? end[i - 1] : 0)};
		qsort(sorted, n, sizeof *sorted, literal_cmp);
		other = !any_named(text, sorted, n, &first, &fl);
	}
	if (other && ts_buf_printf(what, "%.*s", (int)tl, t) == 0 && first)
		ts_buf_printf(what, " (from %.*s)", (int)fl, first);
	other = !end || !sorted || ts_buf_error(&tmp) || ts_buf_error(&lits) || ts_buf_error(what)
	            ? TS_ENOMEM
	            : other;
	free(end);
	free(sorted);
	ts_buf_free(&tmp);
	ts_buf_free(&lits);
	return other;
}

int ts_manifest_other_book(const char *path, const char *title, const char *const *names, size_t n,
                           ts_buf *what)
{
	ts_buf text = {0};
	char block[65536];
	size_t got;
	int rc = 0;
	FILE *f = ts_fopen_regular(path, "rb", NULL, &rc);
	if (!f)
		return 0;
	while ((got = fread(block, 1, sizeof block, f)) > 0 && !rc)
		rc = ts_buf_append(&text, block, got);
	fclose(f);
	if (!rc && !(rc = ts_buf_putc(&text, '\0')))
		rc = other_book(text.data, title, names, n, what);
	ts_buf_free(&text);
	return rc < 0 ? TS_ENOMEM : rc;
}
