/* write.h - audio files, written under a temporary name and renamed into
 * place only when complete, behind one small table of formats.
 *
 * A file being written is ".NAME.part-PID@HOST" in the output folder
 * (ts_temp_name() in base/file.h), so that an interrupted build can
 * remove what it left, and a later one what a build killed on this
 * machine left (ts_temp_sweep()). */
#ifndef TS_WRITE_H
#define TS_WRITE_H

#include "base/error.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ts_writer ts_writer;

/* What a chapter file says about itself, where the format carries it
 * (WAV LIST/INFO, FLAC and Ogg comments, MP3 ID3).  Strings are UTF-8;
 * NULL or "" leaves a field out, and so does track 0. */
typedef struct ts_audio_meta {
	const char *title;  /* the chapter's title */
	const char *artist; /* the author */
	const char *album;  /* the book's title */
	int track;          /* 1-based position in the book, or 0 */
	int tracks;         /* number of chapters, or 0 if unknown */
} ts_audio_meta;

/* --quality: one number for every format, higher meaning better (lossy
 * formats) or smaller and slower (FLAC); WAV ignores it. */
enum { TS_QUALITY_MIN = 0, TS_QUALITY_MAX = 10, TS_QUALITY_DEFAULT = -1 };

typedef struct ts_writer_opts {
	int rate;                  /* samples per second; see ts_format_pick_rate() */
	uint64_t expect_frames;    /* a generous estimate of the length, which lets
	                              a format choose a container that can hold it */
	int quality;               /* TS_QUALITY_MIN..MAX, or TS_QUALITY_DEFAULT */
	const ts_audio_meta *meta; /* may be NULL */
	long owner_pid;            /* tags the temporary name */
	int keep_temp;             /* ts_writer_commit() finishes the file and leaves
	                              it at its temporary name, ts_temp_name(), for
	                              the caller to put in place with others */
} ts_writer_opts;

typedef struct ts_format {
	const char *name; /* --format value */
	const char *ext;  /* file extension */
	int (*open)(ts_writer *w, const ts_writer_opts *o);
	int (*write)(ts_writer *w, const int16_t *s, size_t n);
	int (*close)(ts_writer *w);
	const int *rates; /* the sample rates it can hold, 0-terminated; NULL: any */
	int default_rate; /* what to resample to when the rate is not one of them */
	int track_total;  /* its convention writes the track as "3/12" */
	int lossless;     /* decodes to the very samples written */
} ts_format;

/* Does a file of format f, written at out_rate (0: the synthesizer's),
 * decode to the very samples it was given?  PCM (WAV, FLAC) not
 * resampled: then an edit leaves the samples it did not change as they
 * were, and the AAC made from the file keeps its pieces (aac.h). */
int ts_format_exact(const ts_format *f, int out_rate);

/* Format by name, or NULL. */
const ts_format *ts_format_find(const char *name);
/* Comma-separated names of the formats, static storage. */
const char *ts_format_names(void);

/* The sample rate to give a writer of format f for audio made at rate:
 * rate itself if f can hold it, else the rate to resample to (Opus takes
 * only 8, 12, 16, 24 and 48 kHz: 48000). */
int ts_format_pick_rate(const ts_format *f, int rate);

/* Open path for writing in format fmt, through a temporary name (see
 * above), with the settings of o.  The rate must be one the format can
 * hold (ts_format_pick_rate()).  Returns NULL on failure, with the code
 * and a message in *err (err may be NULL). */
ts_writer *ts_writer_open(const ts_format *fmt, const char *path, const ts_writer_opts *o,
                          ts_error *err);
/* Write n samples.  Returns 0 or a negative code with the message in
 * ts_writer_errmsg(). */
int ts_writer_write(ts_writer *w, const int16_t *s, size_t n);
/* Finish the file and rename it into place; frees w.  Returns 0 or a
 * negative code with the message in *err (err may be NULL). */
int ts_writer_commit(ts_writer *w, ts_error *err);
/* Drop the file; frees w.  ts_writer_abort(NULL) does nothing. */
void ts_writer_abort(ts_writer *w);
/* What went wrong last while w was writing ("" when nothing did). */
const char *ts_writer_errmsg(const ts_writer *w);

/* Write a small text file at its temporary name, ts_temp_name(path),
 * for the caller to put in place; path lies in the folder root (see
 * ts_dir_open(): no link is followed after it; NULL: anywhere).  Returns
 * 0, TS_ENOMEM or TS_EIO with the message in *err; nothing is left on
 * failure. */
int ts_write_text_temp(const char *root, const char *path, const char *data, size_t len,
                       long owner_pid, ts_error *err);

/* Write a small text file atomically (temporary name, then rename).
 * Returns 0, TS_ENOMEM or TS_EIO with the message in *err (err may be
 * NULL). */
int ts_write_text_file(const char *path, const char *data, size_t len, long owner_pid,
                       ts_error *err);

#endif
