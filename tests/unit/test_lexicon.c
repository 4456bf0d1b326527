/* test_lexicon.c - the compiled pronunciation lexicon: characters, readings,
 * word lookup, traditional folding, and refusing damaged files.
 *
 * Usage: test_lexicon LEXICON_BIN SCRATCH_DIR */
#include "check.h"
#include "zh/lexicon.h"
#include "base/util.h"

#include <stdint.h>

static const char *syl(const ts_lexicon *lx, unsigned id, char *buf)
{
	size_t n;
	const char *s = ts_lexicon_syllable(lx, id, &n);
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

static uint32_t cp_of(const char *s)
{
	uint32_t cp = 0;
	ts_utf8_decode((const unsigned char *)s, strlen(s), &cp);
	return cp;
}

/* Keys of the characters of a UTF-8 string. */
static size_t keys_of(const ts_lexicon *lx, const char *s, int *keys)
{
	size_t n = 0;
	for (size_t i = 0; s[i];) {
		uint32_t cp;
		int k = ts_utf8_decode((const unsigned char *)s + i, strlen(s + i), &cp);
		int ch = ts_lexicon_char(lx, cp);
		keys[n++] = ch >= 0 ? ts_lexicon_key(lx, ch) : -1;
		i += (size_t)k;
	}
	return n;
}

/* The reading the longest word at the start of s gives its k-th character,
 * or "" when there is no word. */
static const char *word_reading(const ts_lexicon *lx, const char *s, unsigned k, unsigned *len,
                                char *buf)
{
	int keys[32];
	ts_lexmatch m[TS_LEX_MAX_WORD];
	size_t n = keys_of(lx, s, keys);
	size_t nm = ts_lexicon_match(lx, keys, n, m, TS_LEX_MAX_WORD);
	*len = nm ? m[nm - 1].len : 0;
	if (!nm)
		return "";
	unsigned r = ts_lexmatch_reading(&m[nm - 1], k);
	if (r == TS_LEX_OPEN)
		return "open";
	return syl(lx, ts_lexicon_reading(lx, keys[k], r), buf);
}

static void expect_open_fails(const char *path, int want)
{
	ts_error err = {0};
	ts_lexicon *lx = ts_lexicon_open(path, &err);
	CHECK(lx == NULL);
	CHECK(err.code == want);
	CHECK(strstr(err.msg, path) != NULL);
	ts_lexicon_free(lx);
}

static void write_bytes(const char *path, const char *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	if (f) {
		CHECK(fwrite(p, 1, n, f) == n);
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_lexicon LEXICON_BIN SCRATCH_DIR\n");
		return 2;
	}
	ts_error err = {0};
	char buf[16];
	ts_lexicon *lx = ts_lexicon_open(argv[1], &err);
	if (!lx) {
		fprintf(stderr, "%s\n", ts_error_msg(&err));
		return 1;
	}

	/* Characters and their readings, most common first. */
	int hang = ts_lexicon_char(lx, cp_of("行"));
	CHECK(hang >= 0);
	CHECK(ts_lexicon_nreadings(lx, hang) >= 2);
	CHECK(strcmp(syl(lx, ts_lexicon_reading(lx, hang, 0), buf), "xing2") == 0);
	CHECK(ts_lexicon_char(lx, 'A') == -1);
	CHECK(ts_lexicon_char(lx, 0x20000) == -1); /* beyond the BMP: not kept */
	int lv = ts_lexicon_char(lx, cp_of("绿"));
	CHECK(lv >= 0 && strcmp(syl(lx, ts_lexicon_reading(lx, lv, 0), buf), "lv4") == 0);
	CHECK(ts_lexicon_find_syllable(lx, "hang2", 5) >= 0);
	CHECK(ts_lexicon_find_syllable(lx, "hang9", 5) == -1);
	/* A frequent one-character word scores above an unknown one. */
	CHECK(ts_lexicon_char_logp(lx, ts_lexicon_char(lx, cp_of("的"))) >
	      ts_lexicon_unknown_logp(lx) + 5);

	/* Words: the reading of each character comes from the word. */
	unsigned len;
	CHECK(strcmp(word_reading(lx, "银行", 1, &len, buf), "hang2") == 0 && len == 2);
	CHECK(strcmp(word_reading(lx, "长大", 0, &len, buf), "zhang3") == 0);
	CHECK(strcmp(word_reading(lx, "重新", 0, &len, buf), "chong2") == 0);
	CHECK(strcmp(word_reading(lx, "还钱", 0, &len, buf), "huan2") == 0);
	CHECK(strcmp(word_reading(lx, "银行行长", 3, &len, buf), "zhang3") == 0);
	/* 一 and 不 are stored with their lexical tones: sandhi comes later. */
	CHECK(strcmp(word_reading(lx, "一个", 0, &len, buf), "yi1") == 0);
	CHECK(strcmp(word_reading(lx, "不是", 0, &len, buf), "bu4") == 0);
	/* Shortest first, all of them. */
	int keys[32];
	ts_lexmatch m[TS_LEX_MAX_WORD];
	size_t n = keys_of(lx, "中华人民共和国", keys);
	size_t nm = ts_lexicon_match(lx, keys, n, m, TS_LEX_MAX_WORD);
	CHECK(nm >= 3);
	for (size_t i = 1; i < nm; i++)
		CHECK(m[i].len > m[i - 1].len);
	CHECK(nm > 0 && m[nm - 1].len == 7);
	CHECK(ts_lexicon_match(lx, keys, n, m, 1) == 1 && m[0].len == 2);
	CHECK(ts_lexicon_match(lx, keys, 1, m, TS_LEX_MAX_WORD) == 0);
	/* An unknown character ends every word. */
	keys[1] = -1;
	CHECK(ts_lexicon_match(lx, keys, n, m, TS_LEX_MAX_WORD) == 0);

	/* Traditional text finds the simplified entries: by folding (後 -> 后),
	 * or by an entry of its own where the character is also simplified. */
	int hou_t = ts_lexicon_char(lx, cp_of("後")), hou_s = ts_lexicon_char(lx, cp_of("后"));
	CHECK(hou_t >= 0 && hou_s >= 0 && hou_t != hou_s);
	CHECK(ts_lexicon_key(lx, hou_t) == hou_s);
	CHECK(ts_lexicon_cp(lx, hou_t) == cp_of("後") && ts_lexicon_cp(lx, hou_s) == cp_of("后"));
	CHECK(strcmp(word_reading(lx, "銀行", 1, &len, buf), "hang2") == 0);
	CHECK(strcmp(word_reading(lx, "頭髮", 1, &len, buf), "fa5") == 0);
	CHECK(strcmp(word_reading(lx, "瞭解", 0, &len, buf), "liao3") == 0);
	CHECK(strcmp(word_reading(lx, "看著", 1, &len, buf), "zhe5") == 0);
	int fa = ts_lexicon_char(lx, cp_of("髮"));
	CHECK(fa >= 0 && strcmp(syl(lx, ts_lexicon_reading(lx, fa, 0), buf), "fa4") == 0);

	/* Damaged files are refused with the reason, never read past. */
	char path[1024];
	FILE *f = fopen(argv[1], "rb");
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *data = malloc((size_t)size);
	CHECK(fread(data, 1, (size_t)size, f) == (size_t)size);
	fclose(f);
	snprintf(path, sizeof path, "%s/missing.bin", argv[2]);
	expect_open_fails(path, TS_ENOENT);
	snprintf(path, sizeof path, "%s/truncated.bin", argv[2]);
	write_bytes(path, data, (size_t)size / 2);
	expect_open_fails(path, TS_EINVAL);
	snprintf(path, sizeof path, "%s/short.bin", argv[2]);
	write_bytes(path, data, 20);
	expect_open_fails(path, TS_EINVAL);
	snprintf(path, sizeof path, "%s/magic.bin", argv[2]);
	data[0] = 'X';
	write_bytes(path, data, (size_t)size);
	expect_open_fails(path, TS_EINVAL);
	data[0] = 'T';
	/* A word record's key past the character table. */
	snprintf(path, sizeof path, "%s/badkey.bin", argv[2]);
	uint32_t words_off;
	memcpy(&words_off, data + 72, 4);
	data[words_off] = (char)0xFF;
	data[words_off + 1] = (char)0xFF;
	write_bytes(path, data, (size_t)size);
	expect_open_fails(path, TS_EINVAL);
	free(data);

	ts_lexicon_free(lx);
	ts_lexicon_free(NULL);
	if (check_failures)
		return 1;
	printf("test_lexicon: all checks passed\n");
	return 0;
}
