/* epub.h - the whole book as a read-aloud EPUB 3: the text and the voice
 * together, for reading systems with Media Overlays (Thorium Reader,
 * Apple Books, ...) and the readers who need both (low vision, dyslexia).
 *
 * One XHTML document per chapter with its sentences as the timing file
 * holds them (paragraphs kept, the spoken title as the heading), each in
 * an element with an id; one SMIL 3.0 document per chapter pairing each
 * sentence with its clip of the chapter's audio (the cue's start and end);
 * nav.xhtml and toc.ncx; the package document with media:duration of each
 * overlay and of the book, and media:active-class with its style.  The
 * archive is written with libzip, "mimetype" first and stored, the audio
 * stored (it does not compress) and read from its file as the archive is
 * written. */
#ifndef TS_EPUB_H
#define TS_EPUB_H

#include "base/error.h"
#include "publish/bookfile.h"

#include <stddef.h>

typedef struct ts_epub_chapter {
	const char *title;
	const char *vtt;        /* path of its WebVTT timing file */
	const char *audio;      /* path of its audio, in a core media type: */
	const char *audio_type; /* "audio/mpeg" (MP3) or "audio/mp4" (AAC) */
} ts_epub_chapter;

typedef struct ts_epub_opts {
	const char *title;
	const char *author;            /* or NULL */
	const char *identifier;        /* unique and stable for the book: "urn:uuid:..." */
	const char *modified;          /* "YYYY-MM-DDThh:mm:ssZ" */
	const char *cover;             /* a JPEG or PNG file (checked), or NULL */
	long owner_pid;                /* tags the temporary name */
	volatile sig_atomic_t *cancel; /* set to stop (TS_ECANCELED), or NULL */
} ts_epub_opts;

/* Write the EPUB of the n chapters ch at the temporary name of path
 * (ts_temp_name(path, o->owner_pid)), for the caller to put in place.
 * Nothing is left there on failure.  0, or a code with err filled. */
int ts_epub_write(const char *path, const ts_epub_chapter *ch, size_t n, const ts_epub_opts *o,
                  ts_error *err);

/* The whole book as a read-aloud EPUB: the make function of its row of
 * the whole-book kinds (a ts_bookfile_make_fn, see bookfile.h).  The
 * audio is the chapters' own files when book->audio_format is "mp3" (a
 * core media type), else each chapter in AAC (audio/mp4), made in
 * book->workdir and removed once the EPUB is made; every chapter needs
 * its vtt.  The identifier comes from the title and author, the
 * modification time is the newest chapter's: the same chapters give the
 * same bytes. */
int ts_epub_make(const char *path, const ts_bookfile *book, ts_error *err);

#endif
