/* chapter.h - the chapter pipeline: a chapter fed through the front end
 * (its title, then its body), and spoken into its audio file and timing
 * files.
 *
 * ts_feed_chapter() is the one reading of a chapter: speaking it, its key
 * (chapterkey.h), its quotations spoken first (voiced.h) and the level
 * probe (levelprobe.h) all go through it, so that what is keyed is what
 * is spoken.  The worker pool (workers.h) runs ts_speak_chapter() in its
 * processes. */
#ifndef TS_CHAPTER_H
#define TS_CHAPTER_H

#include "input/reader.h"
#include "speech/voiced.h"
#include "zh/lang.h"
#include "base/util.h"
#include "text/segment.h"
#include "speech/speaker.h"
#include "speech/synth.h"
#include "speech/voice.h"
#include "audio/master.h"
#include "audio/write.h"

#include <stddef.h>
#include <stdint.h>

/* The loudness --dialogue voices brings every voice to before the
 * master's gain: under the quietest shipped preset's as eSpeak makes it
 * (the loudness_lufs its voices/ file records), since eSpeak's own
 * samples already reach full scale and cannot be made louder.  In the
 * chapters' keys. */
#define TS_VOICES_LEVEL_LUFS (-20.5)

/* How the chapters of a book are made: everything a chapter's files
 * depend on but the chapter itself.  Its pointers are the caller's. */
typedef struct ts_chapter_job {
	const ts_book *book;
	const ts_voice *voice;
	const ts_lang *lang; /* language data (may be NULL) */
	/* The lines of a web novel not spoken (may be NULL: every line is)
	 * and TS_BOILERPLATE_* flags: what they drop is not in the chunks,
	 * hence not in the key. */
	const ts_boilerplate *boilerplate;
	unsigned boilerplate_flags;
	double rate_factor;
	const ts_voicing *voicing; /* NULL: the narrator reads the dialogue too */
	const ts_format *format;
	ts_master_opts master; /* loudness, peak, sample rate */
	int quality;           /* TS_QUALITY_* */
	const char *author;    /* the artist tag, or NULL */
	char *const *paths;    /* audio file path of each chapter */
	unsigned timing;       /* TS_CUES_* formats of timing files beside it */
	long owner_pid;        /* tags temporary files */
	int pieces;            /* with the whole-book files: see ts_chapter_in_pieces() */
	ts_spawner *spawner;
} ts_chapter_job;

/* One reading through the front end: what is read, and what the reading
 * tells.  Every function but chunk may be NULL. */
typedef struct ts_feed {
	/* The chapter: its title when it is spoken, then its body, read
	 * from its file.  Or, ch NULL, the paragraphs paragraphs[0..n) of a
	 * text that is not in the book (the level probe's sample). */
	const ts_chapter *ch;
	const char *const *paragraphs;
	size_t nparagraphs;
	ts_chunk_fn chunk;       /* each chunk to speak, in order */
	ts_sentence_fn sentence; /* each sentence as written, after its last chunk */
	/* With the job's voicing: told the voice and speaker of the body's
	 * text about to be fed (the title is the narrator's). */
	ts_voice_fn voice;
	int (*body)(void *ud); /* after the title, before the body: 0 or a code to stop */
	ts_buf *unreadable;    /* gets the characters the voice cannot read, if any */
	size_t *dropped;       /* if not NULL, counts the lines dropped as the site's */
	void *ud;
} ts_feed;

/* Feed f's text through a new front end of job->lang, a chapter's body
 * in its speakers' voices when job->voicing is set (ts_feed_voiced()),
 * telling f's functions (with f->ud).  Returns 0, or a code with err
 * (not NULL, and clear on the call) filled: what a function returned,
 * its message kept when it filled err itself, the front end's error, or
 * why the chapter cannot be read. */
int ts_feed_chapter(const ts_chapter_job *job, const ts_feed *f, ts_error *err);

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

/* Is chapter i spoken in pieces (speaker.h)?  With job->pieces, when its AAC can keep them
 * (ts_format_exact()), if long (none is spoken after it in its process: chapterkey.h) and not
 * voiced (the quotations are spoken first, in its process). */
#define TS_CHAIN_CHARS 1000
int ts_chapter_in_pieces(const ts_chapter_job *job, size_t i);

/* Speak chapter i of job->book with syn (started with job->voice) into
 * job->paths[i], written with the job's format, quality and tags (track
 * i + 1) through the master stage job->master, with the timing files of
 * job->timing beside it: a cue for the title, when it is spoken, then
 * one for each sentence heard, spanning its speech (see cues.h).  The
 * files are left at their temporary names (ts_temp_name() with
 * job->owner_pid), the timing files made only with the audio.  With
 * job->voicing, each quotation is read in its speaker's voice
 * (casting.h), job->rate_factor scaling each preset's rate as it scales
 * the narrator's.  Fills res and returns res->err.code: TS_EEMPTY, and
 * no file, when nothing of the body is heard and no title is spoken
 * (punctuation only).  tap (may be NULL) is told the reading spoken as it
 * is spoken (its ch is not used): chapterkey.h's key of the bytes heard.
 * progress may be NULL. */
int ts_speak_chapter(const ts_chapter_job *job, size_t i, ts_synth *syn, const ts_feed *tap,
                     ts_chapter_result *res, ts_chapter_progress_fn progress, void *ud);

#endif
