/* test_write.c - the audio writers: every format decodes to the length
 * written, carries its tags, honours --quality and writes the same bytes
 * every time; the Ogg serial rewrite leaves valid pages; the ID3 repair.
 *
 * Usage: test_write SCRATCH_DIR */
#include "check.h"
#include "audio/fixup.h"
#include "base/util.h"
#include "audio/write.h"

#include <math.h>
#include <sndfile.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *scratch;

static void path_of(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", scratch, name);
}

/* Something like speech: bursts of a gliding tone with pauses, seconds
 * long at rate; the caller frees it. */
static int16_t *make_audio(int rate, double seconds, size_t *n)
{
	*n = (size_t)(seconds * rate);
	int16_t *s = malloc(*n * sizeof *s);
	double phase = 0;
	uint32_t noise = 1;
	for (size_t i = 0; i < *n; i++) {
		double t = (double)i / rate;
		double burst = fmod(t, 0.7) < 0.5 ? sin(M_PI * fmod(t, 0.7) / 0.5) : 0;
		phase += 2 * M_PI * (180 + 60 * sin(2 * M_PI * 0.8 * t)) / rate;
		noise = noise * 1103515245u + 12345u;
		double breath = ((double)(noise >> 16 & 0x7fff) / 0x7fff - 0.5) * 0.2;
		s[i] = (int16_t)(9000 * burst * (sin(phase) + 0.3 * sin(3 * phase) + breath));
	}
	return s;
}

static const ts_audio_meta meta_zh = {.title = "第三回 宴桃园豪杰三结义",
                                      .artist = "罗贯中",
                                      .album = "三国演义",
                                      .track = 3,
                                      .tracks = 12};

/* Write s[0..n) at rate in format name to dir-less file name; returns
 * what ts_writer_commit() returned (or the open error). */
static int write_file(const char *fmt_name, const char *name, const int16_t *s, size_t n, int rate,
                      int quality, const ts_audio_meta *meta)
{
	char path[1024];
	ts_error err = {0};
	path_of(path, sizeof path, name);
	const ts_format *fmt = ts_format_find(fmt_name);
	CHECK(fmt != NULL);
	if (!fmt)
		return TS_EINVAL;
	ts_writer_opts o = {.rate = rate,
	                    .expect_frames = n,
	                    .quality = quality,
	                    .meta = meta,
	                    .owner_pid = (long)getpid()};
	int rc = 0;
	ts_writer *w = ts_writer_open(fmt, path, &o, &err);
	if (!w) {
		fprintf(stderr, "%s: open: %s\n", name, ts_error_msg(&err));
		return err.code;
	}
	/* In uneven pieces, as the finisher hands them over. */
	for (size_t i = 0, k = 1000; i < n; i += k, k = k * 7 % 5003 + 100)
		if ((rc = ts_writer_write(w, s + i, i + k > n ? n - i : k))) {
			fprintf(stderr, "%s: write: %s\n", name, ts_writer_errmsg(w));
			ts_writer_abort(w);
			return rc;
		}
	rc = ts_writer_commit(w, &err);
	if (rc)
		fprintf(stderr, "%s: commit: %s\n", name, ts_error_msg(&err));
	return rc;
}

/* Frames decoded from the file, or -1; the tags into the buffers. */
typedef struct decoded {
	long frames;
	int rate;
	int format;
	char title[256], artist[256], album[256], track[64];
} decoded;

