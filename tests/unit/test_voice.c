/* test_voice.c - voice presets: parsing, errors with file:line, lookup,
 * listing, and the shipped presets.
 * Usage: test_voice TEST_DATA_DIR SHIPPED_VOICES_DIR */
#include "check.h"
#include "base/util.h"
#include "speech/voice.h"

#include <math.h>

static int load_err(const char *dir, const char *name, const char *want)
{
	ts_voice v;
	ts_error err = {0};
	int rc = ts_voice_find(&v, dir, name, &err);
	if (rc == 0 || rc != err.code || !strstr(err.msg, want)) {
		fprintf(stderr, "voice %s: rc %d, message \"%s\", want \"%s\"\n", name, rc, err.msg,
		        want);
		check_failures++;
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_voice TEST_DATA_DIR SHIPPED_VOICES_DIR\n");
		return 2;
	}
	const char *dir = argv[1], *shipped = argv[2];
	ts_voice v;
	ts_error err = {0};

	CHECK(ts_voice_find(&v, dir, "good", &err) == 0);
	CHECK(strcmp(v.name, "good") == 0);
	CHECK(strcmp(v.description, "test voice") == 0);
	CHECK(strcmp(v.variant, "f2") == 0);
	CHECK(v.rate == 200);
	CHECK(v.sentence_pause_ms == 400);
	CHECK(v.paragraph_pause_ms == 700); /* default kept */

	CHECK(load_err(dir, "badvalue", "badvalue.voice:2: rate must be a whole number") ==
	      TS_EVOICE);
	CHECK(load_err(dir, "badkey", "badkey.voice:2: unknown setting \"speed\"") == TS_EVOICE);
	CHECK(load_err(dir, "noequals", "noequals.voice:2: expected") == TS_EVOICE);
	CHECK(load_err(dir, "range", "range.voice:2: pitch must be a whole number from 0 to 100") ==
	      TS_EVOICE);
	CHECK(load_err(dir, "loud", "loud.voice:2: loudness_lufs must be a number from -70 to 0") ==
	      TS_EVOICE);
	CHECK(isnan(v.loudness_lufs)); /* good.voice gives none */
	CHECK(load_err(dir, "cmnvoice", "use cmn-latn-pinyin") == TS_EVOICE);
	CHECK(load_err(dir, "nosuch", "unknown voice \"nosuch\"") == TS_EVOICE);
	CHECK(load_err(dir, "a b", "invalid voice name") == TS_EVOICE);

	/* A byte-order mark and CRLF line ends, as Windows editors write. */
	CHECK(ts_voice_find(&v, dir, "windows", &err) == 0);
	CHECK(strcmp(v.description, "crlf voice") == 0 && v.rate == 190);

	/* A path works as a name. */
	char path[1024];
	snprintf(path, sizeof path, "%s/good.voice", dir);
	CHECK(ts_voice_find(&v, dir, path, &err) == 0 && v.rate == 200);

	/* The shipped presets load and are listed. */
	char **names;
	int n = ts_voice_list(shipped, &names);
	CHECK(n >= 2);
	int have_cmn = 0, have_f = 0;
	for (int i = 0; i < n; i++) {
		have_cmn |= strcmp(names[i], "cmn") == 0;
		have_f |= strcmp(names[i], "cmn-f") == 0;
		ts_voice sv;
		if (ts_voice_find(&sv, shipped, names[i], &err) != 0) {
			fprintf(stderr, "shipped voice %s: %s\n", names[i], err.msg);
			check_failures++;
		}
		CHECK(strcmp(sv.espeak_voice, "cmn-latn-pinyin") == 0);
		/* --dialogue voices levels them by it (tools/voice-loudness.sh) */
		CHECK(sv.loudness_lufs >= -25 && sv.loudness_lufs <= -12);
		free(names[i]);
	}
	free(names);
	CHECK(have_cmn && have_f);
	CHECK(ts_voice_find(&v, shipped, "cmn", &err) == 0 && v.variant[0] == '\0');
	CHECK(ts_voice_find(&v, shipped, "cmn-f", &err) == 0 && v.variant[0] != '\0');

	/* The built-in defaults match the shipped cmn preset. */
	ts_voice d;
	ts_voice_defaults(&d);
	CHECK(ts_voice_find(&v, shipped, "cmn", &err) == 0);
	CHECK(d.rate == v.rate && d.sentence_pause_ms == v.sentence_pause_ms &&
	      d.paragraph_pause_ms == v.paragraph_pause_ms && d.title_pause_ms == v.title_pause_ms);

	/* The cache: each preset read once, the same answer every time. */
	ts_voice_cache *vc = ts_voice_cache_new(shipped);
	CHECK(vc != NULL);
	const ts_voice *f1 = ts_voice_cache_get(vc, "cmn-f1", &err);
	const ts_voice *m1 = ts_voice_cache_get(vc, "cmn-m1", &err);
	CHECK(f1 && m1 && f1 != m1 && f1->pitch > m1->pitch);
	CHECK(ts_voice_cache_get(vc, "cmn-f1", &err) == f1);
	for (int i = 0; i < 2; i++) {
		err.code = 0;
		CHECK(ts_voice_cache_get(vc, "no-such-preset", &err) == NULL && err.code != 0 &&
		      strstr(err.msg, "no-such-preset") != NULL);
	}
	CHECK(ts_voice_cache_get(vc, "cmn-f1", &err) == f1 && strcmp(f1->variant, "f1") == 0);
	ts_voice_cache_free(vc);
	ts_voice_cache_free(NULL);
	return check_done("test_voice");
}
