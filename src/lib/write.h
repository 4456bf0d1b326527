/* write.h - audio files, written under a temporary name and renamed into
 * place only when complete, behind one small table of formats.
 *
 * A file being written is ".NAME.part-PID" in the output folder, where
 * PID is the build's parent process, so an interrupted build can remove
 * what it left (ts_writer_sweep). */
#ifndef TS_WRITE_H
#define TS_WRITE_H

#include <stddef.h>
#include <stdint.h>

typedef struct ts_writer ts_writer;

typedef struct ts_format {
	const char *name; /* --format value */
	const char *ext;  /* file extension */
	int (*open)(ts_writer *w, int rate);
	int (*write)(ts_writer *w, const int16_t *s, size_t n);
	int (*close)(ts_writer *w);
} ts_format;

/* Format by name, or NULL. */
const ts_format *ts_format_find(const char *name);
/* Comma-separated names of the formats, static storage. */
const char *ts_format_names(void);

/* Open path for writing (through a temporary name; owner_pid tags it).
 * expect_frames is a generous estimate of the length, which lets a format
 * choose a container that can hold it.  Returns NULL with *err and a
 * message in errbuf on failure. */
ts_writer *ts_writer_open(const ts_format *fmt, const char *path, int rate, uint64_t expect_frames,
                          long owner_pid, int *err, char *errbuf, size_t errsz);
int ts_writer_write(ts_writer *w, const int16_t *s, size_t n);
/* Finish the file and rename it into place; frees w.  Returns 0 or a
 * negative code with the message in errbuf. */
int ts_writer_commit(ts_writer *w, char *errbuf, size_t errsz);
/* Drop the file; frees w.  ts_writer_abort(NULL) does nothing. */
void ts_writer_abort(ts_writer *w);
const char *ts_writer_errmsg(const ts_writer *w);

/* Write a small text file atomically (temporary name, then rename).
 * Returns 0 or TS_EIO with the message in errbuf. */
int ts_write_text_file(const char *path, const char *data, size_t len, long owner_pid, char *errbuf,
                       size_t errsz);

/* The temporary name of path while it is written (".NAME.part-PID" in
 * its folder), for other files written the same way.  NULL when out of
 * memory; the caller frees it. */
char *ts_temp_name(const char *path, long owner_pid);

/* Remove temporary files left in dir by a build whose parent was pid. */
void ts_writer_sweep(const char *dir, long pid);

#endif
