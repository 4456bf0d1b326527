/* test_input.c - chapter discovery and splitting.
 *
 * Usage: test_input DATA_DIR CASE...  Each CASE (a .txt book or a
 * directory) in DATA_DIR is scanned and dumped - book title, every
 * chapter with its title and flags, its body as the reader returns it,
 * and the diagnostics - and compared with CASE.ok.  Heading detection
 * and natural order are also checked against tables. */
#include "check.h"
#include "book/input.h"
#include "base/util.h"

#include <unistd.h>

static void on_diag(void *ud, ts_level level, const char *msg)
{
	ts_buf_printf(ud, "%s: %s\n", level ? "error" : "warning", msg);
}

static void dump_case(const char *name)
{
	ts_buf diags = {0}, out = {0};
	ts_book *b = ts_book_new(on_diag, &diags);
	char path[512];
	int is_dir = access(name, F_OK) == 0 && strchr(name, '.') == NULL;
	snprintf(path, sizeof path, is_dir ? "%s" : "%s.txt", name);
	int rc = ts_book_add(b, path);
	ts_buf_printf(&out, "rc: %d\nbook: %s\n", rc, ts_book_title(b));
	for (size_t i = 0; i < ts_book_count(b); i++) {
		const ts_chapter *c = ts_book_chapter(b, i);
		ts_buf_printf(&out, "chapter %zu: [%s]%s%s source=%s line=%ld chars=%zu\n", i,
		              c->title, c->front_matter ? " front" : "",
		              c->title_spoken ? " spoken" : "", c->display, c->line, c->chars);
		int err = 0;
		ts_reader *r = ts_reader_open(c, &err);
		CHECK(r != NULL);
		const char *t;
		size_t n;
		int end, got, at_start = 1;
		while (r && (got = ts_reader_next(r, &t, &n, &end)) > 0) {
			if (at_start)
				ts_buf_printf(&out, "  | ");
			ts_buf_append(&out, t, n);
			at_start = end;
			if (end)
				ts_buf_putc(&out, '\n');
		}
		ts_reader_free(r);
	}
	ts_buf_append(&out, diags.data ? diags.data : "", diags.len);
	char golden[512];
	snprintf(golden, sizeof golden, "%s.ok", name);
	check_golden(golden, out.data ? out.data : "", out.len);
	ts_book_free(b);
	ts_buf_free(&out);
	ts_buf_free(&diags);
}

static void check_headings(void)
{
	static const struct {
		const char *line;
		const char *title; /* NULL: not a heading */
	} cases[] = {
	    {"第一章", "第一章"},
	    {"第一章 开端", "第一章 开端"},
	    {"  第一章　　开端  ", "第一章 开端"},
	    {"第一百零八回 宴桃园", "第一百零八回 宴桃园"},
	    {"第两百章", "第两百章"},
	    {"第壹贰叁章", "第壹贰叁章"},
	    {"第廿一回", "第廿一回"},
	    {"第〇章", "第〇章"},
	    {"第12章：名字", "第12章：名字"},
	    {"第１２章", "第１２章"},
	    {"第三节", "第三节"},
	    {"第三卷 风云", "第三卷 风云"},
	    {"第四集", "第四集"},
	    {"第五部", "第五部"},
	    {"第一章少年", "第一章少年"},
	    {"正文 第一章 开始", "正文 第一章 开始"},
	    {"<p>第1章&nbsp;风起</p>", "第1章 风起"},
	    {"<h2>第二章 云涌</h2>", "第二章 云涌"},
	    {"<p>他说：“第一章写得好。”</p>", NULL},
	    {"楔子", "楔子"},
	    {"序章 起源", "序章 起源"},
	    {"序", "序"},
	    {"引子", "引子"},
	    {"尾声", "尾声"},
	    {"尾聲", "尾聲"},
	    {"后记", "后记"},
	    {"後記", "後記"},
	    {"番外", "番外"},
	    {"番外一 前传", "番外一 前传"},
	    {"番外篇", "番外篇"},
	    {"第二天，他来了。", NULL},
	    {"第三回合，他输了。", NULL},
	    {"第一章节里说，这件事很重要。", NULL},
	    {"序言里写着很多东西，我们读了。", NULL},
	    {"序幕拉开了，演员上场。", NULL},
	    {"后记得这件事", NULL},
	    {"第章", NULL},
	    {"第一", NULL},
	    {"他说第一章很好", NULL},
	    {"", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char out[512];
		int is = ts_heading(cases[i].line, strlen(cases[i].line), out, sizeof out);
		if (is != (cases[i].title != NULL) || (is && strcmp(out, cases[i].title) != 0)) {
			fprintf(stderr, "heading \"%s\": got %s \"%s\"\n", cases[i].line,
			        is ? "heading" : "not a heading", is ? out : "");
			check_failures++;
		}
	}
}

static void check_natural(void)
{
	CHECK(ts_natural_cmp("2.txt", "10.txt") < 0);
	CHECK(ts_natural_cmp("10.txt", "2.txt") > 0);
	CHECK(ts_natural_cmp("ch2", "ch02") != 0);
	CHECK(ts_natural_cmp("a9b", "a10a") < 0);
	CHECK(ts_natural_cmp("第2章.txt", "第10章.txt") < 0);
	CHECK(ts_natural_cmp("abc", "abd") < 0);
	CHECK(ts_natural_cmp("abc", "abc") == 0);
	CHECK(ts_natural_cmp("001", "1") != 0);
}

int main(int argc, char **argv)
{
	if (argc < 2 || chdir(argv[1]) != 0) {
		fprintf(stderr, "usage: test_input DATA_DIR CASE...\n");
		return 2;
	}
	check_headings();
	check_natural();
	for (int i = 2; i < argc; i++)
		dump_case(argv[i]);
	return check_done("test_input");
}
