/* jsoncues.c - sentence timing as a JSON list (.json), a row of the
 * timing formats (see cueformat.h and cues.h):
 *
 *   [\n  {"start": 1.250000, "end": 3.480000, "text": "..."},\n ...\n]\n
 *
 * Seconds to the microsecond (the sample positions are recovered as
 * round(seconds * rate)); a cue that starts a paragraph has
 * "paragraph": true, a quotation read in its speaker's voice
 * "speaker": "NAME". */
#include "publish/cueformat.h"

static int json_header(ts_buf *b)
{
	return ts_buf_putc(b, '[');
}

static int json_cue(ts_buf *b, const ts_cue_state *s, uint64_t start, uint64_t end,
                    const char *text)
{
	int rc = ts_buf_printf(
	    b,
	    "%s\n  {\"start\": %llu.%06llu, \"end\": %llu.%06llu, \"text\": ", s->count ? "," : "",
	    (unsigned long long)(start / 1000000), (unsigned long long)(start % 1000000),
	    (unsigned long long)(end / 1000000), (unsigned long long)(end % 1000000));
	rc = rc ? rc : ts_json_string(b, text);
	if (s->para)
		rc = rc ? rc : ts_buf_printf(b, ", \"paragraph\": true");
	if (s->speaker) {
		rc = rc ? rc : ts_buf_printf(b, ", \"speaker\": ");
		rc = rc ? rc : ts_json_string(b, s->speaker);
	}
	return rc ? rc : ts_buf_putc(b, '}');
}

static int json_footer(ts_buf *b, const ts_cue_state *s)
{
	return ts_buf_printf(b, "%s]\n", s->count ? "\n" : "");
}

const ts_cue_format ts_cue_json = {"json", 1000000, json_header, json_cue, json_footer};
