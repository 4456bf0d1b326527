/* heading.c - recognizing chapter headings, and cleaning a heading line
 * of markup and spaces (see heading.h).
 *
 * The classes of characters are written as themselves, the way a reader
 * of the books sees them.  They are a table here rather than a file under
 * voices/: a book (ts_book) is found and split with no language data at
 * hand, and a table this small and this stable is not worth a file that
 * every maker of a book would have to load first.
 *
 * Bad-input policy: a byte that is not valid UTF-8 is stepped over; a
 * line with one is not taken for prose on that account. */
#include "zh/heading.h"

#include "base/util.h"

#include <string.h>
#include <strings.h>

/* Chinese numerals of every style: plain, formal (大写, simplified and
 * traditional), 廿 卅 卌, 〇. */
static const char numerals[] = "零〇一二三四五六七八九十百千万萬两兩"
                               "壹贰貳叁參肆伍陆陸柒捌玖拾佰仟廿卅卌";
/* What may follow 第N. */
static const char units[] = "章回节節卷集部篇";
/* Those of them that make a volume heading. */
static const char volume_units[] = "卷部篇";
/* What may stand between a heading's number and its title: space, tab,
 * ASCII : . , - _, the ideographic space, ：、．，, em dash, middle dot,
 * katakana middle dot, full-width hyphen, en dash, hyphenation point. */
static const char separators[] = " \t:.,-_\u3000：、．，—·・－–‧";
/* Punctuation that marks prose, not a heading. */
static const char prose_marks[] = "。，！？；“”";

/* Volume lines that carry no number: the VIP part of a serialized book,
 * the "main text" and "about the book" parts of its contents as sites
 * export them.  上架感言 and other notes are not volumes. */
static const char *const named_volumes[] = {"VIP卷",    "vip卷",    "ＶＩＰ卷", "正文卷",
                                            "作品相关", "作品相關", NULL};
/* What a site puts before a chapter heading (正文 第一章, VIP章节 第101章). */
static const char *const chapter_parts[] = {"正文",       "VIP章节",    "VIP章節", "vip章节",
                                            "ＶＩＰ章节", "ＶＩＰ章節", NULL};
/* What follows a volume's number when the line is that volume's end, not
 * its start: 第一卷完, 第一卷（终）. */
static const char *const end_marks[] = {"完", "终", "終", "完结", "完結", "结束", "結束", NULL};
/* Brackets around such an end mark. */
static const char brackets[] = "()（）【】[]";

/* Headings with no number. */
static const char *const special_heads[] = {"楔子", "序章", "序言", "序幕", "引子", "引言",
                                            "前言", "尾声", "尾聲", "后记", "後記", "终章",
                                            "終章", "番外", "序",   NULL};

/* One character of a heading's number: Arabic, full-width or Chinese. */
static int is_numeral(uint32_t c)
{
	return (c >= '0' && c <= '9') || (c >= 0xFF10 && c <= 0xFF19) || ts_char_in(c, numerals);
}

/* Does s[i..len) start with prefix? */
static int starts(const unsigned char *s, size_t i, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len - i >= n && memcmp(s + i, prefix, n) == 0;
}

/* The end of the number that starts at s[j] (1 to 12 numerals), or 0. */
static size_t number_end(const unsigned char *s, size_t j, size_t len)
{
	size_t digits = 0;
	uint32_t c;
	int k;
	while (j < len && (k = ts_utf8_decode(s + j, len - j, &c)) > 0 && is_numeral(c)) {
		j += (size_t)k;
		digits++;
	}
	return digits > 0 && digits <= 12 ? j : 0;
}

/* Is s[j..len), what follows a volume's number, the mark of its end
 * (第一卷完)? */
static int volume_end(const unsigned char *s, size_t j, size_t len)
{
	char rest[TS_HEADING_BYTES];
	size_t o = 0;
	uint32_t c;
	int k;
	for (; j < len && (k = ts_utf8_decode(s + j, len - j, &c)) > 0; j += (size_t)k)
		if (!ts_char_in(c, separators) && !ts_char_in(c, brackets) && !ts_is_space(c) &&
		    o + (size_t)k < sizeof rest) {
			memcpy(rest + o, s + j, (size_t)k);
			o += (size_t)k;
		}
	rest[o] = '\0';
	for (const char *const *m = end_marks; *m; m++)
		if (strcmp(rest, *m) == 0)
			return 1;
	return 0;
}

/* What may follow a heading's number and unit at s[j], in a line of
 * chars characters: nothing, a separator and a title, or a short title
 * with no prose punctuation (第一章少年). */
static int title_fits(const unsigned char *s, size_t j, size_t len, size_t chars, int prose)
{
	uint32_t c;
	int k;
	if (j == len)
		return 1;
	if ((k = ts_utf8_decode(s + j, len - j, &c)) > 0 && ts_char_in(c, separators))
		return chars <= 60;
	return chars <= 30 && !prose;
}

/* A volume line with no 第: 卷N (卷一, 卷12) or a named part (VIP卷,
 * 正文卷, 作品相关), alone or followed by a separator and a title.
 * Story lines start with 卷 too (卷一卷铺盖), so the number must stand
 * alone. */
static int volume_line(const unsigned char *s, size_t len, size_t chars, int prose)
{
	size_t j = 0;
	uint32_t c;
	int k;
	for (const char *const *v = named_volumes; *v && !j; v++)
		if (starts(s, 0, len, *v))
			j = strlen(*v);
	if (!j && starts(s, 0, len, "卷"))
		j = number_end(s, 3, len);
	if (!j || prose || chars > 60)
		return 0;
	if (j == len)
		return 1;
	return (k = ts_utf8_decode(s + j, len - j, &c)) > 0 && ts_char_in(c, separators) &&
	       !volume_end(s, j, len);
}

