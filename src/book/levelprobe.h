/* levelprobe.h - the level probe of one-pass leveling: a worker speaks a
 * fixed sample in the book's voice before its first chapter, to choose
 * the gain that brings its chapters to the target loudness in one pass
 * (master.h). */
#ifndef TS_LEVELPROBE_H
#define TS_LEVELPROBE_H

#include "book/chapter.h"
#include "speech/synth.h"
#include "audio/master.h"

/* Speak the sample with syn in job->voice, read with job->lang, in a
 * child process (ts_in_child()), so that syn's eSpeak stays as fresh as
 * if it had not spoken, and measure it with job->master's settings: mo
 * gets the gain (mo->one_pass, gain_db, expect_lufs), unless the voice
 * says nothing of the sample, whose chapters are then measured first.
 * Returns 0 or an error code. */
int ts_level_probe(ts_synth *syn, const ts_chapter_job *job, ts_master_opts *mo);

#endif
