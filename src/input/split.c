/* split.c - a UTF-8 text file cut into chapters (see split.h).
 *
 * Two sides: the byte side (struct line_reader) reads the file in blocks
 * of SCAN_BLOCK bytes and keeps of each line only its offsets, how many
 * visible characters it has and its first bytes; the chapter side (struct
 * scan) is handed each line and decides, with zh/heading.h, where
 * chapters start, what they are called and what names the book, and,
 * with input/repeat.h, which chapter is the one before it over again.
 *
 * A volume heading (第一卷 潜龙在渊) is the volume of every chapter after
 * it until the next volume heading or the end of the file: their titles
 * start with it (第一卷 潜龙在渊 第1章 少年), so that chapters whose
 * numbers start again in each volume are told apart, and a title does not
 * change when later volumes are added to the file.  A heading with no
 * number (楔子, 番外, 后记 ...) stands outside the volumes and takes none.
 * A volume heading with text before the next heading is a chapter of its
 * own (that text is spoken); with none, it goes before the title of the
 * heading that follows.  The volume's name is spoken once, at the start
 * of the volume: the chapters after its first say only their own
 * heading (ts_chapter.spoken_at), decided by the file, not by which
 * chapters a build makes. */
#include "input/split.h"

#include "input/repeat.h"
#include "zh/heading.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SCAN_BLOCK 65536
#define HEAD_BYTES TS_HEADING_BYTES /* a heading is shorter than this */

/* One line as the scanner sees it. */
typedef struct line_info {
	long start, end; /* bytes; end excludes the line ending */
	long next;       /* offset of the following line */
	size_t chars;    /* non-space characters */
	char head[HEAD_BYTES];
	size_t head_len; /* bytes kept in head (the line may be longer) */
	int complete;    /* head holds the whole line */
	uint64_t hash;   /* its visible characters (input/repeat.h) */
} line_info;

/* The chapter side of a scan. */
typedef struct scan {
	ts_intake in;  /* the book, the file's names, the chapters added */
	int mode_book; /* split at headings */
	char *stem;    /* file name without directory and .txt */
	/* chapter being built */
	int have;   /* a chapter is open */
	int volume; /* the open chapter's heading is a volume's */
	char title[HEAD_BYTES * 5];
	size_t spoken_at; /* the heading spoken is title + spoken_at */
	int front;
	long body_start;
	long title_line; /* line of the heading, or of the first text line */
	long body_end;
	long body_last; /* line of the last text of the body */
	size_t body_chars;
	char vol[HEAD_BYTES * 2];    /* the volume the chapters are in, or "" */
	ts_repeat rep;               /* the chapter before, to find it again */
	char first_line[HEAD_BYTES]; /* first non-blank line of front matter */
	int first_line_taken;
	long first_line_next;
	size_t first_line_chars;
	int saw_heading;
} scan;

/* Add the open chapter to the book, unless it is the chapter before
 * again (a reposted file's repeat), which is said and skipped. */
static int close_chapter(scan *sc)
{
	long kept_line = 0;
	int rc, kept = 0;
	if (!sc->have)
		return 0;
	sc->have = 0;
	/* Only chapters of a book with a heading and text are compared
	 * (ts_intake_chapter() skips one with none). */
	int compared = sc->mode_book && !sc->front && sc->body_chars > 0;
	int again = compared ? ts_repeat_check(&sc->rep, sc->title, &kept_line) : TS_REPEAT_NEW;
	if (again == TS_REPEAT_SAME) {
		ts_intake_warn(&sc->in,
		               "%s:%ld: chapter \"%s\" repeats the chapter at line %ld; "
		               "this copy is skipped",
		               sc->in.display, sc->title_line, sc->title, kept_line);
		if ((rc = ts_intake_skip(&sc->in, sc->title_line, sc->body_last)))
			return rc;
	} else {
		if (again == TS_REPEAT_OTHER)
			ts_intake_warn(&sc->in,
			               "%s:%ld: heading \"%s\" repeats the one at line %ld, over "
			               "other text; both are kept",
			               sc->in.display, sc->title_line, sc->title, kept_line);
		if ((rc = ts_intake_chapter(&sc->in, sc->title, sc->spoken_at, sc->front,
		                            sc->body_start, sc->body_end, sc->title_line,
		                            sc->body_chars)))
			return rc;
		kept = compared;
	}
	return ts_repeat_close(&sc->rep, kept, sc->title, sc->title_line);
}

