/* test_cues.c - sentence timing files.
 *
 * Usage: test_cues DATA_DIR SCRATCH_DIR.  One chapter's cues are written in
 * every format into SCRATCH_DIR and compared with DATA_DIR/basic.FORMAT.ok;
 * also checked: the list parser, file names, rounding (start down, end up,
 * never before the previous end), text made safe for each format,
 * temporary names that ts_temp_sweep removes, abort and failures that
 * leave nothing behind. */
#include "check.h"
#include "publish/cues.h"
#include "base/util.h"
#include "audio/write.h"
#include "base/file.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#define RATE 22050

static void parse_is(const char *list, int rc, unsigned mask)
{
	unsigned got = 0xFFFF;
	int r = ts_cues_parse(list, &got);
	if (r != rc || (rc == 0 && got != mask)) {
		fprintf(stderr, "parse \"%s\": rc %d mask %u, want rc %d mask %u\n", list, r, got,
		        rc, mask);
		check_failures++;
	}
}

static void path_is(const char *audio, int i, const char *want)
{
	char *p = ts_cues_path(audio, i);
	if (!p || strcmp(p, want) != 0) {
		fprintf(stderr, "path(%s, %d) = %s, want %s\n", audio, i, p ? p : "(null)", want);
		check_failures++;
	}
	free(p);
}

/* Files in dir whose names start with '.' (temporary ones). */
static int count_hidden(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 &&
		    strcmp(e->d_name, "..") != 0)
			n++;
	if (d)
		closedir(d);
	return n;
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* ts_cues_finish(), then the files of audio put in place together (as a
 * build does with the audio and the record). */
static int finish_and_put(ts_cues *c, const char *audio, unsigned mask, ts_error *err)
{
	if (ts_cues_finish(c, err))
		return -1;
	char *tmp[TS_CUES_NFORMATS], *path[TS_CUES_NFORMATS];
	size_t n = 0;
	for (int i = 0; i < TS_CUES_NFORMATS; i++)
		if (mask & (1u << i)) {
			path[n] = ts_cues_path(audio, i);
			tmp[n] = ts_temp_name(path[n], 4242);
			CHECK(exists(tmp[n]) && !exists(path[n])); /* not in place before */
			n++;
		}
	int rc = ts_commit_files(NULL, tmp, path, n, 4242, err);
	for (size_t i = 0; i < n; i++) {
		free(tmp[i]);
		free(path[i]);
	}
	return rc;
}

/* Every format, the read-along page's script too. */
#define ALL ((1u << TS_CUES_NFORMATS) - 1)

static uint64_t at(double seconds)
{
	return (uint64_t)(seconds * RATE + 0.5);
}

static void check_files(const char *data, const char *dir)
{
	char audio[1200], path[1300], golden[1300];
	snprintf(audio, sizeof audio, "%s/001-第一回.wav", dir);
	ts_error err = {0};
	ts_cues *c = ts_cues_open(ALL, audio, RATE, 4242, &err);
	CHECK(c != NULL);
	if (!c) {
		fprintf(stderr, "%s\n", ts_error_msg(&err));
		return;
	}
	CHECK(count_hidden(dir) == TS_CUES_NFORMATS); /* .001-第一回.srt.part-4242@HOST ... */
	snprintf(path, sizeof path, "%s/001-第一回.srt", dir);
	char *tmp = ts_temp_name(path, 4242);
	CHECK(tmp && strstr(tmp, "/.001-第一回.srt.part-4242@") && exists(tmp));
	free(tmp);

	/* The title, from 0.3 s: 6615 samples is 300 ms exactly, 34146 is
	 * 1548.57 ms, rounded up. */
	ts_cues_paragraph(c); /* marked in WebVTT and JSON */
	CHECK(ts_cues_add(c, 6615, 34146, "第一回 宴桃园豪杰三结义",
	                  strlen("第一回 宴桃园豪杰三结义")) == 0);
	/* Starts 5 samples after the title ends, within the same
	 * millisecond: it starts where the title ends, never before. */
	const char *s = "他说：“2024年3月5日，<b>A & B</b> --> C。”";
	CHECK(ts_cues_add(c, 34151, at(4.0), s, strlen(s)) == 0);
	/* Nothing to show: no cue, in any format; a paragraph mark waits
	 * for the next cue shown. */
	ts_cues_paragraph(c);
	CHECK(ts_cues_add(c, at(4.5), at(5.0), " \t ", 3) == 0);
	CHECK(ts_cues_add(c, at(4.5), at(5.0), "", 0) == 0);
	/* Lines and separators become spaces; quotes and backslashes are
	 * JSON-escaped. */
	s = "一行\n二行\r\n三\t\"引号\" \\ 反斜杠\xe2\x80\xa8完";
	CHECK(ts_cues_add(c, at(5.25), at(7.125), s, strlen(s)) == 0);
	/* Past an hour (and LRC minutes past 59), and a cue with no length. */
	CHECK(ts_cues_add(c, at(3725.5), at(3727.25), "一个小时以后。", strlen("一个小时以后。")) ==
	      0);
	CHECK(ts_cues_add(c, at(3727.25), at(3727.25), "……", strlen("……")) == 0);
	CHECK(ts_cues_end(c) == 0);
	snprintf(path, sizeof path, "%s/001-第一回.srt", dir);
	CHECK(!exists(path)); /* not in place before commit */
	CHECK(finish_and_put(c, audio, ALL, &err) == 0);
	CHECK(count_hidden(dir) == 0);

	for (int i = 0; i < TS_CUES_NFORMATS; i++) {
		snprintf(path, sizeof path, "%s/001-第一回.%s", dir, ts_cues_name(i));
		snprintf(golden, sizeof golden, "%s/basic.%s.ok", data, ts_cues_name(i));
		size_t n;
		char *got = read_file(path, &n);
		CHECK(got != NULL);
		if (got)
			check_golden(golden, got, n);
		free(got);
		unlink(path);
	}
}

