/* chapterkey.h - the key of a chapter: a hash of everything that decides
 * the bytes of its files.  A chapter whose record holds the key it has now
 * is up to date (see records.h). */
#ifndef TS_CHAPTERKEY_H
#define TS_CHAPTERKEY_H

#include "book/chapter.h"
#include "base/error.h"
#include "base/hash.h"

#include <stddef.h>

/* The key of chapter i of job->book: a hash of what eSpeak is told (the
 * text after the front end, read by ts_feed_chapter() as speaking reads
 * it: lexicons and rules included), the sentences its timing files hold,
 * its title and file name, the voice, every setting of job, and the
 * versions of tingshu and eSpeak NG.  0, or a code with err filled (the
 * chapter cannot be read). */
int ts_chapter_key(const ts_chapter_job *job, size_t i, char key[TS_HASH_HEX], ts_error *err);

/* The feed that hashes a reading of chapter i into h as ts_chapter_key()
 * does, h started with all the rest: ts_hash_hex(h) once the reading has
 * ended is the key of the bytes read.  h is the caller's, and must
 * outlive the reading. */
ts_feed ts_chapter_key_feed(const ts_chapter_job *job, size_t i, ts_hash *h);

/* Is chapter i of b spoken right after chapter i - 1, in one process?
 * When both are shorter than TS_CHAIN_CHARS, in groups of TS_CHAIN_GROUP
 * by index (0-3, 4-7, ...): a process costs about what speaking a hundred
 * characters does (bench/README.md).  eSpeak carries state from one text
 * to the next: the chapter's sound, hence its key, takes in the ones
 * before it in its group. */
#define TS_CHAIN_GROUP 4
int ts_chapter_chained(const ts_book *b, size_t i);

/* key, chapter i's key of ts_chapter_key(), takes in prev, the key of
 * chapter i - 1, when i is spoken after it (ts_chapter_chained()). */
void ts_chapter_key_chain(const ts_book *b, size_t i, const char prev[TS_HASH_HEX],
                          char key[TS_HASH_HEX]);

#endif