/* Is cp part of a title's words (not decoration such as "====" or
 * "★☆")?  Han, kana, letters and digits, ASCII or full-width. */
static int word_char(uint32_t cp)
{
	return ts_is_han(cp) || (cp < 0x80 && isalnum((int)cp)) || (cp >= 0x3040 && cp <= 0x30FF) ||
	       (cp >= 0xFF10 && cp <= 0xFF19) || (cp >= 0xFF21 && cp <= 0xFF3A) ||
	       (cp >= 0xFF41 && cp <= 0xFF5A);
}

/* t from its first word character to its last: "======简介======" ->
 * "简介", "★三国演义★" -> "三国演义".  Unchanged when it has none. */
static void strip_decoration(char *t)
{
	size_t n = strlen(t), first = n, last = 0;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		int len = ts_utf8_decode((const unsigned char *)t + i, n - i, &cp);
		if (len <= 0)
			return;
		if (word_char(cp)) {
			if (first == n)
				first = i;
			last = i + (size_t)len;
		}
		i += (size_t)len;
	}
	if (first == n)
		return;
	memmove(t, t + first, last - first);
	t[last - first] = '\0';
}

/* Is the line t a section label of front matter (简介, 内容简介, 前言,
 * 序 ..., decorated or not), which is not a book title? */
static int section_label(const char *t)
{
	static const char *const labels[] = {
	    "简介",     "簡介",     "内容简介", "內容簡介", "作品简介", "作品簡介", "内容介绍",
	    "內容介紹", "作品介绍", "作品介紹", "本书简介", "本書簡介", "小说简介", "小說簡介",
	    "书籍简介", "書籍簡介", "前言",     "序",       "序言",     "自序",     "引言",
	    "文案",     "导语",     "導語",     "内容提要", "內容提要", NULL};
	char w[HEAD_BYTES];
	snprintf(w, sizeof w, "%s", t);
	strip_decoration(w);
	size_t n = strlen(w);
	/* "简介：" and "【简介】" are labels too. */
	if (n >= 3 && (strcmp(w + n - 3, "：") == 0))
		w[n - 3] = '\0';
	else if (n >= 1 && w[n - 1] == ':')
		w[n - 1] = '\0';
	for (const char *const *l = labels; *l; l++)
		if (strcmp(w, *l) == 0)
			return 1;
	return 0;
}

static void strip_book_title(char *t)
{
	/* "书名：《三国演义》" -> "三国演义" */
	static const char *const prefixes[] = {"书名：", "書名：", "书名:", "書名:", NULL};
	for (const char *const *p = prefixes; *p; p++) {
		size_t l = strlen(*p);
		if (strncmp(t, *p, l) == 0)
			memmove(t, t + l, strlen(t + l) + 1);
	}
	size_t n = strlen(t);
	if (n >= 6 && strncmp(t, "《", 3) == 0 && strcmp(t + n - 3, "》") == 0) {
		memmove(t, t + 3, n - 6);
		t[n - 6] = '\0';
	}
	strip_decoration(t);
}

/* Front matter ends at the first heading: its first line, when short,
 * is the book title and is spoken as the front matter's title. */
static int close_front(scan *sc)
{
	if (sc->first_line_taken) {
		strip_book_title(sc->first_line);
		snprintf(sc->title, sizeof sc->title, "%s", sc->first_line);
		sc->body_start = sc->first_line_next;
		sc->body_chars -= sc->first_line_chars;
		if (sc->body_end < sc->body_start)
			sc->body_end = sc->body_start;
	}
	return close_chapter(sc);
}

static void open_chapter(scan *sc, const char *title, const line_info *li, long lineno)
{
	snprintf(sc->title, sizeof sc->title, "%s", title);
	sc->spoken_at = 0;
	sc->saw_heading = 1;
	sc->have = 1;
	sc->front = 0;
	sc->body_start = sc->body_end = li->next;
	sc->title_line = lineno;
	sc->body_chars = 0;
}

/* s cut, if it is longer, to at most max bytes, at the start of a
 * character: a long chain of volume lines must not leave half a
 * character in a title. */
static void cut_whole(char *s, size_t max)
{
	if (strlen(s) <= max)
		return;
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	s[max] = '\0';
}

/* Start the chapter of the heading head (kind TS_HEADING_*) at line li;
 * joined: the open chapter is a volume heading with no text, which goes
 * before it. */
