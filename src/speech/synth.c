/* synth.c - the eSpeak NG boundary (see synth.h).
 *
 * eSpeak runs in synchronous mode: espeak_ng_Synthesize() returns once
 * the text is spoken, and our callback has then received every sample.
 * eSpeak's status codes are translated here with their own message. */
#include "speech/synth.h"

#include "base/util.h"

#include <espeak-ng/espeak_ng.h>
#include <espeak-ng/speak_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

struct ts_synth {
	int pitch, pitch_range;
	int volume;      /* eSpeak's, 1-100 */
	double level;    /* ts_synth_level()'s, or NAN */
	double loudness; /* the voice's loudness_lufs */
	int rate;
	int wpm;
	char voice[160]; /* eSpeak name of the main voice, with variant */
	char latin[160]; /* voice for Latin-script words */
	ts_buf ssml;
	ts_synth_sink_fn sink; /* where the callback sends; set during a call */
	void *sink_ud;
	int oom;
	char errmsg[512];
};

/* DESIGN: eSpeak NG 1.51 makes an audio device in
 * espeak_ng_InitializeOutput() whatever the mode, synchronous included,
 * where no sample is ever played (pcaudiolib's create_audio_device_object()
 * connects to PulseAudio, or opens ALSA): with a HOME it cannot write,
 * libpulse prints "Failed to create secure directory" on stderr, and every
 * worker talks to the machine's sound server.  This definition takes the
 * place of pcaudiolib's (the dynamic linker finds the program's own symbols
 * first, and the linker exports it because libespeak-ng calls it): no
 * device, as on a machine without sound, which eSpeak handles (it only
 * plays in the ENOUTPUT_MODE_SPEAK_AUDIO modes).  The audio is the same:
 * it reaches on_audio() as before. */
struct audio_object;
struct audio_object *create_audio_device_object(const char *device, const char *application,
                                                const char *description);
struct audio_object *create_audio_device_object(const char *device, const char *application,
                                                const char *description)
{
	(void)device, (void)application, (void)description;
	return NULL;
}

/* eSpeak is process-wide: this records that it is taken, and that it was
 * started once (eSpeak 1.51 hangs when started again after a terminate).
 * The one piece of mutable static state in the library, forced by
 * eSpeak's API. */
static ts_synth *active;
static int started;

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
	if (!s || !s->sink || !wav || n <= 0)
		return 0;
	int rc = s->sink(s->sink_ud, wav, (size_t)n);
	if (rc)
		s->oom = rc;
	return rc != 0; /* 1 asks eSpeak to stop */
}

static int append(void *ud, const int16_t *s, size_t n)
{
	ts_samples *o = ud;
	if (TS_GROW(o->data, o->cap, o->len + n))
		return TS_ENOMEM;
	memcpy(o->data + o->len, s, n * sizeof *s);
	o->len += n;
	return 0;
}

static void set_params(const ts_synth *s)
{
	espeak_ng_SetParameter(espeakRATE, s->wpm, 0);
	espeak_ng_SetParameter(espeakPITCH, s->pitch, 0);
	espeak_ng_SetParameter(espeakRANGE, s->pitch_range, 0);
	espeak_ng_SetParameter(espeakVOLUME, s->volume, 0);
}

/* The volume that brings a voice of s->loudness to s->level: eSpeak's
 * samples already reach full scale at 100, so never above. */
static void level_volume(ts_synth *s)
{
	s->volume = 100;
	if (isfinite(s->level) && isfinite(s->loudness) && s->level < s->loudness) {
		long vol = lrint(100 * pow(10, (s->level - s->loudness) / 20));
		s->volume = vol < 1 ? 1 : (int)vol;
	}
}

static void status_msg(espeak_ng_STATUS st, const char *what, char *buf, size_t sz)
{
	char m[256];
	espeak_ng_GetStatusCodeMessage(st, m, sizeof m);
	snprintf(buf, sz, "eSpeak NG: %s: %s", what, m);
}

/* The eSpeak names of v's main voice and Latin voice, with its variant
 * (each buffer 160 bytes). */
static void voice_names(const ts_voice *v, char *name, char *latin)
{
	if (v->variant[0]) {
		snprintf(name, 160, "%s+%s", v->espeak_voice, v->variant);
		snprintf(latin, 160, "%s+%s", v->latin_voice, v->variant);
	} else {
		snprintf(name, 160, "%s", v->espeak_voice);
		snprintf(latin, 160, "%s", v->latin_voice);
	}
}

/* v's speed (scaled, within eSpeak's bounds) and pitch into s. */
static void voice_params(ts_synth *s, const ts_voice *v, double rate_factor)
{
	double wpm = v->rate * rate_factor;
	if (wpm < espeakRATE_MINIMUM)
		wpm = espeakRATE_MINIMUM;
	if (wpm > espeakRATE_MAXIMUM)
		wpm = espeakRATE_MAXIMUM;
	s->wpm = (int)(wpm + 0.5);
	s->pitch = v->pitch;
	s->pitch_range = v->pitch_range;
	s->loudness = v->loudness_lufs;
	level_volume(s);
}

