/* report.h - a build's progress and outcome as the command line words
 * them: the library reports figures (ts_progress, ts_build_summary), the
 * command line chooses the words. */
#ifndef TS_CLI_REPORT_H
#define TS_CLI_REPORT_H

#include "tingshu.h"

#include <stddef.h>

/* A duration as people read it: "12.5 s", "3 min 05 s", "2 h 07 min". */
void cli_duration_text(double s, char *out, size_t sz);

/* p as a line of text: "[3/40 chapters] 1 h 02 min of audio made,
 * finishing 1 chapter (45%), ETA 12 min 30 s", cut to fit out. */
void cli_progress_text(const ts_progress *p, char *out, size_t sz);

/* The closing line of a build into outdir, cut to fit out: "built 3 of 40
 * chapters (1 h 02 min of audio), 37 up to date in 1 min 05 s into out",
 * with ", 2 failed" before " in" when chapters failed, or "40 chapters up
 * to date in out".  A build that ended in error rc (not 0) has one too,
 * ending "; interrupted" (TS_ECANCELED) or "; the book is not finished
 * (the error above)".  Job logs grep for it: keep its shape. */
void cli_summary_text(const ts_build_summary *s, int rc, const char *outdir, char *out, size_t sz);

#endif
