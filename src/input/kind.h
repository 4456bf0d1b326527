/* kind.h - the kinds of input a book is read from, as rows of one table.
 *
 * A kind is one file of src/input (txt.c, folder.c, stdin.c, epub.c) that
 * defines one row: how to tell an input of its kind, and how to add its
 * chapters to a book.  kind.c holds the table and asks its rows in order;
 * nothing else branches on the kind of an input.  Adding a kind is one
 * file, one row in kind.c's table and a test (see README). */
#ifndef TS_INPUT_KIND_H
#define TS_INPUT_KIND_H

#include <sys/stat.h>

struct ts_book;

typedef struct ts_input_kind {
	const char *name; /* what it is, for people: "text file", "EPUB" */
	/* The name of an input of this kind in messages; NULL: its path. */
	const char *display;
	/* Is the input at path of this kind?  st is its stat(), or NULL when
	 * there is nothing at path.  Reads no more than a few bytes. */
	int (*sniff)(const char *path, const struct stat *st);
	/* Add the input's chapters to b: 0, or a negative code with the
	 * reason reported to b (see ts_book_add()). */
	int (*open)(struct ts_book *b, const char *path);
} ts_input_kind;

extern const ts_input_kind ts_input_stdin;  /* stdin.c: "-" */
extern const ts_input_kind ts_input_folder; /* folder.c: a directory of .txt files */
extern const ts_input_kind ts_input_epub;   /* epub.c: an EPUB */
extern const ts_input_kind ts_input_text;   /* txt.c: any other regular file */

#endif
