/* test_g2pm.c - the g2pM polyphone model in C: its logits against the
 * numpy reference forward pass (a golden file written by
 * tools/build-g2pm.py --golden), its accuracy alone on the CPP
 * development split (near the published 97.31% on the test split), and
 * refusing damaged files.
 *
 * Usage: test_g2pm G2PM_BIN LEXICON_BIN GOLDEN CPP_DIR SCRATCH_DIR */
#include "check.h"
#include "zh/g2pm.h"
#include "zh/lexicon.h"
#include "base/util.h"

#include <math.h>
#include <stdint.h>
#include <sys/stat.h>

#define MAX_CHARS 4096

/* The code points of s[0..len) into cp (at most MAX_CHARS); their count. */
static size_t decode(const char *s, size_t len, uint32_t *cp)
{
	size_t n = 0;
	for (size_t i = 0; i < len && n < MAX_CHARS;) {
		int k = ts_utf8_decode((const unsigned char *)s + i, len - i, &cp[n]);
		if (k <= 0)
			k = 1, cp[n] = 0xFFFD;
		n++;
		i += (size_t)k;
	}
	return n;
}

/* Each golden line: sentence, target, CLASS:LOGIT ...; the C logits
 * within 1e-4 of numpy's. */
static void check_golden_logits(const ts_g2pm *m, const char *path)
{
	size_t size;
	char *text = read_file(path, &size);
	CHECK(text != NULL);
	if (!text)
		return;
	ts_g2pm_run *r = ts_g2pm_run_new(m);
	static uint32_t cp[MAX_CHARS];
	int lines = 0, values = 0;
	double worst = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		char *tab = strchr(line, '\t');
		CHECK(tab != NULL);
		if (!tab)
			break;
		size_t n = decode(line, (size_t)(tab - line), cp);
		char *rest;
		long t = strtol(tab + 1, &rest, 10);
		CHECK(t >= 0 && (size_t)t < n);
		CHECK(ts_g2pm_encode(r, cp, n) == 0);
		for (char *p = rest; *p == '\t' || *p == ' ';) {
			char *colon = strchr(++p, ':');
			if (!colon)
				break;
			int k = ts_g2pm_find_class(m, p, (size_t)(colon - p));
			double want = strtod(colon + 1, &p);
			CHECK(k >= 0);
			float got = 0;
			if (k >= 0)
				ts_g2pm_score(r, (size_t)t, &k, 1, &got);
			if (fabs(got - want) > worst)
				worst = fabs(got - want);
			values++;
		}
		lines++;
	}
	printf("golden: %d targets, %d logits, largest difference %.2g\n", lines, values, worst);
	CHECK(lines >= 15 && values == 8 * lines);
	CHECK(worst < 1e-4);
	ts_g2pm_run_free(r);
	free(text);
}

/* The model's choice for character t of cp[0..n): among the readings both
 * the lexicon and the model give the character, or among all classes
 * when there are none.  Its class. */
static int choose(const ts_g2pm *m, ts_g2pm_run *r, const ts_lexicon *lx, const uint32_t *cp,
                  size_t n, size_t t)
{
	int cls[8], mcls[TS_G2PM_MAX_READINGS];
	float logit[8];
	size_t k = 0;
	int ch = ts_lexicon_char(lx, cp[t]);
	unsigned mk = ts_g2pm_readings(m, cp[t], mcls);
	for (unsigned j = 0; ch >= 0 && j < ts_lexicon_nreadings(lx, ch); j++) {
		size_t len;
		const char *s = ts_lexicon_syllable(lx, ts_lexicon_reading(lx, ch, j), &len);
		int c = ts_g2pm_find_class(m, s, len);
		for (unsigned q = 0; q < mk; q++)
			if (c >= 0 && c == mcls[q])
				cls[k++] = c;
	}
	if (ts_g2pm_encode(r, cp, n) != 0)
		return -1;
	int best = -1;
	float best_logit = -INFINITY;
	for (unsigned c = 0; k == 0 && c < ts_g2pm_nclass(m); c++) {
		int ci = (int)c;
		ts_g2pm_score(r, t, &ci, 1, logit);
		if (logit[0] > best_logit)
			best_logit = logit[0], best = ci;
	}
	if (k)
		ts_g2pm_score(r, t, cls, k, logit);
	for (size_t j = 0; j < k; j++)
		if (logit[j] > best_logit)
			best_logit = logit[j], best = cls[j];
	return best;
}

