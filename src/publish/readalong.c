/* readalong.c - the read-along page and the WebVTT reader (see
 * readalong.h).
 *
 * Bad-input policy for WebVTT, lenient where a player would be and never
 * passing markup through:
 * - A UTF-8 byte-order mark is skipped; the text must then start with
 *   "WEBVTT" followed by the end of the line, a space or a tab, or it is
 *   rejected (TS_EINVAL).  The header runs to the first blank line.
 * - Lines end at LF, CRLF or CR.  Blocks are separated by blank lines.
 *   A block is a cue when its first line, or the line after an
 *   identifier, holds "-->"; NOTE, STYLE and REGION blocks and anything
 *   else are skipped.  A line with "-->" further into any block ends it
 *   and starts a cue, as in the WebVTT parsing rules.
 * - Timestamps are [h:]mm:ss[.fff]; ',' is taken for '.', and the digit
 *   counts are not enforced, but minutes and seconds must be below 60.  A
 *   cue whose timing line does not parse, or that ends before it starts,
 *   is left out.
 * - Cue text: tags (<v Name>, <c.x>, <b>, <00:01.000> ...) are removed;
 *   &amp; &lt; &gt; &quot; &apos; &nbsp; &lrm; &rlm; and numeric
 *   references are decoded, any other '&' stays as it is; invalid UTF-8
 *   bytes and references to invalid code points become U+FFFD; tabs and
 *   line or paragraph separators become spaces, other control characters
 *   are dropped.  Lines of one cue are joined with a space between two
 *   ASCII characters and with nothing otherwise (Chinese text has no
 *   spaces).  A cue whose text is then empty is left out.
 *
 * Everything from the book or a timing file is escaped for where it goes:
 * HTML text and attributes get entities, the embedded JSON escapes '<',
 * '>' and '&' too so that nothing in it can end its <script> element, and
 * file names become percent-encoded relative URLs (no ':' or '/' left, so
 * a name can never be read as a scheme or a path outside the folder). */
#include "publish/readalong.h"
#include "base/file.h"

#include "readalong_assets.h" /* ts_readalong_css[], ts_readalong_js[]: generated */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A timing file larger than this is not read (a chapter of a million
 * sentences would be some 60 MB). */
#define VTT_MAX_BYTES (256u << 20)

/* ---- text sanitizing shared by the VTT reader and the page ---- */

/* What a code point becomes in text for the page: -1 drop it, or the code
 * point to keep (a space for tabs and line separators). */
static long text_char(uint32_t c)
{
	if (c == '\t' || c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029)
		return ' ';
	if (c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0))
		return -1;
	return (long)c;
}

/* Decode one character of s[0..n) (n > 0): its length, with invalid bytes
 * read one at a time as U+FFFD. */
static size_t next_char(const char *s, size_t n, uint32_t *c)
{
	int k = ts_utf8_decode((const unsigned char *)s, n, c);
	if (k == 0) {
		*c = 0xFFFD;
		return 1;
	}
	return (size_t)k;
}

static int put_cp(ts_buf *b, uint32_t c)
{
	char u[4];
	return ts_buf_append(b, u, (size_t)ts_utf8_encode(c, u));
}

/* ---- WebVTT ---- */

/* One cue while the file is read, with its place in the file so that the
 * sort keeps cues with equal starts in order. */
typedef struct keyed_cue {
	ts_cue cue;
	size_t order;
} keyed_cue;

typedef struct vtt_reader {
	keyed_cue *cues;
	size_t n, cap;
	int in_cue; /* collecting the text lines of cues[n] */
	double start, end;
	int id_para;    /* the identifier line before the timing ends with ¶ */
	int paragraph;  /* the cue being read starts a paragraph */
	ts_buf text;    /* text of the cue being read */
	ts_buf speaker; /* of its first voice span, <v NAME> */
	ts_buf line;    /* one text line, cleaned */
} vtt_reader;

static int has_arrow(const char *s, size_t n)
{
	for (size_t i = 0; i + 3 <= n; i++)
		if (s[i] == '-' && s[i + 1] == '-' && s[i + 2] == '>')
			return 1;
	return 0;
}

static int is_blank_char(char c)
{
	return c == ' ' || c == '\t';
}

/* Whether line s[0..n) is keyword followed by its end, a space or a tab. */
static int starts_word(const char *s, size_t n, const char *keyword)
{
	size_t k = strlen(keyword);
	return n >= k && memcmp(s, keyword, k) == 0 && (n == k || is_blank_char(s[k]));
}

/* Parse a timestamp at s[*i..n): [h:]mm:ss[.fff].  Returns 0 and advances
 * *i, or -1. */
