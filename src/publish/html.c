/* html.c - text for a page (see html.h). */
#include "publish/html.h"

#include <string.h>

long ts_html_char(uint32_t c)
{
	if (c == '\t' || c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029)
		return ' ';
	if (c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0))
		return -1;
	return (long)c;
}

size_t ts_html_next(const char *s, size_t n, uint32_t *c)
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

int ts_html_text(ts_buf *b, const char *s)
{
	size_t n = strlen(s);
	int rc = 0;
	for (size_t i = 0; i < n && !rc;) {
		uint32_t c;
		i += ts_html_next(s + i, n - i, &c);
		long keep = ts_html_char(c);
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
