/* bookkinds.c - the table of whole-book kinds (see bookkinds.h). */
#include "publish/bookkinds.h"

#include "publish/epub.h"
#include "publish/m4b.h"

const ts_book_kind ts_book_kinds[] = {
    {"m4b", "m4b", "the whole book as one audio file with chapters", "book.m4b", 0, ts_m4b_make},
    {"epub", "epub", "a read-aloud EPUB 3: the text with the voice", "book.epub", 1, ts_epub_make},
};

_Static_assert(sizeof ts_book_kinds / sizeof ts_book_kinds[0] == TS_BOOK_KINDS,
               "TS_BOOK_KINDS is the number of rows of ts_book_kinds");
