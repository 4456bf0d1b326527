/* test_synth.c - the eSpeak NG boundary: SSML markup of Latin words, and
 * real synthesis (rate, not silent, speed setting, voice errors). */
#include "check.h"
#include "speech/frontend.h"
#include "zh/lang.h"
#include "speech/synth.h"
#include "base/util.h"

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

/* Zero crossings per sample: higher for a higher voice. */
static double zcr(const ts_samples *s)
{
	size_t z = 0;
	for (size_t i = 1; i < s->len; i++)
		z += (s->data[i - 1] < 0) != (s->data[i] < 0);
	return s->len ? (double)z / (double)s->len : 0;
}

static double rms(const ts_samples *s)
{
	double sum = 0;
	for (size_t i = 0; i < s->len; i++)
		sum += (double)s->data[i] * s->data[i];
	return s->len ? sqrt(sum / (double)s->len) : 0;
}

/* eSpeak's phonemes for text contain want (and not unwanted, if given). */
static void phonemes_have(ts_synth *s, const char *text, const char *want, const char *unwanted)
{
	ts_buf b = {0};
	CHECK(ts_synth_phonemes(s, text, &b) == 0);
	const char *got = b.data ? b.data : "";
	if (!strstr(got, want) || (unwanted && strstr(got, unwanted))) {
		fprintf(stderr, "eSpeak reads \"%s\" as \"%s\": want \"%s\"%s%s\n", text, got, want,
		        unwanted ? ", not " : "", unwanted ? unwanted : "");
		check_failures++;
	}
	ts_buf_free(&b);
}

typedef struct spoken {
	ts_buf text;
} spoken;

static int on_chunk(void *ud, const ts_chunk *c)
{
	spoken *sp = ud;
	return ts_buf_append(&sp->text, c->spoken ? c->spoken : c->text,
	                     c->spoken ? c->spoken_len : c->len);
}

