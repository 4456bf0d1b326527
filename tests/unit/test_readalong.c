/* test_readalong.c - the WebVTT reader and the read-along page: cues from
 * well-formed and damaged files, the page of a small book against its
 * golden file (its CSS and script left out: the browser test checks what
 * they do), its size for 3,000 chapters, a chapter's script as the
 * timing files' writer makes it, and text from the book that tries to
 * become markup.
 *
 * Arguments: DATA_DIR (page.ok) SCRATCH_DIR (a chapter's script is
 * written there). */
#include "check.h"
#include "publish/cues.h"
#include "publish/html.h"
#include "publish/readalong.h"
#include "publish/webvtt.h"
#include "base/util.h"

#include "base/file.h"

#include <errno.h>
#include <unistd.h>
#include <sys/stat.h>

static const char *scratch;

/* Parse text and compare with the expected cues, given as "start end text"
 * lines (times with 3 decimals). */
static void cues_are(const char *label, const char *text, size_t len, const char *want)
{
	ts_cue *c;
	size_t n;
	int rc = ts_vtt_parse(text, len, &c, &n);
	if (rc) {
		fprintf(stderr, "%s: ts_vtt_parse returned %d\n", label, rc);
		check_failures++;
		return;
	}
	ts_buf got = {0};
	for (size_t i = 0; i < n; i++)
		ts_buf_printf(&got, "%.3f %.3f %s%s\n", c[i].start, c[i].end,
		              c[i].paragraph ? "\xC2\xB6 " : "", c[i].text);
	if (strcmp(got.data ? got.data : "", want) != 0) {
		fprintf(stderr, "%s: cues differ\n--- want:\n%s--- got:\n%s", label, want,
		        got.data ? got.data : "");
		check_failures++;
	}
	for (size_t i = 0; i < n; i++)
		CHECK(ts_utf8_check(c[i].text, strlen(c[i].text), 1) == strlen(c[i].text));
	ts_buf_free(&got);
	ts_vtt_free(c, n);
}

static void rejected(const char *text, size_t len)
{
	ts_cue *c = (ts_cue *)1;
	size_t n = 1;
	if (ts_vtt_parse(text, len, &c, &n) != TS_EINVAL || c || n) {
		fprintf(stderr, "not rejected as WebVTT: \"%.*s\"\n", (int)len, text);
		check_failures++;
	}
}

