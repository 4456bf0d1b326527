/* input.c - book discovery, decoding to UTF-8, chapter splitting and
 * the chapter reader.
 *
 * Files are scanned once, in 64 KB blocks, so memory does not depend on
 * file or line length: for each line we keep only its offsets, whether it
 * is blank, and its first bytes for heading detection.  A file that turns
 * out not to be UTF-8 is decoded into a temporary UTF-8 file (also in
 * blocks) and that is scanned instead; see scan_file() for the policy. */
#include "input/input.h"
#include "input/epubread.h"

#include "zh/heading.h"
#include "text/encoding.h"
#include "base/file.h"
#include "base/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCAN_BLOCK 65536
#define HEAD_BYTES TS_HEADING_BYTES /* a heading is shorter than this */
#define PIECE_MAX  16384
#define SAMPLE_MAX (256 * 1024) /* what encoding detection reads of a file */

struct ts_book {
	ts_chapter *ch;
	size_t n, cap;
	char *title;
	char *author;      /* of an EPUB's metadata, or NULL */
	const char *cover; /* an EPUB's cover image, copied to a temporary file */
	char errmsg[1024];
	ts_diag_fn diag;
	void *ud;
	char **temps; /* temporary files made for stdin and decoded text */
	size_t ntemps;
	pid_t owner;
	char *encoding;                /* given with ts_book_set_encoding(), or NULL to detect */
	char *text_path;               /* UTF-8 text of the last file scanned */
	volatile sig_atomic_t *cancel; /* reading stops when set; NULL: never */
	int swept;                     /* the temporary files of dead runs were removed */
};

/* The code of a failure to write a temporary copy: the machine's, not
 * the input's (the build stops; see ts_plan_new()). */
static int temp_code(int e)
{
	int rc = ts_errno_code(e);
	return rc == TS_EIO ? TS_ETEMP : rc;
}