/* No cue at all: each file is still valid. */
static void check_empty(const char *dir)
{
	static const char *const want[TS_CUES_NFORMATS] = {
	    "", "WEBVTT\n\n", "", "[]\n",
	    "/* tingshu: a chapter's sentences for the read-along page, index.html */\n"
	    "tingshuCues([\n]);\n"};
	char audio[1200], path[1300];
	snprintf(audio, sizeof audio, "%s/002-x.flac", dir);
	ts_cues *c = ts_cues_open(ALL, audio, RATE, 4242, NULL);
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK(finish_and_put(c, audio, ALL, NULL) == 0);
	for (int i = 0; i < TS_CUES_NFORMATS; i++) {
		snprintf(path, sizeof path, "%s/002-x.%s", dir, ts_cues_name(i));
		size_t n;
		char *got = read_file(path, &n);
		CHECK(got && n == strlen(want[i]) && memcmp(got, want[i], n) == 0);
		free(got);
		unlink(path);
	}
}

/* Abort, an interrupted build's sweep, and a folder that cannot be
 * written leave nothing behind. */
static void check_cleanup(const char *dir)
{
	char audio[1200], path[1300];
	snprintf(audio, sizeof audio, "%s/003-y.wav", dir);
	ts_error err = {0};
	ts_cues *c = ts_cues_open(TS_CUES_SRT | TS_CUES_JSON, audio, RATE, 4242, &err);
	CHECK(c != NULL);
	CHECK(count_hidden(dir) == 2);
	CHECK(ts_cues_add(c, 0, 100, "一", 3) == 0);
	ts_cues_abort(c);
	ts_cues_abort(NULL);
	CHECK(count_hidden(dir) == 0);

	c = ts_cues_open(TS_CUES_VTT, audio, RATE, 4343, &err);
	CHECK(c != NULL);
	CHECK(count_hidden(dir) == 1);
	ts_temp_sweep(NULL, dir, 4343); /* what the parent does after an interrupt */
	CHECK(count_hidden(dir) == 0);
	ts_cues_abort(c);

	snprintf(audio, sizeof audio, "%s/no-such-folder/003-y.wav", dir);
	c = ts_cues_open(TS_CUES_SRT | TS_CUES_VTT, audio, RATE, 4242, &err);
	CHECK(c == NULL);
	CHECK(err.code == TS_EIO);
	CHECK(strstr(err.msg, "no-such-folder/003-y.srt: cannot write") != NULL);
	/* Without an error value: the same failure, only the NULL. */
	CHECK(ts_cues_open(TS_CUES_SRT, audio, RATE, 4242, NULL) == NULL);
	snprintf(path, sizeof path, "%s/no-such-folder", dir);
	CHECK(!exists(path));
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_cues DATA_DIR SCRATCH_DIR\n");
		return 2;
	}
	parse_is("srt,vtt", 0, TS_CUES_SRT | TS_CUES_VTT);
	parse_is("json", 0, TS_CUES_JSON);
	parse_is("srt, VTT ,lrc,json", 0, 0xF);
	parse_is("srt,srt", 0, TS_CUES_SRT);
	parse_is("none", 0, 0);
	parse_is("", TS_EINVAL, 0);
	parse_is("srt,", TS_EINVAL, 0);
	parse_is("x", TS_EINVAL, 0);
	parse_is("srt,none", TS_EINVAL, 0);
	parse_is("ass", TS_EINVAL, 0);
	parse_is("js", TS_EINVAL, 0); /* the page's, not a --timing choice */
	CHECK(strcmp(ts_cues_name(0), "srt") == 0);
	CHECK(ts_cues_name(TS_CUES_NFORMATS) == NULL);

	path_is("out/001-第一回.wav", 0, "out/001-第一回.srt");
	path_is("001-第一回.flac", 3, "001-第一回.json");
	path_is("a.b/001-v1.2.mp3", 1, "a.b/001-v1.2.vtt");
	path_is("dir.x/noext", 2, "dir.x/noext.lrc");

	char dir[1024];
	if (snprintf(dir, sizeof dir, "%s/cues-test", argv[2]) >= (int)sizeof dir)
		return 2;
	mkdir(dir, 0777);
	CHECK(count_hidden(dir) == 0);
	check_files(argv[1], dir);
	check_empty(dir);
	check_cleanup(dir);
	rmdir(dir);
	return check_done("test_cues");
}