static void open_heading(scan *sc, int kind, const char *head, int joined, const line_info *li,
                         long lineno)
{
	char title[HEAD_BYTES * 5], before[HEAD_BYTES * 5];
	snprintf(before, sizeof before, "%s",
	         joined                       ? sc->title
	         : kind == TS_HEADING_CHAPTER ? sc->vol
	                                      : "");
	cut_whole(before, 600);
	size_t at = kind == TS_HEADING_VOLUME ? ts_heading_chapter_at(head, strlen(head)) : 0;
	/* At most 600 + 1 + HEAD_BYTES bytes: it fits. */
	snprintf(title, sizeof title, "%s%s%s", before, before[0] ? " " : "", head);
	int same_vol = 0; /* a line that names the volume it is in again */
	if (kind == TS_HEADING_VOLUME) {
		/* A volume's line may hold its first chapter's heading too:
		 * the volume is what comes before that. */
		size_t n = strlen(title) - (at ? strlen(head) - at : 0);
		while (n > 0 && title[n - 1] == ' ')
			n--;
		if (n >= sizeof sc->vol) {
			n = sizeof sc->vol - 1;
			while (n > 0 && ((unsigned char)title[n] & 0xC0) == 0x80)
				n--;
		}
		same_vol = at && !joined && strncmp(sc->vol, title, n) == 0 && sc->vol[n] == '\0';
		snprintf(sc->vol, sizeof sc->vol, "%.*s", (int)n, title);
	}
	open_chapter(sc, title, li, lineno);
	sc->volume = kind == TS_HEADING_VOLUME && !at;
	/* The volume's name was said at its first chapter (or its own
	 * text): the chapters after it say only their own heading. */
	if (kind == TS_HEADING_CHAPTER && !joined && before[0])
		sc->spoken_at = strlen(before) + 1;
	else if (same_vol)
		sc->spoken_at = strlen(title) - (strlen(head) - at);
}

static int on_line(scan *sc, const line_info *li, long lineno)
{
	char head[HEAD_BYTES * 2];
	int rc, kind;
	if (!sc->mode_book) {
		/* In a chapter file only a first-line heading counts: it names
		 * the chapter. */
		if (!sc->have && li->chars > 0 && li->complete &&
		    ts_heading(li->head, li->head_len, head, sizeof head)) {
			open_chapter(sc, head, li, lineno);
			return 0;
		}
	} else if (li->complete &&
	           (kind = ts_heading_line(li->head, li->head_len, head, sizeof head))) {
		int joined = 0;
		if (sc->have && sc->front) {
			if ((rc = close_front(sc)))
				return rc;
		} else if (sc->have && sc->body_chars == 0 && sc->volume) {
			/* A heading straight after a volume's joins its title
			 * instead of making an empty chapter. */
			joined = 1;
		} else if ((rc = close_chapter(sc))) {
			return rc;
		}
		open_heading(sc, kind, head, joined, li, lineno);
		return 0;
	}
	if (!sc->have) {
		/* Text before any heading: front matter of a book, or the
		 * chapter itself. */
		if (li->chars == 0)
			return 0;
		sc->have = 1;
		sc->front = sc->mode_book;
		sc->spoken_at = 0;
		sc->body_start = li->start;
		sc->title_line = lineno;
		sc->body_chars = 0;
		snprintf(sc->title, sizeof sc->title, "%s", sc->stem);
		if (sc->mode_book && li->complete && li->chars <= 50) {
			size_t a;
			size_t n = ts_utf8_trim(li->head, li->head_len, &a);
			snprintf(sc->first_line, sizeof sc->first_line, "%.*s", (int)n,
			         li->head + a);
			/* A section label is not the book's title, nor a site's
			 * ad: the file name is, as for a book without front
			 * matter. */
			sc->first_line_taken =
			    !section_label(sc->first_line) &&
			    !ts_book_unspoken(sc->in.book, li->head, li->head_len);
			sc->first_line_next = li->next;
			sc->first_line_chars = li->chars;
		}
	}
	if (li->chars > 0) {
		sc->body_end = li->end;
		sc->body_last = lineno;
		sc->body_chars += li->chars;
		if (sc->mode_book && !sc->front)
			ts_repeat_line(&sc->rep, li->hash, li->chars);
	}
	return 0;
}

