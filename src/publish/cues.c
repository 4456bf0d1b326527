/* cues.c - sentence timing files (see cues.h).
 *
 * Each format is a row of one small table, defined in its own module
 * (cueformat.h): its resolution and how it writes its header, a cue and
 * its end into a buffer; the files are streamed cue by cue, so memory
 * does not depend on chapter length. */
#include "publish/cues.h"

#include "audio/write.h"
#include "base/file.h"
#include "base/util.h"
#include "publish/cueformat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

typedef struct cue_file {
	const ts_cue_format *fmt;
	char *path; /* final name */
	char *tmp;  /* name while writing */
	FILE *f;
	ts_cue_state st; /* what the format sees */
} cue_file;

struct ts_cues {
	cue_file files[TS_CUES_NFORMATS];
	size_t nfiles;
	int rate;
	int ended;
	int para_next;  /* ts_cues_paragraph() was called */
	ts_buf speaker; /* ts_cues_speaker()'s, as one line; empty: none */
	ts_buf line;    /* the cue text as one line */
	ts_buf out;     /* what goes to one file */
	ts_error err;   /* what went wrong last */
};

/* In the order of the TS_CUES_* bits: a row per format, each in its
 * module. */
static const ts_cue_format *const formats[] = {
    &ts_cue_srt, &ts_cue_vtt, &ts_cue_lrc, &ts_cue_json, &ts_cue_page,
};
_Static_assert(sizeof formats / sizeof formats[0] == TS_CUES_NFORMATS, "a row per TS_CUES_* bit");

const char *ts_cues_name(int i)
{
	return i >= 0 && i < TS_CUES_NFORMATS ? formats[i]->name : NULL;
}

const char *ts_cues_names(void)
{
	return "srt, vtt, lrc, json";
}

int ts_cues_parse(const char *list, unsigned *mask)
{
	unsigned m = 0;
	if (strcasecmp(list, "none") == 0) {
		*mask = 0;
		return 0;
	}
	const char *p = list;
	for (;;) {
		size_t n = strcspn(p, ",");
		const char *a = p, *e = p + n;
		while (a < e && *a == ' ')
			a++;
		while (e > a && e[-1] == ' ')
			e--;
		int found = -1;
		for (int i = 0; i < TS_CUES_NTIMING && found < 0; i++)
			if ((size_t)(e - a) == strlen(formats[i]->name) &&
			    strncasecmp(a, formats[i]->name, (size_t)(e - a)) == 0)
				found = i;
		if (found < 0)
			return TS_EINVAL;
		m |= 1u << found;
		if (!p[n])
			break;
		p += n + 1;
	}
	*mask = m;
	return 0;
}

