/* plan.c - the plan of an audiobook (ts_plan_new): the book's chapters
 * found in its inputs, the voice and language data it is read with, each
 * chapter's file names and timing files, which chapters this build is
 * asked for (--chapters, --shard), the cast of --dialogue voices, and
 * the settings checked before anything is built.  build.c builds the
 * output folder from it. */
#include "book/plan.h"

#include "publish/m4b.h"
#include "publish/slug.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ts_build_opts_init(ts_build_opts *o)
{
	memset(o, 0, sizeof *o);
	o->outdir = "out";
	o->jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (o->jobs < 1)
		o->jobs = 1;
	o->rate = 1.0;
	o->format = "wav";
	o->quality = TS_QUALITY_DEFAULT;
	o->normalize = 1;
	o->target_lufs = TS_LOUDNESS_DEFAULT;
	o->ceiling_dbtp = TS_TRUE_PEAK_DEFAULT;
	o->sentence_pause_ms = o->paragraph_pause_ms = -1;
	o->timing = "srt,vtt";
}

static int name_chapters(ts_plan *p, ts_error *err)
{
	size_t n = p->n ? p->n : 1;
	p->names = calloc(n, sizeof *p->names);
	p->paths = calloc(n, sizeof *p->paths);
	p->timing = calloc(n, sizeof *p->timing);
	if (!p->names || !p->paths || !p->timing)
		return ts_error_set(err, TS_ENOMEM, NULL);
	p->base = p->n && ts_book_chapter(p->book, 0)->front_matter ? 0 : 1;
	int width = 3;
	for (size_t m = p->n + (size_t)p->base; m >= 1000; m /= 10)
		width++;
	for (size_t i = 0; i < p->n; i++) {
		char slug[TS_SLUG_MAX + 1];
		ts_slug(ts_book_chapter(p->book, i)->title, slug);
		ts_buf nb = {0}, pb = {0};
		ts_buf_printf(&nb, "%0*zu-%s.%s", width, i + (size_t)p->base, slug, p->fmt->ext);
		ts_buf_printf(&pb, "%s/%s", p->o.outdir, nb.data ? nb.data : "");
		p->names[i] = nb.data;
		p->paths[i] = pb.data;
		if (ts_buf_error(&nb) || ts_buf_error(&pb))
			return ts_error_set(err, TS_ENOMEM, NULL);
		for (int t = 0; t < TS_CUES_NFORMATS; t++)
			if ((p->timing_mask & (1u << t)) &&
			    !(p->timing[i][t] = ts_cues_path(p->names[i], t)))
				return ts_error_set(err, TS_ENOMEM, NULL);
	}
	return 0;
}

/* The settings that do not go together: TS_EINVAL. */
static int check_settings(ts_plan *p, ts_error *err)
{
	const ts_build_opts *o = &p->o;
	p->fmt = ts_format_find(o->format);
	if (!p->fmt)
		return ts_error_set(err, TS_EINVAL, "unknown format '%s' (known: %s)", o->format,
		                    ts_format_names());
	p->mo = (ts_master_opts){.normalize = o->normalize,
	                         .target_lufs = o->target_lufs,
	                         .ceiling_dbtp = o->ceiling_dbtp,
	                         .out_rate = o->sample_rate};
	if (ts_cues_parse(o->timing ? o->timing : "srt,vtt", &p->timing_mask))
		return ts_error_set(
		    err, TS_EINVAL,
		    "--timing takes a comma-separated list of %s, or none, not '%s'",
		    ts_cues_names(), o->timing);
	p->timing_mask |= TS_CUES_PAGE; /* every book has its page, with its chapters' text */
	if (o->author && ts_utf8_check(o->author, strlen(o->author), 1) != strlen(o->author))
		return ts_error_set(err, TS_EINVAL, "--author must be UTF-8 text");
	int rc = ts_wholebook_check(p, err);
	if (rc)
		return rc;
	int can = ts_format_pick_rate(p->fmt, o->sample_rate);
	if (o->sample_rate && can != o->sample_rate)
		return ts_error_set(err, TS_EINVAL,
		                    "--format %s cannot hold %d Hz audio; it is made at %d Hz",
		                    p->fmt->name, o->sample_rate, can);
	return 0;
}

/* "I/N" into *i and *n: 0, or -1.  N has no cap of its own: parts past
 * the book's last chapter build nothing. */
static int parse_shard(const char *s, long *i, long *n)
{
	char *end;
	errno = 0;
	*i = strtol(s, &end, 10);
	if (errno || end == s || *end != '/')
		return -1;
	const char *d = end + 1;
	*n = strtol(d, &end, 10);
	return errno || end == d || *end || *n < 1 || *i < 1 || *i > *n ? -1 : 0;
}