static void test_vtt(void)
{
	/* What tingshu writes: a cue per sentence, the title first. */
	const char *plain = "WEBVTT\n\n"
	                    "00:00:00.300 --> 00:00:02.100\n第一章 风起\n\n"
	                    "00:00:02.100 --> 00:00:05.250\n天刚亮，他说：&lt;好&gt; &amp; 走。\n";
	cues_are("plain", plain, strlen(plain),
	         "0.300 2.100 第一章 风起\n2.100 5.250 天刚亮，他说：<好> & 走。\n");

	/* tingshu's own marks: a pilcrow after the number starts a
	 * paragraph; a pilcrow in the text or on a NOTE does not. */
	const char *marked = "WEBVTT\n\n1 \xC2\xB6\n00:00.300 --> 00:01.000\n题\n\n"
	                     "2 \xC2\xB6\n00:01.500 --> 00:02.000\n甲。\n\n"
	                     "3\n00:02.200 --> 00:02.500\n乙\xC2\xB6\n\n"
	                     "NOTE \xC2\xB6\n\n00:03.000 --> 00:03.500\n丙。\n\n"
	                     "5 \xC2\xB6\n00:04.000 --> 00:04.500\n丁。\n";
	cues_are("marked", marked, strlen(marked),
	         "0.300 1.000 \xC2\xB6 题\n1.500 2.000 \xC2\xB6 甲。\n2.200 2.500 乙\xC2\xB6\n"
	         "3.000 3.500 丙。\n4.000 4.500 \xC2\xB6 丁。\n");

	/* Byte-order mark, CRLF and CR lines, a header, NOTE/STYLE/REGION
	 * blocks, identifiers, settings, hours left out, ',' for '.', tags,
	 * references, lines joined, a timing line inside a cue's text. */
	const char *rich =
	    "\xEF\xBB\xBFWEBVTT - a title\r\nKind: captions\r\n\r\n"
	    "NOTE a note --> with an arrow?\r\nsecond line\r\n\r\n"
	    "STYLE\r\n::cue { color: red }\r\n\r\n"
	    "REGION\rid:r1\r\r"
	    "intro\n01:02.5 --> 01:04,25 align:start line:0\n"
	    "<v 旁白>他笑了，</v>\n<c.loud>“走吧。”</c>\n\n"
	    "2\n1:00:00.000 --> 1:00:01.000\nHello\nworld &#x4E2D;&#25991; &nbsp;&lrm;x\n"
	    "00:05.000 --> 00:06.000\n<b>粗</b>&unknown; & &#0; &#xD800;\n";
	cues_are("rich", rich, strlen(rich),
	         "5.000 6.000 粗&unknown; & \xEF\xBF\xBD \xEF\xBF\xBD\n"
	         "62.500 64.250 他笑了，“走吧。”\n"
	         "3600.000 3601.000 Hello world 中文 \xC2\xA0\xE2\x80\x8Ex\n");

	/* Damage: bad timing lines, end before start, seconds past 59, empty
	 * text, a block of junk, invalid UTF-8, NUL and control bytes. */
	const char damaged[] = "WEBVTT\n\n"
	                       "junk line\nmore junk\n\n"
	                       "NOTE\nnote text\n00:00.500 --> 00:00.700\nafter a note\n\n"
	                       "00:01.000 -> 00:02.000\nno arrow\n\n"
	                       "00:03.000 --> 00:02.000\nends before it starts\n\n"
	                       "00:61.000 --> 00:62.000\nsixty-one seconds\n\n"
	                       "00:01.000 --> 00:02.000x\ntrailing junk\n\n"
	                       "00:04.000 --> 00:05.000\n<only a tag>\n\n"
	                       "00:06.000 --> 00:07.000\nbad \xFF\xC3 byte\x01\x7F\tand\0nul\n\n"
	                       "00:08.000 --> 00:08.000\nzero length\n\n"
	                       "00:09.000 --> 00:10.000\n<unclosed tag\n";
	cues_are("damaged", damaged, sizeof damaged - 1,
	         "0.500 0.700 after a note\n6.000 7.000 bad \xEF\xBF\xBD\xEF\xBF\xBD byte andnul\n"
	         "8.000 8.000 zero length\n");

	/* Out of order in the file: sorted, equal starts keep their order. */
	const char *order = "WEBVTT\n\n00:03.000 --> 00:04.000\nc\n\n00:01.000 --> 00:02.000\na\n\n"
	                    "00:03.000 --> 00:03.500\nd\n\n00:02.000 --> 00:03.000\nb\n";
	cues_are("order", order, strlen(order),
	         "1.000 2.000 a\n2.000 3.000 b\n3.000 4.000 c\n3.000 3.500 d\n");

	/* A timing line right after the signature, with no blank line. */
	const char *tight = "WEBVTT\n00:00.000 --> 00:01.000\n一\n";
	cues_are("tight", tight, strlen(tight), "0.000 1.000 一\n");

	const char *none = "WEBVTT\n";
	cues_are("no cues", none, strlen(none), "");
	cues_are("signature alone", "WEBVTT", 6, "");

	rejected("", 0);
	rejected("WEBVT", 5);
	rejected("WEBVTTX\n", 8);
	rejected("webvtt\n", 7);
	rejected("\n\nWEBVTT\n", 9);
	rejected("WEBVTT\0\n", 8);
	const char *srt = "1\n00:00:00,000 --> 00:00:01,000\nan SRT file\n";
	rejected(srt, strlen(srt));
}

/* The page with the contents of <style> and of the page's script cut out. */
static void cut_between(ts_buf *page, const char *open, const char *close)
{
	char *a = strstr(page->data, open);
	char *z = a ? strstr(a, close) : NULL;
	CHECK(a && z);
	if (!a || !z)
		return;
	a += strlen(open);
	memmove(a, z, strlen(z) + 1);
	page->len = strlen(page->data);
}

static size_t count(const char *hay, const char *needle)
{
	size_t k = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		k++;
	return k;
}

enum { PAGE_I = __builtin_ctz(TS_CUES_PAGE) };

/* The page is made from the chapter entries alone: no file of the folder
 * is read (the scripts named here do not exist). */
