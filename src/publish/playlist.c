/* playlist.c - playlist.m3u (see playlist.h). */
#include "publish/playlist.h"

int ts_playlist(ts_buf *b, const char *book_title, const ts_chapter_entry *ch, size_t n)
{
	int rc = ts_buf_printf(b, "#EXTM3U\n#PLAYLIST:%s\n", book_title);
	for (size_t i = 0; i < n && !rc; i++)
		rc = ts_buf_printf(b, "#EXTINF:%.0f,%s\n%s\n", ch[i].duration_s, ch[i].title,
		                   ch[i].audio);
	return rc;
}
