/* cues.h - sentence timing files beside a chapter's audio: SubRip (.srt),
 * WebVTT (.vtt), LRC (.lrc) and a JSON list (.json), one cue per sentence,
 * and the chapter's text for the read-along page (.js, a script that
 * index.html loads when the chapter is played: see readalong.h).
 *
 * Times come in as sample positions at the synthesis rate, the timeline
 * of the finisher (later gain or resampling does not move time), and
 * are turned into each format's resolution: the start rounded down, the
 * end rounded up, and a start never before the previous cue's end, so
 * cues never overlap and always cover the speech they time.
 *
 * Each format is a module of its own behind one table (cueformat.h);
 * each module's opening comment shows what it writes: srt.c (milliseconds),
 * webvtt.c (milliseconds; it also reads the files back), lrc.c
 * (centiseconds), jsoncues.c (microseconds) and readalong.c (the page's
 * script, milliseconds).
 *
 * Cue text is one line: control characters and line or paragraph
 * separators become spaces; for WebVTT & < > are escaped (so no "-->"
 * either); a cue whose text is empty is not written (an empty line would
 * end an SRT or VTT cue).  The files are named like the audio with the
 * extension replaced (001-第一回.wav -> 001-第一回.srt), written as they go
 * under the temporary names of write.h (".NAME.part-PID", which
 * ts_temp_sweep removes after an interrupted build), which the caller
 * puts in place with the audio (ts_commit_files()). */
#ifndef TS_CUES_H
#define TS_CUES_H

#include "base/error.h"

#include <stddef.h>
#include <stdint.h>

/* The formats, as bits of a mask.  The first TS_CUES_NTIMING are the
 * timing files --timing chooses; TS_CUES_PAGE, the chapter's text for the
 * read-along page, is made with every chapter, since every book has its
 * page. */
enum {
	TS_CUES_SRT = 1 << 0,
	TS_CUES_VTT = 1 << 1,
	TS_CUES_LRC = 1 << 2,
	TS_CUES_JSON = 1 << 3,
	TS_CUES_PAGE = 1 << 4,
	TS_CUES_NTIMING = 4,
	TS_CUES_NFORMATS = 5,
	TS_CUES_DEFAULT = TS_CUES_SRT | TS_CUES_VTT,
};

/* Name ("srt") and file extension of format i (0 <= i < TS_CUES_NFORMATS,
 * the bit 1 << i); static storage. */
const char *ts_cues_name(int i);

/* Parse a comma-separated list of timing format names (the first
 * TS_CUES_NTIMING), or "none", into *mask.  Returns 0 or TS_EINVAL (an
 * unknown or empty name). */
int ts_cues_parse(const char *list, unsigned *mask);

/* Comma-separated names of the formats, static storage. */
const char *ts_cues_names(void);

/* The path of the timing file of format i for the audio file audio_path:
 * its extension replaced (or added).  NULL when out of memory; the
 * caller frees it. */
char *ts_cues_path(const char *audio_path, int i);

typedef struct ts_cues ts_cues;

/* Start the timing files of the formats in mask (not 0) for the audio
 * file audio_path, whose samples come at rate Hz; owner_pid tags the
 * temporary names.  Returns NULL on failure, with the code and a message
 * in *err (err may be NULL); no file is left behind. */
ts_cues *ts_cues_open(unsigned mask, const char *audio_path, int rate, long owner_pid,
                      ts_error *err);

/* Add a cue: text[0..len) (UTF-8) is heard from sample start to sample
 * end.  Cues come in order.  Returns 0 or TS_EIO / TS_ENOMEM with the
 * message in ts_cues_errmsg(). */
int ts_cues_add(ts_cues *c, uint64_t start, uint64_t end, const char *text, size_t len);

/* The next cue added starts a paragraph: WebVTT marks it with a pilcrow
 * after the cue's number ("12 ¶"), JSON with "paragraph": true.  The
 * first cue of a chapter (its title, or its first sentence) starts one. */
void ts_cues_paragraph(ts_cues *c);

/* Who says the cues added from now on (a quotation read in its speaker's
 * voice), or NULL: nobody in particular (narration).  WebVTT gives it as
 * a voice span, "<v NAME>text"; JSON as "speaker": "NAME"; SRT and LRC
 * have no place for it.  Returns 0 or TS_ENOMEM. */
int ts_cues_speaker(ts_cues *c, const char *speaker);

/* Finish the files (not yet under their names): after this, only the
 * renames remain, which lets a caller finish every file
 * of a chapter before it puts any in place.  Returns 0 or TS_EIO with the
 * message in ts_cues_errmsg(). */
int ts_cues_end(ts_cues *c);

/* Finish the files if ts_cues_end was not called, and leave them at their
 * temporary names, ts_temp_name() of ts_cues_path(); frees c.  Returns 0,
 * or TS_EIO with the message in *err (err may be NULL; nothing is left). */
int ts_cues_finish(ts_cues *c, ts_error *err);

/* Drop the files; frees c.  ts_cues_abort(NULL) does nothing. */
void ts_cues_abort(ts_cues *c);

/* What went wrong last while c was open ("" when nothing did). */
const char *ts_cues_errmsg(const ts_cues *c);

#endif
