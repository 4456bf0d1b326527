/* aac.h - a chapter's audio in AAC, encoded once (libavcodec's encoder,
 * its fast coder) and kept as its packets in a file of the output
 * folder's state, from which the whole-book files are assembled without
 * encoding again (publish/m4b.h).
 *
 * The file (version 2, magic "TSAAC002"; a file of version 1 is not
 * read, and is encoded again): a header (its key, the sample rate, the
 * encoder's priming, the AudioSpecificConfig, the chapter's length, how
 * many packets at its end encode nothing but silence, how many pieces),
 * the table of the pieces (for each, the hash of its samples and of the
 * encoder's settings, where its samples are in the chapter, its first
 * packet, how many it has and where they are in the file), then each
 * packet as its size, its duration and its bytes.  It is written at the
 * caller's temporary name and holds the header and the table last, so
 * that a file cut short is never taken for a whole one.
 *
 * Each chapter is encoded on its own, from silence to silence (zeros
 * before its first sample, as the encoder's priming, and after its
 * last): the packets of two chapters one after the other decode as the
 * two chapters would encoded together, the first's last window and the
 * second's first both overlapping nothing but zeros, so that no click is
 * heard where they meet.
 *
 * So is each piece of a chapter: a chapter is cut inside the runs of
 * exact zeros eSpeak leaves between sentences (one run in several,
 * chosen by the sound before it, at least a few seconds apart; see
 * aac.c), each piece encoded on its own, its packets placed where its
 * first sample falls to the nearest packet, so that the windows around
 * each cut hold zeros only and the pieces join without a sound: the
 * chapter keeps its length, and every sentence is heard within half a
 * packet of its time in the chapter's samples (within a packet in the
 * last piece, placed never after it).  When a chapter is encoded again
 * (an edit), the pieces whose samples the chapter's previous AAC file
 * has too are copied from it, not encoded: an edit encodes the pieces
 * it touched, wherever it moved the others. */
#ifndef TS_AAC_H
#define TS_AAC_H

#include "base/error.h"
#include "base/hash.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The AAC bit rate (bits per second, mono) for --quality q (0..10, or
 * TS_QUALITY_DEFAULT: 64 kbit/s). */
int ts_aac_bitrate(int quality);

/* The key of the AAC of the chapter whose key is chapter_key, at
 * bit_rate: the chapter's key, the bit rate and the encoder's version. */
void ts_aac_key(const char *chapter_key, int bit_rate, char key[TS_HASH_HEX]);

/* The encoder's version, as tingshu was built with it (static storage):
 * what the AAC is made with, in the keys of what is made of it. */
const char *ts_aac_version(void);

/* The samples of a packet, and the largest packet read back. */
enum { TS_AAC_FRAME = 1024, TS_AAC_PACKET_MAX = 8192, TS_AAC_CONFIG_MAX = 64 };

typedef struct ts_aac_info {
	char key[TS_HASH_HEX];
	unsigned rate;       /* samples per second */
	unsigned bit_rate;   /* asked of the encoder */
	unsigned priming;    /* samples the decoder gives before the chapter's first */
	uint64_t samples;    /* the chapter's length */
	uint64_t packets;    /* each decodes to TS_AAC_FRAME samples */
	uint64_t quiet_tail; /* the last packets that can be left out: silence only */
	uint64_t bytes;      /* of the packets */
	uint64_t pieces;     /* encoded each on its own (see above) */
	unsigned config_len; /* 1..TS_AAC_CONFIG_MAX */
	unsigned char config[TS_AAC_CONFIG_MAX]; /* the AudioSpecificConfig */
} ts_aac_info;

/* Encode the audio file at audio (any format libsndfile reads; its first
 * channel) into the AAC file at path, made exclusively, in this process
 * (libavcodec opened here: call it in a child, see ts_aac_make()).  key:
 * what the file says it is.  prev (may be NULL): the path of an AAC file
 * made before of the same chapter (any key), whose pieces of the same
 * samples are copied instead of encoded; the file made is the same
 * either way.  procs: 2 to encode the pieces in two processes (this
 * one and a child, each about half), when a core is free for it; else 1.
 * *reused (reused may be NULL): how many pieces were copied.  Stops with
 * TS_ECANCELED when *cancel is set (cancel may be NULL).  Nothing is
 * left at path on failure.  0, or a code with err filled. */
int ts_aac_encode(const char *audio, const char *path, const char key[TS_HASH_HEX], int bit_rate,
                  const char *prev, int procs, volatile sig_atomic_t *cancel, size_t *reused,
                  ts_error *err);

/* ts_aac_encode() in a child process, at the temporary name of path
 * (ts_temp_name(path, owner_pid)), then renamed to path, a file in root
 * (see ts_dir_open()), the pieces of the file at path before copied.
 * 0, or a code with err filled. */
int ts_aac_make(const char *root, const char *audio, const char *path, const char key[TS_HASH_HEX],
                int bit_rate, long owner_pid, volatile sig_atomic_t *cancel, ts_error *err);

/* Open the AAC file at path to read its packets, its header into *info:
 * the stream, or NULL with err filled (no such file, not a whole AAC
 * file of ours).  With key, one of another key is an error too. */
FILE *ts_aac_open(const char *path, const char *key, ts_aac_info *info, ts_error *err);

/* The next packet of f into buf (TS_AAC_PACKET_MAX bytes): 1 with *size
 * and *duration set, 0 at the end, or a code with err filled. */
int ts_aac_next(FILE *f, const char *path, unsigned char *buf, size_t *size, unsigned *duration,
                ts_error *err);

/* Does path hold a whole AAC file of key? */
int ts_aac_ok(const char *path, const char *key);

/* Set the key of the AAC file at path (one encoded before its key was
 * known: a chapter written as --format m4a).  0, or a code with err
 * filled. */
int ts_aac_set_key(const char *path, const char key[TS_HASH_HEX], ts_error *err);

/* The name of the AAC file made beside the chapter file audio while it
 * is written as an M4A (ts_temp_name() of AUDIO.aac, owner_pid's): NULL
 * when out of memory, else the caller frees it. */
char *ts_aac_beside(const char *audio, long owner_pid);

/* The AAC of the chapter file audio, written at audio_tmp, into tmp with
 * key: the one its M4A writer left beside it (ts_aac_beside()), taken
 * over, else encoded from audio_tmp here, with the pieces of prev (may
 * be NULL) in procs processes (see ts_aac_encode()).  0, or a code with
 * err filled. */
int ts_aac_take(const char *audio, const char *audio_tmp, long owner_pid, const char *tmp,
                const char key[TS_HASH_HEX], int bit_rate, const char *prev, int procs,
                ts_error *err);

/* The tags of an M4A file. */
typedef struct ts_aac_tags {
	const char *title, *artist, *album; /* NULL: left out */
	int track;                          /* 0: left out */
} ts_aac_tags;

/* Write the AAC file at aac as an M4A (AAC in MP4, the "M4A " brand, its
 * priming and padding in its edit list) at path, made exclusively, with
 * tags.  0, or a code with err filled; nothing left at path on failure. */
int ts_aac_write_m4a(const char *aac, const char *path, const ts_aac_tags *tags, ts_error *err);

#endif