char *ts_split_stem(const char *path)
{
	const char *s = strrchr(path, '/');
	s = s ? s + 1 : path;
	size_t n = strlen(s);
	if (n > 4 && strcasecmp(s + n - 4, ".txt") == 0)
		n -= 4;
	return ts_strndup(s, n);
}

/* The byte side of a scan (struct scan is the chapter side): where it is
 * in the file and what it has read of the line it is in.  The file is
 * read in blocks of SCAN_BLOCK bytes, so memory does not depend on the
 * length of a line; a character that the end of a block cuts in two is
 * kept in carry and read again at the start of the next block. */
typedef struct line_reader {
	scan *sc; /* is given each line as it ends */
	FILE *f;
	enum ts_scan_mode mode;
	ts_utf8_fault *fault; /* where a TS_SCAN_TRY scan stopped */
	unsigned char *buf;   /* SCAN_BLOCK bytes */
	unsigned char carry[4];
	size_t ncarry;
	line_info li; /* the line being read */
	long off;     /* offset in the file of the byte being read */
	long lineno;  /* its line, from 1 */
} line_reader;

/* A new line at offset start, with nothing of it read yet. */
static void line_begin(line_info *li, long start)
{
	memset(li, 0, sizeof *li);
	li->start = start;
	li->complete = 1;
	li->hash = TS_REPEAT_SEED;
}

/* The line ends before offset end; the next one starts at next.  The CR
 * of a CRLF line ending (Windows editors) is not part of the line. */
static void line_finish(line_info *li, long end, long next)
{
	li->end = end;
	li->next = next;
	if (li->head_len > 0 && li->head[li->head_len - 1] == '\r')
		li->head_len--, li->end--;
}

/* Add the character s[0..k), code point cp, to the line: headings are
 * short, so only the line's first bytes are kept, but every visible
 * character is counted (a line of spaces is blank). */
static void line_add(line_info *li, const unsigned char *s, size_t k, uint32_t cp)
{
	if (li->head_len + k < HEAD_BYTES) {
		memcpy(li->head + li->head_len, s, k);
		li->head_len += k;
	} else {
		li->complete = 0;
	}
	if (!ts_is_space(cp) && cp >= 0x20 && cp != 0x7F) {
		li->chars++;
		li->hash = ts_repeat_hash(li->hash, cp);
	}
}

/* What is wrong with a byte that is not UTF-8 text. */
enum fault_kind {
	CUT_AT_END, /* the file ends inside a character */
	NUL_BYTE,   /* a binary file, or text in UTF-16 */
	INVALID,    /* not UTF-8: another encoding */
};

/* The reader met byte, at r->off, which is not UTF-8 text.  In TS_SCAN_TRY
 * mode that is not an error yet - the caller decodes the file and scans
 * it again - so only note where and return TS_NOT_UTF8; in TS_SCAN_STRICT mode
 * report it and return its error code. */
static int not_text(const line_reader *r, enum fault_kind kind, unsigned char byte)
{
	ts_book *b = r->sc->in.book;
	const char *display = r->sc->in.display;
	if (r->mode == TS_SCAN_TRY) {
		*r->fault = (ts_utf8_fault){.line = r->lineno, .offset = r->off, .byte = byte};
		return TS_NOT_UTF8;
	}
	if (kind == NUL_BYTE) {
		ts_book_diag(b, TS_ERROR,
		             "%s:%ld: NUL byte at byte %ld: this is a binary file, not text",
		             display, r->lineno, r->off);
		return TS_EBINARY;
	}
	if (kind == CUT_AT_END)
		ts_book_diag(
		    b, TS_ERROR,
		    "%s:%ld: invalid UTF-8 at byte %ld (the file ends inside a character); "
		    "give the file's encoding with --encoding NAME, or convert it to UTF-8",
		    display, r->lineno, r->off);
	else
		ts_book_diag(
		    b, TS_ERROR,
		    "%s:%ld: invalid UTF-8 at byte %ld (0x%02X); the file is not UTF-8 text: "
		    "give its encoding with --encoding NAME, or convert it to UTF-8",
		    display, r->lineno, r->off, byte);
	return TS_EUTF8;
}

/* Read the bytes buf[i..n) of a block into the current line, handing
 * each line that ends to on_line(). */