int main(int argc, char **argv)
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
	/* Pinyin from the g2p stage stays with the main voice. */
	markup_is("yin2 hang2，hang2 zhang3。", "");
	markup_is("ta1 xi3 huan1 N B A。",
	          "<speak><voice name=\"cmn-latn-pinyin\">ta1 xi3 huan1 </voice><voice name=\"en\">"
	          "N B A</voice><voice name=\"cmn-latn-pinyin\">。</voice></speak>");
	markup_is(
	    "iPhone shou3 ji1",
	    "<speak><voice name=\"en\">iPhone</voice><voice name=\"cmn-latn-pinyin\"> shou3 ji1"
	    "</voice></speak>");
	markup_is("Hello world lv4", "<speak><voice name=\"en\">Hello world</voice><voice "
	                             "name=\"cmn-latn-pinyin\"> lv4</voice></speak>");
	/* Not pinyin: a capital, a digit after the tone, letters after it. */
	markup_is("Hang2", "<speak><voice name=\"en\">Hang</voice><voice name=\"cmn-latn-pinyin\">2"
	                   "</voice></speak>");
	markup_is("mp3x", "<speak><voice name=\"en\">mp</voice><voice name=\"cmn-latn-pinyin\">3"
	                  "</voice><voice name=\"en\">x</voice></speak>");

	ts_voice v;
	ts_voice_defaults(&v);

	/* eSpeak starts once per process, so settings that need a start of
	 * their own are checked in child processes. */
	pid_t pid = fork();
	if (pid == 0) {
		/* An unknown eSpeak voice is an error with eSpeak's message. */
		ts_error e = {0};
		snprintf(v.espeak_voice, sizeof v.espeak_voice, "no-such-voice");
		ts_synth *bad = ts_synth_new(&v, 1.0, &e);
		_exit(bad == NULL && e.code == TS_ESPEAK && strstr(e.msg, "no-such-voice") != NULL
		          ? 0
		          : 1);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	int fd[2];
	CHECK(pipe(fd) == 0);
	pid = fork();
	if (pid == 0) {
		/* Faster speech (rate x1.6): its length, for the parent. */
		ts_synth *fast = ts_synth_new(&v, 1.6, NULL);
		ts_samples f = {0};
		size_t len = fast && ts_synth_speak(fast, "今天天气很好。", &f) == 0 ? f.len : 0;
		_exit(write(fd[1], &len, sizeof len) == sizeof len ? 0 : 1);
	}
	size_t fast_len = 0;
	CHECK(read(fd[0], &fast_len, sizeof fast_len) == sizeof fast_len);
	waitpid(pid, &st, 0);

	ts_error err = {0};
	ts_synth *s = ts_synth_new(&v, 1.0, &err);
	if (!s) {
		fprintf(stderr, "cannot start eSpeak: %s\n", ts_error_msg(&err));
		return 1;
	}
	CHECK(ts_synth_rate(s) == 22050);
	CHECK(ts_synth_wpm(s) == v.rate);
	ts_synth *t = ts_synth_new(&v, 1.0, &err);
	CHECK(t == NULL && err.code == TS_EBUSY);

	ts_samples a = {0}, b = {0};
	CHECK(ts_synth_speak(s, "今天天气很好。", &a) == 0);
	CHECK(a.len > 22050 / 2 && a.len < 22050 * 6); /* 7 characters: about 2 s */
	CHECK(rms(&a) > 300);
	CHECK(fast_len > 0 && fast_len < a.len * 0.85);
	/* Latin words through the English voice make sound too. */
	CHECK(ts_synth_speak(s, "他喜欢N B A和iPhone。", &b) == 0);
	CHECK(b.len > 22050 && rms(&b) > 300);

	/* Another voice for a piece (dialogue in the speakers' voices), and
	 * back: the narrator's voice sounds as before the switch (not to the
	 * sample: eSpeak's output drifts by a few samples from one call to
	 * the next whatever the voice). */
	ts_voice f = v;
	snprintf(f.variant, sizeof f.variant, "f1");
	f.pitch = 62;
	f.rate = v.rate + 10;
	ts_samples c = {0}, d = {0};
	CHECK(ts_synth_use(s, &f, 1.0) == 0);
	CHECK(ts_synth_wpm(s) == f.rate);
	CHECK(ts_synth_speak(s, "今天天气很好。", &c) == 0);
	CHECK(rms(&c) > 300);
	CHECK(zcr(&c) > zcr(&a) * 1.08); /* f1 at pitch 62 is higher */
	CHECK(ts_synth_use(s, &v, 1.0) == 0);
	CHECK(ts_synth_wpm(s) == v.rate);
	CHECK(ts_synth_speak(s, "今天天气很好。", &d) == 0);
	CHECK(fabs(zcr(&d) - zcr(&a)) < zcr(&a) * 0.03);
	CHECK(d.len > a.len * 0.99 && d.len < a.len * 1.01);
	/* A voice eSpeak does not have: an error, and the voice before kept. */
	ts_voice bad = v;
	snprintf(bad.espeak_voice, sizeof bad.espeak_voice, "no-such-voice");
	CHECK(ts_synth_use(s, &bad, 1.0) == TS_ESPEAK);
	CHECK(strstr(ts_synth_errmsg(s), "no-such-voice") != NULL);
	CHECK(ts_synth_speak(s, "今天天气很好。", &d) == 0);
	CHECK(fabs(zcr(&d) - zcr(&a)) < zcr(&a) * 0.03);
	CHECK(d.len > a.len * 0.99 && d.len < a.len * 1.01);
	ts_samples_free(&c);
	ts_samples_free(&d);

	/* eSpeak says what the front end decided: its phonemes for the
	 * pinyin we send (automated listening).  Tones as contours: 55 first,
	 * 35 second, 214/21 third, 51 fourth. */
	phonemes_have(s, "yin2 hang2", "X'a35N", "S;'i35N");    /* 银行: hang, not xing */
	phonemes_have(s, "zhang3 da4", "ts.'a21N", "ts.h");     /* 长大: zhang, not chang */
	phonemes_have(s, "chong2 xin1", "ts.h'ong35", "ong51"); /* 重新 */
	phonemes_have(s, "huan2 qian2", "X'ua35n", "X'ai");     /* 还钱: huan, not hai */
	phonemes_have(s, "lv4 se4", "l'y51", NULL);             /* ü as v */
	/* 3-3 sandhi is eSpeak's: the first of two third tones rises. */
	phonemes_have(s, "ni3 hao3", "n'i35", "n'i214");
	phonemes_have(s, "ni3 hao3", "X'Au214", NULL);
	/* The whole front end: characters in, the decided pinyin out, and
	 * eSpeak reading exactly that. */
	if (argc > 1) {
		ts_lang *lang = ts_lang_load(argv[1], NULL);
		CHECK(lang != NULL);
		spoken sp = {0};
		ts_frontend *fe = lang ? ts_frontend_new(lang, on_chunk, NULL, &sp) : NULL;
		const char *line = "他去银行，长大以后重新还钱。";
		CHECK(fe && ts_frontend_feed(fe, line, strlen(line), 1) == 0);
		CHECK(sp.text.data && strstr(sp.text.data, "yin2 hang2") != NULL);
		if (sp.text.data) {
			phonemes_have(s, sp.text.data, "X'a35N", "S;'i35N");
			phonemes_have(s, sp.text.data, "ts.'a21N", NULL);
			phonemes_have(s, sp.text.data, "X'ua35n", "X'ai35");
		}
		ts_frontend_free(fe);
		ts_lang_free(lang);
		ts_buf_free(&sp.text);
	}
	ts_synth_free(s);
	/* And it cannot be started again (eSpeak 1.51 would hang). */
	s = ts_synth_new(&v, 1.0, &err);
	CHECK(s == NULL && err.code == TS_EBUSY);
	CHECK(ts_synth_new(&v, 1.0, NULL) == NULL);
	ts_synth_free(NULL);

	ts_samples_free(&a);
	ts_samples_free(&b);
	return check_done("test_synth");
}