static int parse_time(const char *s, size_t n, size_t *i, double *t)
{
	unsigned long long part[3];
	int parts = 0;
	size_t p = *i;
	for (;;) {
		unsigned long long v = 0;
		size_t d = 0;
		while (p < n && s[p] >= '0' && s[p] <= '9') {
			if (d++ >= 9)
				return -1; /* no absurd hours */
			v = v * 10 + (unsigned)(s[p++] - '0');
		}
		if (d == 0)
			return -1;
		part[parts++] = v;
		if (p < n && s[p] == ':' && parts < 3) {
			p++;
			continue;
		}
		break;
	}
	if (parts < 2)
		return -1;
	unsigned long long h = parts == 3 ? part[0] : 0;
	unsigned long long m = part[parts - 2], sec = part[parts - 1];
	if (m >= 60 || sec >= 60)
		return -1;
	double frac = 0, scale = 0.1;
	if (p < n && (s[p] == '.' || s[p] == ',')) {
		p++;
		size_t d = 0;
		while (p < n && s[p] >= '0' && s[p] <= '9') {
			if (d++ < 9)
				frac += (s[p] - '0') * scale, scale /= 10;
			p++;
		}
		if (d == 0)
			return -1;
	}
	*t = (double)h * 3600 + (double)m * 60 + (double)sec + frac;
	*i = p;
	return 0;
}

/* "start --> end [settings]".  Returns 0 or -1. */
static int parse_timing(const char *s, size_t n, double *start, double *end)
{
	size_t i = 0;
	while (i < n && is_blank_char(s[i]))
		i++;
	if (parse_time(s, n, &i, start))
		return -1;
	while (i < n && is_blank_char(s[i]))
		i++;
	if (n - i < 3 || memcmp(s + i, "-->", 3) != 0)
		return -1;
	i += 3;
	while (i < n && is_blank_char(s[i]))
		i++;
	if (parse_time(s, n, &i, end))
		return -1;
	if (i < n && !is_blank_char(s[i]))
		return -1;
	return *end >= *start ? 0 : -1;
}

/* A character reference at s[0..n) (s[0] == '&'): its length and code
 * point, or 0 when it is none we know. */
static size_t parse_ref(const char *s, size_t n, uint32_t *c)
{
	static const struct {
		const char *name;
		uint32_t cp;
	} names[] = {{"amp;", '&'},   {"lt;", '<'},    {"gt;", '>'},     {"quot;", '"'},
	             {"apos;", '\''}, {"nbsp;", 0xA0}, {"lrm;", 0x200E}, {"rlm;", 0x200F}};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		size_t l = strlen(names[k].name);
		if (n > l && memcmp(s + 1, names[k].name, l) == 0) {
			*c = names[k].cp;
			return l + 1;
		}
	}
	if (n < 4 || s[1] != '#')
		return 0;
	size_t i = 2;
	int hex = s[i] == 'x' || s[i] == 'X';
	i += (size_t)hex;
	unsigned long v = 0;
	size_t d = 0;
	for (; i < n && d < 8; i++, d++) {
		int x;
		if (s[i] >= '0' && s[i] <= '9')
			x = s[i] - '0';
		else if (hex && s[i] >= 'a' && s[i] <= 'f')
			x = s[i] - 'a' + 10;
		else if (hex && s[i] >= 'A' && s[i] <= 'F')
			x = s[i] - 'A' + 10;
		else
			break;
		v = v * (hex ? 16 : 10) + (unsigned long)x;
	}
	if (d == 0 || i >= n || s[i] != ';')
		return 0;
	*c = (v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) ? 0xFFFD : (uint32_t)v;
	return i + 1;
}

/* A tag's inside t[0..n): a voice span ("v NAME", "v.class NAME") names
 * the cue's speaker, the first one only. */
static int voice_span(vtt_reader *r, const char *t, size_t n)
{
	if (r->speaker.len || n < 3 || t[0] != 'v' || (t[1] != ' ' && t[1] != '.'))
		return 0;
	const char *sp = memchr(t, ' ', n);
	if (!sp)
		return 0;
	size_t a = (size_t)(sp - t) + 1, b = n;
	while (a < b && t[a] == ' ')
		a++;
	while (b > a && t[b - 1] == ' ')
		b--;
	for (size_t i = a; i < b;) { /* whole characters, none a control */
		uint32_t c;
		size_t k = t[i] == '&' ? parse_ref(t + i, b - i, &c) : 0;
		i += k ? k : next_char(t + i, b - i, &c);
		long keep = text_char(c);
		if (keep >= 0 && put_cp(&r->speaker, (uint32_t)keep))
			return TS_ENOMEM;
	}
	return 0;
}

