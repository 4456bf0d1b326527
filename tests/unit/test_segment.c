/* test_segment.c - sentence and chunk segmentation.
 *
 * Usage: test_segment DATA_DIR CASE...  For each case, DATA_DIR/CASE.txt
 * is segmented line by line and the chunks compared with CASE.ok, one
 * chunk a line: the break before it (N none, C clause, S sentence, P
 * paragraph), '.' if it ends a sentence else '-', then the text.
 * Properties checked on every case: no character is lost, chunks stay
 * within the length limit, and feeding the text in pieces of any size
 * gives the same chunks. */
#include "check.h"
#include "text/clean.h"
#include "text/segment.h"
#include "base/util.h"

static const char brk_code[] = "NCSPT";

typedef struct dump {
	ts_buf out;    /* golden-format text */
	ts_buf joined; /* chunk text, for the no-loss check */
} dump;

static int on_chunk(void *ud, const ts_chunk *c)
{
	dump *d = ud;
	ts_buf_printf(&d->out, "%c%c %s\n", brk_code[c->brk], c->sentence_end ? '.' : '-', c->text);
	ts_buf_append(&d->joined, c->text, c->len);
	CHECK(c->len > 0);
	CHECK(c->chars == ts_utf8_count(c->text, c->len));
	if (c->chars > TS_CHUNK_MAX) {
		/* Only a sentence end with closers may run over. */
		CHECK(c->sentence_end);
		CHECK(c->chars <= TS_CHUNK_MAX + 8);
	}
	return 0;
}

/* Text without spaces, to compare what went in with what came out. */
static void strip_spaces(const char *s, size_t n, ts_buf *out)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			ts_buf_putc(out, s[i]);
}

/* Segment text, feeding each cleaned line in pieces of `step` bytes
 * (cut at character boundaries); 0 means whole lines. */
static void segment(const char *text, size_t n, size_t step, dump *d, ts_buf *cleaned)
{
	ts_segmenter *s = ts_segmenter_new(on_chunk, d);
	ts_cleaner *cl = ts_cleaner_new();
	const char *p = text, *end = text + n;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		ts_buf line = {0};
		CHECK(ts_clean_piece(cl, p, len, 1, &line) == 0);
		CHECK(!line.data || !memchr(line.data, '\n', line.len));
		if (cleaned)
			strip_spaces(line.data ? line.data : "", line.len, cleaned);
		size_t i = 0;
		while (i < line.len) {
			size_t k = piece_len(line.data, line.len, i, step);
			CHECK(ts_segmenter_feed(s, line.data + i, k) == 0);
			i += k;
		}
		CHECK(ts_segmenter_end_paragraph(s) == 0);
		ts_buf_free(&line);
		p += len + (nl ? 1 : 0);
	}
	ts_segmenter_free(s);
	ts_cleaner_free(cl);
}

static void run_case(const char *dir, const char *name)
{
	char golden[1024];
	size_t n;
	char *text = read_case(dir, name, golden, sizeof golden, &n);
	if (!text)
		return;
	dump whole = {0};
	ts_buf in = {0}, out = {0};
	segment(text, n, 0, &whole, &in);
	check_golden(golden, whole.out.data ? whole.out.data : "", whole.out.len);

	/* Nothing lost, nothing added. */
	strip_spaces(whole.joined.data ? whole.joined.data : "", whole.joined.len, &out);
	CHECK(in.len == out.len && memcmp(in.data, out.data, in.len) == 0);

	/* Streaming: any piece size gives the same chunks. */
	static const size_t steps[] = {1, 2, 3, 5, 7, 64};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		dump d = {0};
		segment(text, n, steps[i], &d, NULL);
		if (d.out.len != whole.out.len ||
		    memcmp(d.out.data, whole.out.data, d.out.len) != 0) {
			fprintf(stderr, "%s: feeding %zu bytes at a time changes the chunks\n",
			        name, steps[i]);
			check_failures++;
		}
		ts_buf_free(&d.out);
		ts_buf_free(&d.joined);
	}
	ts_buf_free(&whole.out);
	ts_buf_free(&whole.joined);
	ts_buf_free(&in);
	ts_buf_free(&out);
	free(text);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_segment DATA_DIR CASE...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++)
		run_case(argv[1], argv[i]);
	return check_done("test_segment");
}
