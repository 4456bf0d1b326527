/* slug.c - file names from titles (see slug.h). */
#include "publish/slug.h"

#include "base/util.h"

#include <stdint.h>
#include <string.h>

/* Characters that never go into a file name. */
static int slug_drop(uint32_t c)
{
	return c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0) || c == '/' || c == '\\' ||
	       c == ':' || c == '*' || c == '?' || c == '"' || c == '<' || c == '>' || c == '|' ||
	       (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) ||
	       (c >= 0x2060 && c <= 0x2064) || c == 0xFEFF || (c >= 0xD800 && c <= 0xDFFF) ||
	       (c >= 0xFFF9 && c <= 0xFFFD) || c == 0x2028 || c == 0x2029;
}

void ts_slug(const char *title, char *out)
{
	const unsigned char *s = (const unsigned char *)title;
	size_t n = strlen(title), o = 0;
	int space = 0;
	for (size_t i = 0; i < n;) {
		uint32_t c;
		int k = ts_utf8_decode(s + i, n - i, &c);
		if (k == 0) {
			i++;
			continue;
		}
		i += (size_t)k;
		if (ts_is_space(c) || c == '_') {
			space = o > 0;
			continue;
		}
		if (slug_drop(c))
			continue;
		if (o == 0 && c == '.')
			continue; /* no hidden files, no "." or ".." */
		size_t need = (size_t)k + (space ? 1 : 0);
		if (o + need > TS_SLUG_MAX)
			break;
		if (space)
			out[o++] = '_';
		space = 0;
		o += (size_t)ts_utf8_encode(c, out + o);
	}
	while (o > 0 && out[o - 1] == '.')
		o--; /* trailing dots confuse some file systems */
	if (o == 0) {
		strcpy(out, "chapter");
		return;
	}
	out[o] = '\0';
}
