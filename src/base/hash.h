/* hash.h - a 128-bit FNV-1a hash, for the keys that tell whether a
 * chapter must be built again (not for security: nobody gains by making
 * two chapters collide). */
#ifndef TS_HASH_H
#define TS_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct ts_hash {
	unsigned __int128 h;
} ts_hash;

enum { TS_HASH_HEX = 33 }; /* 32 hex digits and a NUL */

void ts_hash_init(ts_hash *h);
void ts_hash_bytes(ts_hash *h, const void *p, size_t n);
/* A string with its length, so that "ab" + "c" and "a" + "bc" differ;
 * NULL hashes apart from "". */
void ts_hash_str(ts_hash *h, const char *s);
void ts_hash_int(ts_hash *h, int64_t v);
void ts_hash_double(ts_hash *h, double v);
/* 32 lower-case hex digits. */
void ts_hash_hex(const ts_hash *h, char out[TS_HASH_HEX]);

/* The 32-bit FNV-1a hash of p[0..n): a choice made by what bytes say
 * (a stream's serial number, a voice, where a piece starts). */
uint32_t ts_fnv32(const void *p, size_t n);

#endif
