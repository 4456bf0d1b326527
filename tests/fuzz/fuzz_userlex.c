/* fuzz_userlex.c - libFuzzer target for the plain-text lexicon loader
 * (ts_userlex_load: --lexicon FILE, lexicon.txt, names.txt), with the
 * project's lexicon.bin folding traditional characters.
 *
 * Properties beyond "no crash, no sanitizer report": the load fails only
 * with TS_ETOOLONG or TS_ENOMEM, its message naming the file and an
 * existing line; every warning names the file and an existing line and
 * says the line is skipped; there are no more entries than lines; and a
 * lookup at every place of the input's own text finds words of at most
 * TS_USERLEX_MAX_WORD characters, within the text, each with one
 * syllable a character in canonical form (1 to 6 letters a-z, ü as v,
 * then a tone digit 1-5). */
#include "fuzz_file.h"
#include "zh/userlex.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ts_lexicon *lx;

typedef struct warned {
	const char *path;
	size_t lines;
} warned;

static void on_diag(void *ud, ts_level level, const char *msg)
{
	const warned *w = ud;
	size_t pl = strlen(w->path), ml = strlen(msg);
	static const char tail[] = "; line skipped";
	if (level != TS_WARNING || strncmp(msg, w->path, pl) != 0 || msg[pl] != ':')
		fuzz_fail("a diagnostic is not a warning naming the file");
	/* Past the first bad lines, one warning counts the rest. */
	if (strncmp(msg + pl + 1, " and ", 5) == 0 && strstr(msg, " more bad lines skipped"))
		return;
	long line = strtol(msg + pl + 1, NULL, 10);
	if (line < 1 || (size_t)line > w->lines || ml < sizeof tail ||
	    strcmp(msg + ml - (sizeof tail - 1), tail) != 0)
		fuzz_fail("a warning names no existing line, or does not say it is skipped");
}

static void check_syllable(const char *s)
{
	size_t n = strlen(s);
	if (n < 2 || n > 7 || s[n - 1] < '1' || s[n - 1] > '5')
		fuzz_fail("a syllable without a tone digit, or of a wrong length");
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] < 'a' || s[i] > 'z')
			fuzz_fail("a syllable with a character other than a-z before its tone");
}

/* The input's characters, folded as the g2p stage folds them before a
 * lookup; invalid bytes are skipped. */
static size_t folded_text(const uint8_t *data, size_t size, uint32_t *cp)
{
	size_t n = 0;
	for (size_t i = 0; i < size;) {
		uint32_t c;
		int len = ts_utf8_decode(data + i, size - i, &c);
		if (len <= 0) {
			i++;
			continue;
		}
		int ch = ts_lexicon_char(lx, c);
		cp[n++] = ch >= 0 ? ts_lexicon_cp(lx, ts_lexicon_key(lx, ch)) : c;
		i += (size_t)len;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int allowed[] = {TS_ETOOLONG, TS_ENOMEM, 0};
	ts_error err = {0};
	if (!lx && !(lx = ts_lexicon_open(TS_FUZZ_LANG_DIR "/lexicon.bin", &err))) {
		fprintf(stderr, "fuzz_userlex: %s\n", ts_error_msg(&err));
		abort();
	}
	const char *path = fuzz_file(data, size);
	warned w = {path, fuzz_lines(data, size)};
	ts_userlex *u = ts_userlex_new(lx);
	if (!u)
		abort();
	int rc = ts_userlex_load(u, path, on_diag, &w, &err);
	if (rc) {
		fuzz_check_error(&err, rc, path, w.lines, allowed);
	} else {
		if (ts_userlex_count(u) > w.lines)
			fuzz_fail("more entries than lines");
		uint32_t *cp = malloc((size + 1) * sizeof *cp);
		if (!cp)
			abort();
		size_t n = folded_text(data, size, cp);
		for (size_t i = 0; i < n; i++) {
			size_t e, len = ts_userlex_match(u, cp + i, n - i, &e);
			if (len > n - i || len > TS_USERLEX_MAX_WORD)
				fuzz_fail("a match longer than the text or than a word may be");
			for (size_t k = 0; k < len; k++)
				check_syllable(ts_userlex_syllable(u, e, k));
		}
		free(cp);
	}
	ts_userlex_free(u);
	return 0;
}
