/* test_boilerplate.c - the site's and uploader's lines of a web novel
 * (zh/boilerplate.h): the pattern language (anchors, groups, negation,
 * characters only, Latin word edges, the key's folding), refusing a bad
 * kind or group with the entry named, --keep-notes, a heading's request,
 * an author's note heading a section,
 * the shipped patterns, and the input reader dropping lines with their
 * numbers (input/reader.h).
 *
 * Usage: test_boilerplate LANG_DIR SCRATCH_DIR */
#include "check.h"
#include "input/reader.h"
#include "zh/boilerplate.h"
#include "zh/lang.h"
#include "base/util.h"

static char scratch[1024];

static ts_boilerplate *load(const char *text, ts_error *err)
{
	const char *p = write_file_in(scratch, "boilerplate.txt", text);
	ts_wordtab *t = ts_wordtab_load(p, 1, err);
	ts_boilerplate *bp = t ? ts_boilerplate_new(t, p, err) : NULL;
	ts_wordtab_free(t);
	return bp;
}

/* The reason line is dropped for, "part" + reason for a heading's tail,
 * or "" when it is spoken. */
static const char *judge(const ts_boilerplate *bp, unsigned flags, const char *line)
{
	static char why[64];
	ts_boilerplate_check *c = ts_boilerplate_check_new(bp, flags);
	ts_unspoken u;
	why[0] = '\0';
	if (c && ts_boilerplate_check_line(c, line, strlen(line), &u))
		snprintf(why, sizeof why, "%s%s", u.whole ? "" : "part ", u.reason);
	ts_boilerplate_check_free(c);
	return why;
}

static void check_language(void)
{
	ts_error err = {0};
	ts_boilerplate *bp = load("# groups\n"
	                          "月票\t@ask\n收藏\t@ask\nps\t@ps\n"
	                          "=本章完\tmarker\n"
	                          "^@ps @ask\tnote\n"
	                          "^求 @ask\tnote\n"
	                          "一秒记住 !他|!她\tsite\n"
	                          "上一页 下一页$\tfurniture\n"
	                          "%abcdefghijklmnopqrstuvwxyz.点 www.|www点\tsite\n",
	                          &err);
	CHECK(bp != NULL);
	CHECK(strcmp(judge(bp, 0, "（本章完）"), "end marker") == 0);
	CHECK(strcmp(judge(bp, 0, "  本章完。 "), "end marker") == 0);
	CHECK(strcmp(judge(bp, 0, "本章完了吗"), "") == 0);
	CHECK(strcmp(judge(bp, 0, "ＰＳ：求月票！"), "author's note") == 0);
	CHECK(strcmp(judge(bp, 0, "Ps：收藏"), "author's note") == 0);
	CHECK(strcmp(judge(bp, 0, "PS：别忘了吃早饭。"), "") == 0);   /* no ask word */
	CHECK(strcmp(judge(bp, 0, "PSP被他收藏了"), "") == 0);        /* not ps: a letter follows */
	CHECK(strcmp(judge(bp, 0, "“PS：求月票”他笑道。"), "") == 0); /* a quotation opens */
	CHECK(strcmp(judge(bp, 0, "求月票！！！"), "author's note") == 0);
	CHECK(strcmp(judge(bp, TS_BOILERPLATE_KEEP_NOTES, "求月票！！！"), "") == 0);
	CHECK(strcmp(judge(bp, 0, "他说要求月票"), "") == 0);
	CHECK(strcmp(judge(bp, 0, "一秒记住本站"), "site ad") == 0);
	CHECK(strcmp(judge(bp, 0, "他一秒记住了她的脸"), "") == 0); /* negation */
	CHECK(strcmp(judge(bp, 0, "上一页 目录 下一页"), "page furniture") == 0);
	CHECK(strcmp(judge(bp, 0, "ｗｗｗ．ａｂｃ．ｃｏｍ"), "site ad") == 0);
	CHECK(strcmp(judge(bp, 0, "w w w . a b c . c o m"), "site ad") == 0);
	CHECK(strcmp(judge(bp, 0, "www点abc点com"), "site ad") == 0);
	CHECK(strcmp(judge(bp, 0, "<p>（本章完）</p>"), "end marker") == 0);
	/* An ad pasted after a story's sentence: the sentence stays. */
	CHECK(strcmp(judge(bp, 0, "路很长。“好。”一秒记住本站"), "part site ad") == 0);
	CHECK(strcmp(judge(bp, 0, "本章完。一秒记住本站"), "site ad") == 0);
	/* A heading's request: cut off, the heading stays; not a heading's:
	 * the line stays whole. */
	CHECK(strcmp(judge(bp, 0, "第12章 决战（求月票）"), "part author's note") == 0);
	CHECK(strcmp(judge(bp, TS_BOILERPLATE_KEEP_NOTES, "第12章 决战（求月票）"), "") == 0);
	CHECK(strcmp(judge(bp, 0, "他大喊（求月票）"), "") == 0);
	CHECK(ts_boilerplate_title(bp, 0, "第12章 决战 【求收藏】",
	                           strlen("第12章 决战 【求收藏】")) == strlen("第12章 决战"));
	CHECK(ts_boilerplate_title(bp, 0, "第12章 决战", strlen("第12章 决战")) ==
	      strlen("第12章 决战"));
	CHECK(ts_boilerplate_title(NULL, 0, "第1章（求月票）", 5) == 5);
	CHECK(strcmp(judge(NULL, 0, "（本章完）"), "") == 0);
	ts_boilerplate_free(bp);

	bp = load("本章完\tmark\n", &err);
	CHECK(bp == NULL && err.code == TS_EINVAL && strstr(err.msg, "本章完<TAB>mark") &&
	      strstr(err.msg, "not a kind"));
	bp = load("^@none 求\tnote\n", &err);
	CHECK(bp == NULL && err.code == TS_EINVAL && strstr(err.msg, "a group with no words"));
	ts_boilerplate_free(NULL);
}

