/* test_encoding.c - encoding detection and decoding to UTF-8.
 *
 * Usage: test_encoding SIMPLIFIED.txt TRADITIONAL.txt (UTF-8 chapters: the
 * seeds).  Windows of 20 to 500 characters cut from them at many offsets
 * are encoded with iconv as GBK, GB18030 and Big5 and must all be guessed
 * right; decoding is checked for block boundaries, faults and NULs; and a
 * book made of encoded files must give the same chapters as the UTF-8
 * file, with its temporary copies removed at the end. */
#include "check.h"
#include "text/encoding.h"
#include "input/reader.h"
#include "base/util.h"

#include <errno.h>
#include <iconv.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

/* iconv s[0..n) from one encoding to another into out; 0 or -1. */
static int convert(const char *from, const char *to, const char *s, size_t n, ts_buf *out)
{
	iconv_t cd = iconv_open(to, from);
	if (cd == (iconv_t)-1)
		return -1;
	ts_buf_clear(out);
	char *ip = (char *)s;
	size_t il = n;
	int rc = 0;
	while (il > 0) {
		char tmp[4096], *op = tmp;
		size_t ol = sizeof tmp;
		size_t r = iconv(cd, &ip, &il, &op, &ol);
		int e = errno;
		ts_buf_append(out, tmp, (size_t)(op - tmp));
		if (r == (size_t)-1 && e != E2BIG) {
			rc = -1;
			break;
		}
	}
	iconv_close(cd);
	return rc;
}

static int read_into(const char *path, ts_buf *out)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	char tmp[4096];
	size_t n;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		ts_buf_append(out, tmp, n);
	fclose(f);
	return 0;
}

static void write_file(const char *path, const char *s, size_t n)
{
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	if (f) {
		CHECK(fwrite(s, 1, n, f) == n);
		fclose(f);
	}
}

static void check_names(void)
{
	const char *name = NULL;
	CHECK(ts_encoding_known("GB18030"));
	CHECK(ts_encoding_known("big5"));
	CHECK(ts_encoding_known("UTF-16LE"));
	CHECK(!ts_encoding_known("NO-SUCH-ENCODING"));
	CHECK(!ts_encoding_known(""));
	CHECK(!ts_encoding_known("GBK//IGNORE"));
	CHECK(ts_encoding_is_utf8("utf8") && ts_encoding_is_utf8("UTF-8"));
	CHECK(!ts_encoding_is_utf8("UTF-16"));
	/* NUL bytes are part of characters in the wide encodings only. */
	CHECK(ts_encoding_wide("UTF-16LE") && ts_encoding_wide("UTF-16BE"));
	CHECK(ts_encoding_wide("UTF-16") && ts_encoding_wide("UTF-32LE") &&
	      ts_encoding_wide("UCS-2"));
	CHECK(!ts_encoding_wide("UTF-8") && !ts_encoding_wide("GB18030") &&
	      !ts_encoding_wide("CP950"));
	CHECK(!ts_encoding_wide("ISO-8859-1") && !ts_encoding_wide("no-such-encoding"));
	CHECK(ts_encoding_bom((const unsigned char *)"\xEF\xBB\xBFx", 4, &name) == 3 &&
	      strcmp(name, "UTF-8") == 0);
	CHECK(ts_encoding_bom((const unsigned char *)"\xFF\xFEx\0", 4, &name) == 2 &&
	      strcmp(name, "UTF-16LE") == 0);
	CHECK(ts_encoding_bom((const unsigned char *)"\xFE\xFF\0x", 4, &name) == 2 &&
	      strcmp(name, "UTF-16BE") == 0);
	CHECK(ts_encoding_bom((const unsigned char *)"\xFF\xFE\0\0", 4, &name) == 4 &&
	      strcmp(name, "UTF-32LE") == 0);
	CHECK(ts_encoding_bom((const unsigned char *)"\0\0\xFE\xFF", 4, &name) == 4 &&
	      strcmp(name, "UTF-32BE") == 0);
	CHECK(ts_encoding_bom((const unsigned char *)"\xFF", 1, &name) == 0);
	CHECK(ts_encoding_bom((const unsigned char *)"abcd", 4, &name) == 0);
}

/* Every window of len characters, at 40 offsets, encoded as enc, must be
 * guessed as want.  Windows enc cannot encode (Extension A characters in
 * Big5) and windows that are still valid UTF-8 (ASCII only, never
 * guessed) are skipped; returns the number checked. */
