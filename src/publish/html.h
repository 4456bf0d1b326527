/* html.h - text for a page: what the read-along page, the EPUB's
 * documents and the WebVTT reader keep of a character, and its escaping as
 * HTML or XML text.  Text from a book or a timing file never brings
 * markup or invisible controls into what is published. */
#ifndef TS_HTML_H
#define TS_HTML_H

#include "base/util.h"

#include <stddef.h>
#include <stdint.h>

/* What code point c becomes in text for a page: -1 drop it (control
 * characters), or the code point to keep (a space for tabs and line or
 * paragraph separators). */
long ts_html_char(uint32_t c);

/* Decode one character of s[0..n) (n > 0) into *c: its length, with
 * invalid bytes read one at a time as U+FFFD. */
size_t ts_html_next(const char *s, size_t n, uint32_t *c);

/* Append s as HTML (or XML) text or attribute value: & < > " ' escaped,
 * control and other characters a page must not hold left out.  0 or
 * TS_ENOMEM. */
int ts_html_text(ts_buf *b, const char *s);

#endif
