/* test_g2p.c - pinyin of Chinese text: lexicon words, context rules,
 * 一/不 sandhi, neutral tones, traditional text, and what eSpeak is given.
 *
 * Usage: test_g2p LANG_DIR DATA_DIR SCRATCH_DIR CASE...  Each line of
 * DATA_DIR/CASE.txt is converted; CASE.ok holds "input<TAB>tokens<TAB>
 * text for eSpeak" a line.  Also checked: the stages can be turned off,
 * --explain's format, the model's second opinion, and broken rule files
 * are refused with file:line. */
#include "check.h"
#include "zh/g2p.h"
#include "zh/lang.h"
#include "zh/rules.h"
#include "base/util.h"

static void convert(ts_g2p *g, const char *s, ts_buf *spoken, ts_buf *tokens)
{
	ts_buf_clear(spoken);
	ts_buf_clear(tokens);
	CHECK(ts_g2p_convert(g, s, strlen(s), spoken, tokens) == 0);
}

static void tokens_are(ts_g2p *g, const char *s, const char *want)
{
	ts_buf sp = {0}, tk = {0};
	convert(g, s, &sp, &tk);
	const char *got = tk.data ? tk.data : "";
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "\"%s\"\n  got:  %s\n  want: %s\n", s, got, want);
		check_failures++;
	}
	ts_buf_free(&sp);
	ts_buf_free(&tk);
}

static void run_case(ts_g2p *g, const char *dir, const char *name)
{
	char golden[1024];
	size_t n;
	char *text = read_case(dir, name, golden, sizeof golden, &n);
	if (!text)
		return;
	ts_buf out = {0}, sp = {0}, tk = {0};
	for (char *line = text, *nl; line < text + n; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = text + n;
		*nl = '\0';
		convert(g, line, &sp, &tk);
		ts_buf_printf(&out, "%s\t%s\t%s\n", line, tk.data ? tk.data : "",
		              sp.data ? sp.data : "");
	}
	check_golden(golden, out.data ? out.data : "", out.len);
	ts_buf_free(&out);
	ts_buf_free(&sp);
	ts_buf_free(&tk);
	free(text);
}

static void collect_warning(void *ud, ts_level level, const char *m)
{
	ts_buf *b = ud;
	ts_buf_printf(b, "%s%s\n", level == TS_WARNING ? "" : "not a warning: ", m);
}

/* A file of 2 entries and 1000 bad lines: 20 warnings with file:line,
 * then one that counts the other 980; the entries are kept. */
static void many_bad_lines(const ts_lexicon *lx, const char *scratch)
{
	char path[1024], want[1100];
	snprintf(path, sizeof path, "%s/many-bad-lines.txt", scratch);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("银行\tyin2 xing2\n", f);
	for (int i = 0; i < 1000; i++)
		fprintf(f, "bad line %d\n", i);
	fputs("长大\tzhang3 da4\n", f);
	fclose(f);
	ts_userlex *u = ts_userlex_new(lx);
	ts_buf warns = {0};
	ts_error err = {0};
	CHECK(ts_userlex_load(u, path, collect_warning, &warns, &err) == 0);
	CHECK(ts_userlex_count(u) == 2);
	size_t lines = 0;
	for (size_t i = 0; i < warns.len; i++)
		lines += warns.data[i] == '\n';
	CHECK(lines == 21);
	snprintf(want, sizeof want, "%s:21: ", path);
	CHECK(warns.data && strstr(warns.data, want));
	snprintf(want, sizeof want, "%s:22: ", path);
	CHECK(warns.data && !strstr(warns.data, want));
	snprintf(want, sizeof want, "%s: and 980 more bad lines skipped\n", path);
	CHECK(warns.data && strstr(warns.data, want));
	ts_buf_free(&warns);
	ts_userlex_free(u);
}

/* A rules file with one bad line is refused, naming the file and line. */
/* Name cues of an unknown kind are an error naming the word; the voice's
 * are all of known kinds. */
static void bad_cues(const ts_lang *lang, const char *scratch)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/bad-cues.txt", scratch);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("姓\tbefore\n先生\ttitel\n", f);
		fclose(f);
	}
	ts_error err = {0};
	ts_wordtab *t = ts_wordtab_load(path, 1, &err);
	CHECK(t != NULL);
	CHECK(ts_surnames_check_cues(t, path, &err) == TS_EINVAL);
	CHECK(strstr(err.msg, "先生: unknown kind 'titel'") != NULL);
	CHECK(ts_surnames_check_cues(ts_lang_words(lang, TS_WORDS_NAME_CUES), "x", &err) == 0);
	ts_wordtab_free(t);
}

