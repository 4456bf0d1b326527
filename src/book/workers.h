/* workers.h - the pool of worker processes that builds a book's chapters.
 *
 * eSpeak NG keeps process-wide state, so each worker is a process with
 * its own eSpeak.  The parent hands out units of chapters, longest first, over
 * pipes and collects results.  A worker speaks each unit of chapters
 * handed to it (a chapter, or short ones spoken in one process:
 * chapterkey.h) in a fork of itself, from the same eSpeak state every
 * time, so a chapter's audio depends only on its text, the settings and
 * the chapters before it in its unit, and the output is byte-identical
 * for any number of workers.  It makes each chapter's files and record
 * (chapter.h, records.h). */
#ifndef TS_WORKERS_H
#define TS_WORKERS_H

#include "book/chapter.h"
#include "base/error.h"
#include "base/hash.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* What the pool tells its caller. */
typedef enum ts_worker_event_kind {
	TS_EV_READY,    /* a worker started eSpeak; samples holds its sample rate */
	TS_EV_STARTED,  /* a worker began chapter `chapter` */
	TS_EV_PROGRESS, /* chars_done / samples / finishing of a chapter being made */
	TS_EV_DONE,     /* chapter finished (see results[chapter]) */
	TS_EV_TICK,     /* tick_s passed without a message */
} ts_worker_event_kind;

typedef struct ts_worker_event {
	ts_worker_event_kind kind;
	size_t chapter;
	size_t chars_done;
	uint64_t samples;
	double finishing; /* how far the file is put together (see chapter.h) */
} ts_worker_event;

typedef void (*ts_worker_event_fn)(void *ud, const ts_worker_event *ev);

/* What the pool builds, and how. */
typedef struct ts_workers_job {
	ts_chapter_job chapters;       /* how each chapter is made */
	int workers;                   /* >= 1 */
	volatile sig_atomic_t *cancel; /* set (by a signal handler) to stop early */
	/* Which chapters to build (NULL: all), and where to record each one
	 * built with its key (NULL: no records, and each chapter is put in
	 * place by its worker; see records.h).  With keys, a chapter built
	 * (its result 0 or TS_EEMPTY) is left at the temporary names
	 * (ts_temp_name(), owner_pid) of its files and its record, which names
	 * them: the caller puts them in place, the record last. */
	const char *todo;
	const char *outdir;
	char (*keys)[TS_HASH_HEX];
	/* With keys: the bit rate of each chapter's AAC, encoded from its
	 * audio as it is made and put in place with it (records.h), for the
	 * whole-book files; 0: none. */
	int aac_bit_rate;
	double tick_s; /* > 0: fn is told TS_EV_TICK when that long passes without a message */
} ts_workers_job;

typedef struct ts_workers_stats {
	long worker_maxrss_kb; /* largest peak resident size of a worker */
	int sample_rate;
	int wpm;
} ts_workers_stats;

/* Build the chapters of job->chapters.book that job->todo names in a
 * pool of job->workers processes; results has one entry per chapter of
 * the book.  fn (may be NULL) is told of the pool's progress.  Returns 0
 * when the pool ran (chapters may still have failed: see results), or a
 * negative code with err filled when it could not start or was cancelled
 * (TS_ECHILD). */
int ts_workers_run(const ts_workers_job *job, ts_chapter_result *results, ts_workers_stats *stats,
                   ts_worker_event_fn fn, void *ud, ts_error *err);

#endif
