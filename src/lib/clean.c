/* clean.c - drop unspeakable characters and fold spaces (see clean.h).
 *
 * Bad-input policy: control characters (C0 but tab, DEL, C1), zero-width
 * characters, soft hyphens and BOMs are removed silently: they have no
 * sound and no visible form.  Tabs count as spaces. */
#include "clean.h"

void ts_clean_begin(ts_cleaner *c)
{
	c->at_start = 1;
	c->space_pending = 0;
}

static int invisible(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || cp == 0xAD ||
	       (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2060 && cp <= 0x2064) || cp == 0xFEFF;
}

int ts_clean_piece(ts_cleaner *c, const char *text, size_t len, ts_buf *out)
{
	const unsigned char *u = (const unsigned char *)text;
	size_t i = 0;
	while (i < len) {
		uint32_t cp;
		int k = ts_utf8_decode(u + i, len - i, &cp);
		if (k == 0) { /* not reached for validated input; keep going */
			i++;
			continue;
		}
		if (cp == '\t' || (ts_is_space(cp) && cp != 0xFEFF)) {
			c->space_pending = !c->at_start;
		} else if (!invisible(cp)) {
			if (c->space_pending && ts_buf_putc(out, ' '))
				return TS_ENOMEM;
			c->space_pending = 0;
			c->at_start = 0;
			if (ts_buf_append(out, text + i, (size_t)k))
				return TS_ENOMEM;
		}
		i += (size_t)k;
	}
	return 0;
}