ts_synth *ts_synth_new(const ts_voice *v, double rate_factor, ts_error *err)
{
	espeak_ng_STATUS st;
	char why[512];
	if (active || started) {
		ts_error_set(err, TS_EBUSY, "eSpeak NG can be started only once in a process");
		return NULL;
	}
	started = 1;
	ts_synth *s = calloc(1, sizeof *s);
	if (!s) {
		ts_error_set(err, TS_ENOMEM, NULL);
		return NULL;
	}
	s->level = NAN;
	espeak_ng_ERROR_CONTEXT ctx = NULL;
	espeak_ng_InitializePath(NULL);
	st = espeak_ng_Initialize(&ctx);
	if (st != ENS_OK) {
		status_msg(st, "cannot initialize (is espeak-ng-data installed?)", why, sizeof why);
		espeak_ng_ClearErrorContext(&ctx);
		free(s);
		ts_error_set(err, TS_ESPEAK, "%s", why);
		return NULL;
	}
	st = espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, NULL);
	if (st != ENS_OK) {
		status_msg(st, "cannot start synchronous output", why, sizeof why);
		goto fail;
	}
	espeak_SetSynthCallback(on_audio);
	char name[160];
	voice_names(v, name, s->latin);
	snprintf(s->voice, sizeof s->voice, "%s", name);
	st = espeak_ng_SetVoiceByName(name);
	if (st != ENS_OK) {
		char what[200];
		snprintf(what, sizeof what, "voice \"%s\"", name);
		status_msg(st, what, why, sizeof why);
		goto fail;
	}
	/* eSpeak goes on without the voice's dictionary when it cannot load
	 * it (short of memory), and then says nothing of Chinese text: a
	 * character it must know tells. */
	const void *probe = "\xe4\xbd\xa0"; /* 你 */
	const char *ph = espeak_TextToPhonemes(&probe, espeakCHARS_UTF8, 0);
	if (!ph || !*ph) {
		snprintf(why, sizeof why,
		         "voice \"%s\": eSpeak NG did not load its dictionary (out of memory?)",
		         name);
		espeak_ng_Terminate();
		free(s);
		ts_error_set(err, TS_ENOMEM, "%s", why);
		return NULL;
	}
	voice_params(s, v, rate_factor);
	set_params(s);
	s->rate = espeak_ng_GetSampleRate();
	active = s;
	return s;
fail:
	espeak_ng_Terminate();
	free(s);
	ts_error_set(err, TS_ESPEAK, "%s", why);
	return NULL;
}

void ts_synth_free(ts_synth *s)
{
	if (!s)
		return;
	espeak_ng_Terminate();
	if (active == s)
		active = NULL;
	ts_buf_free(&s->ssml);
	free(s);
}

int ts_synth_use(ts_synth *s, const ts_voice *v, double rate_factor)
{
	char name[160], latin[160];
	voice_names(v, name, latin);
	/* eSpeak reloads a voice on every SetVoiceByName: only on a change. */
	if (strcmp(name, s->voice) != 0) {
		espeak_ng_STATUS st = espeak_ng_SetVoiceByName(name);
		if (st != ENS_OK) {
			char what[200];
			snprintf(what, sizeof what, "voice \"%s\"", name);
			status_msg(st, what, s->errmsg, sizeof s->errmsg);
			espeak_ng_SetVoiceByName(s->voice);
			return TS_ESPEAK;
		}
		snprintf(s->voice, sizeof s->voice, "%s", name);
	}
	snprintf(s->latin, sizeof s->latin, "%s", latin);
	voice_params(s, v, rate_factor);
	set_params(s);
	return 0;
}

void ts_synth_level(ts_synth *s, double lufs)
{
	s->level = lufs;
	level_volume(s);
	set_params(s);
}

int ts_synth_rate(const ts_synth *s)
{
	return s->rate;
}
const char *ts_synth_version(const char **data_path)
{
	const char *path = NULL;
	/* espeak_Info() reports the data folder only once it is set: the
	 * same answer whether or not a preset was checked (espeak.c) first. */
	espeak_ng_InitializePath(NULL);
	const char *v = espeak_Info(&path);
	if (data_path)
		*data_path = path;
	return v ? v : "";
}

int ts_synth_wpm(const ts_synth *s)
{
	return s->wpm;
}
const char *ts_synth_errmsg(const ts_synth *s)
{
	return s->errmsg;
}

/* A tone-numbered pinyin syllable starts at p ("hang2", "lv4"): lower-case
 * letters, a tone digit, and no letter or digit after it.  The g2p stage
 * writes Han characters so, and no Latin word the normalizer lets through
 * looks like that (it reads digits as Chinese numerals).  Returns its
 * length, or 0. */
