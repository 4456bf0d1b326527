/* casting.c - the voices of a paragraph (see casting.h). */
#include "speech/casting.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>

typedef struct cast_run {
	ts_casting *c;
	ts_voice_cache *vc;
	const ts_voice *narrator;
	const char *p;
	size_t done; /* end of the last span */
} cast_run;

static int add_span(ts_casting *c, size_t a, size_t b, const ts_voice *v, const char *speaker)
{
	if (b <= a)
		return 0;
	if (ts_grow(&c->spans, &c->cap, c->n + 1, sizeof *c->spans))
		return TS_ENOMEM;
	c->spans[c->n++] = (ts_voice_span){a, b, v, speaker};
	return 0;
}

const ts_voice *ts_casting_voice(ts_voice_cache *vc, const ts_voice *narrator,
                                 const ts_attribution *a)
{
	const ts_voice *v = NULL;
	if (strcmp(a->speaker, "-") == 0 || strcmp(a->speaker, "?") == 0)
		return narrator;
	if (a->voice)
		v = ts_voice_cache_get(vc, a->voice, NULL);
	if (!v) {
		const char *pool = ts_voice_cache_pool(vc, a->female, a->rank, a->speaker);
		v = pool ? ts_voice_cache_get(vc, pool, NULL) : NULL;
	}
	return v ? v : narrator;
}

static int on_quote(void *ud, const ts_attribution *a)
{
	cast_run *r = ud;
	size_t qs = (size_t)(a->quote - r->p), qe = qs + a->quote_len;
	int rc = add_span(r->c, r->done, qs, r->narrator, NULL);
	rc = rc ? rc : add_span(r->c, qs, qe, ts_casting_voice(r->vc, r->narrator, a), a->speaker);
	r->done = qe;
	return rc;
}

int ts_casting_paragraph(ts_casting *c, ts_dialogue *d, ts_voice_cache *vc,
                         const ts_voice *narrator, const char *p, size_t n)
{
	cast_run r = {.c = c, .vc = vc, .narrator = narrator, .p = p};
	c->n = 0;
	int rc = ts_dialogue_attribute(d, p, n, on_quote, &r);
	return rc ? rc : add_span(c, r.done, n, narrator, NULL);
}

void ts_casting_free(ts_casting *c)
{
	free(c->spans);
	c->spans = NULL;
	c->n = c->cap = 0;
}
