/* hash.c - FNV-1a, 128 bits (see hash.h). */
#include "base/hash.h"

#include <stdio.h>
#include <string.h>

/* The FNV-128 prime 2^88 + 0x13B and offset basis. */
#define FNV_PRIME (((unsigned __int128)1 << 88) + 0x13B)
#define FNV_BASIS                                                                                  \
	(((unsigned __int128)0x6C62272E07BB0142ull << 64) |                                        \
	 (unsigned __int128)0x62B821756295C58Dull)

void ts_hash_init(ts_hash *h)
{
	h->h = FNV_BASIS;
}

uint32_t ts_fnv32(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

void ts_hash_bytes(ts_hash *h, const void *p, size_t n)
{
	const unsigned char *s = p;
	unsigned __int128 v = h->h;
	for (size_t i = 0; i < n; i++) {
		v ^= s[i];
		v *= FNV_PRIME;
	}
	h->h = v;
}

void ts_hash_int(ts_hash *h, int64_t v)
{
	unsigned char b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)((uint64_t)v >> (8 * i));
	ts_hash_bytes(h, b, sizeof b);
}

void ts_hash_str(ts_hash *h, const char *s)
{
	if (!s) {
		ts_hash_int(h, -1);
		return;
	}
	size_t n = strlen(s);
	ts_hash_int(h, (int64_t)n);
	ts_hash_bytes(h, s, n);
}

void ts_hash_double(ts_hash *h, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	ts_hash_int(h, (int64_t)bits);
}

void ts_hash_hex(const ts_hash *h, char out[TS_HASH_HEX])
{
	snprintf(out, TS_HASH_HEX, "%016llx%016llx", (unsigned long long)(h->h >> 64),
	         (unsigned long long)h->h);
}
