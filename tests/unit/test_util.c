/* test_util.c - base/util: growable arrays (growth, contents kept, sizes
 * that would overflow refused with the array left as it was), the byte
 * buffer's overflow check, the ASCII character classes and strings cut
 * between characters. */
#include "base/util.h"

#include "check.h"

#include <stdint.h>

/* One element at a time: the capacity always covers what is asked, the
 * elements stay, and the array is moved only a logarithmic number of
 * times. */
static void test_grow(void)
{
	int *a = NULL;
	size_t cap = 0, moves = 0;
	const size_t n = 100000;
	for (size_t i = 0; i < n; i++) {
		size_t before = cap;
		if (TS_GROW(a, cap, i + 1) != 0) {
			CHECK(!"TS_GROW failed");
			break;
		}
		CHECK(cap >= i + 1);
		moves += cap != before;
		a[i] = (int)(i * 7);
	}
	CHECK(moves > 0 && moves <= 20); /* 16 first, then doubled: 14 */
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += a[i] != (int)(i * 7);
	CHECK(bad == 0);

	/* Asking for no more than there is changes nothing. */
	int *same = a;
	size_t had = cap;
	CHECK(TS_GROW(a, cap, 10) == 0 && a == same && cap == had);
	CHECK(TS_GROW(a, cap, had) == 0 && a == same && cap == had);

	/* A jump past double the capacity gets what was asked. */
	CHECK(TS_GROW(a, cap, had * 3 + 1) == 0 && cap == had * 3 + 1);
	CHECK(a[n - 1] == (int)((n - 1) * 7));
	free(a);

	/* The first allocation is at least 64 bytes; large elements one. */
	char *c = NULL;
	size_t ccap = 0;
	CHECK(TS_GROW(c, ccap, 1) == 0 && ccap == 64);
	free(c);
	struct big {
		char bytes[200];
	} *b = NULL;
	size_t bcap = 0;
	CHECK(TS_GROW(b, bcap, 1) == 0 && bcap == 1);
	CHECK(TS_GROW(b, bcap, 2) == 0 && bcap == 2);
	CHECK(TS_GROW(b, bcap, 3) == 0 && bcap == 4);
	free(b);
}

/* need * elem past SIZE_MAX: refused before any allocation, the array as
 * it was. */
static void test_grow_overflow(void)
{
	uint64_t *a = NULL;
	size_t cap = 0;
	CHECK(TS_GROW(a, cap, 3) == 0);
	a[0] = 1, a[1] = 2, a[2] = 3;
	uint64_t *was = a;
	size_t had = cap;
	CHECK(TS_GROW(a, cap, SIZE_MAX / sizeof *a + 1) == TS_ENOMEM);
	CHECK(TS_GROW(a, cap, SIZE_MAX) == TS_ENOMEM);
	CHECK(a == was && cap == had);
	CHECK(TS_RESIZE(a, SIZE_MAX / 2) == TS_ENOMEM);
	CHECK(a == was && a[0] == 1 && a[1] == 2 && a[2] == 3);
	/* Still usable after the refusals. */
	CHECK(TS_GROW(a, cap, 1000) == 0 && cap >= 1000 && a[2] == 3);
	free(a);
	/* An element of no size is refused too. */
	size_t zcap = 0;
	void *z = NULL;
	CHECK(ts_grow(&z, &zcap, 1, 0) == TS_ENOMEM && z == NULL && zcap == 0);
}

/* TS_RESIZE: exactly n elements, the first ones kept. */
static void test_resize(void)
{
	short *s = NULL;
	CHECK(TS_RESIZE(s, 3) == 0 && s != NULL);
	if (!s)
		return;
	s[0] = 10, s[1] = 11, s[2] = 12;
	CHECK(TS_RESIZE(s, 5000) == 0);
	s[4999] = 7;
	CHECK(s[0] == 10 && s[2] == 12 && s[4999] == 7);
	CHECK(TS_RESIZE(s, 2) == 0 && s[0] == 10 && s[1] == 11);
	free(s);
}

