/* fuzz_wordtab.c - libFuzzer target for the word tables of the language
 * data (ts_wordtab_load: measures.txt, units.tsv, dialogue_words.txt,
 * cast_pool.txt ...), the input read both as a list of words and as a
 * table of readings, the table then checked as the dialogue's words.
 *
 * Properties beyond "no crash, no sanitizer report": the load fails only
 * with TS_EINVAL, TS_ETOOLONG or TS_ENOMEM, its message naming the file
 * and an existing line; there are no more entries than lines; every
 * entry's text is non-empty valid UTF-8 without a TAB, its length in
 * characters and its first character right; its reading is valid UTF-8
 * without a TAB, and empty in a list of words; the dialogue's check
 * passes or fails with TS_EINVAL. */
#include "fuzz_file.h"
#include "zh/dialogue.h"
#include "zh/wordtab.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_words(const ts_wordtab *t, int said, size_t lines)
{
	size_t n;
	const ts_word *w = ts_wordtab_words(t, &n);
	if (n > lines)
		fuzz_fail("more entries than lines");
	for (size_t i = 0; i < n; i++) {
		size_t tl = strlen(w[i].text);
		uint32_t first = 0;
		if (tl == 0 || ts_utf8_check(w[i].text, tl, 1) != tl || memchr(w[i].text, '\t', tl))
			fuzz_fail("an entry's text is empty, not UTF-8 or holds a TAB");
		if (w[i].len != ts_utf8_count(w[i].text, tl))
			fuzz_fail("an entry's length is not its number of characters");
		if (ts_utf8_decode((const unsigned char *)w[i].text, tl, &first) <= 0 ||
		    first != w[i].first)
			fuzz_fail("an entry's first character is wrong");
		if (!w[i].said)
			fuzz_fail("an entry has no reading");
		size_t sl = strlen(w[i].said);
		if (ts_utf8_check(w[i].said, sl, 1) != sl || memchr(w[i].said, '\t', sl))
			fuzz_fail("a reading is not UTF-8 or holds a TAB");
		if (!said && sl != 0)
			fuzz_fail("an entry of a list of words has a reading");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int allowed[] = {TS_EINVAL, TS_ETOOLONG, TS_ENOMEM, 0};
	const char *path = fuzz_file(data, size);
	size_t lines = fuzz_lines(data, size);
	for (int said = 0; said <= 1; said++) {
		ts_error err = {0};
		ts_wordtab *t = ts_wordtab_load(path, said, &err);
		if (!t)
			fuzz_check_error(&err, err.code, path, lines, allowed);
		else
			check_words(t, said, lines);
		if (t && said) {
			int rc = ts_dialogue_check_words(t, path, &err);
			if (rc != 0 && rc != TS_EINVAL)
				fuzz_fail("the dialogue's check failed otherwise than TS_EINVAL");
		}
		ts_wordtab_free(t);
	}
	return 0;
}