static long decode(const char *name, decoded *d)
{
	char path[1024];
	path_of(path, sizeof path, name);
	memset(d, 0, sizeof *d);
	SF_INFO info = {0};
	SNDFILE *sf = sf_open(path, SFM_READ, &info);
	if (!sf) {
		fprintf(stderr, "%s: cannot decode: %s\n", name, sf_strerror(NULL));
		return d->frames = -1;
	}
	short buf[4096];
	sf_count_t k;
	while ((k = sf_readf_short(sf, buf, 4096)) > 0)
		d->frames += (long)k;
	if (sf_error(sf))
		d->frames = -1;
	d->rate = info.samplerate;
	d->format = info.format;
	const char *v;
	if ((v = sf_get_string(sf, SF_STR_TITLE)))
		snprintf(d->title, sizeof d->title, "%s", v);
	if ((v = sf_get_string(sf, SF_STR_ARTIST)))
		snprintf(d->artist, sizeof d->artist, "%s", v);
	if ((v = sf_get_string(sf, SF_STR_ALBUM)))
		snprintf(d->album, sizeof d->album, "%s", v);
	if ((v = sf_get_string(sf, SF_STR_TRACKNUMBER)))
		snprintf(d->track, sizeof d->track, "%s", v);
	sf_close(sf);
	return d->frames;
}

static char *slurp(const char *name, size_t *n)
{
	char path[1024];
	path_of(path, sizeof path, name);
	return read_file(path, n);
}

static int same_bytes(const char *a, const char *b)
{
	size_t na, nb;
	char *pa = slurp(a, &na), *pb = slurp(b, &nb);
	int same = pa && pb && na == nb && memcmp(pa, pb, na) == 0;
	free(pa);
	free(pb);
	return same;
}

