/* readalong.c - the read-along page and its chapters' scripts (see
 * readalong.h).
 *
 * Everything from the book is escaped for where it goes: HTML text and
 * attributes get entities, the sentences in a chapter's script are JSON
 * strings that also escape '<', '>' and '&' (and U+2028/U+2029), and
 * file names become percent-encoded relative URLs (no ':' or '/' left, so
 * a name can never be read as a scheme or a path outside the folder). */
#include "publish/readalong.h"

#include "publish/cueformat.h"
#include "publish/html.h"

#include "readalong_assets.h" /* ts_readalong_css[], ts_readalong_js[]: generated */

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int put_cp(ts_buf *b, uint32_t c)
{
	char u[4];
	return ts_buf_append(b, u, (size_t)ts_utf8_encode(c, u));
}

/* ---- escaping for the page ---- */

/* s as a JSON string that is safe inside <script>: no '<', '>' or '&',
 * no U+2028/U+2029, valid UTF-8. */
static int json_text(ts_buf *b, const char *s)
{
	size_t n = strlen(s);
	int rc = ts_buf_putc(b, '"');
	for (size_t i = 0; i < n && !rc;) {
		uint32_t c;
		i += ts_html_next(s + i, n - i, &c);
		if (c == '"' || c == '\\')
			rc = ts_buf_printf(b, "\\%c", (char)c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7F || c == 0x2028 ||
		         c == 0x2029)
			rc = ts_buf_printf(b, "\\u%04x", (unsigned)c);
		else
			rc = put_cp(b, c);
	}
	return rc ? rc : ts_buf_putc(b, '"');
}

/* A file name of the output folder as a relative URL, HTML-safe:
 * everything but letters, digits, "-._~" and valid non-ASCII UTF-8 is
 * percent-encoded. */
static int url_name(ts_buf *b, const char *name)
{
	size_t n = strlen(name);
	int rc = 0;
	for (size_t i = 0; i < n && !rc;) {
		unsigned char c = (unsigned char)name[i];
		uint32_t cp;
		int k = c >= 0x80 ? ts_utf8_decode((const unsigned char *)name + i, n - i, &cp) : 0;
		if (k > 0) {
			rc = ts_buf_append(b, name + i, (size_t)k);
			i += (size_t)k;
			continue;
		}
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~')
			rc = ts_buf_putc(b, (char)c);
		else
			rc = ts_buf_printf(b, "%%%02X", c);
		i++;
	}
	return rc;
}

/* ---- a chapter's script ---- */

/* The script of a chapter (readalong.h): a call of the page's
 * tingshuCues() with the cues as an array of [start, end, text], times in
 * seconds to the millisecond, with a fourth element 1 on a cue that
 * starts a paragraph (0 before a fifth), and a fifth, its speaker, on a
 * quotation read in the speaker's voice. */
static int page_header(ts_buf *b)
{
	return ts_buf_printf(b, "/* tingshu: a chapter's sentences for the read-along page, "
	                        "index.html */\ntingshuCues([");
}

static int page_cue(ts_buf *b, const ts_cue_state *s, uint64_t start, uint64_t end,
                    const char *text)
{
	int rc =
	    ts_buf_printf(b, "%s\n[%llu.%03llu,%llu.%03llu,", s->count ? "," : "",
	                  (unsigned long long)(start / 1000), (unsigned long long)(start % 1000),
	                  (unsigned long long)(end / 1000), (unsigned long long)(end % 1000));
	rc = rc ? rc : json_text(b, text);
	if (!rc && s->speaker) {
		rc = ts_buf_printf(b, ",%d,", s->para ? 1 : 0);
		rc = rc ? rc : json_text(b, s->speaker);
	} else if (!rc && s->para) {
		rc = ts_buf_printf(b, ",1");
	}
	return rc ? rc : ts_buf_putc(b, ']');
}

static int page_footer(ts_buf *b, const ts_cue_state *s)
{
	(void)s;
	return ts_buf_printf(b, "\n]);\n");
}

const ts_cue_format ts_cue_page = {"js", 1000, page_header, page_cue, page_footer};

/* ---- the page ---- */

