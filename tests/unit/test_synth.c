/* test_synth.c - the eSpeak NG boundary: SSML markup of Latin words, and
 * real synthesis (rate, not silent, speed setting, voice errors). */
#include "check.h"
#include "synth.h"
#include "util.h"

#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

static void markup_is(const char *text, const char *want)
{
	ts_buf b = {0};
	int r = ts_ssml_markup(text, "cmn-latn-pinyin", "en", &b);
	const char *got = r ? b.data : "";
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "markup(\"%s\")\n  got:  %s\n  want: %s\n", text, got, want);
		check_failures++;
	}
	ts_buf_free(&b);
}

static double rms(const ts_samples *s)
{
	double sum = 0;
	for (size_t i = 0; i < s->len; i++)
		sum += (double)s->data[i] * s->data[i];
	return s->len ? sqrt(sum / (double)s->len) : 0;
}

int main(void)
{
	markup_is("你好。", "");
	markup_is(
	    "他喜欢N B A。",
	    "<speak><voice name=\"cmn-latn-pinyin\">他喜欢</voice><voice name=\"en\">N B A</voice>"
	    "<voice name=\"cmn-latn-pinyin\">。</voice></speak>");
	markup_is(
	    "Hello world，你好",
	    "<speak><voice name=\"en\">Hello world</voice><voice name=\"cmn-latn-pinyin\">，你好"
	    "</voice></speak>");
	markup_is("A&B<C>",
	          "<speak><voice name=\"en\">A</voice><voice name=\"cmn-latn-pinyin\">&amp;"
	          "</voice><voice name=\"en\">B</voice><voice name=\"cmn-latn-pinyin\">&lt;"
	          "</voice><voice name=\"en\">C</voice><voice name=\"cmn-latn-pinyin\">&gt;"
	          "</voice></speak>");
	markup_is("don't", "<speak><voice name=\"en\">don't</voice></speak>");

	ts_voice v;
	ts_voice_defaults(&v);

	/* eSpeak starts once per process, so settings that need a start of
	 * their own are checked in child processes. */
	pid_t pid = fork();
	if (pid == 0) {
		/* An unknown eSpeak voice is an error with eSpeak's message. */
		int e = 0;
		char m[512];
		snprintf(v.espeak_voice, sizeof v.espeak_voice, "no-such-voice");
		ts_synth *bad = ts_synth_new(&v, 1.0, &e, m, sizeof m);
		_exit(bad == NULL && e == TS_ESPEAK && strstr(m, "no-such-voice") != NULL ? 0 : 1);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	int fd[2];
	CHECK(pipe(fd) == 0);
	pid = fork();
	if (pid == 0) {
		/* Faster speech (rate x1.6): its length, for the parent. */
		int e = 0;
		char m[512];
		ts_synth *fast = ts_synth_new(&v, 1.6, &e, m, sizeof m);
		ts_samples f = {0};
		size_t len = fast && ts_synth_speak(fast, "今天天气很好。", &f) == 0 ? f.len : 0;
		_exit(write(fd[1], &len, sizeof len) == sizeof len ? 0 : 1);
	}
	size_t fast_len = 0;
	CHECK(read(fd[0], &fast_len, sizeof fast_len) == sizeof fast_len);
	waitpid(pid, &st, 0);

	int err = 0;
	char msg[512];
	ts_synth *s = ts_synth_new(&v, 1.0, &err, msg, sizeof msg);
	if (!s) {
		fprintf(stderr, "cannot start eSpeak: %s\n", msg);
		return 1;
	}
	CHECK(ts_synth_rate(s) == 22050);
	CHECK(ts_synth_wpm(s) == v.rate);
	ts_synth *t = ts_synth_new(&v, 1.0, &err, msg, sizeof msg);
	CHECK(t == NULL && err == TS_EBUSY);

	ts_samples a = {0}, b = {0};
	CHECK(ts_synth_speak(s, "今天天气很好。", &a) == 0);
	CHECK(a.len > 22050 / 2 && a.len < 22050 * 6); /* 7 characters: about 2 s */
	CHECK(rms(&a) > 300);
	CHECK(fast_len > 0 && fast_len < a.len * 0.85);
	/* Latin words through the English voice make sound too. */
	CHECK(ts_synth_speak(s, "他喜欢N B A和iPhone。", &b) == 0);
	CHECK(b.len > 22050 && rms(&b) > 300);
	ts_synth_free(s);
	/* And it cannot be started again (eSpeak 1.51 would hang). */
	s = ts_synth_new(&v, 1.0, &err, msg, sizeof msg);
	CHECK(s == NULL && err == TS_EBUSY);
	ts_synth_free(NULL);

	ts_samples_free(&a);
	ts_samples_free(&b);
	return check_done("test_synth");
}