static void diag(ts_book *b, ts_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void diag(ts_book *b, ts_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (level)
		snprintf(b->errmsg, sizeof b->errmsg, "%s", msg);
	if (b->diag)
		b->diag(b->ud, level, msg);
}

/* Open an input file for reading, a regular file only (a FIFO or a
 * device in a folder of chapters would make the scan wait or never end);
 * on failure report it (naming display) and set *rc to TS_ENOENT, TS_EIO
 * or TS_EINVAL. */
static FILE *open_input(ts_book *b, const char *path, const char *display, int *rc)
{
	struct stat st;
	int orc;
	FILE *f = ts_fopen_regular(path, "rb", &st, &orc);
	if (!f && orc == TS_NOT_REGULAR) {
		*rc = TS_EINVAL;
		diag(b, TS_ERROR, "%s: not a regular file (it is %s)", display,
		     ts_file_kind(st.st_mode));
	} else if (!f) {
		int e = errno;
		*rc = e == ENOENT ? TS_ENOENT : ts_errno_code(e);
		diag(b, TS_ERROR, "%s: cannot open: %s", display, strerror(e));
	}
	return f;
}

/* Has the caller asked to stop (ts_book_set_cancel())? */
static int cancelled(const ts_book *b)
{
	return b->cancel && *b->cancel;
}

/* Reading display stopped because it was asked to: no diagnostic (the
 * caller knows why), only the message.  Returns TS_ECANCELED. */
static int stopped(ts_book *b, const char *display)
{
	snprintf(b->errmsg, sizeof b->errmsg, "%s: %s", display, ts_strerror(TS_ECANCELED));
	return TS_ECANCELED;
}

ts_book *ts_book_new(ts_diag_fn fn, void *ud)
{
	ts_book *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	b->diag = fn;
	b->ud = ud;
	b->owner = getpid();
	return b;
}

static void chapter_clear(ts_chapter *c)
{
	free(c->source);
	free(c->display);
	free(c->title);
}

void ts_book_free(ts_book *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		chapter_clear(&b->ch[i]);
	free(b->ch);
	for (size_t i = 0; i < b->ntemps; i++) {
		if (getpid() == b->owner)
			unlink(b->temps[i]);
		free(b->temps[i]);
	}
	free(b->temps);
	free(b->title);
	free(b->author);
	free(b->encoding);
	free(b->text_path);
	free(b);
}

void ts_book_set_cancel(ts_book *b, volatile sig_atomic_t *flag)
{
	b->cancel = flag;
}

int ts_book_set_encoding(ts_book *b, const char *name)
{
	char *copy = NULL;
	if (name && !ts_encoding_known(name))
		return TS_EINVAL;
	if (name && !(copy = ts_strdup(name)))
		return TS_ENOMEM;
	free(b->encoding);
	b->encoding = copy;
	return 0;
}

const char *ts_book_errmsg(const ts_book *b)
{
	return b->errmsg;
}
const char *ts_book_text_path(const ts_book *b)
{
	return b->text_path;
}
const char *ts_book_author(const ts_book *b)
{
	return b->author;
}

const char *ts_book_cover(const ts_book *b)
{
	return b->cover;
}

const char *ts_book_title(const ts_book *b)
{
	return b->title ? b->title : "";
}
size_t ts_book_count(const ts_book *b)
{
	return b->n;
}
const ts_chapter *ts_book_chapter(const ts_book *b, size_t i)
{
	return i < b->n ? &b->ch[i] : NULL;
}

/* ---- natural order ----------------------------------------------- */

int ts_natural_cmp(const char *a, const char *b)
{
	const char *pa = a, *pb = b;
	while (*pa && *pb) {
		if (*pa >= '0' && *pa <= '9' && *pb >= '0' && *pb <= '9') {
			while (*pa == '0')
				pa++;
			while (*pb == '0')
				pb++;
			size_t la = 0, lb = 0;
			while (pa[la] >= '0' && pa[la] <= '9')
				la++;
			while (pb[lb] >= '0' && pb[lb] <= '9')
				lb++;
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = strncmp(pa, pb, la);
			if (c)
				return c;
			pa += la;
			pb += lb;
			continue;
		}
		if (*pa != *pb)
			return (unsigned char)*pa < (unsigned char)*pb ? -1 : 1;
		pa++, pb++;
	}
	if (*pa || *pb)
		return *pa ? 1 : -1;
	return strcmp(a, b);
}

/* ---- scanning ----------------------------------------------------- */

/* One line as the scanner sees it. */
typedef struct line_info {
	long start, end; /* bytes; end excludes the line ending */
	long next;       /* offset of the following line */
	size_t chars;    /* non-space characters */
	char head[HEAD_BYTES];
	size_t head_len; /* bytes kept in head (the line may be longer) */
	int complete;    /* head holds the whole line */
} line_info;

typedef struct scan {
	ts_book *b;
	const char *display;
	int mode_book; /* split at headings */
	char *stem;    /* file name without directory and .txt */
	const char *source;
	/* chapter being built */
	int have;   /* a chapter is open */
	int volume; /* the open chapter's heading is a volume's */
	char title[HEAD_BYTES * 5];
	int front;
	long body_start;
	long title_line; /* line of the heading, or of the first text line */
	long body_end;
	size_t body_chars;
	char pending_title[HEAD_BYTES * 5]; /* heading with no body yet (a volume) */
	char first_line[HEAD_BYTES];        /* first non-blank line of front matter */
	int first_line_taken;
	long first_line_next;
	size_t first_line_chars;
	int saw_heading;
	size_t added;
	int hold;      /* the scan may be undone: keep its warnings back */
	ts_buf held;   /* warnings kept back, NUL-separated */
	size_t warned; /* warnings of this file, said or not */
} scan;

/* Warnings said of one file; the rest are counted in one line (a file of
 * 300,000 empty headings would print 300,000 lines). */
#define SCAN_WARNINGS_MAX 20

static void scan_warn(scan *sc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A scan that may find the file is not UTF-8 after all keeps its
 * warnings back until it is over: if it is thrown away, they go with it. */
static void scan_warn(scan *sc, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	if (++sc->warned > SCAN_WARNINGS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (sc->hold)
		ts_buf_append(&sc->held, msg,
		              strlen(msg) + 1); /* out of memory: the warning is lost */
	else
		diag(sc->b, TS_WARNING, "%s", msg);
}

static void scan_flush_warnings(scan *sc)
{
	for (size_t i = 0; i < sc->held.len; i += strlen(sc->held.data + i) + 1)
		diag(sc->b, TS_WARNING, "%s", sc->held.data + i);
	ts_buf_clear(&sc->held);
	if (sc->warned > SCAN_WARNINGS_MAX)
		diag(sc->b, TS_WARNING, "%s: and %zu more warnings like these", sc->display,
		     sc->warned - SCAN_WARNINGS_MAX);
	sc->warned = 0;
}

static int has_han(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		uint32_t c;
		int k = ts_utf8_decode(u + i, n - i, &c);
		if (k <= 0)
			return 0;
		if (ts_is_han(c))
			return 1;
		i += (size_t)k;
	}
	return 0;
}

static int push_chapter(scan *sc, const char *title, int front, long start, long end, long line,
                        size_t chars)
{
	ts_book *b = sc->b;
	if (chars == 0 && !front) {
		scan_warn(sc, "%s:%ld: chapter \"%s\" has no text; skipped", sc->display, line,
		          title);
		return 0;
	}
	if (TS_GROW(b->ch, b->cap, b->n + 1))
		return TS_ENOMEM;
	ts_chapter *c = &b->ch[b->n];
	memset(c, 0, sizeof *c);
	c->source = ts_strdup(sc->source);
	c->display = ts_strdup(sc->display);
	c->title = ts_strdup_cut(title, 200); /* spoken, tagged, listed: cut */
	if (!c->source || !c->display || !c->title) {
		chapter_clear(c);
		return TS_ENOMEM;
	}
	/* Titles go into file names, the manifest and the playlist: no
	 * control characters (a file name may hold any). */
	for (char *t = c->title; *t; t++)
		if ((unsigned char)*t < 0x20 || *t == 0x7F)
			*t = ' ';
	c->title_spoken = has_han(title);
	c->front_matter = front;
	c->start = start;
	c->end = end;
	c->line = line;
	c->chars = chars;
	b->n++;
	sc->added++;
	return 0;
}

static int close_chapter(scan *sc)
{
	if (!sc->have)
		return 0;
	sc->have = 0;
	return push_chapter(sc, sc->title, sc->front, sc->body_start, sc->body_end, sc->title_line,
	                    sc->body_chars);
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
	sc->saw_heading = 1;
	sc->have = 1;
	sc->front = 0;
	sc->body_start = sc->body_end = li->next;
	sc->title_line = lineno;
	sc->body_chars = 0;
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
		if (sc->have && sc->front) {
			if ((rc = close_front(sc)))
				return rc;
		} else if (sc->have && sc->body_chars == 0 && sc->volume) {
			/* A heading straight after another (a volume, then its
			 * first chapter) joins the next one's title instead of
			 * making an empty chapter. */
			snprintf(sc->pending_title, sizeof sc->pending_title, "%s", sc->title);
			sc->have = 0;
		} else if ((rc = close_chapter(sc))) {
			return rc;
		}
		if (sc->pending_title[0]) {
			char joined[HEAD_BYTES * 5];
			snprintf(joined, sizeof joined, "%.600s %.600s", sc->pending_title, head);
			sc->pending_title[0] = '\0';
			open_chapter(sc, joined, li, lineno);
		} else {
			open_chapter(sc, head, li, lineno);
		}
		sc->volume = kind == TS_HEADING_VOLUME;
		return 0;
	}
	if (!sc->have) {
		/* Text before any heading: front matter of a book, or the
		 * chapter itself. */
		if (li->chars == 0)
			return 0;
		sc->have = 1;
		sc->front = sc->mode_book;
		sc->body_start = li->start;
		sc->title_line = lineno;
		sc->body_chars = 0;
		snprintf(sc->title, sizeof sc->title, "%s", sc->stem);
		if (sc->mode_book && li->complete && li->chars <= 50) {
			size_t a;
			size_t n = ts_utf8_trim(li->head, li->head_len, &a);
			snprintf(sc->first_line, sizeof sc->first_line, "%.*s", (int)n,
			         li->head + a);
			/* A section label is not the book's title: the file
			 * name is, as for a book without front matter. */
			sc->first_line_taken = !section_label(sc->first_line);
			sc->first_line_next = li->next;
			sc->first_line_chars = li->chars;
		}
	}
	if (li->chars > 0) {
		sc->body_end = li->end;
		sc->body_chars += li->chars;
	}
	return 0;
}

static char *file_stem(const char *path)
{
	const char *s = strrchr(path, '/');
	s = s ? s + 1 : path;
	size_t n = strlen(s);
	if (n > 4 && strcasecmp(s + n - 4, ".txt") == 0)
		n -= 4;
	return ts_strndup(s, n);
}

/* Where a scan in SCAN_TRY mode met something that is not UTF-8 text. */
typedef struct utf8_fault {
	long line, offset;
	unsigned char byte; /* the first byte that is not UTF-8 (0 for NUL) */
} utf8_fault;

enum scan_mode {
	SCAN_TRY,    /* the file may not be UTF-8: stop quietly at the first fault */
	SCAN_STRICT, /* the file is UTF-8 (its mark, --encoding or our decoding says so) */
};
#define NOT_UTF8 1 /* scan_utf8() in SCAN_TRY mode: the file is not UTF-8 text */

/* The byte side of a scan (struct scan is the chapter side): where it is
 * in the file and what it has read of the line it is in.  The file is
 * read in blocks of SCAN_BLOCK bytes, so memory does not depend on the
 * length of a line; a character that the end of a block cuts in two is
 * kept in carry and read again at the start of the next block. */
typedef struct line_reader {
	scan *sc; /* is given each line as it ends */
	FILE *f;
	enum scan_mode mode;
	utf8_fault *fault;  /* where a SCAN_TRY scan stopped */
	unsigned char *buf; /* SCAN_BLOCK bytes */
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
	if (!ts_is_space(cp) && cp >= 0x20 && cp != 0x7F)
		li->chars++;
}

/* What is wrong with a byte that is not UTF-8 text. */
enum fault_kind {
	CUT_AT_END, /* the file ends inside a character */
	NUL_BYTE,   /* a binary file, or text in UTF-16 */
	INVALID,    /* not UTF-8: another encoding */
};

/* The reader met byte, at r->off, which is not UTF-8 text.  In SCAN_TRY
 * mode that is not an error yet - the caller decodes the file and scans
 * it again - so only note where and return NOT_UTF8; in SCAN_STRICT mode
 * report it and return its error code. */
static int not_text(const line_reader *r, enum fault_kind kind, unsigned char byte)
{
	ts_book *b = r->sc->b;
	const char *display = r->sc->display;
	if (r->mode == SCAN_TRY) {
		*r->fault = (utf8_fault){.line = r->lineno, .offset = r->off, .byte = byte};
		return NOT_UTF8;
	}
	if (kind == NUL_BYTE) {
		diag(b, TS_ERROR, "%s:%ld: NUL byte at byte %ld: this is a binary file, not text",
		     display, r->lineno, r->off);
		return TS_EBINARY;
	}
	if (kind == CUT_AT_END)
		diag(b, TS_ERROR,
		     "%s:%ld: invalid UTF-8 at byte %ld (the file ends inside a character); "
		     "give the file's encoding with --encoding NAME, or convert it to UTF-8",
		     display, r->lineno, r->off);
	else
		diag(b, TS_ERROR,
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
		if (cancelled(r->sc->b))
			return stopped(r->sc->b, r->sc->display);
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
		diag(r->sc->b, TS_ERROR, "%s: read error: %s", r->sc->display, strerror(errno));
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
	ts_book *b = sc->b;
	int rc;
	if (sc->pending_title[0] && !sc->have) {
		/* A volume heading with nothing after it. */
		scan_warn(sc, "%s: heading \"%s\" has no text; skipped", sc->display,
		          sc->pending_title);
	}
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
	if (sc->added == 0 && !sc->saw_heading)
		scan_warn(sc, "%s: no text; skipped", sc->display);
	if (!b->title) {
		b->title = ts_strdup(titled ? sc->first_line : sc->stem);
		if (!b->title)
			rc = TS_ENOMEM;
	}
	free(b->text_path);
	if (!(b->text_path = ts_strdup(sc->source)))
		rc = TS_ENOMEM;
	return rc;
}

/* Scan one UTF-8 file.  mode_book: split at headings.  In SCAN_TRY mode a
 * byte that is not UTF-8 text (invalid, or NUL) undoes the scan - the
 * chapters it added are dropped, its warnings too - and returns NOT_UTF8
 * with *fault filled, so that the caller can decode the file and scan
 * again; in SCAN_STRICT mode it is an error.  A scan stopped by the
 * caller (TS_ECANCELED) is undone too. */
static int scan_utf8(ts_book *b, const char *path, const char *display, int mode_book,
                     enum scan_mode mode, utf8_fault *fault)
{
	int rc = 0;
	scan sc = {.b = b,
	           .display = display,
	           .mode_book = mode_book,
	           .source = path,
	           .hold = mode == SCAN_TRY};
	line_reader r = {.sc = &sc, .mode = mode, .fault = fault, .lineno = 1};
	size_t first_chapter = b->n;
	r.f = open_input(b, path, display, &rc);
	if (!r.f)
		return rc;
	sc.stem = file_stem(display);
	r.buf = malloc(SCAN_BLOCK);
	if (!sc.stem || !r.buf) {
		rc = TS_ENOMEM;
		goto out;
	}
	line_begin(&r.li, 0);
	if (!(rc = read_lines(&r)))
		rc = scan_finish(&sc);
out:
	if (rc == NOT_UTF8 || rc == TS_ECANCELED) {
		while (b->n > first_chapter)
			chapter_clear(&b->ch[--b->n]);
	} else {
		scan_flush_warnings(&sc);
	}
	ts_buf_free(&sc.held);
	free(r.buf);
	free(sc.stem);
	fclose(r.f);
	return rc;
}

/* ---- decoding ----------------------------------------------------- */

/* Temporary files are TMPDIR/tingshu-WHAT-PID@HOST-XXXXXX (WHAT is stdin
 * or utf8, PID the process that made it, HOST this machine as
 * ts_host_name() writes it).  The book removes its own when freed, and a
 * run stopped by a signal frees it; what a run that was killed (kill -9,
 * a crash) left is removed by the next run on this machine that adds an
 * input (sweep_temps()).  A file of a process that still runs, of another
 * user or of another machine sharing TMPDIR is left alone. */
static const char *temp_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	return tmp && *tmp ? tmp : "/tmp";
}

/* Is name a temporary file of a process of this machine that is gone? */
static int temp_left_over(const char *name, const char *host)
{
	static const char *const kinds[] = {"tingshu-stdin-", "tingshu-utf8-", "tingshu-epub-",
	                                    "tingshu-cover-"};
	const char *p = NULL;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && !p; i++)
		if (strncmp(name, kinds[i], strlen(kinds[i])) == 0)
			p = name + strlen(kinds[i]);
	if (!p || *p < '0' || *p > '9')
		return 0;
	char *end;
	errno = 0;
	long pid = strtol(p, &end, 10);
	size_t hl = strlen(host);
	/* "@HOST-" and the six characters mkstemp() chose */
	if (errno || *end != '@' || strlen(end + 1) != hl + 7 || strncmp(end + 1, host, hl) != 0 ||
	    end[1 + hl] != '-')
		return 0;
	return ts_process_gone(pid);
}

