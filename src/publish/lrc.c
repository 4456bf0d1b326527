/* lrc.c - LRC timing files (.lrc), a row of the timing formats (see
 * cueformat.h and cues.h):
 *
 *   [00:01.25]text\n and, where silence follows, [00:03.48]\n: an empty
 *   line that clears the text (centiseconds; minutes go past 59 rather
 *   than wrap)
 *
 * LRC has no place for paragraphs or speakers. */
#include "publish/cueformat.h"

/* [mm:ss.xx] in centiseconds; minutes do not wrap into hours. */
static int put_lrc_time(ts_buf *b, uint64_t cs)
{
	return ts_buf_printf(b, "[%02llu:%02llu.%02llu]", (unsigned long long)(cs / 6000),
	                     (unsigned long long)(cs / 100 % 60), (unsigned long long)(cs % 100));
}

/* LRC has no end times: an empty line at the end of a cue clears the
 * text while nothing is said. */
static int lrc_cue(ts_buf *b, const ts_cue_state *s, uint64_t start, uint64_t end, const char *text)
{
	(void)end;
	int rc = 0;
	if (s->count > 0 && s->prev_end < start) {
		rc = put_lrc_time(b, s->prev_end);
		rc = rc ? rc : ts_buf_putc(b, '\n');
	}
	rc = rc ? rc : put_lrc_time(b, start);
	return rc ? rc : ts_buf_printf(b, "%s\n", text);
}

static int lrc_footer(ts_buf *b, const ts_cue_state *s)
{
	if (s->count == 0)
		return 0;
	int rc = put_lrc_time(b, s->prev_end);
	return rc ? rc : ts_buf_putc(b, '\n');
}

const ts_cue_format ts_cue_lrc = {"lrc", 100, NULL, lrc_cue, lrc_footer};