char *ts_cues_path(const char *audio_path, int i)
{
	const char *slash = strrchr(audio_path, '/');
	const char *base = slash ? slash + 1 : audio_path;
	const char *dot = strrchr(base, '.');
	size_t keep = dot && dot > base ? (size_t)(dot - audio_path) : strlen(audio_path);
	ts_buf b = {0};
	if (ts_buf_printf(&b, "%.*s.%s", (int)keep, audio_path, formats[i]->name)) {
		ts_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* ---- the files ----------------------------------------------------- */

static int file_write(ts_cues *c, cue_file *cf, const ts_buf *b)
{
	if (b->len > 0 && fwrite(b->data, 1, b->len, cf->f) != b->len)
		return ts_error_set(&c->err, ts_errno_code(errno), "%s: write failed: %s", cf->path,
		                    strerror(errno));
	return 0;
}

static void files_free(ts_cues *c)
{
	for (size_t i = 0; i < c->nfiles; i++) {
		cue_file *cf = &c->files[i];
		if (cf->f)
			fclose(cf->f);
		if (cf->tmp)
			unlink(cf->tmp);
		free(cf->path);
		free(cf->tmp);
	}
	ts_buf_free(&c->line);
	ts_buf_free(&c->speaker);
	ts_buf_free(&c->out);
	free(c);
}

ts_cues *ts_cues_open(unsigned mask, const char *audio_path, int rate, long owner_pid,
                      ts_error *err)
{
	ts_cues *c = calloc(1, sizeof *c);
	int rc = 0;
	if (!c) {
		ts_error_set(err, TS_ENOMEM, "out of memory");
		return NULL;
	}
	c->rate = rate > 0 ? rate : 1;
	for (int i = 0; i < TS_CUES_NFORMATS && !rc; i++) {
		if (!(mask & (1u << i)))
			continue;
		cue_file *cf = &c->files[c->nfiles++];
		cf->fmt = formats[i];
		if (!(cf->path = ts_cues_path(audio_path, i)) ||
		    !(cf->tmp = ts_temp_name(cf->path, owner_pid))) {
			rc = ts_error_set(&c->err, TS_ENOMEM, "out of memory");
			break;
		}
		if (!(cf->f = ts_fcreate_excl(cf->tmp, "wb"))) {
			rc = ts_error_set(&c->err, ts_errno_code(errno), "%s: cannot write: %s",
			                  cf->path, strerror(errno));
			free(cf->tmp); /* nothing to remove */
			cf->tmp = NULL;
			break;
		}
		ts_buf_clear(&c->out);
		if (cf->fmt->header && cf->fmt->header(&c->out))
			rc = ts_error_set(&c->err, TS_ENOMEM, "out of memory");
		else
			rc = file_write(c, cf, &c->out);
	}
	if (rc) {
		if (err)
			*err = c->err;
		files_free(c);
		return NULL;
	}
	return c;
}

/* text as one line: controls and line or paragraph separators become
 * spaces, and the spaces at the edges go. */
static int one_line(ts_buf *out, const char *text, size_t len)
{
	ts_buf_clear(out);
	const unsigned char *u = (const unsigned char *)text;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		int k = ts_utf8_decode(u + i, len - i, &cp);
		if (k <= 0) {
			i++; /* not UTF-8: dropped, the files stay valid */
			continue;
		}
		int blank = cp < 0x20 || cp == 0x7F || cp == 0x85 || cp == 0x2028 || cp == 0x2029;
		if (blank ? ts_buf_putc(out, ' ') : ts_buf_append(out, text + i, (size_t)k))
			return TS_ENOMEM;
		i += (size_t)k;
	}
	size_t a = 0, b = out->len;
	while (a < b && out->data[a] == ' ')
		a++;
	while (b > a && out->data[b - 1] == ' ')
		b--;
	if (out->len > 0) {
		memmove(out->data, out->data + a, b - a);
		out->len = b - a;
		out->data[out->len] = '\0';
	}
	return 0;
}

int ts_cues_add(ts_cues *c, uint64_t start, uint64_t end, const char *text, size_t len)
{
	int rc = one_line(&c->line, text, len);
	if (rc)
		return ts_error_set(&c->err, rc, "out of memory");
	if (c->line.len == 0)
		return 0;
	if (end < start)
		end = start;
	int para = c->para_next;
	c->para_next = 0;
	const char *speaker = c->speaker.len ? c->speaker.data : NULL;
	uint64_t rate = (uint64_t)c->rate;
	for (size_t i = 0; i < c->nfiles; i++) {
		cue_file *cf = &c->files[i];
		uint64_t u = cf->fmt->per_second;
		uint64_t s = start * u / rate, e = (end * u + rate - 1) / rate;
		if (s < cf->st.prev_end)
			s = cf->st.prev_end;
		if (e < s)
			e = s;
		ts_buf_clear(&c->out);
		cf->st.para = para;
		cf->st.speaker = speaker;
		if (cf->fmt->cue(&c->out, &cf->st, s, e, c->line.data))
			return ts_error_set(&c->err, TS_ENOMEM, "out of memory");
		if ((rc = file_write(c, cf, &c->out)))
			return rc;
		cf->st.prev_end = e;
		cf->st.count++;
	}
	return 0;
}

void ts_cues_paragraph(ts_cues *c)
{
	c->para_next = 1;
}

int ts_cues_speaker(ts_cues *c, const char *speaker)
{
	ts_buf_clear(&c->speaker);
	int rc = speaker ? one_line(&c->speaker, speaker, strlen(speaker)) : 0;
	return rc ? ts_error_set(&c->err, rc, "out of memory") : 0;
}

int ts_cues_end(ts_cues *c)
{
	if (c->ended)
		return 0;
	int rc = 0;
	for (size_t i = 0; i < c->nfiles; i++) {
		cue_file *cf = &c->files[i];
		ts_buf_clear(&c->out);
		if (!rc && cf->fmt->footer && cf->fmt->footer(&c->out, &cf->st))
			rc = ts_error_set(&c->err, TS_ENOMEM, "out of memory");
		if (!rc)
			rc = file_write(c, cf, &c->out);
		if (fclose(cf->f) != 0 && !rc)
			rc = ts_error_set(&c->err, ts_errno_code(errno), "%s: write failed: %s",
			                  cf->path, strerror(errno));
		cf->f = NULL;
	}
	c->ended = 1;
	return rc;
}

int ts_cues_finish(ts_cues *c, ts_error *err)
{
	int rc = ts_cues_end(c);
	if (rc) {
		if (err)
			*err = c->err;
	} else {
		/* Left at their temporary names for the caller. */
		for (size_t i = 0; i < c->nfiles; i++) {
			free(c->files[i].tmp);
			c->files[i].tmp = NULL;
		}
	}
	files_free(c);
	return rc;
}

void ts_cues_abort(ts_cues *c)
{
	if (c)
		files_free(c);
}

const char *ts_cues_errmsg(const ts_cues *c)
{
	return c->err.msg;
}
