/* kind.c - which kind of input a path is (see kind.h), and adding it to a
 * book: the one table of kinds, asked in order, the first whose sniff
 * says yes reads the input. */
#include "input/kind.h"

#include "input/book.h"
#include "input/decode.h"

#include <errno.h>
#include <string.h>

/* In the order they are asked: "-" before any file, a directory before a
 * file, an EPUB before the text file that any regular file is. */
static const ts_input_kind *const kinds[] = {
    &ts_input_stdin,
    &ts_input_folder,
    &ts_input_epub,
    &ts_input_text,
};

int ts_book_add(ts_book *b, const char *path)
{
	if (ts_book_sweep_due(b))
		ts_input_sweep();
	struct stat st;
	int found = stat(path, &st) == 0;
	int e = errno;
	const ts_input_kind *kind = NULL;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && !kind; i++)
		if (kinds[i]->sniff(path, found ? &st : NULL))
			kind = kinds[i];
	if (ts_book_cancelled(b))
		return ts_book_stopped(b, kind && kind->display ? kind->display : path);
	if (kind)
		return kind->open(b, path);
	if (!found) {
		ts_book_diag(b, TS_ERROR, "%s: %s", path,
		             e == ENOENT ? "no such file or directory" : strerror(e));
		return e == ENOENT ? TS_ENOENT : TS_EIO;
	}
	/* FIFOs and devices cannot be re-read by workers. */
	ts_book_diag(b, TS_ERROR, "%s: not a regular file (use - to read standard input)", path);
	return TS_EINVAL;
}