/* The byte buffer refuses a length that would wrap, and the error
 * sticks. */
static void test_buf_overflow(void)
{
	ts_buf b = {0};
	CHECK(ts_buf_append(&b, "abc", 3) == 0);
	CHECK(ts_buf_reserve(&b, SIZE_MAX - 3) == TS_ENOMEM);
	CHECK(ts_buf_error(&b) == TS_ENOMEM);
	CHECK(ts_buf_append(&b, "d", 1) == TS_ENOMEM);
	CHECK(b.len == 3 && strcmp(b.data, "abc") == 0);
	ts_buf_clear(&b);
	CHECK(ts_buf_printf(&b, "%d-%s", 42, "x") == 0 && strcmp(b.data, "42-x") == 0);
	ts_buf_free(&b);
}

/* The ASCII classes, against their definitions, on code points and on
 * bytes as char (negative ones are nothing). */
static void test_classes(void)
{
	size_t bad = 0;
	for (uint32_t c = 0; c < 0x20000; c++) {
		int digit = c >= '0' && c <= '9';
		int latin = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
		bad += ts_is_digit(c) != digit || ts_is_latin(c) != latin ||
		       ts_is_alnum(c) != (digit || latin);
	}
	CHECK(bad == 0);
	CHECK(!ts_is_digit(0xFF10) && !ts_is_latin(0xFF21)); /* fullwidth ０ Ａ */
	CHECK(!ts_is_latin(0xE9) && !ts_is_latin(0xC9));     /* é É */
	CHECK(!ts_is_digit(UINT32_MAX) && !ts_is_latin(UINT32_MAX));
	const char *s = "\xC3\xA9"; /* é: bytes above 0x7F */
	CHECK(!ts_is_alnum((unsigned char)s[0]) && !ts_is_alnum((uint32_t)s[1]));
	CHECK(ts_is_alnum((unsigned char)'z') && ts_is_alnum('0') && !ts_is_alnum('_'));
}

/* ts_strdup_cut(s, max) is want. */
static void cut_is(const char *s, size_t max, const char *want)
{
	char *got = ts_strdup_cut(s, max);
	if (!got || strcmp(got, want) != 0) {
		fprintf(stderr, "ts_strdup_cut(\"%s\", %zu): \"%s\", want \"%s\"\n", s, max,
		        got ? got : "(null)", want);
		check_failures++;
	}
	free(got);
}

/* Titles cut between characters, with "…" for what is left out. */
static void test_cut(void)
{
	cut_is("第一章 长夜", 6, "第一章 长夜");
	cut_is("第一章 长夜", 5, "第一章 …");
	cut_is("第一章 长夜", 1, "…");
	cut_is("", 3, "");
	cut_is("abcdef", 4, "abc…");
	cut_is("ab𠀀𠀁𠀂", 4, "ab𠀀…");
	/* Not UTF-8 (GBK): a character starts at every byte but 80-BF. */
	cut_is("\xc4\xe3\xba\xc3\xca", 3, "\xc4\xe3\xba…");
	/* 100,000 characters: 199 of them and the ellipsis. */
	size_t n = 100000;
	char *big = malloc(3 * n + 1);
	if (!big)
		return;
	for (size_t i = 0; i < n; i++)
		memcpy(big + 3 * i, "长", 3);
	big[3 * n] = '\0';
	char *got = ts_strdup_cut(big, 200);
	CHECK(got && ts_utf8_count(got, strlen(got)) == 200 && strlen(got) == 3 * 200);
	CHECK(got && strcmp(got + 3 * 199, "…") == 0 && memcmp(got, big, 3 * 199) == 0);
	free(got);
	free(big);
}

int main(void)
{
	test_grow();
	test_grow_overflow();
	test_resize();
	test_buf_overflow();
	test_classes();
	test_cut();
	return check_done("test_util");
}
