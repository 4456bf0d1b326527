/* test_output.c - the output folder's book files: file-name slugs (publish/slug),
 * JSON strings, the manifest with the whole-book kinds' table
 * (publish/manifest, publish/bookkinds) and the playlist (publish/playlist). */
#include "check.h"
#include "publish/manifest.h"
#include "publish/playlist.h"
#include "publish/slug.h"
#include "base/util.h"

static void slug_is(const char *title, const char *want)
{
	char out[TS_SLUG_MAX + 1];
	ts_slug(title, out);
	if (strcmp(out, want) != 0) {
		fprintf(stderr, "slug(\"%s\") = \"%s\", want \"%s\"\n", title, out, want);
		check_failures++;
	}
}

int main(void)
{
	slug_is("第一回 宴桃园豪杰三结义", "第一回_宴桃园豪杰三结义");
	slug_is("第一章　开端", "第一章_开端");
	slug_is("  第二章  风起  ", "第二章_风起");
	slug_is("../../etc/passwd", "etcpasswd");
	slug_is("..", "chapter");
	slug_is("", "chapter");
	slug_is("a/b\\c:d*e?f\"g<h>i|j", "abcdefghij");
	slug_is("tab\there\nnew\x01line", "tab_here_newline");
	slug_is(".hidden", "hidden");
	slug_is("end...", "end");
	slug_is("zero\xe2\x80\x8bwidth", "zerowidth"); /* U+200B */
	slug_is("bad\xff"
	        "utf8",
	        "badutf8");

	/* Long titles are cut at a character boundary within the limit. */
	char longt[1024] = "";
	for (int i = 0; i < 60; i++)
		strcat(longt, "长");
	char out[TS_SLUG_MAX + 1];
	ts_slug(longt, out);
	CHECK(strlen(out) <= TS_SLUG_MAX);
	CHECK(strlen(out) % 3 == 0);
	CHECK(ts_utf8_check(out, strlen(out), 1) == strlen(out));

	ts_buf b = {0};
	ts_json_string(&b, "a\"b\\c\nd\x01");
	CHECK(strcmp(b.data, "\"a\\\"b\\\\c\\nd\\u0001\"") == 0);
	ts_buf_clear(&b);

	ts_voice v;
	ts_voice_defaults(&v);
	ts_build_settings set = {
	    .voice = &v, .wpm = 175, .rate_factor = 1, .sample_rate = 22050, .format = "wav"};
	ts_chapter_entry ch[2] = {
	    {.index = 0,
	     .title = "书\"名",
	     .source = "b.txt",
	     .audio = "000-书名.wav",
	     .duration_s = 1.5,
	     .sentences = 1,
	     .chars = 2,
	     .front_matter = 1},
	    {.index = 1,
	     .title = "第一章",
	     .source = "b.txt",
	     .audio = "001-第一章.wav",
	     .timing = {"001-第一章.srt", NULL, NULL, "001-第一章.json"},
	     .duration_s = 10.25,
	     .sentences = 3,
	     .chars = 30},
	};
	CHECK(ts_manifest(&b, "书名", &set, ch, 2) == 0);
	CHECK(strstr(b.data, "\"title\": \"书\\\"名\"") != NULL);
	CHECK(strstr(b.data, "\"duration_s\": 11.750") != NULL);
	CHECK(strstr(b.data, "\"audio\": \"001-第一章.wav\"") != NULL);
	/* Only the timing files written, by format. */
	CHECK(strstr(b.data, "\"timing\": {\"srt\": \"001-第一章.srt\", \"json\": "
	                     "\"001-第一章.json\"}") != NULL);
	CHECK(strstr(b.data, "\"timing\": {}") != NULL);
	CHECK(strstr(b.data, "\"sample_rate\": 22050") != NULL);
	/* No whole-book file: an empty list; then the files by their kinds'
	 * rows, named as the table names them. */
	CHECK(strstr(b.data, "\"book_files\": {},") != NULL);
	ts_buf_clear(&b);
	int epub = -1;
	for (int k = 0; k < TS_BOOK_KINDS; k++) {
		const ts_book_kind *kind = &ts_book_kinds[k];
		CHECK(kind->name && kind->ext && kind->what && kind->state && kind->make);
		for (int j = 0; j < k; j++)
			CHECK(strcmp(ts_book_kinds[j].name, kind->name) != 0);
		if (strcmp(kind->name, "epub") == 0)
			epub = k;
	}
	CHECK(epub >= 0 && ts_book_kinds[epub].needs_vtt);
	if (epub >= 0)
		set.book_files[epub] = "书名.epub";
	CHECK(ts_manifest(&b, "书名", &set, ch, 2) == 0);
	CHECK(strstr(b.data, "\"book_files\": {\n    \"epub\": \"书名.epub\"\n  },") != NULL);
	ts_buf_clear(&b);
	CHECK(ts_playlist(&b, "书名", ch, 2) == 0);
	CHECK(strcmp(b.data, "#EXTM3U\n#PLAYLIST:书名\n#EXTINF:2,书\"名\n000-书名.wav\n"
	                     "#EXTINF:10,第一章\n001-第一章.wav\n") == 0);
	ts_buf_free(&b);
	return check_done("test_output");
}