static size_t pinyin_len(const char *p)
{
	const char *q = p;
	while (*q >= 'a' && *q <= 'z')
		q++;
	if (q == p || *q < '1' || *q > '5' || ts_is_latin((unsigned char)q[1]) ||
	    ts_is_digit((unsigned char)q[1]))
		return 0;
	return (size_t)(q + 1 - p);
}

/* End of the Latin word at p: letters, and spaces, apostrophes, hyphens or
 * full stops between letters, up to a pinyin syllable. */
static const char *latin_word_end(const char *p)
{
	const char *e = p;
	for (;;) {
		while (ts_is_latin((unsigned char)*e))
			e++;
		if ((*e == ' ' || *e == '\'' || *e == '-' || *e == '.') &&
		    ts_is_latin((unsigned char)e[1]) && !(*e == ' ' && pinyin_len(e + 1)))
			e++;
		else
			return e;
	}
}

/* End of the run of text for the main voice at p: up to a Latin word
 * that is not pinyin. */
static const char *main_run_end(const char *p)
{
	const char *e = p;
	while (*e) {
		if (ts_is_latin((unsigned char)*e)) {
			size_t k = pinyin_len(e);
			if (!k)
				break;
			e += k;
		} else {
			e++;
		}
	}
	return e;
}

/* Latin-script words go to the Latin voice: the Mandarin voice would read
 * them as pinyin ("NBA" as a syllable).  Pinyin syllables stay with the
 * main voice.  eSpeak 1.51 does not switch back after a </voice> on its
 * own, so every run names its voice. */
int ts_ssml_markup(const char *text, const char *voice, const char *latin, ts_buf *b)
{
	if (!*main_run_end(text))
		return 0;
	int rc = ts_buf_append(b, "<speak>", 7);
	const char *p = text;
	while (*p && !rc) {
		int word = ts_is_latin((unsigned char)*p) && !pinyin_len(p);
		const char *e = word ? latin_word_end(p) : main_run_end(p);
		rc = ts_buf_printf(b, "<voice name=\"%s\">", word ? latin : voice);
		rc = rc ? rc : ts_buf_xml(b, p, (size_t)(e - p));
		rc = rc ? rc : ts_buf_append(b, "</voice>", 8);
		p = e;
	}
	rc = rc ? rc : ts_buf_append(b, "</speak>", 8);
	return rc ? rc : 1;
}

int ts_synth_speak(ts_synth *s, const char *text, ts_samples *out)
{
	out->len = 0;
	return ts_synth_speak_to(s, text, append, out);
}

int ts_synth_speak_to(ts_synth *s, const char *text, ts_synth_sink_fn sink, void *ud)
{
	s->sink = sink;
	s->sink_ud = ud;
	s->oom = 0;
	unsigned flags = espeakCHARS_UTF8;
	ts_buf_clear(&s->ssml);
	int marked = ts_ssml_markup(text, s->voice, s->latin, &s->ssml);
	if (marked < 0)
		return marked;
	if (marked) {
		text = s->ssml.data;
		flags |= espeakSSML;
	}
	espeak_ng_STATUS st =
	    espeak_ng_Synthesize(text, strlen(text) + 1, 0, POS_CHARACTER, 0, flags, NULL, NULL);
	/* Synchronous mode: every sample has reached on_audio by now. */
	s->sink = NULL;
	if (marked) {
		/* eSpeak 1.51 leaves the last voice of the SSML in place (often
		 * the Latin one): restore ours, or the rest of the chapter would
		 * be read as English. */
		espeak_ng_SetVoiceByName(s->voice);
		set_params(s);
	}
	if (s->oom) {
		snprintf(s->errmsg, sizeof s->errmsg, "%s", ts_strerror(s->oom));
		return s->oom;
	}
	if (st != ENS_OK) {
		status_msg(st, "synthesis failed", s->errmsg, sizeof s->errmsg);
		return TS_ESPEAK;
	}
	return 0;
}

int ts_synth_phonemes(ts_synth *s, const char *text, ts_buf *out)
{
	/* The phonemes eSpeak traces while it speaks: after its own rules,
	 * 3-3 tone sandhi among them (espeak_TextToPhonemes stops before). */
	char *trace = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&trace, &n);
	if (!f)
		return TS_ENOMEM;
	ts_samples pcm = {0};
	espeak_SetPhonemeTrace(1, f);
	int rc = ts_synth_speak(s, text, &pcm);
	espeak_SetPhonemeTrace(0, NULL);
	fclose(f);
	ts_samples_free(&pcm);
	/* One line per clause: join them with spaces. */
	for (size_t i = 0; !rc && i < n; i++) {
		char c = trace[i] == '\n' ? ' ' : trace[i];
		if (c == ' ' && (out->len == 0 || out->data[out->len - 1] == ' '))
			continue;
		rc = ts_buf_putc(out, c);
	}
	while (out->len > 0 && out->data[out->len - 1] == ' ')
		out->data[--out->len] = '\0';
	free(trace);
	return rc;
}