static int check_windows(const char *label, const ts_buf *text, size_t len, const char *enc,
                         const char *want)
{
	/* Offsets of the characters. */
	size_t n = ts_utf8_count(text->data, text->len), k = 0;
	size_t *at = malloc((n + 1) * sizeof *at);
	for (size_t i = 0; i < text->len; i++)
		if (((unsigned char)text->data[i] & 0xC0) != 0x80)
			at[k++] = i;
	at[k] = text->len;
	int checked = 0;
	ts_buf e = {0};
	for (int w = 0; w < 40 && len <= n; w++) {
		size_t first = (n - len) * (size_t)w / 40;
		const char *s = text->data + at[first];
		size_t bytes = at[first + len] - at[first];
		if (convert("UTF-8", enc, s, bytes, &e) != 0 ||
		    ts_utf8_check(e.data, e.len, 1) == e.len)
			continue;
		ts_guess g;
		int rc = ts_encoding_guess(e.data, e.len, 1, &g);
		if (rc != 0 || !g.name || strcmp(g.name, want) != 0) {
			fprintf(
			    stderr,
			    "%s, %zu characters at %zu, as %s: guessed %s (rc %d, uchardet %s), "
			    "expected %s\n",
			    label, len, first, enc, g.name ? g.name : "nothing", rc,
			    g.detector[0] ? g.detector : "unsure", want);
			check_failures++;
		}
		checked++;
	}
	ts_buf_free(&e);
	free(at);
	return checked;
}

/* The Extension A lookalikes of the traditional seed and the characters
 * they stand for (from ../shared/data/lookalikes.tsv): Big5 has no
 * Extension A, so they are repaired before the text is encoded. */
static const char *const lookalikes[][2] = {
    {"㟧", "二"}, {"㦱", "亡"}, {"㦳", "之"}, {"㦶", "弓"}, {"㫇", "今"}, {"㰜", "功"},
    {"㱒", "平"}, {"㳎", "用"}, {"㳓", "生"}, {"㵔", "令"}, {"㵕", "成"}, {"䗽", "好"},
    {"䘓", "因"}, {"䛗", "重"}, {"䦣", "向"}, {"䦤", "道"},
};

static void repair_lookalikes(ts_buf *t)
{
	for (size_t i = 0; i < sizeof lookalikes / sizeof lookalikes[0]; i++) {
		char *p = t->data;
		/* Both sides are three bytes of UTF-8: replaced in place. */
		while ((p = strstr(p, lookalikes[i][0])) != NULL)
			memcpy(p, lookalikes[i][1], 3);
	}
}

static void check_guess(const char *simplified, const char *traditional)
{
	ts_buf simp = {0}, trad = {0};
	if (read_into(simplified, &simp) || read_into(traditional, &trad)) {
		fprintf(stderr, "cannot read %s or %s\n", simplified, traditional);
		check_failures++;
		return;
	}
	repair_lookalikes(&trad);
	static const size_t lengths[] = {20, 50, 200, 500};
	for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
		size_t len = lengths[i];
		CHECK(check_windows("simplified", &simp, len, "GBK", "GB18030") >= 30);
		CHECK(check_windows("simplified", &simp, len, "GB18030", "GB18030") >= 30);
		CHECK(check_windows("traditional", &trad, len, "GBK", "GB18030") >= 30);
		CHECK(check_windows("traditional", &trad, len, "BIG5", "CP950") >= 30);
	}

	/* Hong Kong text: characters plain Big5 lacks. */
	ts_buf e = {0};
	ts_guess g;
	const char *hk = "佢哋今日去咗邊度？我哋喺度等緊佢，冇人知佢幾時返嚟。\n";
	CHECK(convert("UTF-8", "BIG5-HKSCS", hk, strlen(hk), &e) == 0);
	CHECK(ts_encoding_guess(e.data, e.len, 1, &g) == 0 && g.name &&
	      strcmp(g.name, "BIG5-HKSCS") == 0);

	/* A sample cut inside a character is fine unless it is the whole file. */
	const char *t = "天刚亮，村口的老槐树下站着一个少年。";
	CHECK(convert("UTF-8", "GB18030", t, strlen(t), &e) == 0);
	CHECK(ts_encoding_guess(e.data, e.len - 1, 0, &g) == 0 && g.name &&
	      strcmp(g.name, "GB18030") == 0);

	/* Binary data: NUL bytes, or control bytes that no encoding explains. */
	char bin[4096];
	unsigned x = 12345;
	for (size_t i = 0; i < sizeof bin; i++) {
		x = x * 1103515245u + 12345u;
		bin[i] = (char)(x >> 16);
	}
	CHECK(ts_encoding_guess(bin, sizeof bin, 1, &g) == TS_EBINARY);
	for (size_t i = 0; i < sizeof bin; i++)
		if (!bin[i])
			bin[i] = 1;
	CHECK(ts_encoding_guess(bin, sizeof bin, 1, &g) == TS_EBINARY && g.nul < 0);

	/* Not Chinese: Latin-1 and Japanese are refused. */
	const char *latin = "Le caf\xE9 de la rue \xE9tait ferm\xE9 ce matin-l\xE0.\n";
	CHECK(ts_encoding_guess(latin, strlen(latin), 1, &g) == TS_EDECODE);
	const char *ja = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。\n";
	CHECK(convert("UTF-8", "EUC-JP", ja, strlen(ja), &e) == 0);
	CHECK(ts_encoding_guess(e.data, e.len, 1, &g) == TS_EDECODE);

	ts_buf_free(&e);
	ts_buf_free(&simp);
	ts_buf_free(&trad);
}

