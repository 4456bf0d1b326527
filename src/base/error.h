/* error.h - how the library reports what went wrong: one list of error
 * codes and their messages, an error value (code and message) for the
 * functions that have no handle to keep it on, and one callback type for
 * diagnostics (warnings and errors the caller decides how to show).
 *
 * Functions that can fail return 0 or a negative TS_E* code.  Where there
 * is a handle, its _errmsg() getter says what happened; where there is
 * none, the function fills a ts_error the caller passes (NULL is allowed:
 * then only the code is returned).  The library never prints. */
#ifndef TS_ERROR_H
#define TS_ERROR_H

#include <stddef.h>

/* name, value, message: the only place a code and its message are kept. */
#define TS_ERRORS(X)                                                                               \
	X(ENOMEM, -1, "out of memory")                                                             \
	X(EIO, -2, "input/output error")                                                           \
	X(ENOENT, -3, "no such file or directory")                                                 \
	X(EINVAL, -4, "invalid argument")                                                          \
	X(EUTF8, -5, "text is not valid UTF-8")                                                    \
	X(EBINARY, -6, "binary file, not text")                                                    \
	X(EEMPTY, -7, "nothing to speak")                                                          \
	X(ESPEAK, -8, "speech synthesis failed")                                                   \
	X(EAUDIO, -9, "audio file error")                                                          \
	X(EVOICE, -10, "voice preset missing or invalid")                                          \
	X(EBUSY, -11, "resource already in use")                                                   \
	X(ECHILD, -12, "worker process failed")                                                    \
	X(ENOTXT, -13, "no .txt files in directory")                                               \
	X(EDECODE, -14, "text cannot be decoded (wrong or unknown encoding)")                      \
	X(ETOOLONG, -15, "line too long")                                                          \
	X(EEXIST, -16, "already exists")                                                           \
	X(ECANCELED, -17, "interrupted")                                                           \
	X(ENOSPC, -18, "no space left on the device")                                              \
	X(ETEMP, -19, "cannot write a temporary file")                                             \
	X(ECHANGED, -20, "the input changed while it was being read")

enum {
	TS_OK = 0,
#define TS__CODE(name, value, msg) TS_##name = value,
	TS_ERRORS(TS__CODE)
#undef TS__CODE
};

/* Message for a TS_E* code ("success" for 0); never NULL, static storage. */
const char *ts_strerror(int code);

/* An error as a value: the code and a message that says what, where and,
 * when it helps, what to do. */
typedef struct ts_error {
	int code;
	char msg[1024];
} ts_error;

/* Set *e (when e is not NULL) to code with the message fmt (printf-style;
 * NULL for ts_strerror(code)).  Returns code, so that a function can end
 * with `return ts_error_set(err, TS_EIO, "%s: %s", path, strerror(errno));`. */
int ts_error_set(ts_error *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prefix the message of *e with "prefix: " (printf-style), keeping its
 * code; returns the code. */
int ts_error_prefix(ts_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The code of a failed system call's errno: TS_ENOSPC for a full disk or
 * quota and TS_ENOMEM, which a retry may cure, else TS_EIO. */
int ts_errno_code(int e);

/* Can a retry cure an error of this code (a full disk, memory, a killed
 * worker, a lock held by another build, an input that changed while it
 * was read)?  Engines retry exit code 75. */
int ts_error_retryable(int code);

/* The message of e: its text, or the code's message when it has none. */
const char *ts_error_msg(const ts_error *e);

/* text into out (outsz > 0; always NUL-terminated): whole when it fits,
 * else its head and its tail joined by "…", each cut between characters,
 * so that a message keeps what it is about (at its start) and its reason
 * (at its end) however long the paths between them are.  Returns the
 * length of out. */
size_t ts_text_fit(const char *text, char *out, size_t outsz);

/* How long a message may be before ts_error_set() and the diagnostics
 * fit it (ts_text_fit) into their buffers: several paths of PATH_MAX. */
#define TS_MSG_MAX 16384

/* How serious a diagnostic is. */
typedef enum ts_level {
	TS_WARNING = 0, /* the work goes on; the result may lack something */
	TS_ERROR = 1,   /* this part failed; the rest goes on */
	TS_INFO = 2,    /* detail for whoever asked for it (a line per chapter built) */
} ts_level;

/* Where diagnostics go: the caller shows them (or not).  msg is valid
 * during the call only.  It may quote the input as it is (a title, a
 * file name): show it through ts_diag_escape(). */
typedef void (*ts_diag_fn)(void *ud, ts_level level, const char *msg);

/* msg made safe to show on a terminal, into out (outsz > 0; always
 * NUL-terminated, cut between characters when it does not fit): what a
 * message quotes from the input cannot move the cursor, change colours
 * or reorder the line.  C0 controls, DEL and bytes that are not UTF-8
 * become \xHH (ESC: \x1B); C1 controls, the bidirectional embeddings,
 * overrides and isolates (U+202A-U+202E, U+2066-U+2069) and the marks
 * LRM, RLM and ALM become \uHHHH.  Returns the length of out. */
size_t ts_diag_escape(const char *msg, char *out, size_t outsz);

#endif