/* Remove the temporary files that runs of this machine killed before they
 * could remove them left in TMPDIR. */
static void sweep_temps(void)
{
	char host[64];
	ts_host_name(host);
	const char *dir = temp_dir();
	DIR *d = opendir(dir);
	if (!d)
		return;
	ts_buf p = {0};
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (!temp_left_over(e->d_name, host))
			continue;
		ts_buf_clear(&p);
		if (ts_buf_printf(&p, "%s/%s", dir, e->d_name) == 0 && lstat(p.data, &st) == 0 &&
		    S_ISREG(st.st_mode) && st.st_uid == getuid())
			unlink(p.data);
	}
	ts_buf_free(&p);
	closedir(d);
}

/* Make a temporary file that the book owns: ts_book_free() removes it,
 * in the process that made it only.  *fp is open for writing; *path
 * points into the book.  what names the file in the temporary's name. */
static int book_temp(ts_book *b, const char *what, const char *display, FILE **fp,
                     const char **path)
{
	char host[64];
	ts_buf name = {0};
	ts_host_name(host);
	if (ts_buf_printf(&name, "%s/tingshu-%s-%ld@%s-XXXXXX", temp_dir(), what, (long)b->owner,
	                  host))
		return TS_ENOMEM;
	if (TS_RESIZE(b->temps, b->ntemps + 1)) {
		ts_buf_free(&name);
		return TS_ENOMEM;
	}
	int fd = mkstemp(name.data);
	if (fd < 0) {
		int e = errno;
		diag(b, TS_ERROR, "%s: cannot make a temporary file %s: %s", display, name.data,
		     strerror(e));
		ts_buf_free(&name);
		return temp_code(e);
	}
	*fp = fdopen(fd, "wb");
	if (!*fp) {
		close(fd);
		unlink(name.data);
		ts_buf_free(&name);
		return TS_ENOMEM;
	}
	b->temps[b->ntemps++] = name.data;
	*path = name.data;
	return 0;
}

