/* readalong.h - OUT/index.html, the read-along page, and the WebVTT
 * reader it needs.
 *
 * The page lists the chapters and plays one at a time in a single audio
 * player, showing the chapter's sentences as text that follows the
 * audio: the sentence being read is highlighted and kept in view, and
 * clicking a sentence (or Enter/Space on it) seeks there.  It is one
 * self-contained file: inline CSS and script, no fonts, no external
 * resources, every link relative, so it works opened from the file
 * system.  Browsers do not let a file:// page load <track> files, so the
 * cues of each chapter's .vtt are read here and embedded in the page (as
 * JSON, parsed only when the chapter is shown, which keeps the page light
 * for long books); a <track> element is kept for pages served over HTTP.
 * The page's style and script are src/publish/readalong.css and
 * src/publish/readalong.js, compiled into the library. */
#ifndef TS_READALONG_H
#define TS_READALONG_H

#include "base/error.h"
#include "base/util.h"
#include "publish/manifest.h"

#include <stddef.h>
#include <stdio.h>

/* One cue of a timing file. */
typedef struct ts_cue {
	double start, end; /* seconds from the start of the audio */
	char *text;        /* valid UTF-8, markup removed, lines joined */
	int paragraph;     /* its identifier ends with a pilcrow (U+00B6): it
	                      starts a paragraph (tingshu's own timing files) */
	char *speaker;     /* the name of its first voice span (<v NAME>), or NULL */
} ts_cue;

/* Parse WebVTT text (text[0..len), need not be NUL-terminated).  The cues
 * come out sorted by start time (equal starts keep their order); cues the
 * page cannot use are left out (see readalong.c for the policy).  On
 * success *cues holds *n cues (NULL when there are none), to be freed
 * with ts_cues_free().  Returns 0, TS_EINVAL when the text does not start
 * with the WEBVTT signature, or TS_ENOMEM. */
int ts_vtt_parse(const char *text, size_t len, ts_cue **cues, size_t *n);

/* Read and parse the WebVTT file at path (a regular file of at most max
 * bytes, read with that bound).  0 with the cues in *cues and *n (free
 * with ts_cues_free()); else *cues is NULL and err says "PATH: what":
 * TS_EIO it cannot be opened or read (*sys_errno: the system's errno, 0
 * when it is not a regular file), TS_ENOMEM, or TS_EINVAL larger than
 * max or not WebVTT. */
int ts_vtt_read(const char *path, size_t max, ts_cue **cues, size_t *n, int *sys_errno,
                ts_error *err);

/* Append s as HTML (or XML) text or attribute value: & < > " ' escaped,
 * control and other characters a page must not hold left out.  0 or
 * TS_ENOMEM. */
int ts_html_text(ts_buf *b, const char *s);

/* Free cues from ts_vtt_parse(); ts_cues_free(NULL, 0) does nothing. */
void ts_cues_free(ts_cue *cues, size_t n);

/* Append the read-along page of a book to out.  ch[0..n) are the chapters
 * in order; a chapter's vtt, when not NULL, names its timing file inside
 * outdir, which is read here.  A timing file that cannot be read or is
 * not WebVTT is reported through diag (level 0, a warning; diag may be
 * NULL) and its chapter gets audio only.  Returns 0 or TS_ENOMEM. */
int ts_readalong_html(ts_buf *out, const char *outdir, const char *book_title,
                      const ts_chapter_entry *ch, size_t n, ts_diag_fn diag, void *ud);

/* The same page written to f as it is made: only one chapter's cues are
 * in memory at a time, whatever the book's length.  0, TS_ENOMEM, or
 * TS_EIO when writing failed (*sys_errno then says why). */
int ts_readalong_write(FILE *f, const char *outdir, const char *book_title,
                       const ts_chapter_entry *ch, size_t n, ts_diag_fn diag, void *ud,
                       int *sys_errno);

#endif
