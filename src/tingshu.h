/* tingshu.h - the library as the command line sees it: plan and build an
 * audiobook, print the text or pinyin that would be spoken, list voices.
 *
 * Only what a front end needs is here; the stages' own headers (base/,
 * text/, zh/, speech/, audio/, book/) are internal, for the library and
 * its tests.  The library never prints and never exits: it returns a code
 * (0 or a negative TS_E*, see base/error.h), fills a ts_error when there
 * is no handle to ask, and reports warnings and per-chapter errors to a
 * ts_diag_fn. */
#ifndef TINGSHU_H
#define TINGSHU_H

#include "base/error.h"
#include "speech/preview.h"  /* ts_text_print: tingshu text and pinyin */
#include "speech/reading.h"  /* ts_read_opts; ts_voices_print: tingshu voices */
#include "speech/speakers.h" /* ts_speakers_print: tingshu speakers */
#include "speech/voice.h"    /* TS_VOICE_DEFAULT, the preset read when none is asked for */

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the audiobook -------------------------------------------------- */

/* The settings of a build.  ts_build_opts_init() gives the defaults. */
typedef struct ts_build_opts {
	ts_read_opts read;
	const char *outdir;            /* made if missing */
	int jobs;                      /* worker processes, >= 1 */
	double rate;                   /* speed factor on the preset's rate */
	const char *format;            /* wav, flac, ogg, mp3, opus */
	int quality;                   /* 0-10, or -1 for the format's default */
	const char *author;            /* the artist tag, or NULL */
	const char *book;              /* whole-book files: "m4b", or NULL for none */
	const char *cover;             /* the book file's cover (JPEG or PNG), or NULL */
	int normalize;                 /* loudness normalization on */
	double target_lufs;            /* its target */
	double ceiling_dbtp;           /* true-peak ceiling */
	int sample_rate;               /* of the files; 0: the synthesizer's */
	int sentence_pause_ms;         /* -1: the preset's */
	int paragraph_pause_ms;        /* -1: the preset's */
	const char *timing;            /* timing files: "srt,vtt" (default), "none" ... */
	int force;                     /* build every chapter again, up to date or not */
	const char *chapters;          /* only these: "3,5-7" (numbers as in the file names) */
	const char *shard;             /* only part I of N: "I/N", the same parts everywhere */
	int dialogue;                  /* TS_DIALOGUE_*: who reads the quotations */
	const char *cast;              /* a cast file, or NULL for a cast.txt beside the input */
	volatile sig_atomic_t *cancel; /* set (by a signal handler) to stop */
} ts_build_opts;

/* ts_build_opts.dialogue: the narrator reads everything (the default:
 * unless a cast file is found), or each quotation is read in its
 * speaker's voice (what `tingshu speakers` prints; a cast file's
 * presets, else one of the pool of voices/cast_pool.txt). */
/* TS_DIALOGUE_DEFAULT: the narrator, or voices when there is a cast file;
 * NARRATOR asked for: the narrator, cast file or not. */
enum { TS_DIALOGUE_DEFAULT, TS_DIALOGUE_NARRATOR, TS_DIALOGUE_VOICES };

void ts_build_opts_init(ts_build_opts *o);

/* A book planned: its chapters, their file names, the settings checked,
 * the voice and language data loaded. */
typedef struct ts_plan ts_plan;

/* Plan the book made of inputs (files, folders, "-").  Returns 0 with
 * *out set, or a negative code with err filled and *out NULL:
 * TS_EINVAL for a setting that is wrong or does not go with another
 * (an unknown format or encoding, a bad timing list: a front end reports
 * it as a usage error), TS_EVOICE when the voice, its data or a lexicon
 * cannot be loaded, TS_EEMPTY when no input has a chapter with text,
 * TS_ECANCELED when *o->cancel was set while the inputs were read (their
 * temporary copies are removed).
 * An input that cannot be read is reported to diag and left out (see
 * ts_plan_inputs_failed()).  Free with ts_plan_free(). */
int ts_plan_new(ts_plan **out, const ts_build_opts *o, char *const *inputs, size_t ninputs,
                ts_diag_fn diag, void *ud, ts_error *err);
void ts_plan_free(ts_plan *p);

/* Number of inputs that were rejected. */
size_t ts_plan_inputs_failed(const ts_plan *p);
const char *ts_plan_title(const ts_plan *p);
size_t ts_plan_count(const ts_plan *p);

/* One chapter of the plan; the strings live as long as the plan. */
typedef struct ts_plan_chapter {
	const char *file;   /* audio file name in the output folder */
	const char *title;  /* as found in the book */
	const char *source; /* the input it comes from, as given */
	long line;          /* where in it */
	size_t chars;       /* non-space characters */
	int front_matter;
} ts_plan_chapter;

void ts_plan_chapter_get(const ts_plan *p, size_t i, ts_plan_chapter *out);

/* The plan as text, for --dry-run: "book: TITLE", then a line a chapter:
 * its file, source:line, characters and title, tab-separated.  0, or the
 * code out returned (or TS_ENOMEM). */
int ts_plan_print(const ts_plan *p, ts_write_fn out, void *ud);

/* Where a build is. */
typedef struct ts_progress {
	size_t chapters_done, chapters;
	double audio_s;     /* audio made so far */
	double eta_s;       /* time left; < 0 while unknown */
	size_t finishing;   /* chapters whose file is being put together */
	double finish_done; /* with one: 0-1 its first pass, k to k+1 its k-th pass again */
} ts_progress;

/* What a build tells while it runs.  Any callback may be NULL. */
typedef struct ts_build_events {
	/* Warnings, errors of a chapter or a file, and TS_INFO lines (a line
	 * per chapter built, the workers' peak memory). */
	ts_diag_fn diag;
	/* Now and then, and whenever a chapter starts or ends. */
	void (*progress)(void *ud, const ts_progress *p);
	void *ud;
} ts_build_events;

typedef struct ts_build_summary {
	size_t chapters; /* of the book */
	size_t built;    /* built by this run */
	size_t kept;     /* up to date: left as they were */
	size_t failed;   /* could not be built (reported to diag) */
	size_t retry;    /* of those, for a reason a retry may cure (ts_error_retryable) */
	int complete;    /* every chapter of the book is there and up to date */
	double audio_s;  /* of those built */
	double elapsed_s;
} ts_build_summary;

/* Build the planned book into its output folder: the chapters' audio and
 * timing files, manifest.json, playlist.m3u and index.html, each under its
 * final name only when complete.  A chapter whose files are there, made
 * with the same key (see ts_chapter_key) is kept as it is, unless
 * force.  Returns 0 when the book files were written (chapters that
 * failed were reported to diag as errors: sum->failed), TS_ECANCELED when *cancel was set (the
 * unfinished files are removed), or another code with err filled (the
 * output folder cannot be written, already holds an audiobook without
 * force: TS_EEXIST, ...).  *sum is filled whatever it returns: what the
 * build did before it stopped. */
int ts_plan_build(ts_plan *p, const ts_build_events *ev, ts_build_summary *sum, ts_error *err);

#endif
