/* test_error.c - base/error: messages made safe to show on a terminal
 * (ts_diag_escape): controls, bidirectional overrides and bytes that are
 * not UTF-8 escaped, everything else kept, and a message cut between
 * characters when it does not fit; a message too long for its buffer
 * keeps its start and its end (ts_text_fit, ts_error_set). */
#include "base/error.h"

#include "check.h"

/* ts_diag_escape(in) into a buffer of sz bytes is want. */
static void escaped(const char *in, size_t sz, const char *want)
{
	char out[256];
	size_t n = ts_diag_escape(in, out, sz);
	if (strcmp(out, want) != 0 || n != strlen(want)) {
		fprintf(stderr, "ts_diag_escape(\"%s\", %zu): \"%s\", want \"%s\"\n", in, sz, out,
		        want);
		check_failures++;
	}
}

/* ts_text_fit(in) into sz bytes is want. */
static void fitted(const char *in, size_t sz, const char *want)
{
	char out[256];
	size_t n = ts_text_fit(in, out, sz);
	if (strcmp(out, want) != 0 || n != strlen(want)) {
		fprintf(stderr, "ts_text_fit(\"%s\", %zu): \"%s\", want \"%s\"\n", in, sz, out,
		        want);
		check_failures++;
	}
}

/* An error whose message is made of a path of 6,000 bytes keeps its
 * reason; so does one prefixed with such a path. */
static void long_paths(void)
{
	char path[6001];
	memset(path, 'd', 6000);
	path[6000] = '\0';
	ts_error e = {0};
	ts_error_set(&e, TS_ENOSPC, "%s/001.wav: cannot write: No space left on device", path);
	const char *m = ts_error_msg(&e), *tail = "/001.wav: cannot write: No space left on device";
	CHECK(strlen(m) < sizeof e.msg && strncmp(m, "ddd", 3) == 0);
	CHECK(strstr(m, "…") && strcmp(m + strlen(m) - strlen(tail), tail) == 0);
	ts_error_set(&e, TS_EIO, "cannot rename: Is a directory");
	ts_error_prefix(&e, "%s/index.html", path);
	m = ts_error_msg(&e);
	CHECK(e.code == TS_EIO && strncmp(m, "ddd", 3) == 0);
	tail = "/index.html: cannot rename: Is a directory";
	CHECK(strcmp(m + strlen(m) - strlen(tail), tail) == 0);
}

int main(void)
{
	/* What fits is kept whole; what does not keeps a quarter of its
	 * room at the start and the rest at the end, cut between characters. */
	fitted("abc", 4, "abc");
	fitted("abcdefghijklmnopqrstuvwxyz", 17, "abc…qrstuvwxyz");
	fitted("第一章第二章第三章第四章", 20, "第…章第四章");
	fitted("abcdef", 3, "ab");
	long_paths();
	/* Text, Chinese and punctuation as they are. */
	escaped("a.txt:3: 第一章 “引号”《书名》…", 256, "a.txt:3: 第一章 “引号”《书名》…");
	/* ESC of a colour change, and the other C0 controls and DEL. */
	escaped("t\x1b[31mred\x1b[0m", 256, "t\\x1B[31mred\\x1B[0m");
	escaped("a\tb\nc\rd\x7f", 256, "a\\x09b\\x0Ac\\x0Dd\\x7F");
	/* C1 controls (CSI U+009B, NEL U+0085), in UTF-8. */
	escaped("x\xc2\x9b"
	        "2Jy\xc2\x85",
	        256, "x\\u009B2Jy\\u0085");
	/* Bidirectional overrides, embeddings, isolates and marks. */
	escaped("\u202Etxt.exe", 256, "\\u202Etxt.exe");
	escaped("a\u202Ab\u202Bc\u202Cd\u202De", 256, "a\\u202Ab\\u202Bc\\u202Cd\\u202De");
	escaped("\u2066\u2067\u2068\u2069", 256, "\\u2066\\u2067\\u2068\\u2069");
	escaped("\u200E\u200F\u061C", 256, "\\u200E\\u200F\\u061C");
	/* Around them, other format characters stay (U+2060 WORD JOINER). */
	escaped("a\u2060b", 256, "a\u2060b");
	/* Bytes that are not UTF-8: GBK, a lone continuation byte, a cut
	 * sequence, bytes that never start one. */
	escaped("\xc4\xe3\xba\xc3", 256, "\\xC4\\xE3\\xBA\\xC3");
	escaped("a\x80"
	        "b\xe4\xb8",
	        256, "a\\x80b\\xE4\\xB8");
	escaped("\xc0\xaf\xff\xf5\x80\x80\x80", 256, "\\xC0\\xAF\\xFF\\xF5\\x80\\x80\\x80");
	/* Four-byte characters stay. */
	escaped("𠀀", 256, "𠀀");
	/* Cut between characters, never inside one or inside an escape. */
	escaped("第一章", 7, "第一");
	escaped("ab\x1b", 5, "ab");
	escaped("ab\x1b", 7, "ab\\x1B");
	escaped("abc", 1, "");
	return check_done("test_error");
}
