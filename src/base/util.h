/* util.h - small helpers shared by the tingshu stages: a growable
 * byte buffer, growable arrays, UTF-8 decoding and character classes.
 *
 * Everything the library exports starts with ts_; file-local helpers are
 * static.  Functions that can fail return 0 or a negative TS_E* code;
 * ts_strerror() turns a code into a message. */
#ifndef TS_UTIL_H
#define TS_UTIL_H

#include "base/error.h"

#include <stddef.h>
#include <stdint.h>

/* Growable byte buffer.  Memory is owned by the buffer; ts_buf_free()
 * releases it.  data is always NUL-terminated when len > 0 or cap > 0.
 * The error is sticky (as SQLite's sqlite3_str): once an append fails,
 * later appends do nothing and return the same code, so a writer can
 * append many pieces and check ts_buf_error() once at the end. */
/* Where text goes: 0, or a negative code to stop (the output cannot be
 * written: the caller knows why). */
typedef int (*ts_write_fn)(void *ud, const char *s, size_t n);

typedef struct ts_buf {
	char *data;
	size_t len;
	size_t cap;
	int err; /* 0, or the code of the first append that failed */
} ts_buf;

/* The first error of an append since the buffer was made or cleared. */
int ts_buf_error(const ts_buf *b);

int ts_buf_reserve(ts_buf *b, size_t extra);
int ts_buf_append(ts_buf *b, const void *p, size_t n);
int ts_buf_putc(ts_buf *b, char c);
/* s[0..n) with the XML specials & < > escaped (SSML for eSpeak, WebVTT
 * cue text).  0 or the buffer's error. */
int ts_buf_xml(ts_buf *b, const char *s, size_t n);
int ts_buf_printf(ts_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append s as a JSON string literal (quoted, escaped) to b. */
int ts_json_string(ts_buf *b, const char *s);
void ts_buf_clear(ts_buf *b);
void ts_buf_free(ts_buf *b);

/* Growable arrays: a pointer to the elements and a capacity (size_t)
 * kept beside it, both 0 at the start; free(arr) releases it.
 *
 *     if (TS_GROW(b->ch, b->cap, b->n + 1))
 *             return TS_ENOMEM;
 *     b->ch[b->n++] = chapter;
 *
 * ts_grow: make room in *pp (the address of the array pointer) for need
 * elements of elem bytes, *cap the elements it has room for.  When it
 * must grow, the capacity at least doubles (at least 64 bytes), so that
 * appending one element at a time costs amortized constant time.  Returns
 * 0, or TS_ENOMEM when out of memory or when need elements of elem bytes
 * would not fit in a size_t; then *pp and *cap are unchanged.
 *
 * ts_resize: make *pp hold exactly n elements of elem bytes (for arrays
 * that share one capacity, or grow by one); same return and failure.
 *
 * The array pointer is read and written through memcpy, so any object
 * pointer type may be passed (POSIX gives them all one representation). */
int ts_grow(void *pp, size_t *cap, size_t need, size_t elem);
int ts_resize(void *pp, size_t n, size_t elem);
#define TS_GROW(arr, cap, need) ts_grow(&(arr), &(cap), (need), sizeof *(arr))
#define TS_RESIZE(arr, n)       ts_resize(&(arr), (n), sizeof *(arr))

/* A hot loop of vector arithmetic that GCC also compiles for AVX on
 * x86-64, the loader picking that version where the processor has it:
 * the same operations in the same order (AVX alone has no fused
 * multiply-add), so the same results to the bit, with three-operand
 * instructions, about half as many. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TS_CLONES __attribute__((target_clones("avx", "default")))
#else
#define TS_CLONES
#endif

/* Decode one UTF-8 code point from s[0..n).  Returns its length in bytes
 * (1-4) and stores the code point in *cp, or returns 0 for an invalid or
 * truncated sequence (overlongs, surrogates and values past U+10FFFF are
 * invalid).  n must be > 0. */
int ts_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* Encode cp as UTF-8 into out (at least 4 bytes); returns the length. */
int ts_utf8_encode(uint32_t cp, char *out);

/* Offset of the first invalid byte in s[0..n), or n when all of it is
 * valid UTF-8.  A sequence cut off by the end of the buffer counts as
 * invalid only when final is non-zero. */
size_t ts_utf8_check(const char *s, size_t n, int final);

/* Length of the UTF-8 byte-order mark (EF BB BF) s[0..n) starts with:
 * 3, or 0 when it does not start with one.  Windows editors write it at
 * the start of a file; readers of UTF-8 text skip it. */
size_t ts_utf8_bom(const char *s, size_t n);

/* Number of code points in valid UTF-8 text. */
size_t ts_utf8_count(const char *s, size_t n);
/* ... and of them, those that are not an ASCII space. */
size_t ts_utf8_count_nonspace(const char *s, size_t n);

/* s[0..len) without the spaces (ts_is_space()) at either end: returns the
 * length of what is left and stores where it starts in *start. */
size_t ts_utf8_trim(const char *s, size_t len, size_t *start);

/* Is cp one of the characters of set (valid UTF-8, NUL-terminated)?  For
 * small classes of characters written as themselves ("章回节").  Never
 * for cp 0. */
int ts_char_in(uint32_t cp, const char *set);

/* In the text `tingshu pinyin` reads, this byte stands before each Han
 * character the normalizer said for something not written in Han
 * characters (digits, symbols, signs: 或 for "/", 一 of "1"), so that the
 * pinyin can tell them from the characters of the book.  A C0 control:
 * the cleaner removes those from the text, so a book can never hold one.
 * Segmentation neither counts it nor cuts after it; g2p drops it. */
#define TS_READ_MARK '\x01'

/* Character classes used by segmentation and chapter detection. */
int ts_is_han(uint32_t cp);   /* CJK unified ideographs, any block */
int ts_is_space(uint32_t cp); /* ASCII and Unicode spaces, incl. U+3000 */
int ts_is_cjk_punct(uint32_t cp);

/* ASCII classes, on code points or bytes (pass a byte as unsigned char:
 * a negative char is none of them).  Only ASCII: not fullwidth digits,
 * not accented letters.  Inline: the cleaner and the normalizer ask
 * them of every character. */
static inline int ts_is_digit(uint32_t c) /* 0-9 */
{
	return c - '0' < 10;
}
static inline int ts_is_latin(uint32_t c) /* A-Z a-z */
{
	return (c | 0x20) - 'a' < 26;
}
static inline int ts_is_alnum(uint32_t c) /* 0-9 A-Z a-z */
{
	return ts_is_digit(c) || ts_is_latin(c);
}

/* strdup / strndup that report failure instead of aborting; the caller
 * frees the result. */
char *ts_strdup(const char *s);
char *ts_strndup(const char *s, size_t n);

/* A copy of s (UTF-8) of at most max characters (max >= 1): a longer s is
 * cut between characters to max - 1 of them and "…" (a 100,000-character
 * line would be a title read for an hour).  The caller frees it; NULL
 * when out of memory. */
char *ts_strdup_cut(const char *s, size_t max);

/* Seconds on the monotonic clock, from an arbitrary start: for measuring
 * how long something took. */
double ts_seconds(void);

#endif