static void test_page(const char *data_dir)
{
	ts_chapter_entry ch[] = {
	    {.index = 1,
	     .title = "第一章 风起",
	     .audio = "001-第一章_风起.wav",
	     .timing = {[PAGE_I] = "001-第一章_风起.js"},
	     .duration_s = 7.5},
	    {.index = 2, /* no script: audio only */
	     .title = "第二章 雨夜",
	     .audio = "002-第二章_雨夜.wav",
	     .duration_s = 3725.4},
	    {.index = 3, /* a script of another name than the audio's */
	     .title = "尾声",
	     .audio = "003-尾声.wav",
	     .timing = {[PAGE_I] = "003-尾声 其他.js"},
	     .duration_s = 61},
	};
	ts_buf page = {0};
	CHECK(ts_readalong_html(&page, "三国 & 水浒", ch, 3) == 0);
	/* Nothing can end the page's elements early. */
	CHECK(count(page.data, "<script") == 1 && count(page.data, "</script") == 1);
	CHECK(count(page.data, "<style") == 1 && count(page.data, "</style") == 1);
	CHECK(count(page.data, "<!--") == 0);
	CHECK(ts_utf8_check(page.data, page.len, 1) == page.len);
	cut_between(&page, "<style>\n", "</style>");
	cut_between(&page, "<script>\n", "</script>");
	char golden[1024];
	snprintf(golden, sizeof golden, "%s/page.ok", data_dir);
	check_golden(golden, page.data, page.len);

	/* No chapters: still a page, saying so. */
	ts_buf_clear(&page);
	CHECK(ts_readalong_html(&page, "空", NULL, 0) == 0);
	CHECK(strstr(page.data, "没有章节") != NULL);
	CHECK(strstr(page.data, "<audio") && !strstr(page.data, "src="));
	ts_buf_free(&page);
}

/* The page grows by its list only: a chapter more is one line more. */
static void test_page_size(void)
{
	enum { N = 3000 };
	static ts_chapter_entry ch[N];
	static char title[N][40], audio[N][64], js[N][64];
	for (size_t i = 0; i < N; i++) {
		snprintf(title[i], sizeof title[i], "第%zu章 夜雨山路", i + 1);
		snprintf(audio[i], sizeof audio[i], "%04zu-第%zu章_夜雨山路.opus", i + 1, i + 1);
		snprintf(js[i], sizeof js[i], "%04zu-第%zu章_夜雨山路.js", i + 1, i + 1);
		ch[i] = (ts_chapter_entry){.index = (int)i + 1,
		                           .title = title[i],
		                           .audio = audio[i],
		                           .timing = {[PAGE_I] = js[i]},
		                           .duration_s = 754};
	}
	ts_buf page = {0};
	CHECK(ts_readalong_html(&page, "书", ch, N) == 0);
	CHECK(page.len < 512 * 1024);
	CHECK(count(page.data, "<li>") == N && count(page.data, "data-js=") == 0);
	CHECK(strstr(page.data, "<li><a href=\"3000-第3000章_夜雨山路.opus\" data-ch=\"3000\">"
	                        "第3000章 夜雨山路</a> <small>12:34</small>\n</ol>") != NULL);
	ts_buf_free(&page);
}

/* The text of a file of the scratch folder, or "" (malloc'd). */
static char *slurp(const char *name)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", scratch, name);
	FILE *f = fopen(path, "rb");
	ts_buf b = {0};
	char block[4096];
	size_t got;
	while (f && (got = fread(block, 1, sizeof block, f)) > 0)
		ts_buf_append(&b, block, got);
	if (f)
		fclose(f);
	return b.data ? b.data : ts_strdup("");
}

/* A chapter's script, as the timing files' writer makes it: the page's
 * function called with the cues, times to the millisecond, paragraphs and
 * speakers marked, and text that tries to become markup or to end the
 * string kept as a JSON string. */
static void test_script(void)
{
	static const char evil[] = "</script><script>alert(1)</script><!--\"\\";
	char audio[1024], path[1100];
	snprintf(audio, sizeof audio, "%s/001-甲.wav", scratch);
	snprintf(path, sizeof path, "%s/001-甲.js", scratch);
	char *tmp = ts_temp_name(path, 7);
	ts_error err = {0};
	if (tmp)
		unlink(tmp); /* left by a run that failed */
	ts_cues *c = ts_cues_open(TS_CUES_PAGE, audio, 16000, 7, &err);
	CHECK(c != NULL && tmp != NULL);
	if (!c || !tmp) {
		ts_cues_abort(c);
		free(tmp);
		return;
	}
	ts_cues_paragraph(c);
	CHECK(ts_cues_add(c, 4800, 32000, "第一章 风起", strlen("第一章 风起")) == 0);
	CHECK(ts_cues_add(c, 32000, 72000, "天刚亮。\xE2\x80\xA8下行", 21) == 0);
	CHECK(ts_cues_speaker(c, "王夫人") == 0);
	ts_cues_paragraph(c);
	CHECK(ts_cues_add(c, 72000, 96001, "“来了。”", strlen("“来了。”")) == 0);
	CHECK(ts_cues_speaker(c, NULL) == 0);
	CHECK(ts_cues_add(c, 96001, 112000, evil, strlen(evil)) == 0);
	CHECK(ts_cues_finish(c, &err) == 0);
	CHECK(rename(tmp, path) == 0);
	free(tmp);
	char *got = slurp("001-甲.js");
	const char *want =
	    "/* tingshu: a chapter's sentences for the read-along page, index.html */\n"
	    "tingshuCues([\n"
	    "[0.300,2.000,\"第一章 风起\",1],\n"
	    "[2.000,4.500,\"天刚亮。 下行\"],\n"
	    "[4.500,6.001,\"“来了。”\",1,\"王夫人\"],\n"
	    "[6.001,7.000,\"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/"
	    "script\\u003e\\u003c!--\\\"\\\\\"]\n"
	    "]);\n";
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "the chapter's script differs\n--- want:\n%s--- got:\n%s", want,
		        got);
		check_failures++;
	}
	free(got);
	/* The row is not a --timing choice of its own. */
	unsigned mask = 0;
	CHECK(ts_cues_parse("js", &mask) == TS_EINVAL);
	CHECK(ts_cues_parse("srt,vtt,lrc,json", &mask) == 0 && mask == 15);
}

