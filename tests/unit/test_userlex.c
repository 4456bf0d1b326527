/* test_userlex.c - user lexicons: parsing, warnings with file:line,
 * longest match, later files win, the shipped names lexicon.
 * Usage: test_userlex DATA_DIR NAMES_TXT */
#include "check.h"
#include "userlex.h"
#include "util.h"

static void on_diag(void *ud, int level, const char *msg)
{
	ts_buf_printf(ud, "%d %s\n", level, msg);
}

static void match_is(const ts_userlex *u, const char *text, const char *want_word, const char *want)
{
	const char *syl = NULL;
	size_t n = ts_userlex_match(u, text, strlen(text), &syl);
	int ok = want ? n == strlen(want_word) && strcmp(syl, want) == 0 : n == 0;
	if (!ok) {
		fprintf(stderr, "match \"%s\": got %zu bytes \"%s\", want \"%s\" \"%s\"\n", text, n,
		        n ? syl : "", want_word ? want_word : "", want ? want : "");
		check_failures++;
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_userlex DATA_DIR NAMES_TXT\n");
		return 2;
	}
	char a[1024], b[1024];
	snprintf(a, sizeof a, "%s/a.txt", argv[1]);
	snprintf(b, sizeof b, "%s/b.txt", argv[1]);
	ts_buf diags = {0};
	ts_userlex *u = ts_userlex_new();
	CHECK(ts_userlex_load(u, a, on_diag, &diags) == 0);
	CHECK(ts_userlex_count(u) == 7);
	/* Every bad line is a warning with file:line. */
	CHECK(strstr(diags.data, "a.txt:8: expected \"word<TAB>pin1 yin1\"; skipped") != NULL);
	CHECK(strstr(diags.data, "a.txt:9: more syllables than characters; skipped") != NULL);
	CHECK(strstr(diags.data, "a.txt:10: fewer syllables than characters; skipped") != NULL);
	CHECK(strstr(diags.data, "a.txt:11: the word must be Chinese characters only") != NULL);
	CHECK(strstr(diags.data, "a.txt:12: a syllable ends with its tone") != NULL);
	CHECK(strncmp(diags.data, "0 ", 2) == 0); /* warnings, not errors */

	match_is(u, "洪承疇說", "洪承疇", "hong2 cheng2 chou2");
	match_is(u, "银行家", "银行", "yin2 hang2");
	match_is(u, "行走", "行", "xing2");
	match_is(u, "女人", "女", "nv3");
	match_is(u, "绿色", "绿", "lv4");
	match_is(u, "走", NULL, NULL);
	match_is(u, "a银行", NULL, NULL);
	match_is(u, "", NULL, NULL);

	/* A later file wins for the same word; longest match still first. */
	CHECK(ts_userlex_load(u, b, on_diag, &diags) == 0);
	match_is(u, "银行", "银行", "yin2 xing2");
	match_is(u, "行长说", "行长", "hang2 zhang3");
	match_is(u, "行走", "行", "xing2");

	/* A missing file is an error naming it. */
	ts_buf_clear(&diags);
	CHECK(ts_userlex_load(u, "/nonexistent/lexicon.txt", on_diag, &diags) == TS_ENOENT);
	CHECK(strstr(diags.data, "1 /nonexistent/lexicon.txt: cannot open") != NULL);
	ts_userlex_free(u);
	ts_userlex_free(NULL);

	/* The names lexicon the voice ships loads without a warning. */
	ts_buf_clear(&diags);
	u = ts_userlex_new();
	CHECK(ts_userlex_load(u, argv[2], on_diag, &diags) == 0);
	CHECK(diags.len == 0);
	CHECK(ts_userlex_count(u) >= 30);
	match_is(u, "洪承畴叹了一口气", "洪承畴", "hong2 cheng2 chou2");
	match_is(u, "濟爾哈朗", "濟爾哈朗", "ji4 er3 ha1 lang3");
	ts_userlex_free(u);
	ts_buf_free(&diags);
	return check_done("test_userlex");
}
