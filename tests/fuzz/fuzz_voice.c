/* fuzz_voice.c - libFuzzer target for the voice preset loader
 * (ts_voice_load), the input read as a NAME.voice file.
 *
 * Properties beyond "no crash, no sanitizer report": the load fails only
 * with TS_EVOICE, TS_ETOOLONG or TS_ENOMEM, its message naming the file
 * and an existing line; a preset that loads has every setting in its
 * range, NUL-terminated strings, an eSpeak voice that is set and not one
 * of those that read Chinese as English; and it loads the same twice. */
#include "fuzz_file.h"
#include "speech/voice.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int in(int x, int lo, int hi)
{
	return x >= lo && x <= hi;
}

#define TERMINATED(s) (memchr((s), '\0', sizeof(s)) != NULL)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int allowed[] = {TS_EVOICE, TS_ETOOLONG, TS_ENOMEM, 0};
	const char *path = fuzz_file(data, size);
	ts_voice v, again;
	ts_error err = {0};
	int rc = ts_voice_load(&v, path, &err);
	if (rc) {
		fuzz_check_error(&err, rc, path, fuzz_lines(data, size), allowed);
		return 0;
	}
	if (!in(v.rate, 80, 450) || !in(v.pitch, 0, 100) || !in(v.pitch_range, 0, 100) ||
	    !in(v.clause_pause_ms, 0, 10000) || !in(v.sentence_pause_ms, 0, 10000) ||
	    !in(v.paragraph_pause_ms, 0, 10000) || !in(v.title_pause_ms, 0, 10000) ||
	    !in(v.lead_in_ms, 0, 10000) || !in(v.tail_ms, 0, 10000))
		fuzz_fail("a setting out of its range");
	if (!TERMINATED(v.name) || !TERMINATED(v.description) || !TERMINATED(v.espeak_voice) ||
	    !TERMINATED(v.variant) || !TERMINATED(v.latin_voice) || !TERMINATED(v.language))
		fuzz_fail("a string not terminated");
	if (!v.espeak_voice[0] || strcmp(v.espeak_voice, "cmn") == 0 ||
	    strcmp(v.espeak_voice, "zh") == 0)
		fuzz_fail("no eSpeak voice, or one that reads Chinese as English");
	if (ts_voice_load(&again, path, &err) != 0 || memcmp(&v, &again, sizeof v) != 0)
		fuzz_fail("the preset loads differently the second time");
	return 0;
}