/* Decode s[0..n) from enc; the UTF-8 goes to out. */
static int decode(const char *s, size_t n, const char *enc, ts_buf *out, ts_decode_fault *fault)
{
	FILE *in = tmpfile(), *o = tmpfile();
	if (!in || !o) {
		if (in)
			fclose(in);
		if (o)
			fclose(o);
		return TS_EIO;
	}
	fwrite(s, 1, n, in);
	rewind(in);
	int rc = ts_encoding_decode(in, 0, enc, o, fault);
	rewind(o);
	ts_buf_clear(out);
	char tmp[4096];
	size_t got;
	while ((got = fread(tmp, 1, sizeof tmp, o)) > 0)
		ts_buf_append(out, tmp, got);
	fclose(in);
	fclose(o);
	return rc;
}

static void check_decode(const char *simplified)
{
	ts_buf simp = {0}, text = {0}, enc = {0}, out = {0};
	ts_decode_fault fault;
	read_into(simplified, &simp);
	/* Longer than the decoder's blocks, with characters cut by the block
	 * boundaries (the leading 'x' shifts them to odd offsets). */
	ts_buf_append(&text, "x", 1);
	while (text.len < 300000)
		ts_buf_append(&text, simp.data, simp.len);
	static const char *const encs[] = {"GB18030", "UTF-16LE", "UTF-16BE", "UTF-32LE"};
	for (size_t i = 0; i < sizeof encs / sizeof encs[0]; i++) {
		CHECK(convert("UTF-8", encs[i], text.data, text.len, &enc) == 0);
		CHECK(decode(enc.data, enc.len, encs[i], &out, &fault) == 0);
		CHECK(out.len == text.len && memcmp(out.data, text.data, text.len) == 0);
	}

	/* An invalid sequence: its line and byte. */
	const char *bad = "\xB5\xDA\xD2\xBB\xD0\xD0\n\xB5\xDA\xB6\xFE\xD0\xD0\nab\x81\x20";
	CHECK(decode(bad, strlen(bad), "GB18030", &out, &fault) == TS_EDECODE);
	CHECK(fault.line == 3 && fault.offset == 16 && !fault.truncated);
	CHECK(fault.nbytes >= 1 && fault.bytes[0] == 0x81);
	/* Cut inside a character. */
	CHECK(decode(bad, 17, "GB18030", &out, &fault) == TS_EDECODE);
	CHECK(fault.truncated && fault.line == 3 && fault.offset == 16);
	CHECK(decode("a\0b\0", 3, "UTF-16LE", &out, &fault) == TS_EDECODE && fault.truncated);
	/* A NUL character. */
	CHECK(decode("a\0\n\0\0\0", 6, "UTF-16LE", &out, &fault) == TS_EBINARY && fault.line == 2);
	CHECK(decode("ab", 2, "NO-SUCH-ENCODING", &out, &fault) == TS_EINVAL);
	ts_buf_free(&simp);
	ts_buf_free(&text);
	ts_buf_free(&enc);
	ts_buf_free(&out);
}

static void on_diag(void *ud, ts_level level, const char *msg)
{
	ts_buf_printf(ud, "%s: %s\n", level ? "error" : "warning", msg);
}

/* The chapters of path, as titles and bodies, into out. */
static int dump_book(const char *path, const char *encoding, ts_buf *out, ts_buf *diags,
                     char *source, size_t sourcesz)
{
	ts_book *b = ts_book_new(on_diag, diags);
	int rc = ts_book_set_encoding(b, encoding);
	if (rc == 0)
		rc = ts_book_add(b, path);
	ts_buf_clear(out);
	for (size_t i = 0; i < ts_book_count(b); i++) {
		const ts_chapter *c = ts_book_chapter(b, i);
		ts_buf_printf(out, "[%s] %s line %ld\n", c->title, c->display, c->line);
		if (i == 0)
			snprintf(source, sourcesz, "%s", c->source);
		int err;
		ts_reader *r = ts_reader_open(c, &err);
		CHECK(r != NULL);
		const char *t;
		size_t n;
		int end;
		while (r && ts_reader_next(r, &t, &n, &end) > 0) {
			ts_buf_append(out, t, n);
			if (end)
				ts_buf_putc(out, '\n');
		}
		ts_reader_free(r);
	}
	ts_book_free(b);
	return rc;
}

