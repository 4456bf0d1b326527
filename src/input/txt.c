/* txt.c - the text file kind of input: any regular file that no other
 * kind claims is a book in one text file, split at its chapter headings
 * (split.c) once it is UTF-8 (decode.c). */
#include "input/kind.h"

#include "input/book.h"
#include "input/decode.h"

static int text_sniff(const char *path, const struct stat *st)
{
	(void)path;
	return st && S_ISREG(st->st_mode);
}

static int text_open(ts_book *b, const char *path)
{
	return ts_input_scan(b, path, path, 1);
}

const ts_input_kind ts_input_text = {"text file", NULL, text_sniff, text_open};
