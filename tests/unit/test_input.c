/* test_input.c - chapter discovery and splitting.
 *
 * Usage: test_input DATA_DIR CASE...  Each CASE (a .txt book or a
 * directory) in DATA_DIR is scanned and dumped - book title, every
 * chapter with its title and flags, its body as the reader returns it,
 * and the diagnostics - and compared with CASE.ok.  Heading detection
 * and natural order are also checked against tables. */
#include "check.h"
#include "input/reader.h"
#include "input/folder.h"
#include "zh/heading.h"
#include "base/file.h"
#include "base/util.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
		if (c->spoken_at)
			ts_buf_printf(&out, "  says [%s]\n", c->title + c->spoken_at);
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
	    {"VIP章节 第101章 入京", "VIP章节 第101章 入京"},
	    {"VIP章節第101章", "VIP章節第101章"},
	    {"VIP章节很贵，他没有买。", NULL},
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

/* Headings as web novels write them: what kind each line is, and where
 * a volume's line goes on with its first chapter's heading. */
static void check_web_headings(void)
{
	static const struct {
		const char *line;
		int kind;
		const char *chapter; /* the chapter heading inside a volume's line */
	} cases[] = {
	    {"第1234章 决战", TS_HEADING_CHAPTER, NULL},
	    {"第1234章决战", TS_HEADING_CHAPTER, NULL},
	    {"第1234章：决战", TS_HEADING_CHAPTER, NULL},
	    {"第１２３４章 决战", TS_HEADING_CHAPTER, NULL},
	    {"第一千二百三十四章 决战", TS_HEADING_CHAPTER, NULL},
	    {"第一千零一章", TS_HEADING_CHAPTER, NULL},
	    {"第两千章 两千", TS_HEADING_CHAPTER, NULL},
	    {"第一万零八章", TS_HEADING_CHAPTER, NULL},
	    {"第1234节 分", TS_HEADING_CHAPTER, NULL},
	    {"第一千二百回 回", TS_HEADING_CHAPTER, NULL},
	    {"第12章 决战（上）", TS_HEADING_CHAPTER, NULL},
	    {"第一卷 潜龙在渊", TS_HEADING_VOLUME, NULL},
	    {"第1卷：潜龙在渊", TS_HEADING_VOLUME, NULL},
	    {"第一部 少年", TS_HEADING_VOLUME, NULL},
	    {"卷一", TS_HEADING_VOLUME, NULL},
	    {"卷一 潜龙在渊", TS_HEADING_VOLUME, NULL},
	    {"卷12：风起", TS_HEADING_VOLUME, NULL},
	    {"VIP卷", TS_HEADING_VOLUME, NULL},
	    {"VIP卷 第101章 入京", TS_HEADING_VOLUME, "第101章 入京"},
	    {"正文卷", TS_HEADING_VOLUME, NULL},
	    {"作品相关", TS_HEADING_VOLUME, NULL},
	    {"第一卷 潜龙在渊 第1章 少年", TS_HEADING_VOLUME, "第1章 少年"},
	    {"第二卷第1章 重逢", TS_HEADING_VOLUME, "第1章 重逢"},
	    {"第三部 第三部", TS_HEADING_VOLUME, NULL},
	    {"楔子", TS_HEADING_SPECIAL, NULL},
	    {"番外一 后来", TS_HEADING_SPECIAL, NULL},
	    /* near misses */
	    {"第一卷完", TS_HEADING_NONE, NULL},
	    {"第一卷 完", TS_HEADING_NONE, NULL},
	    {"第二卷（终）", TS_HEADING_NONE, NULL},
	    {"上架感言", TS_HEADING_NONE, NULL},
	    {"卷一卷铺盖走了", TS_HEADING_NONE, NULL},
	    {"卷起袖子就干", TS_HEADING_NONE, NULL},
	    {"卷一 他卷起铺盖，走了。", TS_HEADING_NONE, NULL},
	    {"VIP卷的读者很多，他说。", TS_HEADING_NONE, NULL},
	    {"第一次见到她，是在雨里。", TS_HEADING_NONE, NULL},
	    {"第一千二百三十四个人站了起来。", TS_HEADING_NONE, NULL},
	    {"第三章里，主角终于出场了。", TS_HEADING_NONE, NULL},
	    {"他翻到第三章，看了很久。", TS_HEADING_NONE, NULL},
	    {"第一卷书他读了三遍，还是不懂。", TS_HEADING_NONE, NULL},
	    {"第一卷 第一次", TS_HEADING_VOLUME, NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *l = cases[i].line;
		int kind = ts_heading_kind(l, strlen(l));
		size_t at = ts_heading_chapter_at(l, strlen(l));
		const char *want = cases[i].chapter;
		if (kind != cases[i].kind || (want ? strcmp(l + at, want) != 0 || !at : at != 0)) {
			fprintf(stderr, "heading \"%s\": kind %d (want %d), chapter at %zu\n", l,
			        kind, cases[i].kind, at);
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

/* ---- hostile input: pipes, standard input, interruption, leftovers ---- */

static char tmpdir[64]; /* TMPDIR of these checks */

static void put_file(const char *path, const char *s, size_t n)
{
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(s, 1, n, f) == n);
	if (f)
		fclose(f);
}

/* Number of files in tmpdir whose name starts with prefix. */
static int temps(const char *prefix)
{
	int n = 0;
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	if (d)
		closedir(d);
	return n;
}

/* Add "-" with standard input reading n bytes of s, written by another
 * process.  Returns ts_book_add()'s code; the message in msg. */
static int add_stdin(const char *s, size_t n, ts_buf *msg, size_t *chapters)
{
	int fds[2];
	CHECK(pipe(fds) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		for (size_t at = 0; at < n;) {
			ssize_t k = write(fds[1], s + at, n - at);
			if (k <= 0)
				_exit(1);
			at += (size_t)k;
		}
		_exit(0);
	}
	close(fds[1]);
	int saved = dup(0);
	dup2(fds[0], 0);
	close(fds[0]);
	ts_book *b = ts_book_new(NULL, NULL);
	int rc = ts_book_add(b, "-");
	CHECK(temps("tingshu-stdin-") == (rc ? 0 : 1)); /* a failed copy is gone at once */
	ts_buf_clear(msg);
	ts_buf_printf(msg, "%s", ts_book_errmsg(b));
	*chapters = ts_book_count(b);
	ts_book_free(b);
	dup2(saved, 0);
	close(saved);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return rc;
}

static void check_stdin(void)
{
	ts_buf msg = {0};
	size_t n;
	char text[4000];
	signal(SIGPIPE, SIG_IGN);
	CHECK(add_stdin("第一章 开始\n你好。\n", 26, &msg, &n) == 0 && n == 1);
	/* The first NUL byte stops it, named by line and byte. */
	CHECK(add_stdin("abc\nde\0fg\n", 10, &msg, &n) == TS_EBINARY && n == 0);
	CHECK(strstr(msg.data, "stdin:2: NUL byte at byte 6: this is a binary file") != NULL);
	/* UTF-16 with a byte-order mark has NUL bytes in its characters. */
	CHECK(add_stdin("\xff\xfe\x60\x4f\x7d\x59\x0a\x00", 8, &msg, &n) == 0 && n == 1);
	/* The limit: TINGSHU_STDIN_MAX bytes pass, one more does not. */
	memset(text, 'a', sizeof text);
	for (size_t i = 99; i < sizeof text; i += 100)
		text[i] = '\n';
	setenv("TINGSHU_STDIN_MAX", "2K", 1);
	CHECK(add_stdin(text, 2048, &msg, &n) == 0 && n == 1);
	CHECK(add_stdin(text, 2049, &msg, &n) == TS_ETOOLONG);
	CHECK(strstr(msg.data, "stdin: more than 2 KB") && strstr(msg.data, "TINGSHU_STDIN_MAX"));
	setenv("TINGSHU_STDIN_MAX", "2x", 1);
	CHECK(add_stdin(text, 10, &msg, &n) == TS_EINVAL);
	CHECK(strstr(msg.data, "TINGSHU_STDIN_MAX=2x: not a size") != NULL);
	unsetenv("TINGSHU_STDIN_MAX");
	ts_buf_free(&msg);
}

/* A named pipe among the chapters of a folder is refused without waiting
 * for a writer; the other chapters are kept. */
static void check_fifo_chapter(void)
{
	char dir[128], path[160];
	snprintf(dir, sizeof dir, "%s/book", tmpdir);
	CHECK(mkdir(dir, 0700) == 0);
	snprintf(path, sizeof path, "%s/01.txt", dir);
	put_file(path, "你好。\n", 10);
	snprintf(path, sizeof path, "%s/02.txt", dir);
	CHECK(mkfifo(path, 0600) == 0);
	alarm(20);
	ts_book *b = ts_book_new(NULL, NULL);
	CHECK(ts_book_add(b, dir) == TS_EINVAL && ts_book_count(b) == 1);
	CHECK(strstr(ts_book_errmsg(b), "02.txt: not a regular file (it is a named pipe)"));
	CHECK(ts_book_add(b, path) == TS_EINVAL);
	ts_book_free(b);
	alarm(0);
	unlink(path);
	snprintf(path, sizeof path, "%s/01.txt", dir);
	unlink(path);
	rmdir(dir);
}

/* A book asked to stop adds nothing; a decoded copy is named after its
 * process and removed with the book; the copies of dead processes of this
 * machine are removed by the next book's first input, no others. */
static void check_cancel_and_leftovers(void)
{
	char gbk[128], path[400], host[64];
	volatile sig_atomic_t stop = 1;
	snprintf(gbk, sizeof gbk, "%s/gbk.txt", tmpdir);
	put_file(gbk, "\xb5\xda\xd2\xbb\xd5\xc2\n\xc4\xe3\xba\xc3\xa1\xa3\n", 13);
	ts_book *b = ts_book_new(NULL, NULL);
	ts_book_set_cancel(b, &stop);
	CHECK(ts_book_add(b, gbk) == TS_ECANCELED && ts_book_count(b) == 0);
	CHECK(strstr(ts_book_errmsg(b), "gbk.txt: interrupted") != NULL);
	CHECK(temps("tingshu-") == 0);
	stop = 0;
	CHECK(ts_book_add(b, gbk) == 0 && ts_book_count(b) == 1);
	ts_host_name(host);
	char mine[128];
	snprintf(mine, sizeof mine, "tingshu-utf8-%ld@%s-", (long)getpid(), host);
	CHECK(temps(mine) == 1);
	ts_book_free(b);
	CHECK(temps("tingshu-") == 0);

	/* A pid no process can have: one above pid_max.  (The pid of a child
	 * that exited can be taken by another process before the sweep
	 * looks, on a busy machine.) */
	long dead = 4194304 + 1; /* the largest pid_max there is, plus one */
	FILE *pm = fopen("/proc/sys/kernel/pid_max", "r");
	if (pm && fscanf(pm, "%ld", &dead) == 1)
		dead++;
	if (pm)
		fclose(pm);
	static const char *const names[] = {
	    "tingshu-utf8-%ld@%s-AbC123",       /* dead, this machine: removed */
	    "tingshu-stdin-%ld@%s-AbC123",      /* the same */
	    "tingshu-utf8-%ld@%s.other-AbC123", /* another machine */
	    "tingshu-utf8-%ld@%s-AbC1234",      /* not a name tingshu makes */
	    "tingshu-notes-%ld@%s-AbC123",      /* the same */
	    "tingshu-utf8-%ld@%s-AbC123.live",  /* of a live process, below */
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char name[160];
		snprintf(name, sizeof name, names[i], dead, host);
		if (i == 5)
			snprintf(name, sizeof name, "tingshu-utf8-%ld@%s-AbC123", (long)getppid(),
			         host);
		snprintf(path, sizeof path, "%s/%s", tmpdir, name);
		put_file(path, "x", 1);
	}
	CHECK(temps("tingshu-") == 6);
	b = ts_book_new(NULL, NULL);
	CHECK(ts_book_add(b, gbk) == 0);
	CHECK(temps("tingshu-") == 5); /* 4 kept, and this book's copy */
	ts_book_free(b);
	CHECK(temps("tingshu-") == 4);
	snprintf(path, sizeof path, "%s/tingshu-utf8-%ld@%s-AbC123", tmpdir, dead, host);
	CHECK(access(path, F_OK) != 0);
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
}

/* A last line cut at the reader's piece size right at the end of the
 * body (no newline after it) still ends its line: nothing of the last
 * sentence is left behind.  For pieces of 1 to 4 bytes a character. */
static void check_last_piece(void)
{
	static const char *const chars[] = {"a", "\xc3\xa9", "\xe5\xa4\xa9", "\xf0\xa0\x80\x80"};
	char path[128];
	snprintf(path, sizeof path, "%s/long.txt", tmpdir);
	for (size_t c = 0; c < 4; c++)
		for (size_t total = 16380; total <= 16400; total++) {
			ts_buf text = {0};
			ts_buf_printf(&text, "\xe7\xac\xac\xe4\xb8\x80\xe7\xab\xa0\n");
			size_t at = text.len;
			while (text.len - at + c + 1 <= total)
				ts_buf_printf(&text, "%s", chars[c]);
			put_file(path, text.data, text.len);
			ts_book *b = ts_book_new(NULL, NULL);
			CHECK(ts_book_add(b, path) == 0 && ts_book_count(b) == 1);
			int err = 0;
			ts_reader *r =
			    ts_book_count(b) ? ts_reader_open(ts_book_chapter(b, 0), &err) : NULL;
			const char *t;
			size_t n, got = 0;
			int end, last_end = 0;
			while (r && ts_reader_next(r, &t, &n, &end) > 0)
				got += n, last_end = end;
			CHECK(got == text.len - at && last_end == 1);
			ts_reader_free(r);
			ts_book_free(b);
			ts_buf_free(&text);
		}
	unlink(path);
}

static void check_hostile(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_input-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		CHECK(!"mkdtemp");
		return;
	}
	setenv("TMPDIR", tmpdir, 1);
	check_stdin();
	check_fifo_chapter();
	check_cancel_and_leftovers();
	check_last_piece();
	CHECK(rmdir(tmpdir) == 0);
}

int main(int argc, char **argv)
{
	if (argc < 2 || chdir(argv[1]) != 0) {
		fprintf(stderr, "usage: test_input DATA_DIR CASE...\n");
		return 2;
	}
	check_headings();
	check_web_headings();
	check_natural();
	check_hostile();
	for (int i = 2; i < argc; i++)
		dump_case(argv[i]);
	return check_done("test_input");
}