/* Remove the temporary file made last (its text is of no use). */
static void book_drop_temp(ts_book *b)
{
	b->ntemps--;
	unlink(b->temps[b->ntemps]);
	free(b->temps[b->ntemps]);
}

/* How the encoding of a file was decided, for messages. */
enum origin { BY_OPTION, BY_MARK, BY_GUESS };

static const char *const origin_advice[] = {
    [BY_OPTION] = "the file is not in the encoding given; give the right one with --encoding "
                  "NAME, or convert the file to UTF-8",
    [BY_MARK] = "its byte-order mark says so, but the text is not; give its encoding with "
                "--encoding NAME, or convert the file to UTF-8",
    [BY_GUESS] = "that is the encoding detected, which may be wrong; give the right one with "
                 "--encoding NAME, or convert the file to UTF-8",
};

/* Decode the file at path from enc, after its first skip bytes (a
 * byte-order mark), into a UTF-8 temporary file, and scan that. */
static int scan_decoded(ts_book *b, const char *path, const char *display, int mode_book,
                        const char *enc, long skip, enum origin origin)
{
	const char *tmp = NULL;
	FILE *out = NULL;
	ts_decode_fault fault;
	const char *label = ts_encoding_label(enc);
	int rc;
	FILE *in = open_input(b, path, display, &rc);
	if (!in)
		return rc;
	if (fseek(in, skip, SEEK_SET) != 0) {
		diag(b, TS_ERROR, "%s: cannot read: %s", display, strerror(errno));
		rc = TS_EIO;
		goto out;
	}
	if ((rc = book_temp(b, "utf8", display, &out, &tmp)))
		goto out;
	rc = ts_encoding_decode_cancel(in, skip, enc, out, b->cancel, &fault);
	int e = errno;
	if (fclose(out) != 0 && rc == 0) {
		e = errno;
		rc = TS_EIO;
	}
	switch (rc) {
	case 0: break;
	case TS_EDECODE:
		if (fault.truncated) {
			diag(b, TS_ERROR,
			     "%s:%ld: the file ends inside a %s character (byte %ld): it was cut "
			     "short, or is not %s",
			     display, fault.line, label, fault.offset, label);
		} else {
			char bytes[32] = "";
			for (size_t i = 0; i < fault.nbytes && i < 2; i++)
				snprintf(bytes + strlen(bytes), sizeof bytes - strlen(bytes),
				         "%s0x%02X", i ? " " : "", fault.bytes[i]);
			diag(b, TS_ERROR, "%s:%ld: invalid %s at byte %ld (%s): %s", display,
			     fault.line, label, fault.offset, bytes, origin_advice[origin]);
		}
		break;
	case TS_EBINARY:
		diag(b, TS_ERROR,
		     "%s:%ld: NUL character (read as %s): this is a binary file, not text", display,
		     fault.line, label);
		break;
	case TS_EINVAL:
		diag(b, TS_ERROR, "%s: iconv cannot read the encoding %s", display, enc);
		break;
	case TS_EIO:
		diag(b, TS_ERROR, "%s: cannot decode it into %s: %s", display, tmp, strerror(e));
		rc = temp_code(e);
		break;
	case TS_ECANCELED: stopped(b, display); break;
	default: break;
	}
	if (rc) {
		book_drop_temp(b);
		goto out;
	}
	rc = scan_utf8(b, tmp, display, mode_book, SCAN_STRICT, NULL);
out:
	fclose(in);
	return rc;
}

