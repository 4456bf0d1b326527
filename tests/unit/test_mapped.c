/* test_mapped.c - the shared reader of the mapped data files: refusing a
 * file whose size, magic, version or header size is wrong, reading the
 * header's fields, and the bounds of ts_mapped_at().
 *
 * Usage: test_mapped SCRATCH_DIR */
#include "check.h"
#include "zh/mapped.h"

#include <stdint.h>

static const ts_mapped_format fmt = {
    .what = "test file",
    .tool = "make-test",
    .magic = "TSTEST\0\0",
    .version = 3,
    .nfields = 2,
    .min_size = 1,
    .max_size = 64,
    .bad_size = "truncated",
};

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}

static char path[4096];

/* A file of n bytes: the header of fmt (version, header size given), the
 * fields 7 and 9, then zeros. */
static void write_file(size_t n, uint32_t version, uint32_t size, const char *magic)
{
	unsigned char b[128] = {0};
	memcpy(b, magic, 8);
	put32(b + 8, version);
	put32(b + 12, size);
	put32(b + 16, 7);
	put32(b + 20, 9);
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(b, 1, n, f) == n);
	if (f)
		fclose(f);
}

/* Opening path fails with code, its message containing want. */
static void expect_fail(int code, const char *want)
{
	ts_mapped m;
	ts_error err = {0};
	CHECK(ts_mapped_open(&m, path, &fmt, &err) == code);
	CHECK(err.code == code && strstr(err.msg, want) != NULL);
	CHECK(m.p == NULL && m.size == 0);
	if (!strstr(err.msg, want))
		fprintf(stderr, "message: %s\n", err.msg);
	CHECK(ts_mapped_open(&m, path, &fmt, NULL) == code); /* the code without err */
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_mapped SCRATCH_DIR\n");
		return 2;
	}
	snprintf(path, sizeof path, "%s/mapped.bin", argv[1]);
	remove(path);
	expect_fail(TS_ENOENT, "mapped.bin");
	write_file(0, 3, 0, "TSTEST\0\0");
	expect_fail(TS_EINVAL, "not a test file (0 bytes)");
	write_file(65, 3, 65, "TSTEST\0\0");
	expect_fail(TS_EINVAL, "not a test file (65 bytes)");
	write_file(20, 3, 20, "TSTEST\0\0"); /* shorter than its header */
	expect_fail(TS_EINVAL,
	            "not a test file of format 3 (bad magic); rebuild it with make-test");
	write_file(32, 3, 32, "TSLEX\0\0\0");
	expect_fail(TS_EINVAL, "(bad magic)");
	write_file(32, 2, 32, "TSTEST\0\0");
	expect_fail(TS_EINVAL, "(other format version)");
	write_file(32, 3, 33, "TSTEST\0\0");
	expect_fail(TS_EINVAL, "(truncated)");

	write_file(32, 3, 32, "TSTEST\0\0");
	ts_mapped m;
	ts_error err = {0};
	CHECK(ts_mapped_open(&m, path, &fmt, &err) == 0);
	CHECK(m.size == 32 && m.field[0] == 7 && m.field[1] == 9 && m.f == &fmt);
	CHECK(ts_mapped_at(&m, 0, 32) == m.p);
	CHECK(ts_mapped_at(&m, 16, 16) == m.p + 16);
	CHECK(ts_mapped_at(&m, 32, 0) == m.p + 32); /* an empty section at the end */
	CHECK(ts_mapped_at(&m, 32, 1) == NULL);
	CHECK(ts_mapped_at(&m, 33, 0) == NULL);
	CHECK(ts_mapped_at(&m, 1, 32) == NULL);
	CHECK(ts_mapped_at(&m, 16, UINT64_MAX) == NULL); /* off + len overflows */
	CHECK(ts_mapped_at(&m, UINT64_MAX, 2) == NULL);
	CHECK(ts_mapped_bad(&m, "x.bin", "bad counts", &err) == TS_EINVAL);
	CHECK(strcmp(err.msg, "x.bin: not a test file of format 3 (bad counts); rebuild it with "
	                      "make-test") == 0);
	ts_mapped_close(&m);
	CHECK(m.p == NULL && ts_mapped_at(&m, 0, 0) == NULL);
	ts_mapped_close(&m); /* twice does nothing */
	remove(path);
	if (check_failures)
		return 1;
	printf("test_mapped: all checks passed\n");
	return 0;
}
