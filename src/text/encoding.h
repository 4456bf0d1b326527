/* encoding.h - which encoding a text file is in, and decoding it to UTF-8.
 *
 * Part of the input stage: a file that is not plain UTF-8 is decoded once,
 * with iconv, into a UTF-8 copy, so that every later stage sees UTF-8 only.
 * The encoding comes from a byte-order mark, or is guessed with libuchardet
 * (the policy is written down in encoding.c, next to the code). */
#ifndef TS_ENCODING_H
#define TS_ENCODING_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

/* 1 when iconv can decode the encoding called name to UTF-8, else 0.
 * Names are iconv's ("GB18030", "BIG5", "UTF-16LE"; `iconv -l` lists
 * them); iconv options ("//IGNORE") are refused. */
int ts_encoding_known(const char *name);

/* 1 when name is a spelling of UTF-8 ("UTF-8", "utf8"), else 0. */
int ts_encoding_is_utf8(const char *name);

/* 1 when a NUL byte in text in the encoding called name can be part of a
 * character other than NUL (UTF-16, UTF-32, UCS-2 ...), so that NUL bytes
 * are no sign of binary data; 0 when a NUL byte is the NUL character
 * (UTF-8, GB18030, Big5 and every other encoding that keeps ASCII), or
 * iconv does not know name. */
int ts_encoding_wide(const char *name);

/* If p[0..n) starts with a byte-order mark, return the mark's length and
 * store the encoding it marks in *name ("UTF-8", "UTF-16LE", "UTF-16BE",
 * "UTF-32LE" or "UTF-32BE"; static storage); else return 0. */
size_t ts_encoding_bom(const unsigned char *p, size_t n, const char **name);

/* Name of an encoding for messages: "Big5 (CP950)" for CP950, the name
 * itself for most.  Static storage, or name. */
const char *ts_encoding_label(const char *name);

/* What ts_encoding_guess found out. */
typedef struct ts_guess {
	const char *name;  /* iconv name of the encoding (static), or NULL */
	char detector[40]; /* what uchardet said; "" when it could not tell */
	long nul;          /* offset of the first NUL byte of the sample, or -1 */
	size_t controls;   /* control bytes in the sample */
} ts_guess;

/* Guess the encoding of text that is not valid UTF-8 and has no
 * byte-order mark from sample[0..n), the start of its file: all of the
 * file when whole is set, else the sample may end inside a character.
 * Returns 0 with g->name set; TS_EBINARY when the sample looks like binary
 * data (NUL bytes, or many control bytes and no encoding fits);
 * TS_EDECODE when it is in no encoding we can tell; TS_ENOMEM.  g is
 * filled in every case. */
int ts_encoding_guess(const char *sample, size_t n, int whole, ts_guess *g);

/* Where decoding stopped. */
typedef struct ts_decode_fault {
	long offset;            /* byte offset in the file of the bad bytes, or -1 */
	long line;              /* line of the fault (1-based) */
	unsigned char bytes[4]; /* the first bytes of the bad sequence */
	size_t nbytes;
	int truncated; /* the file ends inside a character */
} ts_decode_fault;

/* Decode in from encoding enc to UTF-8 into out, in blocks of bounded
 * size (memory does not depend on the file's size).  in is read from its
 * current position, which is byte `at` of the file (offsets in *fault
 * count from the start of the file).  Returns 0; TS_EDECODE with *fault
 * filled when a byte sequence is invalid in enc or the file ends inside a
 * character; TS_EBINARY with fault->line set when the text holds a NUL
 * character; TS_EIO (errno kept) when reading or writing fails; TS_EINVAL
 * when iconv does not know enc; TS_ENOMEM.  Output already written stays
 * in out. */
int ts_encoding_decode(FILE *in, long at, const char *enc, FILE *out, ts_decode_fault *fault);

/* The same, stopping with TS_ECANCELED between two blocks once *cancel
 * (set by a signal handler) is not 0; cancel NULL never stops. */
int ts_encoding_decode_cancel(FILE *in, long at, const char *enc, FILE *out,
                              volatile sig_atomic_t *cancel, ts_decode_fault *fault);

#endif
