/* fuzz_frontend.c - libFuzzer target for the whole text front end: the
 * input stage (encoding detection and conversion, chapter splitting) and
 * every chapter through clean -> normalize -> segment, as `tingshu build`
 * runs it but without audio.
 *
 * Properties beyond "no crash, no sanitizer report": every chunk is
 * valid UTF-8, non-empty, NUL-free and within the length limit; its text
 * for eSpeak is valid UTF-8 too, and it has one pinyin token per Han
 * character.  Every sentence as written is valid UTF-8, non-empty, with no
 * space at its edges, within 4 * TS_SENTENCE_MAX characters, and comes
 * after its chunks: no chunk is left without a sentence. */
#define _GNU_SOURCE
#include "speech/frontend.h"
#include "input/reader.h"
#include "zh/lang.h"
#include "base/child.h"
#include "base/util.h"

#include <iconv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef TS_FUZZ_LANG_DIR
#define TS_FUZZ_LANG_DIR "voices/zh"
#endif

static ts_lang *lang;

/* glibc loads an iconv module (GB18030.so, BIG5.so ...) when a descriptor
 * needs it and unloads it when the last one closes: for each input that
 * is tried in a legacy encoding, a dlopen and a dlclose, a fifth of the
 * time of the short inputs.  Descriptors held open for the process keep
 * the modules loaded; what the input stage does is unchanged. */
static iconv_t held[10]; /* reachable: not leaks */

static void keep_iconv_modules(void)
{
	static const char *const names[] = {"GB18030", "BIG5",   "BIG5-HKSCS", "UTF-16",
	                                    "UTF-32",  "EUC-JP", "SHIFT_JIS",  "EUC-KR",
	                                    "UHC",     "JOHAB"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		held[i] = iconv_open("UTF-8", names[i]);
}

static size_t count_han(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		int len = ts_utf8_decode((const unsigned char *)s + i, n - i, &cp);
		if (len <= 0)
			abort();
		k += ts_is_han(cp) != 0;
		i += (size_t)len;
	}
	return k;
}

/* Chunks not yet followed by their sentence. */
typedef struct pending {
	size_t chunks;
} pending;

static int on_sentence(void *ud, const char *text, size_t len)
{
	pending *p = ud;
	if (len == 0 || ts_utf8_check(text, len, 1) != len || strlen(text) != len ||
	    text[0] == ' ' || text[len - 1] == ' ' ||
	    ts_utf8_count(text, len) > 4 * TS_SENTENCE_MAX)
		abort();
	p->chunks = 0;
	return 0;
}

static int on_chunk(void *ud, const ts_chunk *c)
{
	((pending *)ud)->chunks++;
	if (c->len == 0 || ts_utf8_check(c->text, c->len, 1) != c->len ||
	    strlen(c->text) != c->len || c->chars > TS_CHUNK_HARD_MAX + 8)
		abort();
	if (!c->spoken)
		return 0;
	if (ts_utf8_check(c->spoken, c->spoken_len, 1) != c->spoken_len ||
	    strlen(c->spoken) != c->spoken_len || strlen(c->tokens) != c->tokens_len)
		abort();
	size_t tokens = 0;
	for (size_t i = 0; i < c->tokens_len; i++)
		if (c->tokens[i] != ' ' && (i == 0 || c->tokens[i - 1] == ' '))
			tokens++;
	if (tokens != count_han(c->text, c->len))
		abort();
	return 0;
}

static void no_diag(void *ud, ts_level level, const char *msg)
{
	(void)ud, (void)level, (void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!lang) {
		ts_in_child_inline();
		keep_iconv_modules();
		ts_error err = {0};
		lang = ts_lang_load(TS_FUZZ_LANG_DIR, &err);
		if (!lang) {
			fprintf(stderr, "fuzz_frontend: %s\n", ts_error_msg(&err));
			abort();
		}
	}
	int fd = memfd_create("fuzz", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	ts_book *b = ts_book_new(no_diag, NULL);
	if (ts_book_add(b, path) == 0) {
		for (size_t i = 0; i < ts_book_count(b); i++) {
			const ts_chapter *ch = ts_book_chapter(b, i);
			int err;
			ts_reader *r = ts_reader_open(ch, &err);
			pending p = {0};
			ts_frontend *fe = ts_frontend_new(lang, on_chunk, NULL, &p);
			if (fe)
				ts_frontend_set_sentence_fn(fe, on_sentence);
			const char *t;
			size_t n;
			int end;
			if (fe && ts_frontend_feed(fe, ch->title, strlen(ch->title), 1) != 0)
				abort();
			while (r && fe && ts_reader_next(r, &t, &n, &end) > 0)
				if (ts_frontend_feed(fe, t, n, end) != 0)
					abort();
			if (p.chunks != 0)
				abort();
			ts_buf warn = {0};
			if (fe)
				ts_frontend_unreadable(fe, &warn);
			ts_buf_free(&warn);
			ts_frontend_free(fe);
			ts_reader_free(r);
		}
	}
	ts_book_free(b);
	close(fd);
	return 0;
}
