/* finish.c - trimming, fades and pauses (see finish.h). */
#include "audio/finish.h"

#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ZERO_BLOCK 4096

struct ts_finisher {
	int rate;
	ts_voice v;
	ts_sink_fn sink;
	void *ud;
	uint64_t pos;
	ts_break pending;
	int started;   /* some speech was written */
	int16_t *work; /* faded edge copy */
	size_t fade;   /* fade length in samples */
	float *ramp;   /* fade gains 0..1 */
};

static const int16_t zeros[ZERO_BLOCK];

ts_finisher *ts_finish_new(int rate, const ts_voice *v, ts_sink_fn sink, void *ud)
{
	ts_finisher *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->rate = rate;
	f->v = *v;
	f->sink = sink;
	f->ud = ud;
	f->fade = (size_t)rate * TS_FADE_MS / 1000;
	if (f->fade < 1)
		f->fade = 1;
	f->ramp = malloc(f->fade * sizeof *f->ramp);
	f->work = malloc(f->fade * sizeof *f->work);
	if (!f->ramp || !f->work) {
		ts_finish_free(f);
		return NULL;
	}
	/* Raised cosine: smooth at both ends. */
	for (size_t i = 0; i < f->fade; i++)
		f->ramp[i] = (float)(0.5 - 0.5 * cos(M_PI * ((double)i + 0.5) / (double)f->fade));
	return f;
}

void ts_finish_free(ts_finisher *f)
{
	if (!f)
		return;
	free(f->ramp);
	free(f->work);
	free(f);
}

uint64_t ts_finish_position(const ts_finisher *f)
{
	return f->pos;
}

void ts_finish_trim(const int16_t *s, size_t n, size_t *a, size_t *b)
{
	size_t i = 0, j = n;
	while (i < n && abs(s[i]) < TS_SILENCE_LEVEL)
		i++;
	while (j > i && abs(s[j - 1]) < TS_SILENCE_LEVEL)
		j--;
	*a = i;
	*b = j;
}

static int write_silence(ts_finisher *f, uint64_t n)
{
	while (n > 0) {
		size_t k = n > ZERO_BLOCK ? ZERO_BLOCK : (size_t)n;
		int rc = f->sink(f->ud, zeros, k);
		if (rc)
			return rc;
		f->pos += k;
		n -= k;
	}
	return 0;
}

static int write_samples(ts_finisher *f, const int16_t *s, size_t n)
{
	int rc = f->sink(f->ud, s, n);
	if (!rc)
		f->pos += n;
	return rc;
}

static uint64_t ms_to_samples(const ts_finisher *f, int ms)
{
	return (uint64_t)f->rate * (uint64_t)ms / 1000;
}

static int pause_ms(const ts_finisher *f, ts_break b)
{
	switch (b) {
	case TS_BREAK_CLAUSE: return f->v.clause_pause_ms;
	case TS_BREAK_SENTENCE: return f->v.sentence_pause_ms;
	case TS_BREAK_PARAGRAPH: return f->v.paragraph_pause_ms;
	case TS_BREAK_TITLE: return f->v.title_pause_ms;
	case TS_BREAK_NONE: break;
	}
	return 0;
}

int ts_finish_add(ts_finisher *f, const int16_t *s, size_t n, ts_break brk, uint64_t *start,
                  uint64_t *end)
{
	int rc;
	size_t a, b;
	if (brk > f->pending)
		f->pending = brk;
	ts_finish_trim(s, n, &a, &b);
	if (a == b) {
		if (start)
			*start = f->pos;
		if (end)
			*end = f->pos;
		return 0;
	}
	int ms = f->started ? pause_ms(f, f->pending) : f->v.lead_in_ms;
	uint64_t pause = ms_to_samples(f, ms);
	pause += (TS_FINISH_ALIGN - (f->pos + pause) % TS_FINISH_ALIGN) % TS_FINISH_ALIGN;
	if ((rc = write_silence(f, pause)))
		return rc;
	f->pending = TS_BREAK_NONE;
	f->started = 1;
	if (start)
		*start = f->pos;
	/* Fade in, the middle as it is, fade out. */
	size_t len = b - a, fade = f->fade;
	if (fade * 2 > len)
		fade = len / 2;
	for (size_t i = 0; i < fade; i++)
		f->work[i] = (int16_t)lrintf((float)s[a + i] * f->ramp[i]);
	if ((rc = write_samples(f, f->work, fade)))
		return rc;
	if ((rc = write_samples(f, s + a + fade, len - 2 * fade)))
		return rc;
	for (size_t i = 0; i < fade; i++)
		f->work[i] = (int16_t)lrintf((float)s[b - fade + i] * f->ramp[fade - 1 - i]);
	if ((rc = write_samples(f, f->work, fade)))
		return rc;
	if (end)
		*end = f->pos;
	return 0;
}

int ts_finish_end(ts_finisher *f)
{
	return write_silence(f, ms_to_samples(f, f->started ? f->v.tail_ms : f->v.lead_in_ms));
}