/* A heading with no number (楔子, 番外一 ...) at s[i..len). */
static int special_heading(const unsigned char *s, size_t i, size_t len, size_t chars, int prose)
{
	uint32_t c;
	int k;
	for (const char *const *h = special_heads; *h; h++) {
		if (!starts(s, i, len, *h))
			continue;
		size_t j = i + strlen(*h);
		if (j == len)
			return 1;
		int sep = (k = ts_utf8_decode(s + j, len - j, &c)) > 0 && ts_char_in(c, separators);
		if ((sep || strcmp(*h, "番外") == 0) && chars <= 30 && !prose)
			return 1;
	}
	return 0;
}

int ts_heading_kind(const char *line, size_t len)
{
	const unsigned char *s = (const unsigned char *)line;
	size_t i = 0;
	uint32_t c;
	int k;
	if (len == 0)
		return TS_HEADING_NONE;
	size_t chars = ts_utf8_count(line, len);
	int prose = 0;
	for (size_t j = 0; j < len; j += (size_t)(k > 0 ? k : 1)) {
		k = ts_utf8_decode(s + j, len - j, &c);
		if (k > 0 && ts_char_in(c, prose_marks))
			prose = 1;
	}
	if (volume_line(s, len, chars, prose))
		return TS_HEADING_VOLUME;
	/* The part of the book a site puts before a web novel's chapter
	 * headings: 正文 第一章, VIP章节 第101章. */
	for (const char *const *p = chapter_parts; *p; p++) {
		size_t n = strlen(*p);
		if (len > n && memcmp(s, *p, n) == 0) {
			i = n;
			while (i < len && (k = ts_utf8_decode(s + i, len - i, &c)) > 0 &&
			       ts_is_space(c))
				i += (size_t)k;
			break;
		}
	}
	if (!starts(s, i, len, "第"))
		return special_heading(s, i, len, chars, prose) ? TS_HEADING_SPECIAL
		                                                : TS_HEADING_NONE;
	size_t j = number_end(s, i + 3, len);
	if (!j || j == len || (k = ts_utf8_decode(s + j, len - j, &c)) <= 0 ||
	    !ts_char_in(c, units))
		return TS_HEADING_NONE;
	int volume = ts_char_in(c, volume_units);
	j += (size_t)k;
	if (!title_fits(s, j, len, chars, prose) || (volume && volume_end(s, j, len)))
		return TS_HEADING_NONE;
	return volume ? TS_HEADING_VOLUME : TS_HEADING_CHAPTER;
}

size_t ts_heading_chapter_at(const char *line, size_t len)
{
	const unsigned char *s = (const unsigned char *)line;
	uint32_t c, before = 0;
	int k;
	if (ts_heading_kind(line, len) != TS_HEADING_VOLUME)
		return 0;
	for (size_t p = 0; p < len; p += (size_t)k, before = c) {
		if ((k = ts_utf8_decode(s + p, len - p, &c)) <= 0)
			return 0;
		if (p > 0 && c == 0x7B2C /* 第 */ &&
		    (ts_char_in(before, separators) || ts_char_in(before, volume_units)) &&
		    ts_heading_kind(line + p, len - p) == TS_HEADING_CHAPTER)
			return p;
	}
	return 0;
}

/* Web-scraped books wrap headings in markup (<p>第一章&nbsp;风起</p>):
 * drop tags and turn &nbsp; into a space before looking for a heading.
 * Only the shape of a short line matters here, so any '<' with a letter
 * or '/' after it opens a tag; the text that is spoken is cleaned by
 * text/clean.c, whose rules for what is markup are stricter.  Returns
 * the new length. */
static size_t strip_markup(const char *in, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		if (in[i] == '<' && i + 1 < n &&
		    (in[i + 1] == '/' ||
		     ((in[i + 1] | 0x20) >= 'a' && (in[i + 1] | 0x20) <= 'z'))) {
			const char *gt = memchr(in + i, '>', n - i);
			if (gt) {
				i = (size_t)(gt - in) + 1;
				continue;
			}
		}
		if (n - i >= 6 && strncasecmp(in + i, "&nbsp;", 6) == 0) {
			out[o++] = ' ';
			i += 6;
			continue;
		}
		out[o++] = in[i++];
	}
	return o;
}

int ts_heading_line(const char *raw, size_t len, char *out, size_t outsz)
{
	char line[TS_HEADING_BYTES];
	size_t a;
	if (len >= TS_HEADING_BYTES)
		return 0;
	len = strip_markup(raw, len, line);
	len = ts_utf8_trim(line, len, &a);
	const unsigned char *s = (const unsigned char *)line + a;
	if (len == 0 || len >= TS_HEADING_BYTES)
		return 0;
	int kind = ts_heading_kind(line + a, len);
	if (!kind)
		return 0;
	/* Copy, folding runs of spaces into one ASCII space. */
	size_t o = 0;
	int space = 0;
	for (size_t j = 0; j < len;) {
		uint32_t c;
		int k = ts_utf8_decode(s + j, len - j, &c);
		if (k <= 0)
			return 0;
		if (ts_is_space(c)) {
			space = 1;
		} else {
			if (space && o + 1 < outsz)
				out[o++] = ' ';
			space = 0;
			if (o + (size_t)k < outsz) {
				memcpy(out + o, s + j, (size_t)k);
				o += (size_t)k;
			}
		}
		j += (size_t)k;
	}
	if (outsz)
		out[o < outsz ? o : outsz - 1] = '\0';
	return kind;
}

int ts_heading(const char *line, size_t len, char *out, size_t outsz)
{
	return ts_heading_line(line, len, out, outsz) != 0;
}