static int read_block(line_reader *r, size_t i, size_t n)
{
	int rc;
	while (i < n) {
		unsigned char ch = r->buf[i];
		if (ch == '\n') {
			line_finish(&r->li, r->off, r->off + 1);
			if ((rc = on_line(r->sc, &r->li, r->lineno)))
				return rc;
			r->lineno++;
			i++;
			r->off++;
			line_begin(&r->li, r->off);
			continue;
		}
		if (ch == 0)
			return not_text(r, NUL_BYTE, ch);
		uint32_t cp = ch;
		int k = 1;
		if (ch >= 0x80 && (k = ts_utf8_decode(r->buf + i, n - i, &cp)) == 0) {
			/* Maybe only cut short by the end of the block: the
			 * next block decides. */
			if (n - i < 4 && !feof(r->f)) {
				r->ncarry = n - i;
				memcpy(r->carry, r->buf + i, r->ncarry);
				return 0;
			}
			return not_text(r, INVALID, ch);
		}
		line_add(&r->li, r->buf + i, (size_t)k, cp);
		i += (size_t)k;
		r->off += k;
	}
	return 0;
}

/* Read the whole file into lines for on_line(), block by block: the
 * last line too when the file does not end with a newline. */
static int read_lines(line_reader *r)
{
	int first = 1, rc;
	size_t got;
	while ((got = fread(r->buf + r->ncarry, 1, SCAN_BLOCK - r->ncarry, r->f)) > 0 ||
	       r->ncarry > 0) {
		if (got == 0)
			return not_text(r, CUT_AT_END, r->carry[0]);
		if (ts_book_cancelled(r->sc->in.book))
			return ts_book_stopped(r->sc->in.book, r->sc->in.display);
		memcpy(r->buf, r->carry, r->ncarry);
		size_t n = r->ncarry + got;
		r->ncarry = 0;
		size_t i = 0;
		if (first) {
			first = 0;
			i = ts_utf8_bom((const char *)r->buf, n); /* skipped: not text */
			r->off = r->li.start = (long)i;
		}
		if ((rc = read_block(r, i, n)))
			return rc;
	}
	if (ferror(r->f)) {
		ts_book_diag(r->sc->in.book, TS_ERROR, "%s: read error: %s", r->sc->in.display,
		             strerror(errno));
		return TS_EIO;
	}
	line_finish(&r->li, r->off, r->off);
	if (r->li.end > r->li.start)
		return on_line(r->sc, &r->li, r->lineno);
	return 0;
}

/* The file is read: close the chapter still open and warn about what had
 * no text.  The first file scanned names the book: by its front matter's
 * first line, or else by its file name. */
static int scan_finish(scan *sc)
{
	ts_book *b = sc->in.book;
	int rc;
	if (sc->have && sc->front && !sc->saw_heading) {
		/* No heading at all: the whole file is one chapter. */
		sc->front = 0;
		sc->first_line_taken = 0;
	}
	int titled =
	    sc->have && sc->front ? sc->first_line_taken : sc->saw_heading && sc->first_line_taken;
	if (sc->have && sc->front)
		rc = close_front(sc);
	else
		rc = close_chapter(sc);
	if (rc)
		return rc;
	if (sc->in.added == 0 && !sc->saw_heading)
		ts_intake_warn(&sc->in, "%s: no text; skipped", sc->in.display);
	if (!ts_book_titled(b))
		rc = ts_book_set_title(b, titled ? sc->first_line : sc->stem);
	if (ts_book_set_text_path(b, sc->in.source))
		rc = TS_ENOMEM;
	return rc;
}

int ts_split_file(ts_book *b, const char *path, const char *display, int book,
                  enum ts_scan_mode mode, ts_utf8_fault *fault)
{
	int rc = 0;
	scan sc = {
	    .in = {.book = b, .display = display, .source = path, .hold = mode == TS_SCAN_TRY},
	    .mode_book = book};
	line_reader r = {.sc = &sc, .mode = mode, .fault = fault, .lineno = 1};
	r.f = ts_book_open_input(b, path, display, &rc);
	if (!r.f)
		return rc;
	sc.stem = ts_split_stem(display);
	r.buf = malloc(SCAN_BLOCK);
	if (!sc.stem || !r.buf) {
		rc = TS_ENOMEM;
		goto out;
	}
	line_begin(&r.li, 0);
	if (!(rc = read_lines(&r)))
		rc = scan_finish(&sc);
out:
	ts_intake_done(&sc.in, rc != TS_NOT_UTF8 && rc != TS_ECANCELED);
	ts_repeat_free(&sc.rep);
	free(r.buf);
	free(sc.stem);
	fclose(r.f);
	return rc;
}