/* Book text that tries to become markup stays text everywhere the page
 * puts it: the title, a chapter title, a file name. */
static void test_escaping(void)
{
	static const char evil[] = "</script><script>alert(1)</script><!--<b x='1' y=\"2\">&amp;";
	ts_chapter_entry ch = {.index = 1,
	                       .title = evil,
	                       .audio = "001-a#b?c%20d&e'f\"g<h>:i/j\\k l.wav",
	                       .timing = {[PAGE_I] = "001-a#b?c%20d&e'f\"g<h>:i/j\\k l.js"},
	                       .duration_s = 2};
	ts_buf page = {0};
	CHECK(ts_readalong_html(&page, evil, &ch, 1) == 0);
	const char *p = page.data;
	/* One element of each kind the page makes itself, and no other. */
	CHECK(count(p, "<script") == 1 && count(p, "</script") == 1);
	CHECK(count(p, "<style") == 1 && count(p, "<!--") == 0);
	CHECK(count(p, "<b ") == 0 && count(p, "<b>") == 0 && count(p, "alert(1)</") == 0);
	/* The titles as HTML text, in <title>, <h1>, <h2> and the list. */
	const char *esc =
	    "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;!--&lt;b x=&#39;1&#39; "
	    "y=&quot;2&quot;&gt;&amp;amp;";
	CHECK(count(p, esc) == 4);
	/* The file name as a relative URL: nothing that ends the attribute,
	 * starts a query, a fragment, a scheme or a folder; its script is the
	 * audio's name with .js, so the page is not told it. */
	CHECK(strstr(p, "href=\"001-a%23b%3Fc%2520d%26e%27f%22g%3Ch%3E%3Ai%2Fj%5Ck%20l.wav\"") !=
	      NULL);
	CHECK(count(p, "data-js=") == 0);
	ts_buf_free(&page);
}

/* A voice span names the cue's speaker (the first one), and the page's
 * cue list carries it. */
static void test_speaker(void)
{
	const char *vtt = "WEBVTT\n\n1 \xC2\xB6\n00:00:00.000 --> 00:00:01.000\n王夫人道：\n\n"
	                  "2\n00:00:01.000 --> 00:00:02.000\n<v 王夫人>“来了。”\n\n"
	                  "3\n00:00:02.000 --> 00:00:03.000\n<v.loud  Mr A&amp;B >x<v C>y\n\n";
	ts_cue *c = NULL;
	size_t n = 0;
	CHECK(ts_vtt_parse(vtt, strlen(vtt), &c, &n) == 0 && n == 3);
	if (n == 3) {
		CHECK(c[0].speaker == NULL && c[0].paragraph);
		CHECK(c[1].speaker && strcmp(c[1].speaker, "王夫人") == 0);
		CHECK(strcmp(c[1].text, "“来了。”") == 0);
		CHECK(c[2].speaker && strcmp(c[2].speaker, "Mr A&B") == 0);
		CHECK(strcmp(c[2].text, "xy") == 0);
	}
	ts_vtt_free(c, n);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_readalong DATA_DIR SCRATCH_DIR\n");
		return 2;
	}
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/readalong-scratch", argv[2]);
	mkdir(dir, 0777);
	scratch = dir;
	test_vtt();
	test_speaker();
	test_page(argv[1]);
	test_page_size();
	test_script();
	test_escaping();
	return check_done("test_readalong");
}