/* The file is not UTF-8 (fault says where that showed): guess its
 * encoding from its first SAMPLE_MAX bytes, decode it and scan it. */
static int scan_guessed(ts_book *b, const char *path, const char *display, int mode_book,
                        const utf8_fault *fault)
{
	ts_guess g;
	int rc;
	FILE *f = open_input(b, path, display, &rc);
	if (!f)
		return rc;
	/* No more than the file holds (and a byte to see it end): a chapter
	 * of a few kilobytes does not map and unmap a quarter megabyte. */
	struct stat st;
	size_t cap = SAMPLE_MAX;
	if (fstat(fileno(f), &st) == 0 && st.st_size >= 0 && st.st_size < (off_t)cap)
		cap = (size_t)st.st_size + 1;
	char *sample = malloc(cap);
	if (!sample) {
		fclose(f);
		return TS_ENOMEM;
	}
	size_t n = fread(sample, 1, cap, f);
	int whole = n < cap || fgetc(f) == EOF;
	if (ferror(f)) {
		rc = TS_EIO;
		diag(b, TS_ERROR, "%s: read error: %s", display, strerror(errno));
		fclose(f);
		goto out;
	}
	fclose(f);
	rc = ts_encoding_guess(sample, n, whole, &g);
	switch (rc) {
	case 0: rc = scan_decoded(b, path, display, mode_book, g.name, 0, BY_GUESS); break;
	case TS_EBINARY:
		if (g.nul >= 0) {
			long line = 1;
			for (long i = 0; i < g.nul; i++)
				line += sample[i] == '\n';
			diag(b, TS_ERROR,
			     "%s:%ld: NUL byte at byte %ld: this is a binary file, not text (if it "
			     "is "
			     "UTF-16 without a byte-order mark, give --encoding UTF-16LE or "
			     "UTF-16BE)",
			     display, line, g.nul);
		} else {
			diag(b, TS_ERROR,
			     "%s: binary file, not text: %zu control bytes in its first %zu, and "
			     "it is "
			     "not UTF-8, GB18030 or Big5",
			     display, g.controls, n);
		}
		break;
	case TS_EDECODE:
		diag(b, TS_ERROR,
		     "%s:%ld: invalid UTF-8 at byte %ld (0x%02X), and the file is not GB18030 or "
		     "Big5 "
		     "text either%s%s%s; give its encoding with --encoding NAME, or convert it to "
		     "UTF-8",
		     display, fault->line, fault->offset, fault->byte,
		     g.detector[0] ? " (uchardet guesses " : "", g.detector,
		     g.detector[0] ? ")" : "");
		break;
	default: break;
	}
out:
	free(sample);
	return rc;
}

/* Scan one file, first turning it into UTF-8 text if need be.  The
 * policy, in order:
 *  1. An encoding given with ts_book_set_encoding() (--encoding) is used:
 *     UTF-8 is scanned as it is, and an invalid byte is an error.
 *  2. A byte-order mark tells the encoding: UTF-8 is scanned as it is,
 *     UTF-16 and UTF-32 are decoded.
 *  3. The file is scanned as UTF-8.  When all of it is valid, that was
 *     all: the common case costs one pass and no copy.
 *  4. When it is not (an invalid byte or a NUL), that scan is undone and
 *     encoding.c guesses the encoding from the start of the file (GB18030
 *     or Big5, or binary); the file is decoded into a UTF-8 temporary
 *     file owned by the book, and that is scanned: the chapters' source
 *     is the temporary file, their display name the user's. */
static int scan_file(ts_book *b, const char *path, const char *display, int mode_book)
{
	const char *enc = b->encoding;
	size_t mark = 0;
	if (!enc) {
		unsigned char head[4];
		int rc;
		FILE *f = open_input(b, path, display, &rc);
		if (!f)
			return rc;
		mark = ts_encoding_bom(head, fread(head, 1, sizeof head, f), &enc);
		fclose(f);
	}
	if (enc && !ts_encoding_is_utf8(enc))
		return scan_decoded(b, path, display, mode_book, enc, (long)mark,
		                    b->encoding ? BY_OPTION : BY_MARK);
	utf8_fault fault;
	int rc = scan_utf8(b, path, display, mode_book, enc ? SCAN_STRICT : SCAN_TRY, &fault);
	if (rc != NOT_UTF8)
		return rc;
	return scan_guessed(b, path, display, mode_book, &fault);
}

/* Book files have the first line of a heading-less file be... */
static int filter_txt(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	if (d->d_name[0] == '.' || n <= 4 || strcasecmp(d->d_name + n - 4, ".txt") != 0)
		return 0;
	/* lexicon.txt beside the chapters is a pronunciation lexicon. */
	return strcasecmp(d->d_name, "lexicon.txt") != 0;
}

static int cmp_dirent(const struct dirent **a, const struct dirent **b)
{
	return ts_natural_cmp((*a)->d_name, (*b)->d_name);
}

