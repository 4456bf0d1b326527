/* preview.h - the text and the pinyin a book will be spoken with,
 * printed instead of spoken (tingshu text, tingshu pinyin): each file
 * through the same front end as a build.  Part of the library's
 * interface: tingshu.h includes this header. */
#ifndef TS_PREVIEW_H
#define TS_PREVIEW_H

#include "base/error.h"
#include "base/util.h"
#include "speech/reading.h"

#include <signal.h>
#include <stddef.h>

/* What ts_text_print() writes. */
typedef enum ts_text_mode {
	TS_TEXT_LINES,   /* each line cleaned and normalized */
	TS_TEXT_CHUNKS,  /* one chunk a line, as segmented for eSpeak */
	TS_TEXT_PINYIN,  /* each line's syllables, as eSpeak is given them */
	TS_TEXT_EXPLAIN, /* the same, each token saying how it was decided */
	TS_TEXT_DROPPED, /* the lines not spoken: "FILE:LINE: dropped (WHY): TEXT" */
} ts_text_mode;

/* Pinyin up to a stage, to measure what each adds. */
enum {
	TS_UPTO_CHARS = 0,  /* each character's most common reading */
	TS_UPTO_WORDS = 1,  /* + the lexicon's words */
	TS_UPTO_RULES = 3,  /* + context rules */
	TS_UPTO_SANDHI = 7, /* + sandhi */
	TS_UPTO_ALL = -1,   /* + the model's second opinion */
};

typedef struct ts_text_opts {
	ts_read_opts read;
	ts_text_mode mode;
	int upto;                      /* TS_UPTO_* */
	volatile sig_atomic_t *cancel; /* set (by a signal handler) to stop */
} ts_text_opts;

/* Text of each file as it will be spoken (see ts_text_mode): one output
 * line per input line (a line dropped as boilerplate is an empty one), or
 * one chunk a line; or the lines of the file that are not spoken, a line
 * each, "FILE:LINE: dropped (WHY): TEXT", or "dropped part" for a
 * heading's request (LINE counts the lines of the text as read: of the
 * file, or for an EPUB of its text as the other modes print it).  Each file is checked and
 * decoded like a book input.  Returns 0 when the voice and lexicons were
 * loaded (a file that cannot be read is reported to diag as an error and
 * counted in *failed), or with err filled TS_EVOICE when they could not
 * be, TS_EINVAL for an encoding iconv does not know, TS_ECANCELED when
 * *o->cancel was set (temporary copies of the input are removed), or the
 * code out returned when it failed (the files after it are not read). */
int ts_text_print(const ts_text_opts *o, char *const *files, size_t nfiles, ts_write_fn out,
                  void *out_ud, ts_diag_fn diag, void *ud, size_t *failed, ts_error *err);

#endif
