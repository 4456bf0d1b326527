/* manifest.h - manifest.json, what the output folder holds: the book,
 * the settings it was read with, its whole-book files and each chapter's
 * files, length and loudness.  Its chapter entries are also what the
 * playlist and the read-along page are made from. */
#ifndef TS_MANIFEST_H
#define TS_MANIFEST_H

#include "publish/bookkinds.h"
#include "publish/cues.h"
#include "base/util.h"
#include "speech/voice.h"

#include <stddef.h>
#include <stdint.h>

/* What the manifest records of one chapter. */
typedef struct ts_chapter_entry {
	int index;
	const char *title;
	const char *source;
	const char *audio; /* file name inside the output folder */
	/* Timing files (names inside the output folder) by format, in the
	 * order of the TS_CUES_* bits, the read-along page's script too; NULL
	 * where none was written. */
	const char *timing[TS_CUES_NFORMATS];
	double duration_s;
	size_t sentences;
	size_t chars;
	int front_matter;
	int outdated; /* the files are of an earlier build: the chapter is to be built again */
	/* Level of the audio (NAN when not measured: normalization off). */
	double input_lufs;   /* as synthesized */
	double gain_db;      /* applied */
	double output_lufs;  /* measured on the file's samples */
	double true_peak_db; /* dBTP, measured likewise */
	double limited_s;    /* time the limiter lowered the level */
} ts_chapter_entry;

/* A speaker and the preset cast for it (--dialogue voices). */
typedef struct ts_cast_pair {
	char *speaker;
	const char *voice;
} ts_cast_pair;

typedef struct ts_build_settings {
	const ts_voice *voice;
	int wpm; /* eSpeak rate used */
	double rate_factor;
	int sample_rate; /* of the files */
	int synth_rate;  /* of the synthesizer */
	const char *format;
	int normalize;       /* loudness normalization on */
	double target_lufs;  /* its target */
	double ceiling_dbtp; /* and true-peak ceiling */
	int quality;         /* --quality, or TS_QUALITY_DEFAULT (-1) */
	const char *author;  /* --author, or NULL */
	int complete;        /* every chapter is there and up to date */
	/* The whole-book files by their rows of ts_book_kinds (names), or NULL. */
	const char *book_files[TS_BOOK_KINDS];
	/* --dialogue voices: each speaker and its preset (ncast 0 and
	 * dialogue_voices 0: the narrator reads everything, and the manifest
	 * says nothing of it). */
	int dialogue_voices;
	const ts_cast_pair *cast;
	size_t ncast;
} ts_build_settings;

/* Is the manifest (tingshu's) at path that of another book than the one
 * titled title whose inputs and chapters' audio files are names[0..n)?
 * Another book has another title, and none of its chapters was read from
 * one of those inputs or has one of those audio files (a book edited
 * under a new file name keeps its chapters' names).  1 with what it holds
 * (JSON strings) appended to what: "TITLE" (from "SOURCE"); 0 when it is
 * the same book or cannot be read; TS_ENOMEM. */
int ts_manifest_other_book(const char *path, const char *title, const char *const *names, size_t n,
                           ts_buf *what);

/* Manifest text for a book; appended to b. */
int ts_manifest(ts_buf *b, const char *book_title, const ts_build_settings *set,
                const ts_chapter_entry *ch, size_t n);

#endif
