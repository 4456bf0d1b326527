/* readalong.h - OUT/index.html, the read-along page.
 *
 * The page lists the chapters and plays one at a time in a single audio
 * player, showing the chapter's sentences as text that follows the
 * audio: the sentence being read is highlighted and kept in view, and
 * clicking a sentence (or Enter/Space on it) seeks there.  It is one
 * self-contained file: inline CSS and script, no fonts, no external
 * resources, every link relative, so it works opened from the file
 * system.  Browsers do not let a file:// page load <track> files, so the
 * cues of each chapter's .vtt are read (webvtt.h) and embedded in the page (as
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
