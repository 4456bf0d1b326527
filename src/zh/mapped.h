/* mapped.h - reading a memory-mapped binary file of the language data
 * (the compiled lexicon, the g2pM model): one reader of their common
 * header and bounds-checked access to their sections.
 *
 * Both formats begin the same way, all numbers little-endian:
 *
 *     bytes 0-7    magic, 8 bytes (NUL-padded)
 *     bytes 8-11   u32 format version
 *     bytes 12-15  u32 size of the whole file
 *     bytes 16-    u32 fields of the format (nfields of them): counts,
 *                  section offsets
 *
 * ts_mapped_open() maps the file and checks what is common; the format's
 * own module then checks its fields and sections, and reports what is
 * wrong with ts_mapped_bad(), so that every refusal reads the same:
 * "PATH: not a WHAT of format N (why); rebuild it with TOOL". */
#ifndef TS_MAPPED_H
#define TS_MAPPED_H

#include "base/error.h"

#include <stddef.h>
#include <stdint.h>

enum { TS_MAPPED_MAX_FIELDS = 16, TS_MAPPED_PREFIX = 16 };

/* What a format is: the module that reads it keeps one, static const. */
typedef struct ts_mapped_format {
	const char *what;     /* "tingshu lexicon": names it in messages */
	const char *tool;     /* the program that makes it, for the message */
	char magic[8];        /* its first 8 bytes */
	uint32_t version;     /* the format version this program reads */
	size_t nfields;       /* u32 fields after the prefix (<= TS_MAPPED_MAX_FIELDS) */
	size_t min_size;      /* smaller files are refused before being read */
	size_t max_size;      /* larger files are refused before being mapped */
	const char *bad_size; /* why, when the size in the header is not the file's */
} ts_mapped_format;

/* A mapped file: its bytes and the header's fields. */
typedef struct ts_mapped {
	const unsigned char *p; /* size bytes, read-only */
	size_t size;
	uint32_t field[TS_MAPPED_MAX_FIELDS]; /* the format's fields, in order */
	const ts_mapped_format *f;
} ts_mapped;

/* Map path as a file of format f into *m and check its header: the file
 * holds f->min_size to f->max_size bytes and at least the header, its
 * magic and version are f's, and the size the header gives is the
 * file's.  Returns 0, or with *m empty and err (may be NULL) set:
 * TS_ENOENT, TS_EIO (cannot be read or mapped, not a regular file) or
 * TS_EINVAL (its size, "PATH: not a WHAT (N bytes)"; or its header, the
 * message of ts_mapped_bad()).  Release with ts_mapped_close(). */
int ts_mapped_open(ts_mapped *m, const char *path, const ts_mapped_format *f, ts_error *err);

/* Unmap m and empty it; an empty (zeroed) m does nothing. */
void ts_mapped_close(ts_mapped *m);

/* Refuse the file at path of m's format: TS_EINVAL with err (may be
 * NULL) set to "PATH: not a WHAT of format N (why); rebuild it with
 * TOOL".  Returns TS_EINVAL. */
int ts_mapped_bad(const ts_mapped *m, const char *path, const char *why, ts_error *err);

/* The len bytes at offset off of m, or NULL when they are not all inside
 * the file (or off + len overflows). */
const unsigned char *ts_mapped_at(const ts_mapped *m, uint64_t off, uint64_t len);

/* Little-endian numbers at p (the formats' byte order, whatever the
 * host's). */
static inline uint16_t ts_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t ts_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
