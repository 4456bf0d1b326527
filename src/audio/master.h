/* master.h - the last stage of a chapter's audio: loudness, peak limit,
 * sample rate, encoding.
 *
 * The finisher's samples come in; the master writes them to a temporary
 * file of raw samples while measuring their loudness (EBU R 128, with
 * the meter of loudness.h), or, given the gain beforehand (one_pass),
 * levels them as they come and keeps the raw file only in case the
 * result misses.  On commit it reads that file back once: a fixed gain
 * brings the chapter to the target loudness, a look-ahead limiter keeps
 * the true peak under the ceiling where the gain alone would break it
 * (the gain it applies is smooth and never clips), libsoxr resamples
 * when another rate is asked for, and the audio writer encodes.  The
 * output is measured again on the way out.  Memory is a few blocks,
 * whatever the chapter's length.
 *
 * With normalization off and the synthesizer's rate, samples go straight
 * to the writer, as they come. */
#ifndef TS_MASTER_H
#define TS_MASTER_H

#include "audio/write.h"
#include "base/error.h"

#include <stddef.h>
#include <stdint.h>

#define TS_LOUDNESS_DEFAULT  (-20.0) /* LUFS */
#define TS_TRUE_PEAK_DEFAULT (-3.0)  /* dBTP */

typedef struct ts_master_opts {
	int normalize;       /* 0: leave the level as eSpeak made it */
	double target_lufs;  /* integrated loudness to reach */
	double ceiling_dbtp; /* true peak never above this */
	int out_rate;        /* 0: the synthesizer's rate */
	/* One pass: level with gain_db, chosen beforehand for input at
	 * about expect_lufs (ts_master_probe_end), as the samples come; the
	 * chapter is measured and rendered again from its raw samples only
	 * when the output misses the target by more than 0.3 LU. */
	int one_pass;
	double gain_db, expect_lufs;
} ts_master_opts;

/* What the master did to a chapter (after ts_master_commit). */
typedef struct ts_master_report {
	int out_rate;
	uint64_t frames;     /* frames written at out_rate */
	double input_lufs;   /* as synthesized; NAN when not measured */
	double level_lufs;   /* the input loudness the gain was chosen for:
	                      * input_lufs, or the opts' expect_lufs */
	double gain_db;      /* fixed gain applied */
	double output_lufs;  /* measured on the output; NAN when not measured */
	double true_peak_db; /* of the output, dBTP; NAN when not measured */
	double limited_s;    /* seconds during which the limiter lowered the gain */
	int passes;          /* times the samples were rendered (0 without loudness) */
} ts_master_report;

typedef struct ts_master ts_master;

/* Open the master for the audio file path in format fmt: in_rate is the
 * finisher's rate; wo gives the writer's settings, with expect_frames a
 * generous estimate of the length at in_rate (its rate is set here).
 * Returns NULL on failure, with the code and a message in *err (err may
 * be NULL). */
ts_master *ts_master_open(const ts_master_opts *o, int in_rate, const ts_format *fmt,
                          const char *path, const ts_writer_opts *wo, ts_error *err);

/* Take n samples (a ts_sink_fn for the finisher).  Returns 0 or a
 * negative code (message: ts_master_errmsg). */
int ts_master_write(void *m, const int16_t *s, size_t n);

/* Have fn(ud, pass, done) called now and then while ts_master_commit()
 * puts the file together, done rising from 0 to 1 in each pass: pass 0,
 * then 1, 2 ... when the file is made again to correct its level. */
typedef void (*ts_master_progress_fn)(void *ud, int pass, double done);
void ts_master_set_progress(ts_master *m, ts_master_progress_fn fn, void *ud);

/* Finish: level, limit, resample, encode, rename into place; fills rep
 * (may be NULL) and frees m.  Returns 0 or a negative code with the
 * message in *err (err may be NULL). */
int ts_master_commit(ts_master *m, ts_master_report *rep, ts_error *err);

/* Drop everything written; frees m.  ts_master_abort(NULL) does nothing. */
void ts_master_abort(ts_master *m);

/* A master that only measures what it takes (ts_master_write) and has no
 * file: the input loudness of a sample of speech and the gain a chapter
 * like it would get, for one-pass leveling.  NULL when out of memory. */
ts_master *ts_master_open_probe(const ts_master_opts *o, int in_rate, ts_error *err);

/* The gain for o's target (NAN when what was taken is silence), the input
 * loudness into *lufs (may be NULL); frees m. */
double ts_master_probe_end(ts_master *m, double *lufs);

/* What went wrong last while m was taking samples ("" when nothing did). */
const char *ts_master_errmsg(const ts_master *m);

/* The rate the output will have for a synthesizer rate, options and
 * format (Opus is always 48 kHz). */
int ts_master_out_rate(const ts_master_opts *o, const ts_format *fmt, int in_rate);

/* ---- exposed for tests ---- */

/* True-peak estimate of x[0..n) (linear, 4x oversampled, as BS.1770). */
double ts_true_peak(const float *x, size_t n);

/* Run the limiter alone over x[0..n) in place: gain, then the limit at
 * ceiling (linear, true peak).  Returns the number of samples whose gain
 * was lowered, or TS_ENOMEM. */
long ts_limit_buffer(float *x, size_t n, int rate, double ceiling);

#endif
