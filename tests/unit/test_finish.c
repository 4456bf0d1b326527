/* test_finish.c - trimming, pauses and fades of the stitching stage,
 * on synthetic speech whose every sample is known. */
#include "check.h"
#include "audio/finish.h"
#include "base/util.h"

#include <math.h>

#define RATE 22050

typedef struct track {
	int16_t *s;
	size_t n, cap;
} track;

static int sink(void *ud, const int16_t *s, size_t n)
{
	track *t = ud;
	if (t->n + n > t->cap) {
		t->cap = (t->n + n) * 2;
		t->s = realloc(t->s, t->cap * sizeof *t->s);
	}
	memcpy(t->s + t->n, s, n * sizeof *s);
	t->n += n;
	return 0;
}

/* A "piece of speech": lead zeros, a loud tone of `len` samples, tail zeros. */
static int16_t *speech(size_t lead, size_t len, size_t tail, size_t *n)
{
	*n = lead + len + tail;
	int16_t *s = calloc(*n, sizeof *s);
	for (size_t i = 0; i < len; i++)
		s[lead + i] = (int16_t)(8000 * sin(2 * M_PI * 200 * (double)i / RATE) +
		                        (i % 2 ? 1000 : -1000));
	return s;
}

static size_t ms(int m)
{
	return (size_t)RATE * (size_t)m / 1000;
}

/* Length of the run of exact zeros starting at i. */
static size_t zero_run(const track *t, size_t i)
{
	size_t k = 0;
	while (i + k < t->n && t->s[i + k] == 0)
		k++;
	return k;
}

int main(void)
{
	ts_voice v;
	ts_voice_defaults(&v);
	v.lead_in_ms = 300;
	v.clause_pause_ms = 200;
	v.sentence_pause_ms = 350;
	v.paragraph_pause_ms = 700;
	v.title_pause_ms = 1200;
	v.tail_ms = 1000;

	/* Trim finds the loud part. */
	size_t n;
	int16_t *p = speech(500, 1000, 700, &n);
	size_t a, b;
	ts_finish_trim(p, n, &a, &b);
	CHECK(a == 500);
	CHECK(b == 1500);
	int16_t quiet[100] = {0};
	quiet[50] = TS_SILENCE_LEVEL - 1;
	ts_finish_trim(quiet, 100, &a, &b);
	CHECK(a == b);

	track t = {0};
	ts_finisher *f = ts_finish_new(RATE, &v, sink, &t);
	uint64_t s0, e0, s1, e1, s2, e2, s3, e3;
	CHECK(ts_finish_add(f, p, n, TS_BREAK_NONE, &s0, &e0) == 0); /* title */
	CHECK(ts_finish_add(f, p, n, TS_BREAK_TITLE, &s1, &e1) == 0);
	/* A silent piece: its paragraph break waits for the next piece,
	 * and the longer break (paragraph) wins over the clause. */
	CHECK(ts_finish_add(f, quiet, 100, TS_BREAK_PARAGRAPH, &s2, &e2) == 0);
	CHECK(s2 == e2);
	CHECK(ts_finish_add(f, p, n, TS_BREAK_CLAUSE, &s2, &e2) == 0);
	CHECK(ts_finish_add(f, p, n, TS_BREAK_SENTENCE, &s3, &e3) == 0);
	CHECK(ts_finish_end(f) == 0);
	CHECK(ts_finish_position(f) == t.n);

	/* Pauses are the preset's, eSpeak's padding gone, each made up to the
	 * next multiple of TS_FINISH_ALIGN samples (less than one more). */
	uint64_t starts[] = {s0, s1, s2, s3}, pause[] = {s0, s1 - e0, s2 - e1, s3 - e2};
	const int want[] = {300, 1200, 700, 350};
	for (int i = 0; i < 4; i++) {
		CHECK(starts[i] % TS_FINISH_ALIGN == 0);
		CHECK(pause[i] >= ms(want[i]) && pause[i] < ms(want[i]) + TS_FINISH_ALIGN);
	}
	CHECK(e0 - s0 == 1000);
	CHECK(t.n - e3 == ms(1000));
	CHECK(t.n == s3 + 1000 + ms(1000));

	/* The silence between pieces is digital silence of that length (the
	 * fades only touch the speech's own samples). */
	CHECK(zero_run(&t, 0) >= ms(300));
	CHECK(zero_run(&t, e0) >= ms(1200));

	/* No clicks: the edges fade from (near) zero, and no step between
	 * neighbouring samples at a join is larger than inside the speech. */
	int max_step_inside = 0;
	for (size_t i = 501; i < 1500; i++) {
		int d = abs(p[i] - p[i - 1]);
		if (d > max_step_inside)
			max_step_inside = d;
	}
	CHECK(abs(t.s[s0]) < 200);
	CHECK(abs(t.s[e0 - 1]) < 200);
	for (size_t i = 1; i < t.n; i++) {
		if (abs(t.s[i] - t.s[i - 1]) > max_step_inside) {
			fprintf(stderr, "step of %d at sample %zu\n", abs(t.s[i] - t.s[i - 1]), i);
			check_failures++;
			break;
		}
	}
	/* The middle of the speech is untouched. */
	CHECK(memcmp(t.s + s1 + 200, p + 500 + 200, 600 * sizeof *p) == 0);

	ts_finish_free(f);
	ts_finish_free(NULL);

	/* A chapter with no sound at all still gets its lead-in. */
	track t2 = {0};
	f = ts_finish_new(RATE, &v, sink, &t2);
	CHECK(ts_finish_add(f, quiet, 100, TS_BREAK_NONE, NULL, NULL) == 0);
	CHECK(ts_finish_end(f) == 0);
	CHECK(t2.n == ms(300));
	ts_finish_free(f);

	free(p);
	free(t.s);
	free(t2.s);
	return check_done("test_finish");
}