static void bad_rules(const ts_lexicon *lx, const char *scratch, const char *body, int line)
{
	char path[1024], want[1100];
	snprintf(path, sizeof path, "%s/bad-rules.txt", scratch);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(body, f);
	fclose(f);
	ts_error err = {0};
	ts_rules *r = ts_rules_load(path, lx, &err);
	snprintf(want, sizeof want, "%s:%d:", path, line);
	if (r || err.code != TS_EINVAL || strstr(err.msg, want) == NULL) {
		fprintf(stderr, "rules \"%s\": got %s (%s), want an error at %s\n", body,
		        r ? "rules" : "no rules", err.msg, want);
		check_failures++;
	}
	ts_rules_free(r);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: test_g2p LANG_DIR DATA_DIR SCRATCH_DIR CASE...\n");
		return 2;
	}
	ts_error err = {0};
	ts_lang *lang = ts_lang_load(argv[1], &err);
	if (!lang || !ts_lang_lexicon(lang) || !ts_lang_rules(lang)) {
		fprintf(stderr, "%s: %s\n", argv[1],
		        lang ? "no lexicon or rules" : ts_error_msg(&err));
		return 1;
	}
	const ts_lexicon *lx = ts_lang_lexicon(lang);
	ts_g2p *g = ts_g2p_new(lx, ts_lang_rules(lang), ts_lang_userlex(lang));
	CHECK(g != NULL);
	CHECK(ts_g2p_set_surnames(g, ts_lang_surnames(lang),
	                          ts_lang_words(lang, TS_WORDS_NAME_CUES)) == 0);

	for (int i = 4; i < argc; i++)
		run_case(g, argv[2], argv[i]);

	/* The stages, each on its own: without words, 银行 is read a character
	 * at a time; without rules, a lone 都 takes the reading its words
	 * favour; without sandhi, 不 keeps its lexical tone. */
	ts_g2p_set_stages(g, 0);
	tokens_are(g, "银行", "yin2 xing2");
	ts_g2p_set_stages(g, TS_G2P_WORDS);
	tokens_are(g, "银行", "yin2 hang2");
	tokens_are(g, "不是", "bu4 shi4");
	ts_g2p_set_stages(g, TS_G2P_WORDS | TS_G2P_RULES);
	tokens_are(g, "我们都去", "wo3 men5 dou1 qu4");
	tokens_are(g, "不是", "bu4 shi4");
	ts_g2p_set_stages(g, TS_G2P_ALL);
	tokens_are(g, "不是", "bu2 shi4");
	/* Non-Han characters make no token; an empty text none at all. */
	tokens_are(g, "abc 123，。", "");
	tokens_are(g, "", "");
	/* Tokens continue a line already started, after a space. */
	ts_buf sp = {0}, tk = {0};
	ts_buf_append(&tk, "ni3", 3);
	CHECK(ts_g2p_convert(g, "好", 3, &sp, &tk) == 0);
	CHECK(strcmp(tk.data, "ni3 hao3") == 0);
	/* Explain: CHAR=SYLLABLE/HOW. */
	ts_buf_clear(&tk);
	ts_g2p_set_explain(g, 1);
	CHECK(ts_g2p_convert(g, "银行都不", strlen("银行都不"), NULL, &tk) == 0);
	CHECK(strncmp(tk.data, "银=yin2/银行 行=hang2/银行 都=dou1/rule:", 40) == 0);
	CHECK(strstr(tk.data, " 不=bu4/default") != NULL);
	/* A surname starting a name says so; without the rules stage it is
	 * not looked for. */
	ts_buf_clear(&tk);
	CHECK(ts_g2p_convert(g, "单先生说", strlen("单先生说"), NULL, &tk) == 0);
	CHECK(strncmp(tk.data, "单=shan4/surname ", 17) == 0);
	ts_g2p_set_explain(g, 0);
	ts_g2p_set_stages(g, TS_G2P_WORDS);
	tokens_are(g, "单先生", "dan1 xian1 sheng5");
	ts_g2p_set_stages(g, TS_G2P_ALL);
	tokens_are(g, "单先生", "shan4 xian1 sheng5");
	/* No surnames set: none is found. */
	CHECK(ts_g2p_set_surnames(g, NULL, NULL) == 0);
	tokens_are(g, "单田芳说", "dan1 tian2 fang1 shuo1");
	CHECK(ts_g2p_set_surnames(g, ts_lang_surnames(lang),
	                          ts_lang_words(lang, TS_WORDS_NAME_CUES)) == 0);
	tokens_are(g, "单田芳说", "shan4 tian2 fang1 shuo1");
	ts_g2p_set_explain(g, 1);
	/* The model's second opinion: in a transliterated name no word or rule
	 * decides 柏, and the model reads bo2 where the default is bai3; the
	 * stages without it keep the default.  Characters of the skip list,
	 * and 一 and 不, are never asked about. */
	const ts_g2p_model *model = ts_lang_g2p_model(lang);
	CHECK(model != NULL);
	CHECK(ts_g2p_set_model(g, model) == 0);
	ts_buf_clear(&tk);
	CHECK(ts_g2p_convert(g, "苏丹伊斯迈柏特拉", strlen("苏丹伊斯迈柏特拉"), NULL, &tk) == 0);
	CHECK(strstr(tk.data, " 柏=bo2/model+") != NULL && strstr(tk.data, "(default=bai3)"));
	CHECK(strchr(tk.data, ' ') && !strstr(tk.data, "  "));
	ts_g2p_set_stages(g, TS_G2P_ALL & ~TS_G2P_MODEL);
	ts_buf_clear(&tk);
	CHECK(ts_g2p_convert(g, "苏丹伊斯迈柏特拉", strlen("苏丹伊斯迈柏特拉"), NULL, &tk) == 0);
	CHECK(strstr(tk.data, " 柏=bai3/default") != NULL);
	ts_g2p_set_stages(g, TS_G2P_ALL);
	ts_buf_clear(&tk);
	const char *common = "我的书看了一半，不想还给他。";
	CHECK(ts_g2p_convert(g, common, strlen(common), NULL, &tk) == 0);
	CHECK(strstr(tk.data, "model") == NULL);
	ts_g2p_set_explain(g, 0);
	tokens_are(g, "苏丹伊斯迈柏特拉", "su1 dan1 yi1 si1 mai4 bo2 te4 la1");
	CHECK(ts_g2p_set_model(g, NULL) == 0);
	tokens_are(g, "苏丹伊斯迈柏特拉", "su1 dan1 yi1 si1 mai4 bai3 te4 la1");
	/* Text that is not valid UTF-8 is passed through, byte by byte. */
	ts_buf_clear(&sp);
	ts_buf_clear(&tk);
	CHECK(ts_g2p_convert(g, "\xff好\xfe", 5, &sp, &tk) == 0);
	CHECK(strcmp(tk.data, "hao3") == 0 && sp.len == 6);
	ts_buf_free(&sp);
	ts_buf_free(&tk);

	/* Broken rule files. */
	bad_cues(lang, argv[3]);
	bad_rules(lx, argv[3], "都\tdou1\n长\n", 2);
	bad_rules(lx, argv[3], "# comment\n\n都\tdou9\n", 3);
	bad_rules(lx, argv[3], "都\tdou1\tbefore=成\n", 1);
	bad_rules(lx, argv[3], "都\tdou1\tprev=\n", 1);
	bad_rules(lx, argv[3], "都\tdou1\tprev=成||首\n", 1);
	bad_rules(lx, argv[3], "ab\tdou1\n", 1);
	bad_rules(lx, argv[3], "都\tdou1\tprevlen>=x\n", 1);
	/* A good one, with every kind of condition. */
	char path[1024];
	snprintf(path, sizeof path, "%s/good-rules.txt", argv[3]);
	FILE *f = fopen(path, "w");
	fputs(
	    "# test\n都\tdu1\tprev=成|首 !next=$\n都\tdou1\talone prevlen>=1\n都\tdu1\tprevlen=0\n",
	    f);
	fclose(f);
	ts_rules *r = ts_rules_load(path, lx, &err);
	CHECK(r != NULL && ts_rules_count(r) == 3);
	ts_g2p *g2 = ts_g2p_new(lx, r, NULL);
	ts_g2p_set_stages(g2, TS_G2P_RULES);
	tokens_are(g2, "成都市", "cheng2 du1 shi4");
	tokens_are(g2, "成都", "cheng2 dou1");
	tokens_are(g2, "都", "du1");
	ts_g2p_free(g2);
	ts_rules_free(r);

	/* A user's lexicon overrides everything, in both scripts; the last
	 * entry for a word wins, the longer of two that start together. */
	ts_userlex *u = ts_userlex_new(lx);
	const char *why;
	CHECK(ts_userlex_add(u, "银行", strlen("银行"), "yin2 xing2", 10, &why) == 0);
	CHECK(ts_userlex_add(u, "长大", strlen("长大"), "chang2 da4", 10, &why) == 0);
	CHECK(ts_userlex_add(u, "长大", strlen("长大"), "Zhang3  Da4", 11, &why) == 0);
	CHECK(ts_userlex_add(u, "一个", strlen("一个"), "yi1 ge4", 7, &why) == 0);
	CHECK(ts_userlex_add(u, "绿色", strlen("绿色"), "lü4 se4", 8, &why) == 0);
	CHECK(ts_userlex_add(u, "女人", strlen("女人"), "nu:3 ren2", 9, &why) == 0);
	CHECK(ts_userlex_add(u, "中华人民", strlen("中华人民"), "zhong1 hua2 ren2 min2", 21,
	                     &why) == 0);
	CHECK(ts_userlex_add(u, "中华", strlen("中华"), "zhong4 hua4", 11, &why) == 0);
	CHECK(ts_userlex_add(u, "事", strlen("事"), "shi4", 4, &why) == 0);
	/* Bad entries: not Han, a syllable short or too many, no tone. */
	CHECK(ts_userlex_add(u, "abc", 3, "a1 b1 c1", 8, &why) == TS_EINVAL && *why);
	CHECK(ts_userlex_add(u, "银行", strlen("银行"), "yin2", 4, &why) == TS_EINVAL && *why);
	CHECK(ts_userlex_add(u, "银行", strlen("银行"), "yin2 hang2 x1", 13, &why) == TS_EINVAL);
	CHECK(ts_userlex_add(u, "银行", strlen("银行"), "yin hang", 8, &why) == TS_EINVAL);
	CHECK(ts_userlex_add(u, "银行", strlen("银行"), "yin2 hang7", 10, &why) == TS_EINVAL);
	CHECK(ts_userlex_count(u) == 9);
	ts_g2p *gu = ts_g2p_new(lx, ts_lang_rules(lang), u);
	tokens_are(gu, "银行长大了", "yin2 xing2 zhang3 da4 le5");
	tokens_are(gu, "銀行長大了", "yin2 xing2 zhang3 da4 le5");
	tokens_are(gu, "一个不一个", "yi1 ge4 bu4 yi1 ge4");
	tokens_are(gu, "不事", "bu2 shi4"); /* sandhi sees the user's tone */
	tokens_are(gu, "绿色女人", "lv4 se4 nv3 ren2");
	tokens_are(gu, "中华人民共和国", "zhong1 hua2 ren2 min2 gong4 he2 guo2");
	tokens_are(gu, "中华", "zhong4 hua4");
	ts_g2p_free(gu);
	/* A file: bad lines are warned about with file:line and skipped. */
	snprintf(path, sizeof path, "%s/user-lexicon.txt", argv[3]);
	f = fopen(path, "w");
	fputs("\xEF\xBB\xBF# my names\n\n洪承畴\thong2 cheng2 chou2\n坏行\n坏\thuai4 huai4\n"
	      "  银行 \t yin2  xing2  # spaces\nabc\ta1 b1 c1\n",
	      f);
	fclose(f);
	ts_userlex *u2 = ts_userlex_new(lx);
	ts_buf warns = {0};
	CHECK(ts_userlex_load(u2, path, collect_warning, &warns, &err) == 0);
	CHECK(ts_userlex_count(u2) == 2);
	char want[1100];
	snprintf(want, sizeof want, "%s:4: ", path);
	CHECK(warns.data && strstr(warns.data, want));
	snprintf(want, sizeof want, "%s:5: ", path);
	CHECK(warns.data && strstr(warns.data, want));
	snprintf(want, sizeof want, "%s:7: ", path);
	CHECK(warns.data && strstr(warns.data, want));
	snprintf(want, sizeof want, "%s:3: ", path);
	CHECK(warns.data && !strstr(warns.data, want));
	CHECK(warns.data && !strstr(warns.data, "not a warning"));
	ts_buf_free(&warns);
	many_bad_lines(lx, argv[3]);
	snprintf(path, sizeof path, "%s/no-such-lexicon.txt", argv[3]);
	CHECK(ts_userlex_load(u2, path, collect_warning, &warns, &err) == TS_ENOENT);
	CHECK(err.code == TS_ENOENT && strstr(err.msg, path));
	/* A line no lexicon has (over 4096 bytes) is an error naming the
	 * file and line, not a warning: the file is not a lexicon. */
	snprintf(path, sizeof path, "%s/long-lexicon.txt", argv[3]);
	f = fopen(path, "w");
	fputs("银行\tyin2 xing2\n", f);
	for (int i = 0; i < 4097; i++)
		fputc('x', f);
	fputs("\n", f);
	fclose(f);
	CHECK(ts_userlex_load(u2, path, collect_warning, &warns, &err) == TS_ETOOLONG);
	snprintf(want, sizeof want, "%s:2: line too long", path);
	CHECK(err.code == TS_ETOOLONG && strstr(err.msg, want));
	ts_userlex_free(u2);
	ts_userlex_free(u);
	ts_userlex_free(NULL);

	ts_g2p_free(g);
	ts_g2p_free(NULL);
	ts_lang_free(lang);
	if (check_failures)
		return 1;
	printf("test_g2p: all checks passed\n");
	return 0;
}