/* The shipped patterns as a ts_lang loads them. */
static void check_shipped(const char *dir)
{
	ts_error err = {0};
	ts_lang *l = ts_lang_load(dir, &err);
	CHECK(l != NULL && ts_lang_boilerplate(l) != NULL);
	const ts_boilerplate *bp = ts_lang_boilerplate(l);
	CHECK(strcmp(judge(bp, 0, "天才一秒记住本站地址：[笔趣阁] 最快更新！无广告！"),
	             "site ad") == 0);
	CHECK(strcmp(judge(bp, 0, "本章未完，請點擊下一頁繼續閱讀》》"), "end marker") == 0);
	CHECK(strcmp(judge(bp, 0, "作者有话说：今天两更，晚上还有一章。"), "author's note") == 0);
	CHECK(strcmp(judge(bp, 0, "第二更到！"), "update notice") == 0);
	CHECK(strcmp(judge(bp, 0, "书友群：987654321"), "uploader's credit") == 0);
	CHECK(strcmp(judge(bp, 0, "本站是终点站，请下车。"), "") == 0);
	CHECK(strcmp(judge(bp, 0, "他用手机阅读了同行的新书，作者是个年轻人。"), "") == 0);
	ts_lang_free(l);
}

/* Lines judged in order by one check: "1" dropped, "0" spoken, each. */
static void judge_lines(const ts_boilerplate *bp, unsigned flags, const char *const *lines,
                        char *out)
{
	ts_boilerplate_check *c = ts_boilerplate_check_new(bp, flags);
	ts_unspoken u;
	size_t i = 0;
	for (; c && lines[i]; i++)
		out[i] = ts_boilerplate_check_line(c, lines[i], strlen(lines[i]), &u) ? '1' : '0';
	out[i] = '\0';
	ts_boilerplate_check_free(c);
}

/* An author's note under a line of its own goes with the lines after it,
 * blank ones not counted, up to the next chapter heading; not with
 * --keep-notes; a line that only names such a note is the story's. */
static void check_section(void)
{
	ts_error err = {0};
	ts_boilerplate *bp = load("=完本感言|=上架感言\tsection\n", &err);
	CHECK(bp != NULL);
	const char *const book[] = {"故事结束了。",
	                            "【完本感言】",
	                            "写了两年。",
	                            "",
	                            "谢谢大家。",
	                            "第一章 新生",
	                            "她读完了那篇完本感言。",
	                            "完本感言",
	                            "上架感言也是。",
	                            NULL};
	char got[16];
	judge_lines(bp, 0, book, got);
	CHECK(strcmp(got, "011010011") == 0);
	if (strcmp(got, "011010011") != 0)
		fprintf(stderr, "  sections: %s\n", got);
	judge_lines(bp, TS_BOILERPLATE_KEEP_NOTES, book, got);
	CHECK(strcmp(got, "000000000") == 0);
	CHECK(strcmp(judge(bp, 0, "完本感言"), "author's note") == 0);
	ts_boilerplate_free(bp);
}

typedef struct seen {
	char text[512];
} seen;

static void on_dropped(void *ud, long line, const ts_unspoken *u, const char *text, size_t len)
{
	seen *s = ud;
	size_t n = strlen(s->text);
	snprintf(s->text + n, sizeof s->text - n, "%ld:%s:%s:%.*s|", line, u->whole ? "" : "part",
	         u->reason, (int)len, text);
}

/* The reader gives a dropped line as an empty one, cuts a heading's
 * request, and tells each with its line. */
static void check_reader(void)
{
	ts_error err = {0};
	ts_boilerplate *bp = load("月票\t@ask\n=本章完\tmarker\n^求 @ask\tnote\n", &err);
	const char *text = "第1章 起（求月票）\r\n他来了。\n（本章完）\n\n求月票";
	const char *p = write_file_in(scratch, "book.txt", text);
	ts_chapter ch = {.source = (char *)p, .start = 0, .end = (long)strlen(text)};
	int rc = 0;
	ts_reader *r = ts_reader_open(&ch, &rc);
	seen s = {""};
	CHECK(r && ts_reader_set_filter(r, bp, 0, on_dropped, &s) == 0);
	char got[256] = "";
	const char *piece;
	size_t len;
	int line_end;
	while (r && ts_reader_next(r, &piece, &len, &line_end) > 0) {
		size_t n = strlen(got);
		snprintf(got + n, sizeof got - n, "%.*s%s", (int)len, piece, line_end ? "/" : "");
	}
	CHECK(strcmp(got, "第1章 起/他来了。////") == 0);
	CHECK(strcmp(s.text, "1:part:author's note:（求月票）|3::end marker:（本章完）|"
	                     "5::author's note:求月票|") == 0);
	if (strcmp(s.text, "1:part:author's note:（求月票）|3::end marker:（本章完）|"
	                   "5::author's note:求月票|") != 0)
		fprintf(stderr, "got %s\n", s.text);
	ts_reader_free(r);
	ts_boilerplate_free(bp);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_boilerplate LANG_DIR SCRATCH_DIR\n");
		return 2;
	}
	snprintf(scratch, sizeof scratch, "%s", argv[2]);
	check_language();
	check_shipped(argv[1]);
	check_section();
	check_reader();
	return check_done("test_boilerplate");
}