static long file_size(const char *name)
{
	char path[1024];
	struct stat st;
	path_of(path, sizeof path, name);
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* The Ogg CRC the slow way, bit by bit, to check the table-driven one. */
static uint32_t crc_bitwise(const unsigned char *p, size_t n)
{
	uint32_t crc = 0;
	for (size_t i = 0; i < n; i++) {
		crc ^= (uint32_t)p[i] << 24;
		for (int b = 0; b < 8; b++)
			crc = crc & 0x80000000u ? crc << 1 ^ 0x04c11db7u : crc << 1;
	}
	return crc;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Walk the pages of an Ogg file: each starts with OggS, has a correct
 * checksum and the serial of the first.  Returns the number of pages (0
 * if any is wrong) and the serial. */
static int check_ogg_pages(const char *name, uint32_t *serial)
{
	size_t n;
	unsigned char *f = (unsigned char *)slurp(name, &n);
	int pages = 0;
	size_t off = 0;
	while (f && off < n) {
		if (n - off < 27 || memcmp(f + off, "OggS", 4) != 0) {
			fprintf(stderr, "%s: no page at byte %zu\n", name, off);
			pages = 0;
			break;
		}
		size_t nseg = f[off + 26], len = 27 + nseg;
		for (size_t i = 0; i < nseg && off + 27 + i < n; i++)
			len += f[off + 27 + i];
		if (off + len > n) {
			fprintf(stderr, "%s: page at byte %zu is cut off\n", name, off);
			pages = 0;
			break;
		}
		uint32_t want = le32(f + off + 22);
		memset(f + off + 22, 0, 4);
		uint32_t got = crc_bitwise(f + off, len);
		if (pages == 0)
			*serial = le32(f + off + 14);
		if (got != want || le32(f + off + 14) != *serial) {
			fprintf(stderr, "%s: page %d: crc %08x (stored %08x), serial %08x\n", name,
			        pages, got, want, le32(f + off + 14));
			pages = 0;
			break;
		}
		pages++;
		off += len;
	}
	free(f);
	return pages;
}

static void test_crc(void)
{
	/* CRC-32/CKSUM of "123456789" is 0x765e7680: the same CRC with a
	 * final xor of all ones. */
	const unsigned char *nine = (const unsigned char *)"123456789";
	CHECK(ts_ogg_crc(0, nine, 9) == (0x765e7680u ^ 0xffffffffu));
	CHECK(crc_bitwise(nine, 9) == ts_ogg_crc(0, nine, 9));
	CHECK(ts_ogg_crc(ts_ogg_crc(0, nine, 4), nine + 4, 5) == ts_ogg_crc(0, nine, 9));
}

static void test_pick_rate(void)
{
	const ts_format *opus = ts_format_find("opus"), *wav = ts_format_find("wav");
	CHECK(ts_format_pick_rate(opus, 22050) == 48000);
	CHECK(ts_format_pick_rate(opus, 44100) == 48000);
	CHECK(ts_format_pick_rate(opus, 48000) == 48000);
	CHECK(ts_format_pick_rate(opus, 24000) == 24000);
	CHECK(ts_format_pick_rate(wav, 22050) == 22050);
	CHECK(ts_format_pick_rate(ts_format_find("mp3"), 44100) == 44100);
	CHECK(ts_format_find("vorbis") == NULL);
	CHECK(strstr(ts_format_names(), "ogg") && strstr(ts_format_names(), "opus"));
}

/* Every format: decodes to the length written (within 20 ms), at the
 * rate written, with the tags. */
static void test_formats(void)
{
	static const struct {
		const char *fmt;
		int rate;
		const char *track; /* as read back */
	} cases[] = {
	    {"wav", 22050, "3"},  {"flac", 22050, "3"},   {"ogg", 22050, "3"},
	    {"opus", 48000, "3"}, {"mp3", 22050, "3/12"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n;
		int16_t *s = make_audio(cases[i].rate, 4.3, &n);
		char name[64];
		snprintf(name, sizeof name, "tags.%s", cases[i].fmt);
		CHECK(write_file(cases[i].fmt, name, s, n, cases[i].rate, TS_QUALITY_DEFAULT,
		                 &meta_zh) == 0);
		decoded d;
		long got = decode(name, &d);
		long slack = cases[i].rate / 50; /* 20 ms */
		if (got < (long)n - slack || got > (long)n + slack) {
			fprintf(stderr, "%s: %ld frames decoded, %zu written\n", name, got, n);
			check_failures++;
		}
		CHECK(d.rate == cases[i].rate);
		if (strcmp(d.title, meta_zh.title) || strcmp(d.artist, meta_zh.artist) ||
		    strcmp(d.album, meta_zh.album) || strcmp(d.track, cases[i].track)) {
			fprintf(stderr,
			        "%s: tags read back: title '%s' artist '%s' album '%s' "
			        "track '%s'\n",
			        name, d.title, d.artist, d.album, d.track);
			check_failures++;
		}
		/* Lossless formats give back every sample. */
		if (!strcmp(cases[i].fmt, "wav") || !strcmp(cases[i].fmt, "flac"))
			CHECK(got == (long)n);
		free(s);
	}
}

/* The same audio written twice, in one process and so with different
 * random serials from libsndfile, gives the same bytes; and every page
 * of it is sound. */
static void test_ogg_identical(void)
{
	static const struct {
		const char *fmt;
		int rate;
	} cases[] = {{"ogg", 22050}, {"opus", 48000}};
	for (size_t i = 0; i < 2; i++) {
		size_t n;
		int16_t *s = make_audio(cases[i].rate, 6.1, &n);
		char a[64], b[64], sub[1024];
		path_of(sub, sizeof sub, "again");
		mkdir(sub, 0777);
		snprintf(a, sizeof a, "same.%s", cases[i].fmt);
		snprintf(b, sizeof b, "again/same.%s", cases[i].fmt);
		CHECK(write_file(cases[i].fmt, a, s, n, cases[i].rate, 3, &meta_zh) == 0);
		CHECK(write_file(cases[i].fmt, b, s, n, cases[i].rate, 3, &meta_zh) == 0);
		if (!same_bytes(a, b)) {
			fprintf(stderr, "%s: two writes of the same audio differ\n", a);
			check_failures++;
		}
		uint32_t serial_a = 0, serial_b = 0;
		CHECK(check_ogg_pages(a, &serial_a) > 2);
		/* Another name, another stream serial. */
		snprintf(b, sizeof b, "other.%s", cases[i].fmt);
		CHECK(write_file(cases[i].fmt, b, s, n, cases[i].rate, 3, &meta_zh) == 0);
		CHECK(check_ogg_pages(b, &serial_b) > 2);
		CHECK(serial_a != serial_b);
		free(s);
	}
}

/* ts_ogg_set_serial() on a file straight from libsndfile: the pages stay
 * valid and decode to the same samples. */
static void test_ogg_set_serial(void)
{
	char path[1024];
	ts_error err = {0};
	path_of(path, sizeof path, "raw.ogg");
	size_t n;
	int16_t *s = make_audio(22050, 3.0, &n);
	SF_INFO info = {
	    .samplerate = 22050, .channels = 1, .format = SF_FORMAT_OGG | SF_FORMAT_VORBIS};
	SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
	CHECK(sf != NULL);
	if (!sf) {
		free(s);
		return;
	}
	sf_write_short(sf, s, (sf_count_t)n);
	sf_close(sf);

	size_t before_n, after_n;
	char *before = slurp("raw.ogg", &before_n);
	short *pcm_before = malloc(n * 2 * sizeof *pcm_before);
	short *pcm_after = malloc(n * 2 * sizeof *pcm_after);
	SF_INFO ri = {0};
	sf = sf_open(path, SFM_READ, &ri);
	sf_count_t k1 = sf ? sf_read_short(sf, pcm_before, (sf_count_t)n * 2) : -1;
	sf_close(sf);

	CHECK(ts_ogg_set_serial(path, 0x12345678u, &err) == 0);
	uint32_t serial = 0;
	int pages = check_ogg_pages("raw.ogg", &serial);
	CHECK(pages > 2);
	CHECK(serial == 0x12345678u);
	char *after = slurp("raw.ogg", &after_n);
	CHECK(before_n == after_n);
	/* Nothing but serials and checksums changed. */
	size_t diff = 0;
	for (size_t i = 0; before && after && i < before_n && i < after_n; i++)
		diff += before[i] != after[i];
	CHECK(diff > 0 && diff <= (size_t)pages * 8);

	sf = sf_open(path, SFM_READ, &ri);
	CHECK(sf != NULL);
	sf_count_t k2 = sf ? sf_read_short(sf, pcm_after, (sf_count_t)n * 2) : -2;
	if (sf)
		sf_close(sf);
	CHECK(k1 == k2 && k1 > 0);
	CHECK(k1 > 0 && memcmp(pcm_before, pcm_after, (size_t)k1 * sizeof *pcm_after) == 0);

	/* Damaged files are refused, not rewritten. */
	FILE *f = fopen(path, "r+b");
	fseek(f, (long)after_n / 2, SEEK_SET);
	fputc(after[after_n / 2] ^ 0x55, f);
	fclose(f);
	CHECK(ts_ogg_set_serial(path, 1, &err) == TS_EAUDIO);
	f = fopen(path, "wb");
	fputs("RIFF and not Ogg at all", f);
	fclose(f);
	CHECK(ts_ogg_set_serial(path, 1, &err) == TS_EAUDIO);
	CHECK(err.code == TS_EAUDIO &&
	      strstr(err.msg, "raw.ogg: not a single Ogg stream at byte 0"));
	f = fopen(path, "wb");
	fclose(f);
	CHECK(ts_ogg_set_serial(path, 1, NULL) == TS_EAUDIO);
	path_of(path, sizeof path, "missing.ogg");
	CHECK(ts_ogg_set_serial(path, 1, &err) == TS_EIO);
	CHECK(err.code == TS_EIO && strstr(err.msg, "missing.ogg: No such file or directory"));

	free(before);
	free(after);
	free(pcm_before);
	free(pcm_after);
	free(s);
}

/* MP3: an ID3v2.4 tag with UTF-8 text; the ID3v1 trailer only when its
 * text is ASCII. */
static void test_id3(void)
{
	size_t n;
	int16_t *s = make_audio(22050, 2.0, &n);
	CHECK(write_file("mp3", "zh.mp3", s, n, 22050, TS_QUALITY_DEFAULT, &meta_zh) == 0);
	size_t len;
	unsigned char *f = (unsigned char *)slurp("zh.mp3", &len);
	CHECK(f && len > 200 && memcmp(f, "ID3\x04", 4) == 0);
	CHECK(f && memcmp(f + len - 128, "TAG", 3) != 0);
	free(f);
	decoded d;
	CHECK(decode("zh.mp3", &d) > 0 && !strcmp(d.title, meta_zh.title));

	/* A title of more than 127 bytes: its frame size changes encoding
	 * (v2.3 counts 8 bits a byte, v2.4 7). */
	char title[256] = "";
	for (int i = 0; i < 50; i++)
		strcat(title, "长");
	ts_audio_meta long_meta = meta_zh;
	long_meta.title = title;
	CHECK(write_file("mp3", "long.mp3", s, n, 22050, TS_QUALITY_DEFAULT, &long_meta) == 0);
	f = (unsigned char *)slurp("long.mp3", &len);
	unsigned char *t = NULL;
	for (size_t i = 10; f && i + 11 < len && i < 1024 && !t; i++)
		if (memcmp(f + i, "TIT2", 4) == 0)
			t = f + i;
	/* 151 bytes: the encoding byte and 150 of text, 1 * 128 + 23. */
	CHECK(t && t[4] == 0 && t[5] == 0 && t[6] == 1 && t[7] == 23 && t[8] == 0 && t[9] == 0 &&
	      t[10] == 3 && memcmp(t + 11, title, 150) == 0);
	free(f);
	CHECK(decode("long.mp3", &d) > 0 && !strcmp(d.title, title) &&
	      !strcmp(d.album, "三国演义"));

	ts_audio_meta ascii = {.title = "Chapter 3", .artist = "Luo Guanzhong", .track = 3};
	CHECK(write_file("mp3", "ascii.mp3", s, n, 22050, TS_QUALITY_DEFAULT, &ascii) == 0);
	f = (unsigned char *)slurp("ascii.mp3", &len);
	/* LAME writes only the ID3v1 trailer when everything fits in it. */
	CHECK(f && len > 200 && memcmp(f + len - 128, "TAG", 3) == 0);
	free(f);
	CHECK(decode("ascii.mp3", &d) > 0 && !strcmp(d.title, "Chapter 3") &&
	      !strcmp(d.artist, "Luo Guanzhong") && !strcmp(d.track, "3") && !d.album[0]);

	/* A tag this does not know (version 2.2) and a file with no tag are
	 * left as they are. */
	char path[1024];
	ts_error err = {0};
	path_of(path, sizeof path, "v22.mp3");
	static const unsigned char v22[] = "ID3\x02\x00\x00\x00\x00\x00\x0aTT2\x00\x00\x04\x00"
	                                   "abc\xff\xfb\x90\x00";
	FILE *o = fopen(path, "wb");
	fwrite(v22, 1, sizeof v22 - 1, o);
	fclose(o);
	CHECK(ts_id3_utf8(path, &err) == 0);
	f = (unsigned char *)slurp("v22.mp3", &len);
	CHECK(f && len == sizeof v22 - 1 && memcmp(f, v22, len) == 0);
	free(f);
	path_of(path, sizeof path, "missing.mp3");
	CHECK(ts_id3_utf8(path, &err) == TS_EIO);
	CHECK(err.code == TS_EIO && strstr(err.msg, "missing.mp3: ") != NULL);
	CHECK(ts_id3_utf8(path, NULL) == TS_EIO);
	free(s);
}

/* --quality: out of range refused; higher gives bigger lossy files and
 * smaller FLAC files. */
static void test_quality(void)
{
	size_t n;
	int16_t *s = make_audio(48000, 5.0, &n);
	static const char *fmts[] = {"flac", "ogg", "opus", "mp3"};
	for (size_t i = 0; i < 4; i++) {
		char lo[64], hi[64];
		int rate = strcmp(fmts[i], "opus") == 0 ? 48000 : 22050;
		size_t len = strcmp(fmts[i], "opus") == 0 ? n : n * 22050 / 48000;
		snprintf(lo, sizeof lo, "q0.%s", fmts[i]);
		snprintf(hi, sizeof hi, "q10.%s", fmts[i]);
		CHECK(write_file(fmts[i], lo, s, len, rate, 0, NULL) == 0);
		CHECK(write_file(fmts[i], hi, s, len, rate, 10, NULL) == 0);
		long a = file_size(lo), b = file_size(hi);
		int flac = i == 0;
		if (a <= 0 || b <= 0 || (flac ? b >= a : b <= a)) {
			fprintf(stderr, "%s: %ld bytes at quality 0, %ld at 10\n", fmts[i], a, b);
			check_failures++;
		}
	}
	char path[1024];
	ts_error err = {0};
	path_of(path, sizeof path, "bad.flac");
	ts_writer_opts o = {.rate = 22050, .quality = 11, .owner_pid = (long)getpid()};
	CHECK(ts_writer_open(ts_format_find("flac"), path, &o, &err) == NULL);
	CHECK(err.code == TS_EINVAL && strstr(err.msg, "quality 11 is not between 0 and 10"));
	o.quality = -2;
	CHECK(ts_writer_open(ts_format_find("flac"), path, &o, NULL) == NULL);
	/* WAV ignores it: the same bytes at any quality. */
	CHECK(write_file("wav", "q0.wav", s, n, 22050, 0, NULL) == 0);
	CHECK(write_file("wav", "q10.wav", s, n, 22050, 10, NULL) == 0);
	CHECK(same_bytes("q0.wav", "q10.wav"));
	free(s);
}

/* Opus at eSpeak's 22,050 Hz: a clear error, no file left behind. */
static void test_opus_rate(void)
{
	char path[1024];
	ts_error err = {0};
	path_of(path, sizeof path, "bad.opus");
	ts_writer_opts o = {.rate = 22050, .quality = TS_QUALITY_DEFAULT, .owner_pid = 1};
	CHECK(ts_writer_open(ts_format_find("opus"), path, &o, &err) == NULL);
	CHECK(err.code == TS_EINVAL);
	CHECK(strstr(err.msg, "22050") && strstr(err.msg, "48000"));
	CHECK(access(path, F_OK) != 0);
}

/* A text file: in place when written, a message naming it when it cannot
 * be. */
static void test_text_file(void)
{
	char path[1024];
	ts_error err = {0};
	path_of(path, sizeof path, "notes.txt");
	CHECK(ts_write_text_file(path, "一二三\n", strlen("一二三\n"), (long)getpid(), &err) == 0);
	size_t n;
	char *got = slurp("notes.txt", &n);
	CHECK(got && n == strlen("一二三\n") && memcmp(got, "一二三\n", n) == 0);
	free(got);
	path_of(path, sizeof path, "no-such-folder/notes.txt");
	CHECK(ts_write_text_file(path, "x", 1, (long)getpid(), &err) == TS_EIO);
	CHECK(err.code == TS_EIO &&
	      strstr(err.msg, "no-such-folder/notes.txt: cannot write: No such file") != NULL);
	CHECK(ts_write_text_file(path, "x", 1, (long)getpid(), NULL) == TS_EIO);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_write SCRATCH_DIR\n");
		return 2;
	}
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/test_write.d", argv[1]);
	mkdir(dir, 0777);
	scratch = dir;
	test_crc();
	test_pick_rate();
	test_formats();
	test_ogg_identical();
	test_ogg_set_serial();
	test_id3();
	test_quality();
	test_opus_rate();
	test_text_file();
	return check_done("test_write");
}
