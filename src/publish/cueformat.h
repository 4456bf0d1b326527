/* cueformat.h - a sentence timing format as the timing files (cues.c) use
 * it: one row of their table.  Each format is a module of its own (srt,
 * webvtt, lrc, jsoncues; the read-along page's script in readalong) that
 * writes its header, one cue and its end into a buffer; cues.c opens the
 * files, turns sample positions into the format's units and streams what
 * the format writes.
 *
 * A new format: a file with its functions and its row (a ts_cue_format),
 * declared below, and its place in cues.c's table and cues.h's bits. */
#ifndef TS_CUEFORMAT_H
#define TS_CUEFORMAT_H

#include "base/util.h"

#include <stddef.h>
#include <stdint.h>

/* What a format sees of the file it writes. */
typedef struct ts_cue_state {
	uint64_t prev_end;   /* end of the last cue, in the format's units */
	size_t count;        /* cues written */
	int para;            /* the cue being written starts a paragraph */
	const char *speaker; /* who says the cue being written, or NULL */
} ts_cue_state;

typedef struct ts_cue_format {
	const char *name;         /* --timing value and file extension */
	uint64_t per_second;      /* time units of the format */
	int (*header)(ts_buf *b); /* NULL: none */
	/* A cue from start to end (in units; start >= the previous end) with
	 * text, one line and not empty.  0 or TS_ENOMEM. */
	int (*cue)(ts_buf *b, const ts_cue_state *s, uint64_t start, uint64_t end,
	           const char *text);
	int (*footer)(ts_buf *b, const ts_cue_state *s); /* NULL: none */
} ts_cue_format;

/* The formats' rows, each in its module. */
extern const ts_cue_format ts_cue_srt;  /* srt.c */
extern const ts_cue_format ts_cue_vtt;  /* webvtt.c */
extern const ts_cue_format ts_cue_lrc;  /* lrc.c */
extern const ts_cue_format ts_cue_json; /* jsoncues.c */
extern const ts_cue_format ts_cue_page; /* readalong.c: the page's script */

/* Append ms milliseconds as HH:MM:SS followed by sep and the milliseconds
 * (SRT ',', WebVTT '.'); hours go past 99 if they must.  0 or
 * TS_ENOMEM. */
int ts_cue_hms(ts_buf *b, uint64_t ms, char sep);

#endif
