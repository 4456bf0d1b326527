/* records.h - what an output folder remembers of the book in it, in its
 * hidden folder OUT/.tingshu/ (the state folder): one record per chapter
 * in .tingshu/chapters/, written when the chapter's files are in place
 * (the locks beside them, in .tingshu/locks/: locks.h).
 *
 * A record names the chapter's key (a hash of everything that decides
 * its bytes, see ts_chapter_key()), the files it made with their sizes,
 * and what the manifest says of it; a chapter with nothing to speak has a
 * record without files (empty).  A later build keeps a chapter whose
 * record has its key and whose files are all there at their sizes, and
 * deletes only files a record names: tingshu never removes a file it did
 * not make.  A record is replaced atomically, so it survives any crash:
 * after kill -9 at worst it is older than the files it names, and then its
 * key differs and the chapter is built again. */
#ifndef TS_RECORDS_H
#define TS_RECORDS_H

#include "publish/cues.h"
#include "audio/master.h"
#include "base/error.h"
#include "base/hash.h"

#include <stddef.h>
#include <stdint.h>

#define TS_STATE_DIR ".tingshu"

enum { TS_RECORD_FILES = 1 + TS_CUES_NFORMATS, TS_RECORD_NAME = 256 };

/* One chapter as built. */
typedef struct ts_record {
	char key[TS_HASH_HEX];
	int empty;           /* nothing to speak: skipped, no files */
	int synth_rate, wpm; /* of the synthesizer that spoke it */
	uint64_t samples;    /* at synth_rate */
	size_t sentences, chars;
	ts_master_report audio;
	/* Its files in the output folder, the audio first. */
	size_t nfiles;
	char files[TS_RECORD_FILES][TS_RECORD_NAME];
	long long sizes[TS_RECORD_FILES];
} ts_record;

/* The path of the AAC of audio (audio/aac.h), made with it when a
 * whole-book file wants it and removed with its record:
 * outdir/.tingshu/aac/AUDIO.aac; NULL when out of memory, else the caller
 * frees it. */
char *ts_record_aac_file(const char *outdir, const char *audio);

/* The path of the record of audio: outdir/.tingshu/chapters/AUDIO.rec;
 * NULL when out of memory, else the caller frees it. */
char *ts_record_file(const char *outdir, const char *audio);

/* Write the record of the chapter whose audio file is audio (a name in
 * outdir), with the sizes of its files as r says, at the temporary name
 * of its place in outdir/.tingshu/chapters/ (ts_temp_name() of
 * ts_record_file()), for the caller to put in place with the chapter's
 * files, the record last.  0, or a code with err filled. */
int ts_record_write(const char *outdir, const char *audio, ts_record *r, long owner_pid,
                    ts_error *err);

/* Read the record of audio: 1 when there is one, 0 when there is none, or
 * a negative code with err filled (a damaged record). */
int ts_record_read(const char *outdir, const char *audio, ts_record *r, ts_error *err);

/* The same, of the record file at path (one not yet in place). */
int ts_record_read_at(const char *path, ts_record *r, ts_error *err);

/* Are the files of r all in outdir, at the sizes it recorded? */
int ts_record_files_ok(const char *outdir, const ts_record *r);

/* What a build does with a chapter whose key is key, given its record
 * r (NULL: none) in outdir: keep it when r has that key and names files
 * that are all there at their recorded sizes, skip it again when r has
 * that key and says it has nothing to speak, else build it; with force,
 * always build it. */
typedef enum ts_due { TS_DUE_BUILD, TS_DUE_KEPT, TS_DUE_EMPTY } ts_due;
ts_due ts_record_due(const char *outdir, const ts_record *r, const char *key, int force);

/* Remove the record of audio and its AAC (not its files). */
void ts_record_remove(const char *outdir, const char *audio);

/* Each chapter recorded in outdir, by its audio name: fn(ud, name).
 * Returns 0, or a negative code when the state cannot be listed. */
int ts_record_each(const char *outdir, void (*fn)(void *ud, const char *audio), void *ud);

/* Make outdir/.tingshu/ and its chapters/, locks/ and aac/ folders when
 * missing: 0, or a code with err filled. */
int ts_state_init(const char *outdir, ts_error *err);

/* Does outdir hold the state of a tingshu book? */
int ts_state_exists(const char *outdir);

#endif
