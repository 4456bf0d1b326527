/* heading.h - what a chapter heading of a Chinese book looks like.
 *
 * 第N章 (回 节 卷 集 部 篇, traditional 節) with N in Arabic, full-width or
 * Chinese numerals of any style (一百零八, 两百, 贰拾壹, 廿三), optionally
 * after 正文 and followed by a title; or one of the headings that have no
 * number (楔子, 序章, 尾声, 番外 ..., simplified and traditional); or a
 * volume line with no 第 (卷一, VIP卷, 正文卷, 作品相关).  The
 * input layer reads the lines and cuts the book (input/split.c); this
 * module says whether a line is a heading, and what the heading reads
 * once the markup of web-scraped books and its spaces are cleaned off.
 * Needs no language data, so that a book can be split before (or
 * without) loading a voice. */
#ifndef TS_HEADING_H
#define TS_HEADING_H

#include <stddef.h>

/* A heading is shorter than this, in bytes: a longer line is none. */
#define TS_HEADING_BYTES 256

enum {
	TS_HEADING_NONE = 0,
	TS_HEADING_CHAPTER = 1,
	/* 第N卷, 第N部, 第N篇, 卷N, VIP卷 ...: a volume, which may stand
	 * directly before the heading of its first chapter, or hold it on
	 * the same line (第一卷 潜龙 第1章 少年).  第N卷完 (a volume's end)
	 * is no heading. */
	TS_HEADING_VOLUME = 2,
	/* A chapter heading with no number (楔子, 番外一, 后记): one that
	 * stands outside the volumes of a web novel. */
	TS_HEADING_SPECIAL = 3,
};

/* What kind of heading line[0..len) is (TS_HEADING_*).  line is valid
 * UTF-8 with no markup, no line ending and no space at either end. */
int ts_heading_kind(const char *line, size_t len);

/* For a volume heading line[0..len) (as ts_heading_kind() wants it) that
 * goes on with the heading of a chapter (第一卷 潜龙在渊 第1章 少年,
 * VIP卷 第101章, 第二卷第1章): the offset of that chapter heading (its
 * 第).  0 for any other line. */
size_t ts_heading_chapter_at(const char *line, size_t len);

/* What kind of heading the raw line[0..len) (UTF-8, no line ending) of a
 * text file is (TS_HEADING_*), once cleaned: markup dropped (<p>第一章</p>),
 * &nbsp; read as a space, the spaces at its ends trimmed.  For a heading,
 * the cleaned line, with inner runs of spaces folded to one, is stored in
 * out (NUL-terminated, truncated to outsz). */
int ts_heading_line(const char *line, size_t len, char *out, size_t outsz);

/* If line (UTF-8, no newline) is a chapter heading, return 1 and store the
 * heading as ts_heading_line() does; else return 0. */
int ts_heading(const char *line, size_t len, char *out, size_t outsz);

#endif
