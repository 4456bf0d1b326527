/* fixup.h - in-place repairs to files libsndfile has just written, before
 * they are renamed into place (see write.c).
 *
 * - Ogg: libsndfile 1.2 numbers every Ogg stream with psf_rand_int32(),
 *   seeded from the clock, so the same audio gives different bytes from
 *   run to run.  ts_ogg_set_serial() gives every page a serial number the
 *   caller chooses and recomputes the page checksums.
 * - MP3: libsndfile hands our UTF-8 strings to LAME's Latin-1 tag API, so
 *   the ID3v2.3 text frames say "ISO-8859-1" over UTF-8 bytes (mojibake in
 *   every player), and the 30-byte ID3v1 fields cut characters in half.
 *   ts_id3_utf8() relabels the tag as ID3v2.4 with UTF-8 text frames and
 *   drops an ID3v1 trailer that holds anything but ASCII.
 *
 * Both work in place with a fixed amount of memory, whatever the length
 * of the file. */
#ifndef TS_FIXUP_H
#define TS_FIXUP_H

#include "base/error.h"

#include <stddef.h>
#include <stdint.h>

/* Ogg's page checksum (CRC-32, polynomial 0x04c11db7, no reflection, no
 * final xor) of p[0..n), continuing from crc (0 to start). */
uint32_t ts_ogg_crc(uint32_t crc, const unsigned char *p, size_t n);

/* Set the serial number of every page of the Ogg file at path to serial
 * and recompute each page's checksum.  The file must hold exactly one
 * logical stream (as libsndfile writes it).  Returns 0, TS_EIO (with
 * errno's text) or TS_EAUDIO (not such an Ogg file), with a message in
 * *err (err may be NULL). */
int ts_ogg_set_serial(const char *path, uint32_t serial, ts_error *err);

/* Make the text of the ID3 tags of the MP3 file at path read as the UTF-8
 * it is: an ID3v2.3 tag at the start becomes ID3v2.4 with its text frames
 * marked UTF-8 (same size, only header bytes change); an ID3v1 trailer
 * whose text is not ASCII is cut off.  A file without tags, or with a tag
 * this does not understand, is left alone.  Returns 0 or TS_EIO with a
 * message in *err (err may be NULL). */
int ts_id3_utf8(const char *path, ts_error *err);

#endif