/* Accuracy of the model alone on CPP's dev split. */
static void check_cpp_dev(const ts_g2pm *m, const ts_lexicon *lx, const char *dir)
{
	char path[1024];
	size_t ns, nl;
	snprintf(path, sizeof path, "%s/dev.sent", dir);
	char *sents = read_file(path, &ns);
	snprintf(path, sizeof path, "%s/dev.lb", dir);
	char *labels = read_file(path, &nl);
	CHECK(sents && labels);
	if (!sents || !labels)
		goto out;
	ts_g2pm_run *r = ts_g2pm_run_new(m);
	static uint32_t cp[MAX_CHARS];
	int total = 0, right = 0;
	char *sp = sents, *lp = labels;
	const char mark[] = "\xe2\x96\x81"; /* ▁ around the target */
	for (;;) {
		char *se = strchr(sp, '\n'), *le = strchr(lp, '\n');
		if (!se || !le)
			break;
		*se = *le = '\0';
		char *a = strstr(sp, mark), *b = a ? strstr(a + 3, mark) : NULL;
		CHECK(a && b);
		if (!a || !b)
			break;
		/* the sentence without the marks */
		memmove(b, b + 3, strlen(b + 3) + 1);
		memmove(a, a + 3, strlen(a + 3) + 1);
		size_t t = decode(sp, (size_t)(a - sp), cp);
		size_t n = decode(sp, strlen(sp), cp);
		char want[16];
		size_t w = 0;
		for (const char *p = lp; *p && w < sizeof want - 1; p++)
			if (*p != ':')
				want[w++] = *p == 'u' && p[1] == ':' ? 'v' : *p;
		want[w] = '\0';
		int c = choose(m, r, lx, cp, n, t);
		size_t len = 0;
		const char *got = c >= 0 ? ts_g2pm_class(m, (unsigned)c, &len) : "";
		right += len == w && memcmp(got, want, w) == 0;
		total++;
		sp = se + 1;
		lp = le + 1;
	}
	double acc = total ? 100.0 * right / total : 0;
	printf("CPP dev, the model alone: %d of %d right, %.2f%%\n", right, total, acc);
	CHECK(total == 9893);
	CHECK(acc >= 97.0);
	ts_g2pm_run_free(r);
out:
	free(sents);
	free(labels);
}

/* A copy of the model, damaged by fn, must be refused with a message
 * naming the file. */
static void expect_refused(const char *bin, size_t size, const char *scratch, const char *name,
                           size_t cut, size_t at, const void *bytes, size_t nbytes, int want)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", scratch, name);
	char *copy = malloc(size);
	memcpy(copy, bin, size);
	if (bytes)
		memcpy(copy + at, bytes, nbytes);
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(copy, 1, cut, f) == cut);
	if (f)
		fclose(f);
	ts_error e = {0};
	ts_g2pm *m = ts_g2pm_open(path, &e);
	CHECK(m == NULL);
	CHECK(e.code == want);
	CHECK(strstr(e.msg, path) != NULL);
	if (m || e.code != want)
		fprintf(stderr, "%s: %d %s\n", name, e.code, e.msg);
	ts_g2pm_free(m);
	free(copy);
}

static void check_damaged(const char *model, const char *scratch)
{
	size_t size;
	char *bin = read_file(model, &size);
	CHECK(bin && size > 100000);
	if (!bin)
		return;
	float nan = NAN;
	uint32_t big = 1u << 30;
	expect_refused(bin, size, scratch, "empty.bin", 0, 0, NULL, 0, TS_EINVAL);
	expect_refused(bin, size, scratch, "half.bin", size / 2, 0, NULL, 0, TS_EINVAL);
	expect_refused(bin, size, scratch, "short.bin", size - 4, 0, NULL, 0, TS_EINVAL);
	expect_refused(bin, size, scratch, "magic.bin", size, 0, "TSLEX", 5, TS_EINVAL);
	expect_refused(bin, size, scratch, "vocab.bin", size, 20, &big, 4, TS_EINVAL);
	expect_refused(bin, size, scratch, "nan.bin", size, size - 8, &nan, 4, TS_EINVAL);
	expect_refused(bin, size, scratch, "chars.bin", size, 72, &big, 4, TS_EINVAL);
	expect_refused(bin, size, scratch, "poly.bin", size, 56, &big, 4, TS_EINVAL);
	ts_error e = {0};
	CHECK(ts_g2pm_open(scratch, &e) == NULL && e.code == TS_EIO);
	CHECK(strstr(e.msg, "not a regular file") != NULL);
	char missing[1024];
	snprintf(missing, sizeof missing, "%s/missing.bin", scratch);
	CHECK(ts_g2pm_open(missing, &e) == NULL && e.code == TS_ENOENT);
	free(bin);
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: test_g2pm G2PM_BIN LEXICON_BIN GOLDEN CPP_DIR SCRATCH\n");
		return 2;
	}
	ts_error e = {0};
	ts_g2pm *m = ts_g2pm_open(argv[1], &e);
	ts_lexicon *lx = ts_lexicon_open(argv[2], &e);
	if (!m || !lx) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	CHECK(ts_g2pm_nclass(m) == 876);
	CHECK(ts_g2pm_find_class(m, "lv4", 3) >= 0);
	CHECK(ts_g2pm_find_class(m, "lu:4", 4) < 0);
	CHECK(ts_g2pm_find_class(m, "", 0) < 0 && ts_g2pm_find_class(m, "zzzz9", 5) < 0);
	/* Every class is found by its name (the first of that name). */
	for (unsigned k = 0; k < ts_g2pm_nclass(m); k++) {
		size_t len;
		const char *name = ts_g2pm_class(m, k, &len);
		int found = ts_g2pm_find_class(m, name, len);
		CHECK(found >= 0 && found <= (int)k);
		size_t flen;
		const char *fname = ts_g2pm_class(m, (unsigned)found, &flen);
		CHECK(flen == len && memcmp(fname, name, len) == 0);
		CHECK(len == 0 || ts_g2pm_find_class(m, name, len - 1) != (int)k);
	}
	int cls[TS_G2PM_MAX_READINGS];
	CHECK(ts_g2pm_readings(m, 0x957F, cls) == 2); /* 长 */
	CHECK(ts_g2pm_readings(m, 0x4ED6, cls) == 0); /* 他: one reading */
	mkdir(argv[5], 0777);
	check_golden_logits(m, argv[3]);
	check_cpp_dev(m, lx, argv[4]);
	check_damaged(argv[1], argv[5]);
	ts_g2pm_free(m);
	ts_lexicon_free(lx);
	return check_done("test_g2pm");
}