/* Clean one text line s[0..n) into r->line. */
static int clean_line(vtt_reader *r, const char *s, size_t n)
{
	ts_buf_clear(&r->line);
	for (size_t i = 0; i < n;) {
		uint32_t c;
		if (s[i] == '<') { /* a tag: up to '>' or the end of the line */
			const char *gt = memchr(s + i, '>', n - i);
			size_t e = gt ? (size_t)(gt - s) : n;
			if (voice_span(r, s + i + 1, e - i - 1))
				return TS_ENOMEM;
			i = gt ? e + 1 : n;
			continue;
		}
		size_t k = 0;
		if (s[i] == '&')
			k = parse_ref(s + i, n - i, &c);
		if (k == 0)
			k = next_char(s + i, n - i, &c);
		i += k;
		long keep = text_char(c);
		if (keep >= 0 && put_cp(&r->line, (uint32_t)keep))
			return TS_ENOMEM;
	}
	return 0;
}

static int ascii_graph(unsigned char c)
{
	return c > 0x20 && c < 0x7F;
}

/* Add a text line to the cue being read. */
static int add_line(vtt_reader *r, const char *s, size_t n)
{
	if (clean_line(r, s, n))
		return TS_ENOMEM;
	const char *l = r->line.data;
	size_t len = r->line.len;
	while (len > 0 && l[0] == ' ')
		l++, len--;
	while (len > 0 && l[len - 1] == ' ')
		len--;
	if (len == 0)
		return 0;
	if (r->text.len > 0 && ascii_graph((unsigned char)r->text.data[r->text.len - 1]) &&
	    ascii_graph((unsigned char)l[0]) && ts_buf_putc(&r->text, ' '))
		return TS_ENOMEM;
	return ts_buf_append(&r->text, l, len);
}

/* Finish the cue being read: keep it when it has text. */
static int end_cue(vtt_reader *r)
{
	if (!r->in_cue)
		return 0;
	r->in_cue = 0;
	if (r->text.len == 0)
		return 0;
	if (TS_GROW(r->cues, r->cap, r->n + 1))
		return TS_ENOMEM;
	char *text = ts_strndup(r->text.data, r->text.len);
	char *who = r->speaker.len ? ts_strndup(r->speaker.data, r->speaker.len) : NULL;
	if (!text || (r->speaker.len && !who)) {
		free(text);
		return TS_ENOMEM;
	}
	r->cues[r->n] = (keyed_cue){{r->start, r->end, text, r->paragraph, who}, r->n};
	r->n++;
	return 0;
}

/* A timing line: start a cue, or skip the block when it does not parse. */
static int start_cue(vtt_reader *r, const char *s, size_t n)
{
	if (end_cue(r))
		return TS_ENOMEM;
	ts_buf_clear(&r->text);
	ts_buf_clear(&r->speaker);
	r->in_cue = parse_timing(s, n, &r->start, &r->end) == 0;
	r->paragraph = r->id_para;
	r->id_para = 0;
	return 0;
}

