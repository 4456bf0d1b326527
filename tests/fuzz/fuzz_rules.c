/* fuzz_rules.c - libFuzzer target for the polyphone rules loader
 * (ts_rules_load, voices/zh/polyphones.txt), against the project's
 * lexicon.bin.
 *
 * Properties beyond "no crash, no sanitizer report": the load fails only
 * with TS_EINVAL, TS_ETOOLONG or TS_ENOMEM, its message naming the file
 * and an existing line; there are no more rules than lines; and the rules
 * applied to every Han character of the input's own text, cut into words
 * in two ways (each character a word; runs of up to four), give no
 * reading or one the lexicon knows, from an existing line. */
#include "fuzz_file.h"
#include "zh/rules.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ts_lexicon *lx;

static void apply_all(const ts_rules *r, const uint32_t *cp, size_t n, size_t *wbeg, size_t *wend,
                      size_t word_len, size_t lines)
{
	for (size_t i = 0; i < n; i++) {
		wbeg[i] = i - i % word_len;
		wend[i] = wbeg[i] + word_len < n ? wbeg[i] + word_len : n;
	}
	ts_sentence ctx = {.cp = cp, .n = n, .wbeg = wbeg, .wend = wend};
	for (size_t i = 0; i < n; i++) {
		if (!ts_is_han(cp[i]))
			continue;
		int line = 0, syl = ts_rules_apply(r, &ctx, i, &line);
		size_t len = 0;
		if (syl == -1)
			continue;
		if (syl < 0 || !ts_lexicon_syllable(lx, (unsigned)syl, &len) || len == 0)
			fuzz_fail("a rule gives a syllable the lexicon does not have");
		if (line < 1 || (size_t)line > lines)
			fuzz_fail("a rule names a line the file does not have");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int allowed[] = {TS_EINVAL, TS_ETOOLONG, TS_ENOMEM, 0};
	ts_error err = {0};
	if (!lx && !(lx = ts_lexicon_open(TS_FUZZ_LANG_DIR "/lexicon.bin", &err))) {
		fprintf(stderr, "fuzz_rules: %s\n", ts_error_msg(&err));
		abort();
	}
	const char *path = fuzz_file(data, size);
	size_t lines = fuzz_lines(data, size);
	ts_rules *r = ts_rules_load(path, lx, &err);
	if (!r) {
		fuzz_check_error(&err, err.code, path, lines, allowed);
		return 0;
	}
	if (ts_rules_count(r) > lines)
		fuzz_fail("more rules than lines");
	uint32_t *cp = malloc((size + 1) * sizeof *cp);
	size_t *wbeg = malloc((size + 1) * sizeof *wbeg);
	size_t *wend = malloc((size + 1) * sizeof *wend);
	if (!cp || !wbeg || !wend)
		abort();
	size_t n = 0;
	for (size_t i = 0; i < size;) {
		int len = ts_utf8_decode(data + i, size - i, &cp[n]);
		if (len <= 0) {
			i++;
			continue;
		}
		n++;
		i += (size_t)len;
	}
	apply_all(r, cp, n, wbeg, wend, 1, lines);
	apply_all(r, cp, n, wbeg, wend, 4, lines);
	free(cp);
	free(wbeg);
	free(wend);
	ts_rules_free(r);
	return 0;
}
