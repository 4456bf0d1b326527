/* test_normalize_suite.c - the normalization suite: how many written forms
 * of numbers and symbols the normalizer reads as a narrator would.
 *
 * Usage: test_normalize_suite LANG_DIR SUITE_DIR FLOOR CATEGORY...  Each
 * line of SUITE_DIR/CATEGORY.tsv is "input<TAB>reading[<TAB>reading...]":
 * every reading a careful narrator may give (where two are common, both).
 * Lines starting with "# " and blank lines are skipped.  A case passes
 * when the whole line, normalized, is one of its readings, spaces (pauses,
 * not words) ignored on both sides.  Prints the score of each category
 * and the cases missed; fails when the total score is below FLOOR
 * percent, or when a line normalized in pieces reads otherwise than whole
 * (the normalizer's promise, checked by test_normalize for its goldens). */
#include "check.h"
#include "normalize_pieces.h"
#include "zh/lang.h"
#include "zh/normalize.h"
#include "base/util.h"

/* s without ASCII spaces, in place. */
static void drop_spaces(char *s)
{
	char *w = s;
	for (; *s; s++)
		if (*s != ' ')
			*w++ = *s;
	*w = '\0';
}

/* Does the case in line (its fields split in place) pass? */
static int run_case(const ts_lang *lang, char *line)
{
	char *input = line, *readings = strchr(line, '\t');
	if (!readings) {
		fprintf(stderr, "a case with no reading: %s\n", line);
		check_failures++;
		return 0;
	}
	*readings++ = '\0';
	ts_buf got = {0};
	normalize(lang, input, strlen(input), 0, &got);
	char *said = ts_strndup(got.data ? got.data : "", got.len);
	drop_spaces(said);
	char *want = ts_strndup(readings, strlen(readings)); /* for the report */
	int pass = 0;
	for (char *r = readings, *tab; r && !pass; r = tab ? tab + 1 : NULL) {
		tab = strchr(r, '\t');
		if (tab)
			*tab = '\0';
		drop_spaces(r);
		pass = strcmp(r, said) == 0;
	}
	static const size_t steps[] = {1, 3};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		ts_buf piece = {0};
		normalize(lang, input, strlen(input), steps[i], &piece);
		if (piece.len != got.len || memcmp(piece.data, got.data, got.len) != 0) {
			fprintf(stderr, "\"%s\" in pieces of %zu gives \"%s\", whole \"%s\"\n",
			        input, steps[i], piece.data ? piece.data : "",
			        got.data ? got.data : "");
			check_failures++;
		}
		ts_buf_free(&piece);
	}
	if (!pass)
		fprintf(stderr, "  miss: %s -> %s (want %s)\n", input, got.data ? got.data : "",
		        want);
	free(want);
	free(said);
	ts_buf_free(&got);
	return pass;
}

/* Run one category; adds its cases and passes to *cases and *passed. */
static void run_category(const ts_lang *lang, const char *dir, const char *name, size_t *cases,
                         size_t *passed)
{
	char path[1024];
	size_t n, total = 0, ok = 0;
	snprintf(path, sizeof path, "%s/%s.tsv", dir, name);
	char *text = read_file(path, &n);
	if (!text) {
		fprintf(stderr, "cannot read %s\n", path);
		check_failures++;
		return;
	}
	for (char *line = text, *nl; line < text + n; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = text + n;
		*nl = '\0';
		if (!*line || (line[0] == '#' && (line[1] == ' ' || !line[1])))
			continue;
		total++;
		ok += (size_t)run_case(lang, line);
	}
	printf("%-16s %4zu/%-4zu %6.1f%%\n", name, ok, total, total ? 100.0 * ok / total : 0.0);
	*cases += total;
	*passed += ok;
	free(text);
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr,
		        "usage: test_normalize_suite LANG_DIR SUITE_DIR FLOOR CATEGORY...\n");
		return 2;
	}
	ts_error err = {0};
	ts_lang *lang = ts_lang_load(argv[1], &err);
	if (!lang) {
		fprintf(stderr, "%s\n", ts_error_msg(&err));
		return 1;
	}
	double floor = atof(argv[3]);
	size_t cases = 0, passed = 0;
	for (int i = 4; i < argc; i++)
		run_category(lang, argv[2], argv[i], &cases, &passed);
	double score = cases ? 100.0 * passed / cases : 0.0;
	printf("%-16s %4zu/%-4zu %6.1f%%  (floor %.1f%%)\n", "total", passed, cases, score, floor);
	if (cases < 400 || score < floor) {
		fprintf(stderr,
		        "suite: %zu cases, %.1f%%: below the floor of %.1f%% or 400 cases\n", cases,
		        score, floor);
		check_failures++;
	}
	ts_lang_free(lang);
	return check_done("test_normalize_suite");
}
