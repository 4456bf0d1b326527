/* webvtt.h - WebVTT (.vtt), the one timing format tingshu also reads:
 * written beside each chapter's audio as a row of the timing formats
 * (cues.h, cueformat.h), read back for the EPUB's media overlays.
 *
 *   WEBVTT\n\n then 1\n00:00:01.250 --> 00:00:03.480\ntext\n\n
 *
 * Times in milliseconds; cue text escaped as markup (& < >, so no "-->"
 * either); a cue that starts a paragraph has a pilcrow after its number
 * ("12 ¶"); a quotation read in its speaker's voice is a voice
 * span, "<v NAME>text". */
#ifndef TS_WEBVTT_H
#define TS_WEBVTT_H

#include "base/error.h"

#include <stddef.h>

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
 * page cannot use are left out (see webvtt.c for the policy).  On
 * success *cues holds *n cues (NULL when there are none), to be freed
 * with ts_vtt_free().  Returns 0, TS_EINVAL when the text does not start
 * with the WEBVTT signature, or TS_ENOMEM. */
int ts_vtt_parse(const char *text, size_t len, ts_cue **cues, size_t *n);

/* Read and parse the WebVTT file at path (a regular file of at most max
 * bytes, read with that bound).  0 with the cues in *cues and *n (free
 * with ts_vtt_free()); else *cues is NULL and err says "PATH: what":
 * TS_EIO it cannot be opened or read (*sys_errno: the system's errno, 0
 * when it is not a regular file), TS_ENOMEM, or TS_EINVAL larger than
 * max or not WebVTT. */
int ts_vtt_read(const char *path, size_t max, ts_cue **cues, size_t *n, int *sys_errno,
                ts_error *err);

/* Free cues from ts_vtt_parse(); ts_vtt_free(NULL, 0) does nothing. */
void ts_vtt_free(ts_cue *cues, size_t n);

#endif
