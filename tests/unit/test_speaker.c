/* test_speaker.c - a text spoken in pieces (speech/speaker.h): each piece
 * from the state eSpeak had when the spawner was started, whatever was
 * spoken before it, so a text that starts a piece sounds as it does said
 * first; the rule that cuts the pieces; ts_synth_speak_to()'s sink. */
#include "check.h"
#include "speech/speaker.h"
#include "speech/synth.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static int same(const ts_samples *a, const ts_samples *b)
{
	return a->len > 0 && a->len == b->len &&
	       memcmp(a->data, b->data, a->len * sizeof *a->data) == 0;
}

/* Speak text as the first of a new speaker's texts. */
static void first_text(ts_spawner *z, const char *text, ts_samples *out)
{
	ts_speaker *sp = ts_speaker_new(z);
	int rc = sp ? ts_speaker_speak(sp, text, 0, out) : TS_ENOMEM;
	if (rc)
		fprintf(stderr, "cannot speak: %s\n", sp ? ts_speaker_errmsg(sp) : "");
	CHECK(rc == 0);
	CHECK(sp && ts_speaker_pieces(sp) == 1);
	ts_speaker_free(sp);
}

static int count(void *ud, const int16_t *s, size_t n)
{
	(void)s;
	*(size_t *)ud += n;
	return 0;
}

static int stop_at_once(void *ud, const int16_t *s, size_t n)
{
	(void)ud, (void)s, (void)n;
	return TS_EIO;
}

int main(void)
{
	const char *a = "今天天气很好，我们去公园散步吧。", *b = "他说：“明天再来。”";
	ts_voice v;
	ts_voice_defaults(&v);
	ts_error err = {0};
	ts_synth *s = ts_synth_new(&v, 1.0, &err);
	if (!s) {
		fprintf(stderr, "cannot start eSpeak: %s\n", ts_error_msg(&err));
		return 1;
	}
	ts_spawner *z = ts_spawner_start(s, &err);
	CHECK(z && ts_spawner_alive(z));
	if (!z)
		return 1;

	/* b said first, twice, by two speakers: the same samples. */
	ts_samples b1 = {0}, b2 = {0}, ab = {0}, x = {0};
	first_text(z, b, &b1);
	first_text(z, b, &b2);
	CHECK(same(&b1, &b2));
	/* After a, in the same piece, b is not the same (eSpeak's state);
	 * in a piece of its own, it is. */
	ts_speaker *sp = ts_speaker_new(z);
	CHECK(ts_speaker_speak(sp, a, 0, &x) == 0 && x.len > 0);
	CHECK(ts_speaker_speak(sp, b, 0, &ab) == 0 && ab.len > 0);
	CHECK(!same(&ab, &b1));
	ts_speaker_free(sp);

	/* The pieces: none before TS_SPEAKER_MIN bytes, none where a text
	 * may not start one, always by TS_SPEAKER_MAX. */
	sp = ts_speaker_new(z);
	size_t bytes = 0;
	const char *starts = NULL; /* the text that started the second piece */
	ts_samples started = {0};
	for (int i = 0; i < 400 && ts_speaker_pieces(sp) < 3; i++) {
		size_t before = ts_speaker_pieces(sp);
		const char *t = i % 2 ? a : b;
		if (ts_speaker_speak(sp, t, i % 3 == 0, &x) != 0 || x.len == 0) {
			CHECK(!"speaks");
			break;
		}
		if (ts_speaker_pieces(sp) > before && before > 0) {
			CHECK(i % 3 == 0);
			CHECK(bytes >= TS_SPEAKER_MIN && bytes < TS_SPEAKER_MAX + 2 * strlen(a));
			if (!starts) {
				starts = t;
				started.len = 0;
				CHECK(TS_GROW(started.data, started.cap, x.len) == 0);
				memcpy(started.data, x.data, x.len * sizeof *x.data);
				started.len = x.len;
			}
			bytes = 0;
		}
		bytes += strlen(t);
	}
	CHECK(ts_speaker_pieces(sp) == 3);
	ts_speaker_free(sp);
	/* Said first in its piece: as said first anywhere. */
	CHECK(starts != NULL);
	if (starts) {
		ts_samples y = {0};
		first_text(z, starts, &y);
		CHECK(same(&started, &y));
		ts_samples_free(&y);
	}
	ts_samples_free(&started);

	/* This process's own eSpeak was not used: b said here sounds as b said
	 * first in a piece. */
	ts_samples here = {0};
	CHECK(ts_synth_speak(s, b, &here) == 0);
	CHECK(same(&here, &b1));
	/* The sink: every sample, or eSpeak stopped with its code. */
	size_t n = 0;
	CHECK(ts_synth_speak_to(s, b, count, &n) == 0 && n > 0);
	CHECK(ts_synth_speak_to(s, b, stop_at_once, NULL) == TS_EIO);

	/* The spawner gone: a clear failure, and it is not alive. */
	ts_spawner_stop(z);
	z = ts_spawner_start(s, &err);
	CHECK(z != NULL);
	ts_spawner_stop(z);

	ts_samples_free(&b1), ts_samples_free(&b2), ts_samples_free(&ab), ts_samples_free(&x);
	ts_samples_free(&here);
	ts_synth_free(s);
	if (check_failures)
		fprintf(stderr, "%d check(s) failed\n", check_failures);
	return check_failures != 0;
}