/* Mark the chapters of "3,5-7" (numbers as in the file names). */
static int select_list(ts_plan *p, const char *list, char *in, ts_error *err)
{
	long first = p->base, last = (long)p->n - 1 + p->base;
	for (const char *s = list; *s;) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end != s && *end == '-')
			b = strtol(s = end + 1, &end, 10);
		if (end == s || (*end && *end != ',') || b < a)
			return ts_error_set(
			    err, TS_EINVAL,
			    "--chapters takes chapter numbers as in the file names, "
			    "like 3,5-7, not '%s'",
			    list);
		if (a < first || b > last)
			return ts_error_set(err, TS_EINVAL,
			                    "--chapters %s: the book's chapters are %03ld to %03ld",
			                    list, first, last);
		for (long k = a; k <= b; k++)
			in[k - p->base] = 1;
		s = *end ? end + 1 : end;
	}
	return 0;
}

/* The chapters this build makes: all, or those --chapters and --shard
 * take. */
static int select_chapters(ts_plan *p, ts_error *err)
{
	long si = 1, sn = 1;
	if (!(p->selected = malloc(p->n)))
		return ts_error_set(err, TS_ENOMEM, NULL);
	memset(p->selected, !p->o.chapters, p->n);
	if (p->o.chapters) {
		int rc = select_list(p, p->o.chapters, p->selected, err);
		if (rc)
			return rc;
	}
	if (p->o.shard && parse_shard(p->o.shard, &si, &sn))
		return ts_error_set(err, TS_EINVAL,
		                    "--shard takes I/N, part I of N (1 <= I <= N), not '%s'",
		                    p->o.shard);
	/* Every N-th chapter: long and short ones spread over the parts. */
	for (size_t i = 0; i < p->n; i++)
		if ((long)(i % (size_t)sn) != si - 1)
			p->selected[i] = 0;
	return 0;
}

/* A speaker's preset, for the manifest's cast. */
static int note_cast(void *ud, const ts_attribution *a)
{
	ts_plan *p = ud;
	if (!strcmp(a->speaker, "-") || !strcmp(a->speaker, "?"))
		return 0;
	for (size_t i = 0; i < p->ncast; i++)
		if (!strcmp(p->cast[i].speaker, a->speaker))
			return 0;
	const ts_voice *v = ts_casting_voice(p->voicing.voices, &p->rd.voice, a);
	if (ts_grow(&p->cast, &p->cast_cap, p->ncast + 1, sizeof *p->cast))
		return TS_ENOMEM;
	if (!(p->cast[p->ncast].speaker = ts_strdup(a->speaker)))
		return TS_ENOMEM;
	p->cast[p->ncast++].voice = v->name;
	return 0;
}

/* --dialogue voices, or a cast file: the book's speakers learnt once,
 * before the workers start (each chapter is spoken in a fork of one: all
 * see the same), and the presets to cast. */
static int plan_voicing(ts_plan *p, char *const *inputs, size_t ninputs, ts_error *err)
{
	char dir[PATH_MAX];
	/* The narrator asked for: a cast file beside the book is not read,
	 * nor its voices checked. */
	if (p->o.dialogue == TS_DIALOGUE_NARRATOR)
		return 0;
	ts_dialogue *dl = ts_dialogue_new(ts_lang_words(p->rd.lang, TS_WORDS_DIALOGUE));
	if (!dl)
		return ts_error_set(err, TS_ENOMEM, NULL);
	int rc = ts_cast_load(dl, p->o.cast, inputs, ninputs, p->o.read.voices_dir, p->o.cancel,
	                      p->diag, p->ud, err);
	if (rc < 0 || (rc == 0 && p->o.dialogue != TS_DIALOGUE_VOICES)) {
		ts_dialogue_free(dl);
		return rc < 0 ? rc : 0;
	}
	if ((rc = ts_reading_voices_dir(p->o.read.voices_dir, dir, sizeof dir, err))) {
		ts_dialogue_free(dl);
		return rc;
	}
	p->voicing.dialogue = dl;
	if (!(p->voicing.voices = ts_voice_cache_new(dir)))
		return ts_error_set(err, TS_ENOMEM, NULL);
	if ((rc = ts_dialogue_book(dl, p->book, p->rd.boilerplate, p->rd.boilerplate_flags,
	                           note_cast, p)))
		return ts_error_set(err, rc, "cannot read the book's dialogue: %s",
		                    ts_strerror(rc));
	return 0;
}

