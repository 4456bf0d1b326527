/* epubread.h - the text of an EPUB (2 or 3) book, and its chapters.
 *
 * META-INF/container.xml names the package document; its spine gives the
 * documents in reading order, its metadata the title and author.  The
 * chapters come from the table of contents: the EPUB 3 nav (epub:type
 * "toc"), else the EPUB 2 NCX, else one chapter per document, titled by
 * its first heading.  A contents entry that points into a document
 * (ch.xhtml#sec3) starts its chapter there; a document without an entry
 * belongs to the chapter before it.
 *
 * What is not read: documents that are not the book's text (the cover,
 * the copyright page, the table of contents, landmarks: by epub:type or
 * role, the EPUB 2 guide, the nav document itself) and non-linear ones;
 * notes and the marks that point to them; ruby annotations (the base text
 * is read once); images and their alternative text; scripts and styles.
 * A chapter's own heading at its start is not read either: its title is.
 *
 * Bad-input policy: an EPUB that is not a zip or is cut short, has no
 * package document, lists a spine document it does not hold or one
 * outside it, or holds content encrypted with DRM (META-INF/encryption.xml
 * naming a document; obfuscated fonts are fine) is refused as a whole
 * with a message naming the file and what is wrong.  Every entry is read
 * with a bound (TS_EPUB_ENTRY_MAX bytes, whatever the zip says of its
 * size), so that memory stays bounded by the largest document, never the
 * book.  Documents are parsed with libxml2's HTML parser, which forgives
 * what real EPUBs hold; no entity or network access.  Nothing is dropped
 * without a word: a document nested deeper than its elements can be read
 * (1,024 levels: "DOC:LINE: elements nested more than ..."), one of binary
 * data (a NUL byte), one whose bytes are not UTF-8 when it declares UTF-8
 * or nothing and whose encoding cannot be told (else it is read in the
 * encoding they look like, as a text file is: text/encoding.c), and a
 * package document the XML parser gives up on before its spine (an entity
 * loop, too deep: its message and line) refuse the EPUB as a whole.  An
 * internal DTD subset (EPUB 2's <!DOCTYPE ... [<!ENTITY ...>]>) is not
 * text. */
#ifndef TS_EPUBREAD_H
#define TS_EPUBREAD_H

#include "base/error.h"

#include <stddef.h>
#include <stdio.h>

#define TS_EPUB_ENTRY_MAX (32u << 20)

typedef struct ts_epub_chapter {
	char *title;
	long start, end; /* the body's byte range in the text written */
	long line;       /* the line its body starts on */
	size_t chars;    /* non-space characters of the body */
	int front;       /* text before the first contents entry */
} ts_epub_chapter;

typedef struct ts_epub_book {
	char *title, *author; /* dc:title, dc:creator; NULL when absent */
	unsigned char *cover; /* the cover image's bytes, or NULL */
	size_t cover_len;
	ts_epub_chapter *chapter; /* in reading order */
	size_t chapters;
	size_t skipped; /* documents not read (cover, notes, …) */
} ts_epub_book;

/* Does the file at path look like an EPUB (a zip whose first entry is
 * "mimetype", or a name ending in .epub)?  Reads at most 64 bytes. */
int ts_epub_sniff(const char *path);

/* Read the EPUB at path (shown as display): its text into out, in UTF-8,
 * a paragraph a line, each chapter's title on a line of its own before
 * its body; the chapters, title, author and cover into *book.  0, or a
 * code with err saying what is wrong (naming display).  The caller frees
 * *book with ts_epub_book_clear(), also on failure. */
int ts_epub_read(const char *path, const char *display, FILE *out, ts_epub_book *book,
                 ts_error *err);

void ts_epub_book_clear(ts_epub_book *book);

#endif