static int cue_cmp(const void *a, const void *b)
{
	const keyed_cue *x = a, *y = b;
	if (x->cue.start != y->cue.start)
		return x->cue.start < y->cue.start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int ts_vtt_parse(const char *text, size_t len, ts_cue **cues, size_t *n)
{
	enum { BETWEEN, AFTER_ID, IN_CUE, SKIP } state = BETWEEN;
	vtt_reader r = {0};
	int rc = 0;
	*cues = NULL;
	*n = 0;
	size_t i = ts_utf8_bom(text, len); /* a byte-order mark */
	if (len - i < 6 || memcmp(text + i, "WEBVTT", 6) != 0 ||
	    (len - i > 6 && !memchr(" \t\r\n", text[i + 6], 4)))
		return TS_EINVAL;
	while (i < len && text[i] != '\n' && text[i] != '\r')
		i++; /* the signature line */
	i += i + 1 < len && text[i] == '\r' && text[i + 1] == '\n' ? 2 : 1;
	int header = 1;
	while (i < len && !rc) {
		size_t e = i;
		while (e < len && text[e] != '\n' && text[e] != '\r')
			e++;
		const char *s = text + i;
		size_t l = e - i;
		i = e < len && text[e] == '\r' && e + 1 < len && text[e + 1] == '\n' ? e + 2
		                                                                     : e + 1;
		/* The header runs to a blank line, but a timing line there is
		 * taken for the first cue. */
		if (header) {
			header = l > 0 && !has_arrow(s, l);
			if (header || l == 0)
				continue;
		}
		if (l == 0) {
			rc = end_cue(&r);
			state = BETWEEN;
			r.id_para = 0;
			continue;
		}
		switch (state) {
		case BETWEEN:
			if (has_arrow(s, l)) {
				rc = start_cue(&r, s, l);
				state = r.in_cue ? IN_CUE : SKIP;
			} else if (starts_word(s, l, "NOTE") || starts_word(s, l, "STYLE") ||
			           starts_word(s, l, "REGION")) {
				state = SKIP;
			} else {
				state = AFTER_ID;
				r.id_para = l >= 2 && memcmp(s + l - 2, "\xC2\xB6", 2) == 0;
			}
			break;
		default: /* a timing line ends any block and starts a cue */
			if (has_arrow(s, l)) {
				rc = start_cue(&r, s, l);
				state = r.in_cue ? IN_CUE : SKIP;
			} else if (state == IN_CUE) {
				rc = add_line(&r, s, l);
			} else {
				state = SKIP; /* an identifier not followed by timing */
			}
			break;
		}
	}
	if (!rc)
		rc = end_cue(&r);
	ts_buf_free(&r.text);
	ts_buf_free(&r.speaker);
	ts_buf_free(&r.line);
	if (!rc && r.n > 0) {
		qsort(r.cues, r.n, sizeof *r.cues, cue_cmp);
		*cues = malloc(r.n * sizeof **cues);
		if (!*cues)
			rc = TS_ENOMEM;
	}
	if (rc) {
		for (size_t k = 0; k < r.n; k++) {
			free(r.cues[k].cue.text);
			free(r.cues[k].cue.speaker);
		}
		free(r.cues);
		return rc;
	}
	for (size_t k = 0; k < r.n; k++)
		(*cues)[k] = r.cues[k].cue;
	*n = r.n;
	free(r.cues);
	return 0;
}

void ts_cues_free(ts_cue *cues, size_t n)
{
	for (size_t i = 0; i < n && cues; i++) {
		free(cues[i].text);
		free(cues[i].speaker);
	}
	free(cues);
}

/* ---- escaping for the page ---- */

int ts_html_text(ts_buf *b, const char *s)
{
	size_t n = strlen(s);
	int rc = 0;
	for (size_t i = 0; i < n && !rc;) {
		uint32_t c;
		i += next_char(s + i, n - i, &c);
		long keep = text_char(c);
		switch (keep) {
		case -1: break;
		case '&': rc = ts_buf_append(b, "&amp;", 5); break;
		case '<': rc = ts_buf_append(b, "&lt;", 4); break;
		case '>': rc = ts_buf_append(b, "&gt;", 4); break;
		case '"': rc = ts_buf_append(b, "&quot;", 6); break;
		case '\'': rc = ts_buf_append(b, "&#39;", 5); break;
		default: rc = put_cp(b, (uint32_t)keep);
		}
	}
	return rc;
}

/* s as a JSON string that is safe inside <script>: no '<', '>' or '&',
 * no U+2028/U+2029, valid UTF-8. */
static int json_text(ts_buf *b, const char *s)
{
	size_t n = strlen(s);
	int rc = ts_buf_putc(b, '"');
	for (size_t i = 0; i < n && !rc;) {
		uint32_t c;
		i += next_char(s + i, n - i, &c);
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
	char m[1024];
	va_list ap;
	if (!diag)
		return;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	diag(ud, TS_WARNING, m);
}

int ts_vtt_read(const char *path, size_t max, ts_cue **cues, size_t *n, int *sys_errno,
                ts_error *err)
{
	ts_buf data = {0};
	struct stat st;
	int rc = 0;
	*cues = NULL;
	*n = 0;
	*sys_errno = 0;
	FILE *f = ts_fopen_regular(path, "rb", &st, &rc);
	if (!f) {
		*sys_errno = rc == TS_NOT_REGULAR ? 0 : errno;
		return ts_error_set(err, errno == ENOMEM && *sys_errno ? TS_ENOMEM : TS_EIO,
		                    "%s: cannot read it: %s", path,
		                    *sys_errno ? strerror(*sys_errno) : ts_file_kind(st.st_mode));
	}
	char block[65536];
	size_t got;
	while (!rc && (got = fread(block, 1, sizeof block, f)) > 0)
		if (data.len + got > max)
			rc =
			    ts_error_set(err, TS_EINVAL, "%s: larger than %zu MB", path, max >> 20);
		else if (ts_buf_append(&data, block, got))
			rc = ts_error_set(err, TS_ENOMEM, NULL);
	if (!rc && ferror(f)) {
		*sys_errno = errno;
		rc = ts_error_set(err, TS_EIO, "%s: cannot read it: %s", path, strerror(errno));
	}
	fclose(f);
	if (!rc && (rc = ts_vtt_parse(data.data ? data.data : "", data.len, cues, n)))
		rc = ts_error_set(err, rc, "%s: %s", path,
		                  rc == TS_EINVAL ? "not a WebVTT file" : ts_strerror(rc));
	ts_buf_free(&data);
	return rc;
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
		ts_cues_free(cues, ncues);
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
		ts_cues_free(cues, ncues);
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