int ts_plan_new(ts_plan **out, const ts_build_opts *o, char *const *inputs, size_t ninputs,
                ts_diag_fn diag_fn, void *ud, ts_error *err)
{
	*out = NULL;
	ts_plan *p = calloc(1, sizeof *p);
	if (!p)
		return ts_error_set(err, TS_ENOMEM, NULL);
	p->o = *o;
	p->diag = diag_fn;
	p->ud = ud;
	int rc = check_settings(p, err);
	if (!rc)
		rc = ts_reading_load(&p->rd, &o->read, inputs, ninputs, diag_fn, ud, err);
	if (rc)
		goto fail;
	if (o->sentence_pause_ms >= 0)
		p->rd.voice.sentence_pause_ms = o->sentence_pause_ms;
	if (o->paragraph_pause_ms >= 0)
		p->rd.voice.paragraph_pause_ms = o->paragraph_pause_ms;
	p->book = ts_book_new(diag_fn, ud);
	if (!p->book || ts_book_set_encoding(p->book, o->read.encoding)) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto fail;
	}
	ts_book_set_cancel(p->book, o->cancel);
	ts_book_set_boilerplate(p->book, p->rd.boilerplate, p->rd.boilerplate_flags);
	for (size_t i = 0; i < ninputs && !rc; i++) {
		int r = ts_book_add(p->book, inputs[i]);
		/* A file that cannot be read for want of memory or disk, or
		 * whose copy in TMPDIR cannot be written, fails the whole build
		 * before anything is written: the machine's fault, not the
		 * file's.  A bad or unreadable file is skipped. */
		if (ts_error_retryable(r) || r == TS_ETEMP)
			rc = ts_error_set(err, r, "%s: cannot read it: %s; nothing was built",
			                  inputs[i], ts_strerror(r));
		else if (r)
			p->inputs_failed++;
	}
	if (rc)
		goto fail;
	if (o->cancel && *o->cancel) {
		rc = ts_error_set(err, TS_ECANCELED, NULL);
		goto fail;
	}
	/* An EPUB names its author: the tags' and manifest's, unless --author. */
	if (!p->o.author && ts_book_author(p->book) &&
	    ts_utf8_check(ts_book_author(p->book), strlen(ts_book_author(p->book)), 1) ==
	        strlen(ts_book_author(p->book)))
		p->o.author = ts_book_author(p->book);
	/* And its cover is the whole-book files' cover, unless --cover. */
	if (!p->o.cover && p->book_kinds && ts_book_cover(p->book)) {
		ts_error bad = {0};
		if (ts_m4b_check_cover(ts_book_cover(p->book), &bad) == 0)
			p->o.cover = ts_book_cover(p->book);
		else if (diag_fn)
			diag_fn(
			    ud, TS_WARNING,
			    "the EPUB's cover is not a JPEG or PNG picture of at most 20 MB: the "
			    "whole-book files have no cover (give one with --cover)");
	}
	p->n = ts_book_count(p->book);
	if (p->n == 0) {
		rc = ts_error_set(err, TS_EEMPTY,
		                  "nothing to build: no chapter with text in the input");
		goto fail;
	}
	if ((rc = name_chapters(p, err)))
		goto fail;
	if ((rc = select_chapters(p, err)))
		goto fail;
	if ((rc = plan_voicing(p, inputs, ninputs, err)))
		goto fail;
	*out = p;
	return 0;
fail:
	ts_plan_free(p);
	return rc;
}

void ts_plan_free(ts_plan *p)
{
	if (!p)
		return;
	for (int k = 0; k < TS_BOOK_KINDS; k++)
		free(p->whole[k].name);
	for (size_t i = 0; i < p->n; i++) {
		if (p->names)
			free(p->names[i]);
		if (p->paths)
			free(p->paths[i]);
		for (int t = 0; p->timing && t < TS_CUES_NFORMATS; t++)
			free(p->timing[i][t]);
	}
	free(p->names);
	free(p->paths);
	free(p->timing);
	free(p->selected);
	free(p->keys);
	free(p->listed);
	free(p->landed);
	ts_book_free(p->book);
	ts_dialogue_free(p->voicing.dialogue);
	for (size_t i = 0; i < p->ncast; i++)
		free(p->cast[i].speaker);
	free(p->cast);
	ts_voice_cache_free(p->voicing.voices);
	ts_reading_free(&p->rd);
	free(p);
}

size_t ts_plan_inputs_failed(const ts_plan *p)
{
	return p->inputs_failed;
}

const char *ts_plan_title(const ts_plan *p)
{
	return ts_book_title(p->book);
}

size_t ts_plan_count(const ts_plan *p)
{
	return p->n;
}

void ts_plan_chapter_get(const ts_plan *p, size_t i, ts_plan_chapter *out)
{
	const ts_chapter *ch = ts_book_chapter(p->book, i);
	*out = (ts_plan_chapter){.file = p->names[i],
	                         .title = ch->title,
	                         .source = ch->display,
	                         .line = ch->line,
	                         .chars = ch->chars,
	                         .front_matter = ch->front_matter};
}

int ts_plan_print(const ts_plan *p, ts_write_fn out, void *ud)
{
	ts_buf b = {0};
	ts_buf_printf(&b, "book: %s\n", ts_book_title(p->book));
	for (size_t i = 0; i < p->n; i++) {
		const ts_chapter *ch = ts_book_chapter(p->book, i);
		ts_buf_printf(&b, "%s\t%s:%ld\t%zu chars\t%s%s\n", p->names[i], ch->display,
		              ch->line, ch->chars, ch->title,
		              ch->front_matter ? " (front matter)" : "");
	}
	int rc = ts_buf_error(&b) ? ts_buf_error(&b) : out(ud, b.data, b.len);
	ts_buf_free(&b);
	return rc;
}

int ts_plan_input_starts(const ts_plan *p, size_t i)
{
	return i == 0 || strcmp(ts_book_chapter(p->book, i - 1)->display,
	                        ts_book_chapter(p->book, i)->display) != 0;
}
