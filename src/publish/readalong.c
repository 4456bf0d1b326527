/* readalong.c - the read-along page (see readalong.h).
 *
 * Everything from the book or a timing file is escaped for where it goes:
 * HTML text and attributes get entities, the embedded JSON escapes '<',
 * '>' and '&' too so that nothing in it can end its <script> element, and
 * file names become percent-encoded relative URLs (no ':' or '/' left, so
 * a name can never be read as a scheme or a path outside the folder). */
#include "publish/readalong.h"

#include "base/file.h"
#include "publish/html.h"
#include "publish/webvtt.h"

#include "readalong_assets.h" /* ts_readalong_css[], ts_readalong_js[]: generated */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A timing file larger than this is not read: it is several times what
 * a chapter of a million sentences needs. */
#define VTT_MAX_BYTES (256u << 20)

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

/* ---- the page ---- */

static void warn(ts_diag_fn diag, void *ud, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void warn(ts_diag_fn diag, void *ud, const char *fmt, ...)
{
	char m[TS_MSG_MAX];
	va_list ap;
	if (!diag)
		return;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	diag(ud, TS_WARNING, m);
}

/* Read and parse the timing file name of a chapter (from the file from
 * while it is not in place, when not NULL); *usable tells whether it is
 * WebVTT (the page links it only then).  Problems other than the
 * machine's (memory, open files) are warned about and leave *n at 0. */
static int read_cues(const char *outdir, const char *name, const char *from, ts_cue **cues,
                     size_t *n, int *usable, ts_diag_fn diag, void *ud)
{
	*cues = NULL;
	*n = 0;
	*usable = 0;
	if (!name[0] || strchr(name, '/') || name[0] == '.') {
		warn(diag, ud,
		     "index.html: timing file name '%s' is not a file of %s; "
		     "its chapter has no text on the page",
		     name, outdir);
		return 0;
	}
	ts_buf path = {0};
	if (ts_buf_printf(&path, "%s/%s", outdir, from ? from : name))
		return TS_ENOMEM;
	ts_error err = {0};
	int e, rc = ts_vtt_read(path.data, VTT_MAX_BYTES, cues, n, &e, &err);
	*usable = rc == 0;
	if (rc == TS_ENOMEM || e == ENOMEM || e == EMFILE || e == ENFILE) {
		rc = rc == TS_ENOMEM || e == ENOMEM ? TS_ENOMEM : TS_EIO; /* not the file's fault */
	} else if (rc) {
		warn(diag, ud, "index.html: %s; its chapter has no text on the page", err.msg);
		rc = 0;
	}
	ts_buf_free(&path);
	return rc;
}

static int duration_text(ts_buf *b, double s)
{
	long t = s > 0 && isfinite(s) ? lround(s) : 0;
	if (t >= 3600)
		return ts_buf_printf(b, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	return ts_buf_printf(b, "%ld:%02ld", t / 60, t % 60);
}

/* The page up to the chapter list: head, player and the text area. */
static int page_top(ts_buf *b, const char *book_title, const ts_chapter_entry *first, int first_vtt)
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
	rc |= ts_buf_printf(b, ">");
	if (first && first_vtt) {
		rc |= ts_buf_printf(b, "<track kind=\"captions\" src=\"");
		rc |= url_name(b, first->vtt);
		rc |= ts_buf_printf(b, "\" srclang=\"zh\" label=\"中文\">");
	}
	rc |= ts_buf_printf(
	    b, "</audio>\n"
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
	       "</main>\n");
	return rc ? TS_ENOMEM : 0;
}

/* One entry of the chapter list. */
static int toc_entry(ts_buf *b, const ts_chapter_entry *c, size_t pos, int vtt, size_t ncues)
{
	int rc = ts_buf_printf(b, "<li><a href=\"");
	rc |= url_name(b, c->audio);
	rc |= ts_buf_putc(b, '"');
	if (vtt) {
		rc |= ts_buf_printf(b, " data-vtt=\"");
		rc |= url_name(b, c->vtt);
		rc |= ts_buf_putc(b, '"');
	}
	if (ncues)
		rc |= ts_buf_printf(b, " data-cues=\"cues-%zu\"", pos);
	rc |= ts_buf_printf(b, " data-ch=\"%d\">", c->index);
	rc |= ts_html_text(b, c->title);
	rc |= ts_buf_printf(b, "</a> <span class=\"dur\">");
	rc |= duration_text(b, c->duration_s);
	rc |= ts_buf_printf(b, "</span></li>\n");
	return rc ? TS_ENOMEM : 0;
}

/* The cues of a chapter as a JSON array of [start, end, text], with a
 * fourth element 1 on a cue that starts a paragraph (0 before a fifth),
 * and a fifth, its speaker, on a quotation read in the speaker's voice. */
static int cue_json(ts_buf *b, size_t pos, const ts_cue *cues, size_t n)
{
	int rc = ts_buf_printf(b, "<script type=\"application/json\" id=\"cues-%zu\">[", pos);
	for (size_t i = 0; i < n && !rc; i++) {
		rc = ts_buf_printf(b, "%s\n[%.3f,%.3f,", i ? "," : "", cues[i].start, cues[i].end);
		rc |= json_text(b, cues[i].text);
		if (cues[i].speaker) {
			rc |= ts_buf_printf(b, ",%d,", cues[i].paragraph ? 1 : 0);
			rc |= json_text(b, cues[i].speaker);
			rc |= ts_buf_putc(b, ']');
		} else {
			rc |= ts_buf_printf(b, "%s]", cues[i].paragraph ? ",1" : "");
		}
	}
	rc |= ts_buf_printf(b, "]</script>\n");
	return rc ? TS_ENOMEM : 0;
}

/* Where the page goes: appended to a buffer, or written to a file a piece
 * at a time, so that only a chapter's cues are ever in memory. */
typedef struct page_out {
	ts_buf *all;  /* or NULL */
	FILE *f;      /* when all is NULL */
	ts_buf piece; /* written so far and not yet passed on */
	int sys_errno;
} page_out;

/* Pass the piece on; 0, TS_ENOMEM or TS_EIO (errno in o->sys_errno). */
static int pass_piece(page_out *o, int rc)
{
	if (!rc && ts_buf_error(&o->piece))
		rc = TS_ENOMEM;
	if (!rc && o->all)
		rc = ts_buf_append(o->all, o->piece.data, o->piece.len) ? TS_ENOMEM : 0;
	else if (!rc && o->piece.len &&
	         fwrite(o->piece.data, 1, o->piece.len, o->f) != o->piece.len)
		o->sys_errno = errno ? errno : EIO, rc = TS_EIO;
	ts_buf_clear(&o->piece);
	return rc;
}

/* The page, in two passes over the timing files: the first learns which
 * chapters have text (for the page's top and its list of chapters, which
 * come first) and warns about the files it cannot use; the second reads
 * them again, one at a time, for their cues. */
static int write_page(page_out *o, const char *outdir, const char *book_title,
                      const ts_chapter_entry *ch, size_t n, ts_diag_fn diag, void *ud)
{
	enum { HAS_VTT = 1, HAS_CUES = 2 };
	unsigned char *has = calloc(n ? n : 1, 1);
	ts_buf *b = &o->piece;
	int rc = has ? 0 : TS_ENOMEM;
	for (size_t i = 0; i < n && !rc; i++) {
		ts_cue *cues = NULL;
		size_t ncues = 0;
		int vtt = 0;
		if (ch[i].vtt)
			rc = read_cues(outdir, ch[i].vtt, ch[i].vtt_from, &cues, &ncues, &vtt, diag,
			               ud);
		has[i] = (unsigned char)((vtt ? HAS_VTT : 0) | (ncues ? HAS_CUES : 0));
		ts_vtt_free(cues, ncues);
	}
	if (!rc)
		rc = pass_piece(
		    o, page_top(b, book_title, n ? &ch[0] : NULL, n && (has[0] & HAS_VTT)));
	if (!rc) {
		rc = ts_buf_printf(b,
		                   "<nav id=\"toc\" aria-labelledby=\"toc-h\" tabindex=\"-1\">\n"
		                   "<h2 id=\"toc-h\">目录</h2>\n%s",
		                   n ? "<ol>\n" : "<p>没有章节。</p>\n");
		rc = pass_piece(o, rc ? TS_ENOMEM : 0);
	}
	for (size_t i = 0; i < n && !rc; i++)
		rc = pass_piece(o, toc_entry(b, &ch[i], i, has[i] & HAS_VTT, has[i] & HAS_CUES));
	if (!rc)
		rc = pass_piece(o,
		                ts_buf_printf(b, "%s</nav>\n", n ? "</ol>\n" : "") ? TS_ENOMEM : 0);
	for (size_t i = 0; i < n && !rc; i++) {
		if (!(has[i] & HAS_CUES))
			continue;
		ts_cue *cues = NULL;
		size_t ncues = 0;
		int vtt = 0;
		rc = read_cues(outdir, ch[i].vtt, ch[i].vtt_from, &cues, &ncues, &vtt, NULL, NULL);
		if (!rc && ncues)
			rc = pass_piece(o, cue_json(b, i, cues, ncues));
		ts_vtt_free(cues, ncues);
	}
	if (!rc)
		rc = pass_piece(o, ts_buf_printf(b, "<script>\n%s</script>\n</body>\n</html>\n",
		                                 ts_readalong_js)
		                       ? TS_ENOMEM
		                       : 0);
	free(has);
	ts_buf_free(&o->piece);
	return rc;
}

int ts_readalong_html(ts_buf *out, const char *outdir, const char *book_title,
                      const ts_chapter_entry *ch, size_t n, ts_diag_fn diag, void *ud)
{
	page_out o = {.all = out};
	return write_page(&o, outdir, book_title, ch, n, diag, ud);
}

int ts_readalong_write(FILE *f, const char *outdir, const char *book_title,
                       const ts_chapter_entry *ch, size_t n, ts_diag_fn diag, void *ud,
                       int *sys_errno)
{
	page_out o = {.f = f};
	int rc = write_page(&o, outdir, book_title, ch, n, diag, ud);
	*sys_errno = o.sys_errno;
	return rc;
}
