/* playlist.h - playlist.m3u: the chapters' audio files in order, each
 * with its length and title (extended M3U). */
#ifndef TS_PLAYLIST_H
#define TS_PLAYLIST_H

#include "base/util.h"
#include "publish/manifest.h"

#include <stddef.h>

/* playlist.m3u text of the n chapters ch, appended to b.  0 or
 * TS_ENOMEM. */
int ts_playlist(ts_buf *b, const char *book_title, const ts_chapter_entry *ch, size_t n);

#endif
