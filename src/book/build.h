/* build.h - turn chapters into audio files: the per-chapter pipeline and
 * the pool of worker processes that runs it.
 *
 * eSpeak NG keeps process-wide state, so each worker is a process with
 * its own eSpeak.  The parent hands out chapters, longest first, over
 * pipes and collects results; a chapter's audio depends only on its text
 * and the settings, so the output is byte-identical for any number of
 * workers. */
#ifndef TS_BUILD_H
#define TS_BUILD_H

#include "book/casting.h"
#include "input/book.h"
#include "book/voiced.h"
#include "zh/lang.h"
#include "audio/master.h"
#include "base/hash.h"
#include "text/segment.h"
#include "speech/synth.h"
#include "speech/voice.h"
#include "audio/write.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ts_chapter_result {
	ts_error err;             /* code 0, or what failed: sent whole through the pool's pipe */
	uint64_t samples;         /* audio length */
	size_t sentences;         /* sentences of the body (each has a timing cue) */
	size_t chars;             /* non-space characters spoken */
	char warning[400];        /* e.g. characters the voice cannot read; "" if none */
	ts_master_report audio;   /* level, peak and rate of the file written */
	double speak_s, finish_s; /* wall time speaking, and putting the file together */
} ts_chapter_result;

/* Called now and then while a chapter is made: chars_done characters
 * spoken, samples of audio made, and then, while the master stage puts
 * the file together, finishing rising from 0 to 1 (0 until then), and
 * from k to k + 1 while it makes it again the k-th time to correct the
 * level. */
typedef void (*ts_chapter_progress_fn)(void *ud, size_t chars_done, uint64_t samples,
                                       double finishing);

/* Speak chapter ch with syn, voice v and language data lang into the
 * audio file path, written with the quality, tags and owner of wo (its
 * rate and expected length are the chapter's own) through the master
 * stage mo (loudness, peak, sample rate), with the timing files of the
 * TS_CUES_* formats in timing (0: none) beside it: a cue for the title,
 * when it is spoken, then one for each sentence heard, spanning its speech
 * (see cues.h).  The timing files are put in place only with the audio.
 * Fills res and returns res->err.code: TS_EEMPTY, and no file, when
 * nothing of the body is heard and no title is spoken (punctuation
 * only).  progress may be NULL.  With voicing (NULL: the narrator reads
 * everything), each quotation is read in its speaker's voice (casting.h),
 * rate_factor scaling each preset's rate as it scales v's. */
int ts_speak_chapter(ts_synth *syn, const ts_voice *v, const ts_lang *lang, const ts_chapter *ch,
                     const ts_format *fmt, const ts_master_opts *mo, const char *path,
                     unsigned timing, const ts_writer_opts *wo, ts_chapter_result *res,
                     ts_chapter_progress_fn progress, void *ud, const ts_voicing *voicing,
                     double rate_factor);

/* What the pool tells its caller. */
typedef enum ts_event_kind {
	TS_EV_READY,    /* a worker started eSpeak; samples holds its sample rate */
	TS_EV_STARTED,  /* a worker began chapter `chapter` */
	TS_EV_PROGRESS, /* chars_done / samples / finishing of a chapter being made */
	TS_EV_DONE,     /* chapter finished (see results[chapter]) */
} ts_event_kind;

typedef struct ts_event {
	ts_event_kind kind;
	size_t chapter;
	size_t chars_done;
	uint64_t samples;
	double finishing; /* how far the file is put together (see above) */
} ts_event;

typedef void (*ts_event_fn)(void *ud, const ts_event *ev);

/* A chapter's files made and ready to be put in place: tmp[i] at path[i]
 * for i < n, the record last; temporary names tagged with owner_pid. */
typedef struct ts_landing {
	size_t chapter;
	char *const *tmp, *const *path;
	size_t n;
	long owner_pid;
} ts_landing;

typedef struct ts_build_job {
	const ts_book *book;
	const ts_voice *voice;
	const ts_lang *lang; /* language data (may be NULL) */
	double rate_factor;
	const ts_voicing *voicing; /* NULL: the narrator reads the dialogue too */
	const ts_format *format;
	ts_master_opts master;         /* loudness, peak, sample rate */
	int quality;                   /* TS_QUALITY_* */
	const char *author;            /* the artist tag, or NULL */
	char *const *paths;            /* audio file path of each chapter */
	unsigned timing;               /* TS_CUES_* formats of timing files beside it */
	int workers;                   /* >= 1 */
	long owner_pid;                /* tags temporary files */
	volatile sig_atomic_t *cancel; /* set (by a signal handler) to stop early */
	/* Which chapters to build (NULL: all), and where to record each one
	 * built with its key (NULL: no records; see state.h). */
	const char *todo;
	const char *outdir;
	char (*keys)[TS_HASH_HEX];
	/* Puts a chapter's files in place, all or none, the temporary files
	 * gone either way (NULL: ts_commit_files()); called in the process
	 * that spoke the chapter.  0, or a code with err filled. */
	int (*land)(const void *ud, const ts_landing *l, ts_error *err);
	const void *land_ud;
} ts_build_job;

/* The key of chapter i of job->book: a hash of everything that decides
 * the bytes of its files: what eSpeak is told (the text after the front
 * end: lexicons and rules included), the sentences its timing files hold,
 * its title and file name, the voice, every setting of job, and the
 * versions of tingshu and eSpeak NG.  0, or a code with err filled (the
 * chapter cannot be read). */
int ts_chapter_key(const ts_build_job *job, size_t i, char key[TS_HASH_HEX], ts_error *err);

typedef struct ts_build_stats {
	long worker_maxrss_kb; /* largest peak resident size of a worker */
	int sample_rate;
	int wpm;
} ts_build_stats;

/* Build every chapter of job->book; results has one entry per chapter.
 * Returns 0 when the pool ran (chapters may still have failed: see
 * results), or a negative code with err filled when it could not start or
 * was cancelled (TS_ECHILD). */
int ts_build_run(const ts_build_job *job, ts_chapter_result *results, ts_build_stats *stats,
                 ts_event_fn fn, void *ud, ts_error *err);

#endif