static int add_dir(ts_book *b, const char *path)
{
	struct dirent **list = NULL;
	int n = scandir(path, &list, filter_txt, cmp_dirent);
	if (n < 0) {
		diag(b, TS_ERROR, "%s: cannot read directory: %s", path, strerror(errno));
		return TS_EIO;
	}
	int rc = 0, bad = 0;
	ts_buf p = {0};
	if (n == 0) {
		diag(b, TS_ERROR,
		     "%s: no .txt files in this directory (chapters must be .txt files)", path);
		rc = TS_ENOTXT;
	}
	if (!b->title && n > 0) {
		size_t len = strlen(path);
		while (len > 1 && path[len - 1] == '/')
			len--;
		const char *s = path + len;
		while (s > path && s[-1] != '/')
			s--;
		b->title = ts_strndup(s, (size_t)(path + len - s));
		if (b->title && (strcmp(b->title, ".") == 0 || b->title[0] == '\0')) {
			free(b->title);
			char cwd[4096];
			b->title = ts_strdup(getcwd(cwd, sizeof cwd) && strrchr(cwd, '/')
			                         ? strrchr(cwd, '/') + 1
			                         : "book");
		}
	}
	for (int i = 0; i < n; i++) {
		ts_buf_clear(&p);
		if (ts_buf_printf(&p, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/",
		                  list[i]->d_name)) {
			rc = TS_ENOMEM;
			break;
		}
		struct stat st;
		if (stat(p.data, &st) == 0 && S_ISDIR(st.st_mode))
			continue;
		int r = scan_file(b, p.data, p.data, 0);
		if (r == TS_ENOMEM || r == TS_ECANCELED) {
			rc = r;
			break;
		}
		if (r)
			bad = r;
	}
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
	ts_buf_free(&p);
	return rc ? rc : bad;
}

/* ---- standard input ---------------------------------------------- */

/* Standard input is copied into a temporary file (workers read chapters
 * by name), and checked as it comes, so that neither the disk it takes
 * nor the time depend on what is sent (`tingshu text - </dev/zero`):
 *  - It holds at most TINGSHU_STDIN_MAX bytes (a number, or one with K, M
 *    or G: 512M, 2G), by default STDIN_MAX_DEFAULT: 256 MB, some 85
 *    million Chinese characters in UTF-8, room for the longest web novels
 *    (tens of millions).  More is an error as soon as it is read.
 *  - A NUL byte is binary data, as in a file (scan_file()), unless the
 *    text has NUL bytes in its characters: it is UTF-16 or UTF-32 given
 *    with --encoding, marked with a byte-order mark or, when the first
 *    NUL comes in the first SAMPLE_MAX bytes, detected from them as a
 *    file's encoding is.  The first NUL byte that is not text stops it.
 *  - The caller's cancel flag is checked before each read and at least
 *    every STDIN_POLL_MS while none comes: a signal that interrupts a read
 *    is not waited out, nor one that comes between the check and the read
 *    (where the read would wait for input that may never come).
 * A copy that failed is removed at once. */

#define STDIN_MAX_DEFAULT (256L << 20)
#define STDIN_POLL_MS     200

/* The most standard input may hold into *max: 0, or TS_EINVAL (reported)
 * for a TINGSHU_STDIN_MAX that is not a size. */
static int stdin_limit(ts_book *b, long *max)
{
	const char *v = getenv("TINGSHU_STDIN_MAX");
	*max = STDIN_MAX_DEFAULT;
	if (!v || !*v)
		return 0;
	char *end;
	errno = 0;
	long long n = strtoll(v, &end, 10);
	int shift = *end == 'K' || *end == 'k'   ? 10
	            : *end == 'M' || *end == 'm' ? 20
	            : *end == 'G' || *end == 'g' ? 30
	                                         : 0;
	if (shift)
		end++;
	if (errno || *v < '0' || *v > '9' || *end || n <= 0 || n > (LONG_MAX >> shift)) {
		diag(b, TS_ERROR,
		     "TINGSHU_STDIN_MAX=%s: not a size (a number of bytes, or with K, M or G: "
		     "512M, 2G)",
		     v);
		return TS_EINVAL;
	}
	*max = (long)(n << shift);
	return 0;
}

/* A size for messages: "256 MB", "1 GB", "1000 bytes". */
static void size_text(long n, char *out, size_t sz)
{
	static const char *const units[] = {"GB", "MB", "KB"};
	for (int i = 0; i < 3; i++) {
		long unit = 1L << (30 - 10 * i);
		if (n >= unit && n % unit == 0) {
			snprintf(out, sz, "%ld %s", n / unit, units[i]);
			return;
		}
	}
	snprintf(out, sz, "%ld bytes", n);
}

/* Read standard input into buf until n bytes or its end: 0 with *got
 * bytes (fewer than n only at the end), TS_ECANCELED when asked to stop,
 * TS_EIO with errno. */
static int read_stdin(const ts_book *b, char *buf, size_t n, size_t *got)
{
	*got = 0;
	while (*got < n) {
		if (cancelled(b))
			return TS_ECANCELED;
		struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
		int ready = poll(&p, 1, STDIN_POLL_MS);
		if (ready == 0 || (ready < 0 && errno == EINTR))
			continue; /* (another error is the read's to report) */
		ssize_t k = read(STDIN_FILENO, buf + *got, n - *got);
		if (k == 0)
			break;
		if (k < 0 && errno != EINTR)
			return TS_EIO;
		if (k > 0)
			*got += (size_t)k;
	}
	return 0;
}

/* Standard input as it is copied. */
typedef struct spool {
	ts_book *b;
	long max;   /* bytes allowed */
	long off;   /* bytes read so far */
	long line;  /* line of byte off */
	int nul_ok; /* NUL bytes are part of the text's characters */
} spool;

/* Are NUL bytes part of the characters of the text that starts with
 * buf[0..n) (all of it when whole)? */
static int nul_in_text(const ts_book *b, const char *buf, size_t n, int whole)
{
	const char *enc = b->encoding;
	ts_guess g;
	if (!enc)
		ts_encoding_bom((const unsigned char *)buf, n, &enc);
	if (enc)
		return ts_encoding_wide(enc);
	if (!memchr(buf, 0, n))
		return 0;
	return ts_encoding_guess(buf, n, whole, &g) == 0 && g.name && ts_encoding_wide(g.name);
}

/* Check the next n bytes of standard input, buf (the first ones when
 * first): 0, or TS_EBINARY or TS_ETOOLONG, reported. */
