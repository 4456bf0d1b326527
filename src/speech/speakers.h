/* speakers.h - who says each quotation of a book, printed (tingshu
 * speakers): the dialogue's attribution (zh/dialogue.h) over the book's
 * chapters, with the cast file's names.  Part of the library's
 * interface: tingshu.h includes this header. */
#ifndef TS_SPEAKERS_H
#define TS_SPEAKERS_H

#include "base/error.h"
#include "base/util.h"

#include <signal.h>
#include <stddef.h>

typedef struct ts_speakers_opts {
	const char *encoding;          /* an iconv name, or NULL to detect each input's */
	const char *cast;              /* a cast file, or NULL for a cast.txt beside the input */
	int explain;                   /* say why, in a fourth field */
	volatile sig_atomic_t *cancel; /* set (by a signal handler) to stop */
} ts_speakers_opts;

/* Every quotation of the book made of files, in order: a line
 * "N<TAB>speaker<TAB>quotation" (N the chapter's number as in the file
 * names of a build; the speaker as the text names them, or the cast's
 * first name for them; "?" when it cannot be told; "-" for what is not
 * one person's speech), and "<TAB>why" before the newline with
 * o->explain.  A cast file's bad lines are warnings to diag; an input
 * that cannot be read is reported to diag and counted in *failed.
 * Returns 0, or a negative code with err filled: the cast file cannot be
 * read, TS_ECANCELED, TS_ENOMEM, or the code out returned. */
int ts_speakers_print(const ts_speakers_opts *o, char *const *files, size_t nfiles, ts_write_fn out,
                      void *out_ud, ts_diag_fn diag, void *ud, size_t *failed, ts_error *err);

#endif
