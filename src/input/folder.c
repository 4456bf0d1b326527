/* folder.c - the folder kind of input: a directory whose .txt files are
 * the chapters of a book, in natural order of their names (ts_natural_cmp,
 * folder.h), each one chapter named by its first line when that is a
 * heading.  The book is named after the folder. */
#include "input/folder.h"
#include "input/kind.h"

#include "input/book.h"
#include "input/decode.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int ts_natural_cmp(const char *a, const char *b)
{
	const char *pa = a, *pb = b;
	while (*pa && *pb) {
		if (*pa >= '0' && *pa <= '9' && *pb >= '0' && *pb <= '9') {
			while (*pa == '0')
				pa++;
			while (*pb == '0')
				pb++;
			size_t la = 0, lb = 0;
			while (pa[la] >= '0' && pa[la] <= '9')
				la++;
			while (pb[lb] >= '0' && pb[lb] <= '9')
				lb++;
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = strncmp(pa, pb, la);
			if (c)
				return c;
			pa += la;
			pb += lb;
			continue;
		}
		if (*pa != *pb)
			return (unsigned char)*pa < (unsigned char)*pb ? -1 : 1;
		pa++, pb++;
	}
	if (*pa || *pb)
		return *pa ? 1 : -1;
	return strcmp(a, b);
}

/* Chapter files are the .txt files that are not hidden. */
static int filter_txt(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	if (d->d_name[0] == '.' || n <= 4 || strcasecmp(d->d_name + n - 4, ".txt") != 0)
		return 0;
	/* lexicon.txt beside the chapters is a pronunciation lexicon. */
	return strcasecmp(d->d_name, "lexicon.txt") != 0;
}

static int cmp_dirent(const struct dirent **a, const struct dirent **b)
{
	return ts_natural_cmp((*a)->d_name, (*b)->d_name);
}

/* Name the book after the folder at path (or, for ".", the working
 * directory).  0 or TS_ENOMEM. */
static int folder_title(ts_book *b, const char *path)
{
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	const char *s = path + len;
	while (s > path && s[-1] != '/')
		s--;
	char *name = ts_strndup(s, (size_t)(path + len - s));
	if (!name)
		return TS_ENOMEM;
	int rc;
	if (strcmp(name, ".") == 0 || name[0] == '\0') {
		char cwd[4096];
		rc = ts_book_set_title(b, getcwd(cwd, sizeof cwd) && strrchr(cwd, '/')
		                              ? strrchr(cwd, '/') + 1
		                              : "book");
	} else {
		rc = ts_book_set_title(b, name);
	}
	free(name);
	return rc;
}

static int folder_open(ts_book *b, const char *path)
{
	struct dirent **list = NULL;
	int n = scandir(path, &list, filter_txt, cmp_dirent);
	if (n < 0) {
		ts_book_diag(b, TS_ERROR, "%s: cannot read directory: %s", path, strerror(errno));
		return TS_EIO;
	}
	int rc = 0, bad = 0;
	ts_buf p = {0};
	if (n == 0) {
		ts_book_diag(b, TS_ERROR,
		             "%s: no .txt files in this directory (chapters must be .txt files)",
		             path);
		rc = TS_ENOTXT;
	}
	if (!ts_book_titled(b) && n > 0)
		rc = folder_title(b, path);
	for (int i = 0; i < n && !rc; i++) {
		ts_buf_clear(&p);
		if (ts_buf_printf(&p, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/",
		                  list[i]->d_name)) {
			rc = TS_ENOMEM;
			break;
		}
		struct stat st;
		if (stat(p.data, &st) == 0 && S_ISDIR(st.st_mode))
			continue;
		int r = ts_input_scan(b, p.data, p.data, 0);
		if (r == TS_ENOMEM || r == TS_ECANCELED)
			rc = r;
		else if (r)
			bad = r;
	}
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
	ts_buf_free(&p);
	return rc ? rc : bad;
}

static int folder_sniff(const char *path, const struct stat *st)
{
	(void)path;
	return st && S_ISDIR(st->st_mode);
}

const ts_input_kind ts_input_folder = {"folder of chapters", NULL, folder_sniff, folder_open};