static int spool_check(spool *s, const char *buf, size_t n, int first)
{
	const char *nul = s->nul_ok ? NULL : memchr(buf, 0, n);
	size_t upto = nul ? (size_t)(nul - buf) : n;
	for (const char *q = buf; !s->nul_ok && (q = memchr(q, '\n', upto - (size_t)(q - buf)));
	     q++)
		s->line++;
	if (nul) {
		diag(s->b, TS_ERROR,
		     "stdin:%ld: NUL byte at byte %ld: this is a binary file, not text%s", s->line,
		     s->off + (long)upto,
		     first && !s->b->encoding ? " (if it is UTF-16 without a byte-order mark, give "
		                                "--encoding UTF-16LE or UTF-16BE)"
		                              : "");
		return TS_EBINARY;
	}
	if ((long)n > s->max - s->off) {
		char max[32];
		size_text(s->max, max, sizeof max);
		diag(s->b, TS_ERROR,
		     "stdin: more than %s, the most standard input may hold; give the book as a "
		     "file, or raise the limit with TINGSHU_STDIN_MAX (e.g. TINGSHU_STDIN_MAX=1G)",
		     max);
		return TS_ETOOLONG;
	}
	s->off += (long)n;
	return 0;
}

/* Copy standard input into a temporary file of the book, checked (see
 * above); *out is its path. */
static int spool_stdin(ts_book *b, const char **out)
{
	spool s = {.b = b, .line = 1};
	FILE *f;
	const char *name;
	int rc = stdin_limit(b, &s.max);
	if (rc || (rc = book_temp(b, "stdin", "stdin", &f, &name)))
		return rc;
	char *buf = malloc(SAMPLE_MAX);
	if (!buf)
		rc = TS_ENOMEM;
	for (int first = 1; buf; first = 0) {
		size_t n;
		if ((rc = read_stdin(b, buf, SAMPLE_MAX, &n))) {
			if (rc == TS_ECANCELED)
				stopped(b, "stdin");
			else
				diag(b, TS_ERROR, "stdin: read error: %s", strerror(errno));
			break;
		}
		if (first)
			s.nul_ok = nul_in_text(b, buf, n, n < SAMPLE_MAX);
		if ((rc = spool_check(&s, buf, n, first)))
			break;
		if (n > 0 && fwrite(buf, 1, n, f) != n) {
			rc = temp_code(errno);
			diag(b, TS_ERROR, "stdin: cannot write temporary file %s: %s", name,
			     strerror(errno));
			break;
		}
		if (n < SAMPLE_MAX)
			break;
	}
	free(buf);
	if (fclose(f) != 0 && !rc) {
		rc = temp_code(errno);
		diag(b, TS_ERROR, "stdin: cannot write temporary file %s: %s", name,
		     strerror(errno));
	}
	if (rc)
		book_drop_temp(b);
	else
		*out = name;
	return rc;
}

/* ---- EPUB ----------------------------------------------------------- */

/* The EPUB's cover picture, into a temporary file the book owns, for the
 * whole-book files (which take a file, as --cover gives). */
static int keep_cover(ts_book *b, const char *display, const unsigned char *data, size_t n)
{
	FILE *f;
	const char *path;
	int rc = book_temp(b, "cover", display, &f, &path);
	if (rc)
		return rc;
	int e = 0;
	if (fwrite(data, 1, n, f) != n)
		e = errno;
	if (fclose(f) != 0 && !e)
		e = errno;
	if (e) {
		diag(b, TS_ERROR, "%s: cannot copy its cover to %s: %s", display, path,
		     strerror(e));
		book_drop_temp(b);
		return temp_code(e);
	}
	b->cover = path;
	return 0;
}

/* An EPUB: its text written to a temporary file the book owns (titles on
 * lines of their own, a paragraph a line), its chapters byte ranges of
 * that file, as for a decoded text file. */
static int scan_epub(ts_book *b, const char *path, const char *display)
{
	const char *tmp = NULL;
	FILE *out = NULL;
	ts_epub_book eb;
	ts_error err = {0};
	int rc = book_temp(b, "epub", display, &out, &tmp);
	if (rc)
		return rc;
	rc = ts_epub_read(path, display, out, &eb, &err);
	int e = errno;
	if (fclose(out) != 0 && !rc) {
		e = errno;
		rc = ts_error_set(&err, temp_code(e), "%s: cannot write its text to %s: %s",
		                  display, tmp, strerror(e));
	}
	if (!rc && cancelled(b))
		rc = stopped(b, display);
	else if (rc)
		diag(b, TS_ERROR, "%s", err.msg);
	scan sc = {.b = b, .display = display, .source = tmp};
	char joined[HEAD_BYTES * 5] = "";
	for (size_t i = 0; !rc && i < eb.chapters; i++) {
		const ts_epub_chapter *c = &eb.chapter[i];
		/* A part's heading with no text of its own (第一卷) goes before
		 * the title of the chapter after it, as in a text file. */
		char title[sizeof joined];
		snprintf(title, sizeof title, "%.600s%s%.600s", joined, joined[0] ? " " : "",
		         c->title);
		joined[0] = '\0';
		if (c->chars == 0 && !c->front && i + 1 < eb.chapters && !eb.chapter[i + 1].front)
			snprintf(joined, sizeof joined, "%s", title);
		else if (c->chars > 0 || !c->front)
			rc =
			    push_chapter(&sc, title, c->front, c->start, c->end, c->line, c->chars);
	}
	if (!rc && sc.added == 0)
		scan_warn(&sc, "%s: no text; skipped", display);
	scan_flush_warnings(&sc);
	if (!rc && !b->title && !(b->title = ts_strdup(eb.title ? eb.title : "")))
		rc = TS_ENOMEM;
	if (!rc && !b->title[0]) {
		free(b->title);
		if (!(b->title = file_stem(display)))
			rc = TS_ENOMEM;
	}
	if (!rc && !b->author && eb.author)
		b->author = eb.author, eb.author = NULL;
	if (!rc && !b->cover && eb.cover)
		rc = keep_cover(b, display, eb.cover, eb.cover_len);
	if (!rc) {
		free(b->text_path);
		if (!(b->text_path = ts_strdup(tmp)))
			rc = TS_ENOMEM;
	}
	ts_buf_free(&sc.held);
	ts_epub_book_clear(&eb);
	if (rc && sc.added == 0)
		book_drop_temp(b);
	return rc;
}

