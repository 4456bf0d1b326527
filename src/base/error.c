/* error.c - the messages of the error codes, the error value, and
 * diagnostics made safe to show. */
#include "base/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *ts_strerror(int code)
{
	switch (code) {
	case TS_OK: return "success";
#define TS__MSG(name, value, msg)                                                                  \
	case TS_##name: return msg;
		TS_ERRORS(TS__MSG)
#undef TS__MSG
	}
	return "unknown error";
}

/* The start of the character at or before s[i] (i < len of s). */
static size_t char_start(const char *s, size_t i)
{
	while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80)
		i--;
	return i;
}

size_t ts_text_fit(const char *text, char *out, size_t outsz)
{
	static const char gap[] = "…";
	size_t n = strlen(text), g = sizeof gap - 1;
	if (n < outsz || outsz < 4 * g) {
		n = n < outsz ? n : char_start(text, outsz - 1);
		memcpy(out, text, n);
		out[n] = '\0';
		return n;
	}
	/* A quarter for the head, the rest for the tail: the reason and
	 * what to do come last. */
	size_t room = outsz - 1 - g, head = char_start(text, room / 4);
	size_t from = n - (room - head);
	while (from < n && ((unsigned char)text[from] & 0xC0) == 0x80)
		from++;
	memcpy(out, text, head);
	memcpy(out + head, gap, g);
	memcpy(out + head + g, text + from, n - from);
	out[head + g + n - from] = '\0';
	return head + g + n - from;
}

int ts_error_set(ts_error *e, int code, const char *fmt, ...)
{
	if (!e)
		return code;
	e->code = code;
	if (!fmt) {
		snprintf(e->msg, sizeof e->msg, "%s", ts_strerror(code));
		return code;
	}
	char text[TS_MSG_MAX]; /* on the stack: errors of memory run short too */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	ts_text_fit(text, e->msg, sizeof e->msg);
	return code;
}

int ts_error_prefix(ts_error *e, const char *fmt, ...)
{
	if (!e)
		return 0;
	char text[TS_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	int h = vsnprintf(text, sizeof text - sizeof e->msg - 2, fmt, ap);
	va_end(ap);
	if (h < 0)
		h = 0;
	if ((size_t)h >= sizeof text - sizeof e->msg - 2)
		h = (int)strlen(text);
	snprintf(text + h, sizeof text - (size_t)h, ": %s", ts_error_msg(e));
	ts_text_fit(text, e->msg, sizeof e->msg);
	return e->code;
}

const char *ts_error_msg(const ts_error *e)
{
	return e->msg[0] ? e->msg : ts_strerror(e->code);
}

int ts_errno_code(int e)
{
	switch (e) {
	case ENOSPC:
	case EDQUOT: return TS_ENOSPC;
	case ENOMEM: return TS_ENOMEM;
	default: return TS_EIO;
	}
}

int ts_error_retryable(int code)
{
	return code == TS_ENOSPC || code == TS_ENOMEM || code == TS_ECHILD || code == TS_EBUSY ||
	       code == TS_ECHANGED;
}

/* Length of the UTF-8 sequence at s (the bytes up to NUL), or 0 when
 * s[0] does not start one: a lead byte and its continuation bytes (the
 * terminal shows an overlong form as a replacement character, never as a
 * control). */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] >= 0xF5 ? 0 : s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return s[0] < 0x80 ? 1 : n;
}

/* The code point of the sequence s[0..n). */
static unsigned long code_point(const unsigned char *s, size_t n)
{
	unsigned long cp = n == 1 ? s[0] : s[0] & (0x7F >> n);
	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (s[i] & 0x3F);
	return cp;
}

/* Does a terminal act on cp instead of showing it? */
static int is_control(unsigned long cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || cp == 0x200E || cp == 0x200F ||
	       cp == 0x061C || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t ts_diag_escape(const char *msg, char *out, size_t outsz)
{
	const unsigned char *s = (const unsigned char *)msg;
	size_t o = 0;
	while (*s) {
		char esc[8];
		size_t n = utf8_len(s), k;
		unsigned long cp = n ? code_point(s, n) : 0;
		if (!n || is_control(cp))
			k = (size_t)snprintf(esc, sizeof esc, n > 1 ? "\\u%04lX" : "\\x%02lX",
			                     n ? cp : (unsigned long)s[0]);
		else
			memcpy(esc, s, k = n);
		if (o + k >= outsz)
			break;
		memcpy(out + o, esc, k);
		o += k;
		s += n ? n : 1;
	}
	out[o] = '\0';
	return o;
}
