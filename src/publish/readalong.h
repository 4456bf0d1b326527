/* readalong.h - OUT/index.html, the read-along page, and the chapters'
 * text it shows.
 *
 * The page lists the chapters and plays one at a time in a single audio
 * player, showing the chapter's sentences as text that follows the
 * audio: the sentence being read is highlighted and kept in view, and
 * clicking a sentence (or Enter/Space on it) seeks there; at the end of
 * a chapter it goes on with the next; a search box finds a chapter by
 * its number or title; the chapter and position are remembered.  It
 * works opened from the file system: inline CSS and script, no fonts, no
 * external resources, every link relative, and no fetch (which file://
 * does not allow).
 *
 * So that the page stays small and cheap to make whatever the book's
 * length, it holds the list of chapters only (made from the chapter
 * entries, no chapter file is read).  A chapter's text is a script of its
 * own, NNN-<title>.js beside its audio, a row of the timing formats
 * (cueformat.h, ts_cue_page) written with the chapter's other timing
 * files:
 *
 *   tingshuCues([
 *   [0.300,2.000,"第一章 风起",1],
 *   [2.000,4.500,"天刚亮。"],
 *   [4.500,7.000,"“走吧！”",0,"王夫人"]
 *   ]);
 *
 * [start, end, text] in seconds, a fourth element 1 on a cue that starts
 * a paragraph (0 before a fifth), a fifth, the speaker, on a quotation
 * read in the speaker's voice.  The page loads it with a <script> element
 * when the chapter is shown; tingshuCues() is the page's.
 * The page's style and script are src/publish/readalong.css and
 * src/publish/readalong.js, compiled into the library. */
#ifndef TS_READALONG_H
#define TS_READALONG_H

#include "base/util.h"
#include "publish/manifest.h"

#include <stddef.h>

/* Append the read-along page of a book to out.  ch[0..n) are the chapters
 * in order; a chapter's script is its timing[] of TS_CUES_PAGE (none when
 * NULL: audio only).  Returns 0 or TS_ENOMEM. */
int ts_readalong_html(ts_buf *out, const char *book_title, const ts_chapter_entry *ch, size_t n);

#endif
