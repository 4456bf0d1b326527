/* heading.h - what a chapter heading of a Chinese book looks like.
 *
 * 第N章 (回 节 卷 集 部 篇, traditional 節) with N in Arabic, full-width or
 * Chinese numerals of any style (一百零八, 两百, 贰拾壹, 廿三), optionally
 * after 正文 and followed by a title; or one of the headings that have no
 * number (楔子, 序章, 尾声, 番外 ..., simplified and traditional).  The
 * book layer finds the lines and cuts the book; this module only says
 * whether a line is a heading.  Needs no language data, so that a book
 * can be split before (or without) loading a voice. */
#ifndef TS_HEADING_H
#define TS_HEADING_H

#include <stddef.h>

enum {
	TS_HEADING_NONE = 0,
	TS_HEADING_CHAPTER = 1,
	/* 第N卷, 第N部, 第N篇: a volume, which may stand directly before the
	 * heading of its first chapter. */
	TS_HEADING_VOLUME = 2,
};

/* What kind of heading line[0..len) is (TS_HEADING_*).  line is valid
 * UTF-8 with no markup, no line ending and no space at either end. */
int ts_heading_kind(const char *line, size_t len);

#endif
