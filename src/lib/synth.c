/* synth.c - the eSpeak NG boundary (see synth.h).
 *
 * eSpeak runs in synchronous mode: espeak_ng_Synthesize() returns once
 * the text is spoken, and our callback has then received every sample.
 * eSpeak's status codes are translated here with their own message. */
#include "synth.h"

#include "util.h"

#include <espeak-ng/espeak_ng.h>
#include <espeak-ng/speak_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ts_synth {
	int rate;
	int wpm;
	ts_samples *out;   /* where the callback appends; set during a call */
	int oom;
	char errmsg[512];
};

/* eSpeak is process-wide: this records that it is taken.  It is the one
 * piece of mutable static state in the library, forced by eSpeak's API. */
static ts_synth *active;

void ts_samples_free(ts_samples *s)
{
	free(s->data);
	s->data = NULL;
	s->len = s->cap = 0;
}

static int on_audio(short *wav, int n, espeak_EVENT *ev)
{
	(void)ev;
	ts_synth *s = active;
	if (!s || !s->out || !wav || n <= 0)
		return 0;
	ts_samples *o = s->out;
	if (o->len + (size_t)n > o->cap) {
		size_t cap = o->cap ? o->cap : 16384;
		while (cap < o->len + (size_t)n)
			cap *= 2;
		int16_t *p = realloc(o->data, cap * sizeof *p);
		if (!p) {
			s->oom = 1;
			return 1; /* asks eSpeak to stop */
		}
		o->data = p;
		o->cap = cap;
	}
	memcpy(o->data + o->len, wav, (size_t)n * sizeof *wav);
	o->len += (size_t)n;
	return 0;
}

static void status_msg(espeak_ng_STATUS st, const char *what, char *buf, size_t sz)
{
	char m[256];
	espeak_ng_GetStatusCodeMessage(st, m, sizeof m);
	snprintf(buf, sz, "eSpeak NG: %s: %s", what, m);
}

ts_synth *ts_synth_new(const ts_voice *v, double rate_factor, int *err, char *errbuf,
                       size_t errsz)
{
	espeak_ng_STATUS st;
	if (active) {
		*err = TS_EBUSY;
		snprintf(errbuf, errsz, "eSpeak NG is already in use in this process");
		return NULL;
	}
	ts_synth *s = calloc(1, sizeof *s);
	if (!s) {
		*err = TS_ENOMEM;
		snprintf(errbuf, errsz, "out of memory");
		return NULL;
	}
	espeak_ng_ERROR_CONTEXT ctx = NULL;
	espeak_ng_InitializePath(NULL);
	st = espeak_ng_Initialize(&ctx);
	if (st != ENS_OK) {
		status_msg(st, "cannot initialize (is espeak-ng-data installed?)", errbuf, errsz);
		espeak_ng_ClearErrorContext(&ctx);
		free(s);
		*err = TS_ESPEAK;
		return NULL;
	}
	st = espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, NULL);
	if (st != ENS_OK) {
		status_msg(st, "cannot start synchronous output", errbuf, errsz);
		goto fail;
	}
	espeak_SetSynthCallback(on_audio);
	char name[160];
	if (v->variant[0])
		snprintf(name, sizeof name, "%s+%s", v->espeak_voice, v->variant);
	else
		snprintf(name, sizeof name, "%s", v->espeak_voice);
	st = espeak_ng_SetVoiceByName(name);
	if (st != ENS_OK) {
		char what[200];
		snprintf(what, sizeof what, "voice \"%s\"", name);
		status_msg(st, what, errbuf, errsz);
		goto fail;
	}
	double wpm = v->rate * rate_factor;
	if (wpm < espeakRATE_MINIMUM)
		wpm = espeakRATE_MINIMUM;
	if (wpm > espeakRATE_MAXIMUM)
		wpm = espeakRATE_MAXIMUM;
	s->wpm = (int)(wpm + 0.5);
	espeak_ng_SetParameter(espeakRATE, s->wpm, 0);
	espeak_ng_SetParameter(espeakPITCH, v->pitch, 0);
	espeak_ng_SetParameter(espeakRANGE, v->pitch_range, 0);
	s->rate = espeak_ng_GetSampleRate();
	active = s;
	return s;
fail:
	espeak_ng_Terminate();
	free(s);
	*err = TS_ESPEAK;
	return NULL;
}

void ts_synth_free(ts_synth *s)
{
	if (!s)
		return;
	espeak_ng_Terminate();
	if (active == s)
		active = NULL;
	free(s);
}

int ts_synth_rate(const ts_synth *s) { return s->rate; }
int ts_synth_wpm(const ts_synth *s) { return s->wpm; }
const char *ts_synth_errmsg(const ts_synth *s) { return s->errmsg; }

int ts_synth_speak(ts_synth *s, const char *text, ts_samples *out)
{
	out->len = 0;
	s->out = out;
	s->oom = 0;
	espeak_ng_STATUS st = espeak_ng_Synthesize(text, strlen(text) + 1, 0, POS_CHARACTER, 0,
	                                           espeakCHARS_UTF8, NULL, NULL);
	if (st == ENS_OK)
		st = espeak_ng_Synchronize();
	s->out = NULL;
	if (s->oom)
		return TS_ENOMEM;
	if (st != ENS_OK) {
		status_msg(st, "synthesis failed", s->errmsg, sizeof s->errmsg);
		return TS_ESPEAK;
	}
	return 0;
}
