/* srt.c - SubRip timing files (.srt), a row of the timing formats (see
 * cueformat.h and cues.h):
 *
 *   1\n00:00:01,250 --> 00:00:03,480\ntext\n\n   (milliseconds)
 *
 * SubRip has no place for paragraphs or speakers. */
#include "publish/cueformat.h"

static int srt_cue(ts_buf *b, const ts_cue_state *s, uint64_t start, uint64_t end, const char *text)
{
	int rc = ts_buf_printf(b, "%zu\n", s->count + 1);
	rc = rc ? rc : ts_cue_hms(b, start, ',');
	rc = rc ? rc : ts_buf_printf(b, " --> ");
	rc = rc ? rc : ts_cue_hms(b, end, ',');
	return rc ? rc : ts_buf_printf(b, "\n%s\n\n", text);
}

const ts_cue_format ts_cue_srt = {"srt", 1000, NULL, srt_cue, NULL};
