/* util.c - the growable buffer and arrays, and the UTF-8 helpers.
 *
 * Bad-input policy for UTF-8: decoding is strict (no overlongs, no
 * surrogates, nothing past U+10FFFF).  Callers decide what to do with an
 * invalid sequence; the input stage rejects the file and names the line. */
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int ts_buf_error(const ts_buf *b)
{
	return b->err;
}

int ts_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t max = elem ? SIZE_MAX / elem : 0;
	if (need > max)
		return TS_ENOMEM;
	size_t n = *cap <= max / 2 ? *cap * 2 : max;
	if (n < 64 / elem)
		n = 64 / elem;
	if (n < need)
		n = need;
	if (ts_resize(pp, n, elem))
		return TS_ENOMEM;
	*cap = n;
	return 0;
}

int ts_resize(void *pp, size_t n, size_t elem)
{
	if (!elem || n > SIZE_MAX / elem)
		return TS_ENOMEM;
	void *p;
	memcpy(&p, pp, sizeof p);
	p = realloc(p, n ? n * elem : 1);
	if (!p)
		return TS_ENOMEM;
	memcpy(pp, &p, sizeof p);
	return 0;
}

int ts_buf_reserve(ts_buf *b, size_t extra)
{
	if (b->err)
		return b->err;
	/* Room for the NUL too. */
	if (extra >= SIZE_MAX - b->len || ts_grow(&b->data, &b->cap, b->len + extra + 1, 1))
		return b->err = TS_ENOMEM;
	return 0;
}

int ts_buf_append(ts_buf *b, const void *p, size_t n)
{
	if (ts_buf_reserve(b, n))
		return TS_ENOMEM;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int ts_buf_putc(ts_buf *b, char c)
{
	return ts_buf_append(b, &c, 1);
}

int ts_buf_xml(ts_buf *b, const char *s, size_t n)
{
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		switch (s[i]) {
		case '&': rc = ts_buf_append(b, "&amp;", 5); break;
		case '<': rc = ts_buf_append(b, "&lt;", 4); break;
		case '>': rc = ts_buf_append(b, "&gt;", 4); break;
		default: rc = ts_buf_putc(b, s[i]);
		}
	}
	return rc;
}

int ts_buf_printf(ts_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return b->err ? b->err : (b->err = TS_EINVAL);
	if (ts_buf_reserve(b, (size_t)n))
		return b->err;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void ts_buf_clear(ts_buf *b)
{
	b->len = 0;
	b->err = 0;
	if (b->data)
		b->data[0] = '\0';
}

void ts_buf_free(ts_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->err = 0;
}

int ts_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	int len;
	uint32_t v, min;
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2, v = c & 0x1F, min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3, v = c & 0x0F, min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < (size_t)len)
		return 0;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	*cp = v;
	return len;
}

int ts_utf8_encode(uint32_t cp, char *out)
{
	unsigned char *o = (unsigned char *)out;
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xC0 | (cp >> 6));
		o[1] = (unsigned char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xE0 | (cp >> 12));
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (unsigned char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (unsigned char)(0xF0 | (cp >> 18));
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (unsigned char)(0x80 | (cp & 0x3F));
	return 4;
}

size_t ts_utf8_check(const char *s, size_t n, int final)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		uint32_t cp;
		int k = ts_utf8_decode(u + i, n - i, &cp);
		if (k == 0) {
			/* A sequence that is only cut short by the buffer end may
			 * continue in the next block. */
			if (!final && n - i < 4) {
				unsigned char tmp[4] = {0x80, 0x80, 0x80, 0x80};
				memcpy(tmp, u + i, n - i);
				if (ts_utf8_decode(tmp, 4, &cp))
					return n;
			}
			return i;
		}
		i += (size_t)k;
	}
	return n;
}

size_t ts_utf8_bom(const char *s, size_t n)
{
	return n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

size_t ts_utf8_count(const char *s, size_t n)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			count++;
	return count;
}

size_t ts_utf8_count_nonspace(const char *s, size_t n)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++)
		count += ((unsigned char)s[i] & 0xC0) != 0x80 && s[i] != ' ';
	return count;
}

size_t ts_utf8_trim(const char *s, size_t len, size_t *start)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t a = 0, b = len;
	for (;;) {
		uint32_t c;
		int k;
		if (a < b && (k = ts_utf8_decode(u + a, b - a, &c)) > 0 && ts_is_space(c))
			a += (size_t)k;
		else
			break;
	}
	while (b > a) {
		size_t p = b - 1;
		while (p > a && (u[p] & 0xC0) == 0x80)
			p--;
		uint32_t c;
		if (ts_utf8_decode(u + p, b - p, &c) > 0 && ts_is_space(c))
			b = p;
		else
			break;
	}
	*start = a;
	return b - a;
}

int ts_char_in(uint32_t cp, const char *set)
{
	char u[5];
	if (cp == 0 || cp > 0x10FFFF)
		return 0;
	u[ts_utf8_encode(cp, u)] = '\0';
	/* UTF-8 is self-synchronizing: the bytes of a whole character found
	 * in valid UTF-8 are that character, never the tail of another. */
	return strstr(set, u) != NULL;
}

int ts_is_han(uint32_t cp)
{
	return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
	       (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x20000 && cp <= 0x3134F) || cp == 0x3007;
}

int ts_is_space(uint32_t cp)
{
	return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\f' || cp == '\v' ||
	       cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
	       cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

int ts_is_cjk_punct(uint32_t cp)
{
	return (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF00 && cp <= 0xFF0F) ||
	       (cp >= 0xFF1A && cp <= 0xFF20) || (cp >= 0xFF3B && cp <= 0xFF40) ||
	       (cp >= 0xFF5B && cp <= 0xFF65) || (cp >= 0x2010 && cp <= 0x2027) ||
	       (cp >= 0xFE30 && cp <= 0xFE4F);
}

char *ts_strdup(const char *s)
{
	return ts_strndup(s, strlen(s));
}

char *ts_strndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *ts_strdup_cut(const char *s, size_t max)
{
	size_t chars = 0, cut = 0, i;
	/* A character starts at every byte but a continuation byte. */
	for (i = 0; s[i]; i++) {
		if (((unsigned char)s[i] & 0xC0) == 0x80)
			continue;
		if (++chars == max)
			cut = i;
		else if (chars > max)
			break;
	}
	if (!s[i])
		return ts_strndup(s, i);
	char *p = malloc(cut + sizeof "…");
	if (p) {
		memcpy(p, s, cut);
		memcpy(p + cut, "…", sizeof "…");
	}
	return p;
}

double ts_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int ts_json_string(ts_buf *b, const char *s)
{
	int rc = ts_buf_putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p && !rc; p++) {
		switch (*p) {
		case '"': rc = ts_buf_append(b, "\\\"", 2); break;
		case '\\': rc = ts_buf_append(b, "\\\\", 2); break;
		case '\n': rc = ts_buf_append(b, "\\n", 2); break;
		case '\r': rc = ts_buf_append(b, "\\r", 2); break;
		case '\t': rc = ts_buf_append(b, "\\t", 2); break;
		default:
			if (*p < 0x20 || *p == 0x7F)
				rc = ts_buf_printf(b, "\\u%04x", *p);
			else
				rc = ts_buf_putc(b, (char)*p);
		}
	}
	return rc ? rc : ts_buf_putc(b, '"');
}
