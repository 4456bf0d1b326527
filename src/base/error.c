/* error.c - the messages of the error codes and the error value. */
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

int ts_error_set(ts_error *e, int code, const char *fmt, ...)
{
	if (!e)
		return code;
	e->code = code;
	if (!fmt) {
		snprintf(e->msg, sizeof e->msg, "%s", ts_strerror(code));
		return code;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return code;
}

int ts_error_prefix(ts_error *e, const char *fmt, ...)
{
	if (!e)
		return 0;
	char head[512], old[sizeof e->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	snprintf(old, sizeof old, "%s", ts_error_msg(e));
	size_t h = strlen(head);
	if (h + 2 >= sizeof e->msg)
		h = sizeof e->msg - 3;
	memcpy(e->msg, head, h);
	memcpy(e->msg + h, ": ", 2);
	size_t rest = sizeof e->msg - h - 3, n = strlen(old);
	memcpy(e->msg + h + 2, old, n < rest ? n : rest);
	e->msg[h + 2 + (n < rest ? n : rest)] = '\0';
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
	return code == TS_ENOSPC || code == TS_ENOMEM || code == TS_ECHILD || code == TS_EBUSY;
}