static int dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = 1;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	if (d)
		closedir(d);
	return empty;
}

static void check_book(void)
{
	char dir[] = "/tmp/test_encoding-XXXXXX";
	char tmpdir[600], path[600], source[600] = "";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		check_failures++;
		return;
	}
	snprintf(tmpdir, sizeof tmpdir, "%s/tmp", dir);
	mkdir(tmpdir, 0700);
	setenv("TMPDIR", tmpdir, 1);
	/* A book whose second chapter is empty: its warning must come once,
	 * although the UTF-8 scan that found it was thrown away. */
	const char *book = "書名：測試\n第一章 開始\n天剛亮，村口站著一個少年。\n第二章 空\n\n"
	                   "第三章 結束\n他背著包袱，望著遠方。\n";
	ts_buf want = {0}, got = {0}, diags = {0}, want_diags = {0}, enc = {0};
	snprintf(path, sizeof path, "%s/book.txt", dir);
	write_file(path, book, strlen(book));
	CHECK(dump_book(path, NULL, &want, &want_diags, source, sizeof source) == 0);
	CHECK(strcmp(source, path) == 0); /* UTF-8 is read in place */
	CHECK(dir_is_empty(tmpdir));
	CHECK(strstr(want.data, "[第三章 結束]") != NULL);
	CHECK(want_diags.data && strstr(want_diags.data, "第二章 空") != NULL);

	static const char *const encs[] = {"GBK", "BIG5", "UTF-16LE", "UTF-16BE"};
	for (size_t i = 0; i < sizeof encs / sizeof encs[0]; i++) {
		CHECK(convert("UTF-8", encs[i], book, strlen(book), &enc) == 0);
		if (strncmp(encs[i], "UTF-16", 6) == 0) {
			/* With its byte-order mark. */
			ts_buf marked = {0};
			ts_buf_append(&marked, encs[i][6] == 'L' ? "\xFF\xFE" : "\xFE\xFF", 2);
			ts_buf_append(&marked, enc.data, enc.len);
			ts_buf_clear(&enc);
			ts_buf_append(&enc, marked.data, marked.len);
			ts_buf_free(&marked);
		}
		snprintf(path, sizeof path, "%s/book.txt", dir);
		write_file(path, enc.data, enc.len);
		ts_buf_clear(&diags);
		CHECK(dump_book(path, NULL, &got, &diags, source, sizeof source) == 0);
		CHECK(got.len == want.len && memcmp(got.data, want.data, want.len) == 0);
		CHECK(diags.len == want_diags.len &&
		      memcmp(diags.data, want_diags.data, diags.len) == 0);
		CHECK(strncmp(source, tmpdir, strlen(tmpdir)) == 0); /* read from a decoded copy */
		CHECK(dir_is_empty(tmpdir));                         /* removed with the book */
	}

	/* Forcing: the right encoding works, UTF-8 on GBK is an error with
	 * the line, an unknown name is refused. */
	CHECK(convert("UTF-8", "GBK", book, strlen(book), &enc) == 0);
	write_file(path, enc.data, enc.len);
	ts_buf_clear(&diags);
	CHECK(dump_book(path, "GB18030", &got, &diags, source, sizeof source) == 0);
	CHECK(got.len == want.len && memcmp(got.data, want.data, want.len) == 0);
	ts_buf_clear(&diags);
	CHECK(dump_book(path, "UTF-8", &got, &diags, source, sizeof source) == TS_EUTF8);
	CHECK(got.len == 0);
	CHECK(diags.data && strstr(diags.data, "book.txt:1: invalid UTF-8 at byte 0") != NULL);
	CHECK(dump_book(path, "NO-SUCH-ENCODING", &got, &diags, source, sizeof source) ==
	      TS_EINVAL);
	CHECK(dir_is_empty(tmpdir));

	unlink(path);
	rmdir(tmpdir);
	rmdir(dir);
	ts_buf_free(&want);
	ts_buf_free(&got);
	ts_buf_free(&diags);
	ts_buf_free(&want_diags);
	ts_buf_free(&enc);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_encoding SIMPLIFIED.txt TRADITIONAL.txt\n");
		return 2;
	}
	check_names();
	check_guess(argv[1], argv[2]);
	check_decode(argv[1]);
	check_book();
	return check_done("test_encoding");
}