static int duration_text(ts_buf *b, double s)
{
	long t = s > 0 && isfinite(s) ? lround(s) : 0;
	if (t >= 3600)
		return ts_buf_printf(b, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	return ts_buf_printf(b, "%ld:%02ld", t / 60, t % 60);
}

/* The page up to the chapter list: head, player and the text area. */
static int page_top(ts_buf *b, const char *book_title, const ts_chapter_entry *first)
{
	int rc = ts_buf_printf(b, "<!DOCTYPE html>\n<html lang=\"zh\">\n<head>\n"
	                          "<meta charset=\"utf-8\">\n"
	                          "<meta name=\"viewport\" content=\"width=device-width, "
	                          "initial-scale=1\">\n"
	                          "<meta name=\"generator\" content=\"tingshu\">\n<title>");
	rc |= ts_html_text(b, book_title);
	rc |= ts_buf_printf(b,
	                    "</title>\n<style>\n%s</style>\n</head>\n<body>\n"
	                    "<p class=\"skip\"><a href=\"#text\">跳到正文</a> "
	                    "<a href=\"#toc\">跳到目录</a></p>\n"
	                    "<header><h1>",
	                    ts_readalong_css);
	rc |= ts_html_text(b, book_title);
	rc |= ts_buf_printf(b, "</h1></header>\n<main>\n<h2 id=\"now\" tabindex=\"-1\">");
	if (first)
		rc |= ts_html_text(b, first->title);
	rc |= ts_buf_printf(b, "</h2>\n<section id=\"player\" aria-label=\"播放器\">\n"
	                       "<div class=\"controls\">\n"
	                       "<button type=\"button\" id=\"play\" hidden>播放</button>\n"
	                       "<button type=\"button\" id=\"prev\" hidden>上一章</button>\n"
	                       "<button type=\"button\" id=\"next\" hidden>下一章</button>\n"
	                       "<audio id=\"audio\" controls preload=\"none\" "
	                       "aria-label=\"音频\"");
	if (first) {
		rc |= ts_buf_printf(b, " src=\"");
		rc |= url_name(b, first->audio);
		rc |= ts_buf_putc(b, '"');
	}
	rc |= ts_buf_printf(
	    b, "></audio>\n"
	       "</div>\n"
	       "<p id=\"status\" role=\"status\"></p>\n"
	       "</section>\n"
	       "<p id=\"text-help\" class=\"help\">正在朗读的句子会高亮显示。"
	       "点一个句子，或用方向键选中后按回车或空格，就从这一句听起。</p>\n"
	       "<div id=\"text\" role=\"region\" tabindex=\"-1\" aria-labelledby=\"now\" "
	       "aria-describedby=\"text-help\">\n"
	       "<noscript><p>本页要用 JavaScript 显示同步文字；"
	       "目录里的链接可以直接播放各章的音频。</p></noscript>\n"
	       "</div>\n"
	       "</main>\n"
	       "<nav id=\"toc\" aria-labelledby=\"toc-h\" tabindex=\"-1\">\n"
	       "<h2 id=\"toc-h\">目录</h2>\n"
	       "<p class=\"find\" hidden><input type=\"search\" id=\"find\" "
	       "placeholder=\"章号或标题\" aria-label=\"查找章节：章号或标题\" "
	       "autocomplete=\"off\"> <span id=\"found\" role=\"status\"></span></p>\n");
	return rc ? TS_ENOMEM : 0;
}

/* One entry of the chapter list, kept short: a book of thousands of
 * chapters lists them all (the end tag of <li> is optional).  The page
 * finds a chapter's script by the name of its audio with .js for its
 * extension (ts_cues_path()); data-js names it only when it is not that
 * name, and is empty when the chapter has none. */
static int toc_entry(ts_buf *b, const ts_chapter_entry *c)
{
	const char *js = c->timing[__builtin_ctz(TS_CUES_PAGE)];
	char *usual = ts_cues_path(c->audio, __builtin_ctz(TS_CUES_PAGE));
	if (!usual)
		return TS_ENOMEM;
	int rc = ts_buf_printf(b, "<li><a href=\"");
	rc |= url_name(b, c->audio);
	rc |= ts_buf_putc(b, '"');
	if (!js || strcmp(js, usual) != 0) {
		rc |= ts_buf_printf(b, " data-js=\"");
		rc |= js ? url_name(b, js) : 0;
		rc |= ts_buf_putc(b, '"');
	}
	rc |= ts_buf_printf(b, " data-ch=\"%d\">", c->index);
	rc |= ts_html_text(b, c->title);
	rc |= ts_buf_printf(b, "</a> <small>");
	rc |= duration_text(b, c->duration_s);
	rc |= ts_buf_printf(b, "</small>\n");
	free(usual);
	return rc ? TS_ENOMEM : 0;
}

int ts_readalong_html(ts_buf *out, const char *book_title, const ts_chapter_entry *ch, size_t n)
{
	int rc = page_top(out, book_title, n ? &ch[0] : NULL);
	rc |= ts_buf_printf(out, "%s", n ? "<ol>\n" : "<p>没有章节。</p>\n");
	for (size_t i = 0; i < n && !rc; i++)
		rc = toc_entry(out, &ch[i]);
	rc |= ts_buf_printf(out, "%s</nav>\n<script>\n%s</script>\n</body>\n</html>\n",
	                    n ? "</ol>\n" : "", ts_readalong_js);
	return rc || ts_buf_error(out) ? TS_ENOMEM : 0;
}
