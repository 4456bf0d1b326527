/* fuzz_readalong.c - libFuzzer target for the WebVTT reader, a chapter's
 * script for the read-along page and the page.  The input is read as a
 * timing file, its cues are written as a chapter's script (through the
 * timing files' writer, as a build does), and its first line also serves
 * as the book and chapter title.
 *
 * Properties beyond "no crash, no sanitizer report": cues come out sorted,
 * with end >= start and non-empty, valid UTF-8 text free of control
 * characters; the script is valid UTF-8, a line per cue between its
 * first two lines and its end, with no '<', '>', '&' or control character
 * in it; the page is valid UTF-8 and nothing in it opens or closes an
 * element the page does not make itself (one <style>, the page's script,
 * no comment).
 *
 * The page ends with the same script every time: it is checked in full
 * once, and after that compared byte for byte, the checks running over
 * the rest (they took most of the time).  The timing file goes to tmpfs
 * where there is one (a disk file rewritten is flushed at each close). */
#define _GNU_SOURCE
#include "publish/cues.h"
#include "publish/readalong.h"
#include "publish/webvtt.h"
#include "base/file.h"
#include "base/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/dev/shm/fuzz_readalong.XXXXXX";
static int have_dir;

static size_t count(const char *hay, size_t n, const char *needle)
{
	size_t k = 0, m = strlen(needle);
	for (const char *p = hay, *end = hay + n; (p = memmem(p, (size_t)(end - p), needle, m));
	     p++)
		k++;
	return k;
}

/* The page's own script, from "<script>\n" to its end, as first seen. */
static char *tail;
static size_t tail_len;

/* The part of page before the script, which must be tail (set from the
 * first page). */
static size_t page_head(const ts_buf *page)
{
	if (!tail) {
		const char *s = NULL;
		for (const char *p = page->data;
		     (p = memmem(p, page->len - (size_t)(p - page->data), "<script>\n", 9)); p++)
			s = p;
		if (!s || !(tail = ts_strndup(s, page->len - (size_t)(s - page->data))))
			abort();
		tail_len = page->len - (size_t)(s - page->data);
		if (ts_utf8_check(tail, tail_len, 1) != tail_len ||
		    count(tail, tail_len, "<script") != 1 ||
		    count(tail, tail_len, "</script") != 1 || count(tail, tail_len, "<style") ||
		    count(tail, tail_len, "</style") || count(tail, tail_len, "<!--") ||
		    count(tail, tail_len, "<a>"))
			abort();
	}
	if (page->len < tail_len || memcmp(page->data + page->len - tail_len, tail, tail_len) != 0)
		abort();
	return page->len - tail_len;
}

static void check_cues(const ts_cue *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(c[i].text);
		if (!(c[i].end >= c[i].start) || (i && c[i].start < c[i - 1].start) || len == 0 ||
		    ts_utf8_check(c[i].text, len, 1) != len)
			abort();
		for (size_t k = 0; k < len; k++)
			if ((unsigned char)c[i].text[k] < 0x20 || c[i].text[k] == 0x7F)
				abort();
	}
}

static uint64_t ms(double s)
{
	return s < 1e12 ? (uint64_t)(s * 1000) : (uint64_t)1e15;
}

/* The cues c[0..n) as a chapter's script, written and read back. */
static void check_script(const ts_cue *c, size_t n)
{
	char audio[sizeof dir + 16], path[sizeof dir + 16];
	snprintf(audio, sizeof audio, "%s/c.wav", dir);
	snprintf(path, sizeof path, "%s/c.js", dir);
	ts_cues *w = ts_cues_open(TS_CUES_PAGE, audio, 1000, 1, NULL);
	char *tmp = ts_temp_name(path, 1);
	if (!w || !tmp)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (c[i].paragraph)
			ts_cues_paragraph(w);
		if (ts_cues_speaker(w, c[i].speaker) ||
		    ts_cues_add(w, ms(c[i].start), ms(c[i].end), c[i].text, strlen(c[i].text)))
			abort();
	}
	if (ts_cues_finish(w, NULL) != 0)
		abort();
	FILE *f = fopen(tmp, "rb");
	ts_buf b = {0};
	char block[4096];
	size_t got, lines = 0;
	while (f && (got = fread(block, 1, sizeof block, f)) > 0)
		ts_buf_append(&b, block, got);
	if (!f || !b.data || ts_utf8_check(b.data, b.len, 1) != b.len)
		abort();
	fclose(f);
	unlink(tmp);
	for (size_t i = 0; i < b.len; i++) {
		unsigned char u = (unsigned char)b.data[i];
		lines += u == '\n';
		if ((u < 0x20 && u != '\n') || u == '<' || u == '>' || u == '&' || u == 0x7F)
			abort();
	}
	if (strncmp(b.data, "/* tingshu:", 11) != 0 || !strstr(b.data, "\ntingshuCues([") ||
	    b.len < 5 || strcmp(b.data + b.len - 5, "\n]);\n") != 0)
		abort();
	/* A line per cue at most (those left empty as one line are not
	 * written), and the comment, the call and its end. */
	if (lines < 3 || lines > n + 3)
		abort();
	free(tmp);
	ts_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!have_dir) {
		if (access("/dev/shm", W_OK) != 0)
			memcpy(dir, "/tmp/", 5), memmove(dir + 5, dir + 9, sizeof dir - 9);
		if (!mkdtemp(dir))
			abort();
		have_dir = 1;
	}
	ts_cue *cues;
	size_t n;
	int rc = ts_vtt_parse((const char *)data, size, &cues, &n);
	if (rc != 0 && rc != TS_EINVAL)
		abort();
	if (rc == 0)
		check_cues(cues, n);
	if (rc == 0)
		check_script(cues, n);
	ts_vtt_free(cues, rc == 0 ? n : 0);

	size_t tl = 0;
	while (tl < size && tl < 200 && data[tl] != '\n' && data[tl] != '\0')
		tl++;
	char *title = ts_strndup((const char *)data, tl);
	if (!title)
		abort();
	ts_chapter_entry ch = {.index = 1,
	                       .title = title,
	                       .audio = "001-<a>&\"'.wav",
	                       .timing = {[__builtin_ctz(TS_CUES_PAGE)] = "001-<a>&\"'.js"},
	                       .duration_s = 1};
	ts_buf page = {0};
	if (ts_readalong_html(&page, title, &ch, 1) != 0)
		abort();
	/* No script before the page's own. */
	size_t scripts = 0, head = page_head(&page);
	if (ts_utf8_check(page.data, head, 1) != head || strlen(page.data) != page.len ||
	    count(page.data, head, "<script") != scripts ||
	    count(page.data, head, "</script") != scripts ||
	    count(page.data, head, "<style") != 1 || count(page.data, head, "</style") != 1 ||
	    count(page.data, head, "<!--") != 0 || count(page.data, head, "<a>") != 0)
		abort();
	ts_buf_free(&page);
	free(title);
	return 0;
}
