/* webvtt.c - WebVTT, written and read (see webvtt.h).
 *
 * Written: a row of the timing formats (cueformat.h), cue text escaped
 * as markup.
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
 *   spaces).  A cue whose text is then empty is left out. */
#include "publish/webvtt.h"

#include "base/file.h"
#include "base/util.h"
#include "publish/cueformat.h"
#include "publish/html.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- writing ---- */

static int vtt_header(ts_buf *b)
{
	return ts_buf_printf(b, "WEBVTT\n\n");
}

/* WebVTT cue text is markup: & < > are escaped, which also keeps "-->"
 * out of it.  A quotation's speaker is a voice span: <v NAME>text. */
static int vtt_cue(ts_buf *b, const ts_cue_state *s, uint64_t start, uint64_t end, const char *text)
{
	/* The identifier: the cue's number, and a pilcrow when it starts a
	 * paragraph (a reader can lay the text out by them). */
	int rc = ts_buf_printf(b, "%zu%s\n", s->count + 1, s->para ? " \xC2\xB6" : "");
	rc = rc ? rc : ts_cue_hms(b, start, '.');
	rc = rc ? rc : ts_buf_printf(b, " --> ");
	rc = rc ? rc : ts_cue_hms(b, end, '.');
	rc = rc ? rc : ts_buf_putc(b, '\n');
	if (s->speaker) {
		rc = rc ? rc : ts_buf_printf(b, "<v ");
		rc = rc ? rc : ts_buf_xml(b, s->speaker, strlen(s->speaker));
		rc = rc ? rc : ts_buf_putc(b, '>');
	}
	rc = rc ? rc : ts_buf_xml(b, text, strlen(text));
	return rc ? rc : ts_buf_printf(b, "\n\n");
}

const ts_cue_format ts_cue_vtt = {"vtt", 1000, vtt_header, vtt_cue, NULL};

/* ---- reading ---- */

static int put_cp(ts_buf *b, uint32_t c)
{
	char u[4];
	return ts_buf_append(b, u, (size_t)ts_utf8_encode(c, u));
}

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
		i += k ? k : ts_html_next(t + i, b - i, &c);
		long keep = ts_html_char(c);
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
			k = ts_html_next(s + i, n - i, &c);
		i += k;
		long keep = ts_html_char(c);
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

void ts_vtt_free(ts_cue *cues, size_t n)
{
	for (size_t i = 0; i < n && cues; i++) {
		free(cues[i].text);
		free(cues[i].speaker);
	}
	free(cues);
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
