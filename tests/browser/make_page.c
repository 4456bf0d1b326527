/* make_page.c - write a read-along page for chapters given on the command
 * line, through the library's ts_readalong_html(): the browser test uses
 * it to make a page with timing files of its own and a hostile title.
 *
 *   make_page OUTDIR PAGE BOOK_TITLE [INDEX AUDIO VTT DURATION TITLE]...
 *
 * AUDIO and VTT are file names inside OUTDIR (VTT "-" for none); the page
 * is written to PAGE.  Warnings go to stderr; exit 1 on failure. */
#include "publish/manifest.h"
#include "publish/readalong.h"
#include "base/util.h"
#include "audio/write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_diag(void *ud, ts_level level, const char *msg)
{
	(void)ud;
	fprintf(stderr, "make_page: %s: %s\n", level ? "error" : "warning", msg);
}

int main(int argc, char **argv)
{
	if (argc < 4 || (argc - 4) % 5 != 0) {
		fprintf(stderr, "usage: make_page OUTDIR PAGE BOOK_TITLE "
		                "[INDEX AUDIO VTT DURATION TITLE]...\n");
		return 2;
	}
	size_t n = (size_t)(argc - 4) / 5;
	ts_chapter_entry *ch = calloc(n ? n : 1, sizeof *ch);
	if (!ch)
		return 1;
	for (size_t i = 0; i < n; i++) {
		char **a = argv + 4 + 5 * i;
		ch[i].index = atoi(a[0]);
		ch[i].audio = a[1];
		ch[i].vtt = strcmp(a[2], "-") == 0 ? NULL : a[2];
		ch[i].duration_s = strtod(a[3], NULL);
		ch[i].title = a[4];
		ch[i].source = "";
	}
	ts_buf page = {0};
	ts_error err = {0};
	int rc = ts_readalong_html(&page, argv[1], argv[3], ch, n, on_diag, NULL);
	if (rc)
		fprintf(stderr, "make_page: %s\n", ts_strerror(rc));
	else if ((rc = ts_write_text_file(argv[2], page.data, page.len, (long)getpid(), &err)))
		fprintf(stderr, "make_page: %s\n", ts_error_msg(&err));
	ts_buf_free(&page);
	free(ch);
	return rc ? 1 : 0;
}
