/* mp4.h - a small writer of MP4 audio books (ISO/IEC 14496-12 and -14,
 * with the QuickTime and iTunes atoms players read): one AAC track written
 * as its packets come, a chapter track (QuickTime text samples, referenced
 * by "tref/chap") and the Nero "chpl" list, iTunes tags and a cover.
 *
 * The atoms are those FFmpeg's mp4 muxer writes for the same content, in
 * the same order (ftyp, free, mdat, moov), but the sample table is not
 * kept in memory: each packet's size is written to a file and copied into
 * the moov at the end, so that memory stays flat whatever the book's
 * length (FFmpeg keeps an index entry a packet until the end, so its
 * memory grows with the book: bench/README.md, "Whole-book files"). */
#ifndef TS_MP4_H
#define TS_MP4_H

#include <stddef.h>
#include <stdint.h>

typedef struct ts_mp4_chapter {
	const char *title; /* UTF-8 */
	uint64_t start;    /* first sample, in samples of the audio as heard */
} ts_mp4_chapter;

typedef struct ts_mp4_info {
	char brand[5];                 /* major brand, such as "M4B " */
	unsigned rate;                 /* samples per second, at most 65535 */
	const unsigned char *config;   /* the AAC AudioSpecificConfig */
	size_t config_len;             /* its length, 1..64 */
	unsigned priming;              /* samples the decoder gives before the audio */
	const ts_mp4_chapter *chapter; /* in order, the first at 0 */
	size_t chapters;
	const char *title, *album, *artist, *genre, *tool; /* tags, NULL: left out */
	int track, tracks;                                 /* "trkn", 0: left out */
	const unsigned char *cover;                        /* the picture's bytes, or NULL */
	size_t cover_len;
	int cover_png; /* PNG, else JPEG */
} ts_mp4_info;

typedef struct ts_mp4 ts_mp4;

/* Start the file on fd (open for writing, at its start) with the sample
 * sizes written to sizes_fd (an empty file open for reading and writing,
 * which nothing else uses).  info and everything it points to must stay
 * as they are until ts_mp4_finish().  NULL with *code set (a ts code; the
 * system's errno in *sys_errno, 0 if none) on failure.  Free with
 * ts_mp4_free(); the caller closes fd and sizes_fd. */
ts_mp4 *ts_mp4_new(int fd, int sizes_fd, const ts_mp4_info *info, int *code, int *sys_errno);

/* Add the next AAC packet, of n bytes lasting duration samples.  0 or a
 * ts code; after one, every later call fails too. */
int ts_mp4_add(ts_mp4 *m, const void *packet, size_t n, unsigned duration);

/* Finish the file: samples is the length of the audio as heard (without
 * the priming).  0 or a ts code. */
int ts_mp4_finish(ts_mp4 *m, uint64_t samples);

/* The system's errno of the failure that made a call return TS_EIO or
 * another I/O code, or 0. */
int ts_mp4_errno(const ts_mp4 *m);

/* For tests: write the 64-bit forms (mdat header, co64, version 1 times)
 * for values above limit rather than above UINT32_MAX, so that a small
 * file takes the paths of one over 4 GB or 54 hours at 22 kHz. */
void ts_mp4_set_limit(ts_mp4 *m, uint64_t limit);

void ts_mp4_free(ts_mp4 *m);

#endif