int ts_book_add(ts_book *b, const char *path)
{
	if (!b->swept) {
		b->swept = 1;
		sweep_temps();
	}
	if (cancelled(b))
		return stopped(b, strcmp(path, "-") == 0 ? "stdin" : path);
	if (strcmp(path, "-") == 0) {
		const char *tmp;
		int rc = spool_stdin(b, &tmp);
		if (rc)
			return rc;
		return scan_file(b, tmp, "stdin", 1);
	}
	struct stat st;
	if (stat(path, &st) != 0) {
		int e = errno;
		diag(b, TS_ERROR, "%s: %s", path,
		     e == ENOENT ? "no such file or directory" : strerror(e));
		return e == ENOENT ? TS_ENOENT : TS_EIO;
	}
	if (S_ISDIR(st.st_mode))
		return add_dir(b, path);
	if (!S_ISREG(st.st_mode)) {
		/* FIFOs and devices cannot be re-read by workers. */
		diag(b, TS_ERROR, "%s: not a regular file (use - to read standard input)", path);
		return TS_EINVAL;
	}
	if (ts_epub_sniff(path))
		return scan_epub(b, path, path);
	return scan_file(b, path, path, 1);
}

/* ---- reading ------------------------------------------------------ */

struct ts_reader {
	ts_book *book; /* owned, for a reader of a whole file: its temporary copies */
	FILE *f;
	long pos, end;
	char *buf;
	size_t len, off; /* buffered bytes and read position */
	char piece[PIECE_MAX + 8];
	int eof;
};

ts_reader *ts_reader_open(const ts_chapter *ch, int *err)
{
	ts_reader *r = calloc(1, sizeof *r);
	if (!r) {
		*err = TS_ENOMEM;
		return NULL;
	}
	r->buf = malloc(SCAN_BLOCK);
	r->f = fopen(ch->source, "rb");
	if (!r->buf || !r->f) {
		*err = r->buf ? (errno == ENOENT ? TS_ENOENT : TS_EIO) : TS_ENOMEM;
		ts_reader_free(r);
		return NULL;
	}
	if (fseek(r->f, ch->start, SEEK_SET) != 0) {
		*err = TS_EIO;
		ts_reader_free(r);
		return NULL;
	}
	r->pos = ch->start;
	r->end = ch->end;
	return r;
}

static int fill(ts_reader *r)
{
	if (r->off < r->len)
		return 1;
	long want = r->end - r->pos;
	if (want <= 0)
		return 0;
	if (want > SCAN_BLOCK)
		want = SCAN_BLOCK;
	size_t got = fread(r->buf, 1, (size_t)want, r->f);
	if (got == 0)
		return ferror(r->f) ? TS_EIO : 0;
	r->pos += (long)got;
	r->len = got;
	r->off = 0;
	return 1;
}

/* Does p[0..n) end at a character boundary?  Pieces are cut only there. */
static int ends_char(const char *p, size_t n)
{
	size_t lead = n;
	while (lead > 0 && n - lead < 4 && ((unsigned char)p[lead - 1] & 0xC0) == 0x80)
		lead--;
	if (lead == 0)
		return 1;
	unsigned char c = (unsigned char)p[lead - 1];
	size_t need = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
	return n - (lead - 1) >= need;
}

int ts_reader_next(ts_reader *r, const char **text, size_t *len, int *line_end)
{
	size_t n = 0;
	*line_end = 0;
	for (;;) {
		int rc = fill(r);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			/* End of body: the last line may lack a newline. */
			if (n == 0)
				return 0;
			*line_end = 1;
			break;
		}
		char c = r->buf[r->off];
		if (c == '\n') {
			r->off++;
			*line_end = 1;
			break;
		}
		r->piece[n++] = c;
		r->off++;
		if (n >= PIECE_MAX && ends_char(r->piece, n)) {
			/* Cut here; if the body ends here too, so does the line
			 * (an error is left for the next call). */
			*line_end = fill(r) == 0;
			break;
		}
	}
	if (n > 0 && r->piece[n - 1] == '\r')
		n--;
	r->piece[n] = '\0';
	*text = r->piece;
	*len = n;
	return 1;
}

void ts_reader_free(ts_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	free(r->buf);
	ts_book_free(r->book);
	free(r);
}

static void no_diag(void *ud, ts_level level, const char *msg)
{
	(void)ud, (void)level, (void)msg;
}

ts_reader *ts_reader_open_file(const char *path, const char *encoding,
                               volatile sig_atomic_t *cancel, ts_error *err)
{
	/* Checked and decoded as a book input is; then all of its text is
	 * read, headings and all. */
	ts_book *b = ts_book_new(no_diag, NULL);
	if (!b) {
		ts_error_set(err, TS_ENOMEM, NULL);
		return NULL;
	}
	ts_book_set_cancel(b, cancel);
	int rc = ts_book_set_encoding(b, encoding);
	if (rc) {
		ts_error_set(err, rc, "%s: unknown encoding", encoding);
		goto fail;
	}
	if ((rc = ts_book_add(b, path))) {
		ts_error_set(err, rc, "%s", ts_book_errmsg(b));
		goto fail;
	}
	/* stdin was spooled, and text not in UTF-8 decoded: read the copy. */
	const char *src = ts_book_count(b) > 0   ? ts_book_chapter(b, 0)->source
	                  : ts_book_text_path(b) ? ts_book_text_path(b)
	                                         : path;
	FILE *f = fopen(src, "rb");
	if (!f) {
		ts_error_set(err, rc = TS_EIO, "%s: %s", path, strerror(errno));
		goto fail;
	}
	char head[3];
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	long start = (long)ts_utf8_bom(head, fread(head, 1, sizeof head, f));
	fclose(f);
	ts_chapter whole = {
	    .source = (char *)src, .display = (char *)path, .start = start, .end = size};
	ts_reader *r = ts_reader_open(&whole, &rc);
	if (!r) {
		ts_error_set(err, rc, "%s: %s", path, ts_strerror(rc));
		goto fail;
	}
	r->book = b;
	return r;
fail:
	ts_book_free(b);
	return NULL;
}
