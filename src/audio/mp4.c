/* mp4.c - a small MP4 audio book writer (see mp4.h).
 *
 * The file is ftyp, free, mdat, moov.  The mdat holds the chapter titles
 * (the text track's samples, one chunk) and then the AAC packets as they
 * come; its size is patched at the end, and the free atom before it turns
 * its header into a 64-bit one when the audio passes 4 GB.  The moov is
 * built in memory at the end but for its two long tables, the audio's
 * sample sizes (stsz) and chunk offsets (stco/co64): those are "holes" of
 * known size, filled from the sample sizes file while the moov is written out.
 *
 * Every write is checked; the first failure is kept and ends the file. */
#include "audio/mp4.h"

#include "base/error.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OUT_BUFFER    65536
#define CHUNK_PACKETS 256 /* AAC packets a chunk: 12 s at 22 kHz */
#define MOVIE_SCALE   1000
#define TEXT_TRACK    2
#define MAX_DEPTH     12

/* ---- buffered, checked output --------------------------------------- */

typedef struct out {
	int fd;
	unsigned char *buf;
	size_t fill;
	uint64_t pos; /* file offset of the next byte */
	int code, sys_errno;
} out;

/* Write p[0..n) at the file offset at, or where the file is when at is
 * -1; the first failure is kept in o and ends every later write. */
static int write_all(out *o, const void *p, size_t n, int64_t at)
{
	const unsigned char *s = p;
	for (size_t done = 0; !o->code && done < n;) {
		ssize_t k = at < 0 ? write(o->fd, s + done, n - done)
		                   : pwrite(o->fd, s + done, n - done, (off_t)at + (off_t)done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			o->sys_errno = k < 0 ? errno : ENOSPC;
			o->code = ts_errno_code(o->sys_errno);
		}
		done += k > 0 ? (size_t)k : 0;
	}
	return o->code;
}

static int out_flush(out *o)
{
	write_all(o, o->buf, o->fill, -1);
	o->fill = 0;
	return o->code;
}

static int out_put(out *o, const void *p, size_t n)
{
	const unsigned char *s = p;
	o->pos += n;
	while (n > 0 && !o->code) {
		if (o->fill == OUT_BUFFER)
			out_flush(o);
		size_t k = OUT_BUFFER - o->fill < n ? OUT_BUFFER - o->fill : n;
		memcpy(o->buf + o->fill, s, k);
		o->fill += k, s += k, n -= k;
	}
	return o->code;
}

static void be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ---- atoms in memory ------------------------------------------------ */

/* The moov as it is built: its bytes but for the holes, whose sizes count
 * in the sizes of the atoms around them. */
enum hole_kind { HOLE_SIZES, HOLE_OFFSETS };

typedef struct atoms {
	ts_buf b;
	size_t open[MAX_DEPTH];
	uint64_t open_holes[MAX_DEPTH]; /* hole bytes before each open atom */
	int depth;
	uint64_t hole_bytes;
	struct {
		size_t at; /* where in b */
		enum hole_kind kind;
	} hole[2];
	int holes;
	uint64_t limit; /* the largest value a 32-bit field takes */
} atoms;

static void put(atoms *a, const void *p, size_t n)
{
	ts_buf_append(&a->b, p, n);
}

static void u8(atoms *a, unsigned v)
{
	unsigned char c = (unsigned char)v;
	put(a, &c, 1);
}

static void u16(atoms *a, unsigned v)
{
	unsigned char c[2] = {(unsigned char)(v >> 8), (unsigned char)v};
	put(a, c, 2);
}

static void u32(atoms *a, uint32_t v)
{
	unsigned char c[4];
	be32(c, v);
	put(a, c, 4);
}

static void u64(atoms *a, uint64_t v)
{
	u32(a, (uint32_t)(v >> 32));
	u32(a, (uint32_t)v);
}

static void zeros(atoms *a, size_t n)
{
	static const unsigned char z[64];
	put(a, z, n);
}

static void fourcc(atoms *a, const char *t)
{
	put(a, t, 4);
}

static void open_atom(atoms *a, const char *type)
{
	if (a->depth == MAX_DEPTH)
		abort(); /* a bug: the nesting here is fixed */
	a->open[a->depth] = a->b.len;
	a->open_holes[a->depth++] = a->hole_bytes;
	u32(a, 0);
	fourcc(a, type);
}

/* An atom with a version and flags ("full box"). */
static void open_full(atoms *a, const char *type, unsigned version, uint32_t flags)
{
	open_atom(a, type);
	u32(a, (uint32_t)version << 24 | flags);
}

static void close_atom(atoms *a)
{
	size_t at = a->open[--a->depth];
	uint64_t size = a->b.len - at + (a->hole_bytes - a->open_holes[a->depth]);
	if (a->b.data && a->b.len >= at + 4)
		be32((unsigned char *)a->b.data + at, (uint32_t)size);
}

static void add_hole(atoms *a, enum hole_kind kind, uint64_t bytes)
{
	a->hole[a->holes].at = a->b.len;
	a->hole[a->holes++].kind = kind;
	a->hole_bytes += bytes;
}

static const uint32_t unity_matrix[9] = {0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000};

static void matrix(atoms *a)
{
	for (int i = 0; i < 9; i++)
		u32(a, unity_matrix[i]);
}

/* ---- the writer ----------------------------------------------------- */

typedef struct run {
	uint64_t count;
	uint32_t delta;
} run;

struct ts_mp4 {
	const ts_mp4_info *info;
	out o;
	out sample_sizes; /* the packets' sizes, 4 bytes each, big-endian */
	uint64_t free_at, text_at, audio_at;
	uint64_t packets, bytes, media; /* the audio's packets, bytes, samples */
	run *runs;                      /* their durations, run-length coded */
	size_t nruns, cap;
	uint32_t max_packet;
	uint64_t limit; /* UINT32_MAX but in tests */
};

/* A chapter title's sample: its length, its bytes, and the "encd" atom
 * (UTF-8) QuickTime wants, as FFmpeg writes it. */
static size_t title_len(const char *t)
{
	size_t n = t ? strlen(t) : 0;
	return n > 1024 ? ts_utf8_check(t, 1024, 0) : n;
}

static const unsigned char encd[12] = {0, 0, 0, 12, 'e', 'n', 'c', 'd', 0, 0, 1, 0};

static void write_titles(ts_mp4 *m)
{
	for (size_t i = 0; i < m->info->chapters; i++) {
		const char *t = m->info->chapter[i].title;
		size_t n = title_len(t);
		unsigned char len[2] = {(unsigned char)(n >> 8), (unsigned char)n};
		out_put(&m->o, len, 2);
		out_put(&m->o, t ? t : "", n);
		out_put(&m->o, encd, sizeof encd);
	}
}

ts_mp4 *ts_mp4_new(int fd, int sizes_fd, const ts_mp4_info *info, int *code, int *sys_errno)
{
	ts_mp4 *m = calloc(1, sizeof *m);
	*sys_errno = 0;
	if (!m || !(m->o.buf = malloc(OUT_BUFFER)) || !(m->sample_sizes.buf = malloc(OUT_BUFFER))) {
		ts_mp4_free(m);
		*code = TS_ENOMEM;
		return NULL;
	}
	m->info = info;
	m->limit = UINT32_MAX;
	m->o.fd = fd;
	m->sample_sizes.fd = sizes_fd;
	atoms a = {0};
	open_atom(&a, "ftyp");
	fourcc(&a, info->brand);
	u32(&a, 0x200);
	fourcc(&a, info->brand);
	fourcc(&a, "iso2");
	fourcc(&a, "mp41");
	close_atom(&a);
	open_atom(&a, "free"); /* room for a 64-bit mdat header */
	close_atom(&a);
	open_atom(&a, "mdat"); /* its size is set at the end */
	a.depth = 0;
	if (ts_buf_error(&a.b)) {
		ts_buf_free(&a.b);
		ts_mp4_free(m);
		*code = TS_ENOMEM;
		return NULL;
	}
	m->free_at = 28;
	out_put(&m->o, a.b.data, a.b.len);
	ts_buf_free(&a.b);
	m->text_at = m->o.pos;
	write_titles(m);
	m->audio_at = m->o.pos;
	if (m->o.code) {
		*code = m->o.code;
		*sys_errno = m->o.sys_errno;
		ts_mp4_free(m);
		return NULL;
	}
	return m;
}

int ts_mp4_add(ts_mp4 *m, const void *packet, size_t n, unsigned duration)
{
	if (m->o.code || m->sample_sizes.code)
		return m->o.code ? m->o.code : m->sample_sizes.code;
	if (n > UINT32_MAX)
		return m->o.code = TS_EINVAL;
	if (m->nruns == 0 || m->runs[m->nruns - 1].delta != duration) {
		if (m->nruns == m->cap) {
			size_t cap = m->cap ? 2 * m->cap : 4;
			run *r = realloc(m->runs, cap * sizeof *r);
			if (!r)
				return m->o.code = TS_ENOMEM;
			m->runs = r, m->cap = cap;
		}
		m->runs[m->nruns++] = (run){0, duration};
	}
	m->runs[m->nruns - 1].count++;
	unsigned char size[4];
	be32(size, (uint32_t)n);
	out_put(&m->sample_sizes, size, 4);
	out_put(&m->o, packet, n);
	m->packets++;
	m->bytes += n;
	m->media += duration;
	if (n > m->max_packet)
		m->max_packet = (uint32_t)n;
	return m->o.code ? m->o.code : m->sample_sizes.code;
}

/* ---- the moov ------------------------------------------------------- */

static uint64_t to_movie(uint64_t samples, unsigned rate)
{
	return (samples * MOVIE_SCALE + rate / 2) / rate;
}

/* A version 0 field of 32 bits, or version 1 of 64 when v needs it. */
static int wide(const atoms *a, uint64_t v)
{
	return v > a->limit;
}

static void time_field(atoms *a, int v1, uint64_t v)
{
	if (v1)
		u64(a, v);
	else
		u32(a, (uint32_t)v);
}

static void mvhd(atoms *a, uint64_t duration)
{
	int v1 = wide(a, duration);
	open_full(a, "mvhd", (unsigned)v1, 0);
	time_field(a, v1, 0); /* creation and modification: unknown */
	time_field(a, v1, 0);
	u32(a, MOVIE_SCALE);
	time_field(a, v1, duration);
	u32(a, 0x10000); /* rate 1.0 */
	u16(a, 0x100);   /* volume 1.0 */
	zeros(a, 10);
	matrix(a);
	zeros(a, 24);
	u32(a, TEXT_TRACK + 1); /* next track ID */
	close_atom(a);
}

/* flags: 1 enabled, 2 in the movie. */
static void tkhd(atoms *a, uint32_t flags, unsigned id, uint64_t duration, int audio)
{
	int v1 = wide(a, duration);
	open_full(a, "tkhd", (unsigned)v1, flags);
	time_field(a, v1, 0);
	time_field(a, v1, 0);
	u32(a, id);
	u32(a, 0);
	time_field(a, v1, duration);
	zeros(a, 8);
	u16(a, 0);                 /* layer */
	u16(a, audio ? 1 : 0);     /* alternate group */
	u16(a, audio ? 0x100 : 0); /* volume */
	u16(a, 0);
	matrix(a);
	u32(a, 0); /* width and height */
	u32(a, 0);
	close_atom(a);
}

/* One edit: the media from media_time on, for duration (movie scale). */
static void edts(atoms *a, uint64_t duration, uint64_t media_time)
{
	int v1 = wide(a, duration) || wide(a, media_time);
	open_atom(a, "edts");
	open_full(a, "elst", (unsigned)v1, 0);
	u32(a, 1);
	time_field(a, v1, duration);
	time_field(a, v1, media_time);
	u32(a, 0x10000); /* rate 1.0 */
	close_atom(a);
	close_atom(a);
}

static void mdhd(atoms *a, unsigned scale, uint64_t duration, unsigned language)
{
	int v1 = wide(a, duration);
	open_full(a, "mdhd", (unsigned)v1, 0);
	time_field(a, v1, 0);
	time_field(a, v1, 0);
	u32(a, scale);
	time_field(a, v1, duration);
	u16(a, language);
	u16(a, 0);
	close_atom(a);
}

static void hdlr(atoms *a, const char *type, const char *name)
{
	open_full(a, "hdlr", 0, 0);
	u32(a, 0);
	fourcc(a, type);
	zeros(a, 12);
	put(a, name, strlen(name) + 1);
	close_atom(a);
}

static void dinf(atoms *a)
{
	open_atom(a, "dinf");
	open_full(a, "dref", 0, 0);
	u32(a, 1);
	open_full(a, "url ", 0, 1); /* the data is in this file */
	close_atom(a);
	close_atom(a);
	close_atom(a);
}

/* An MPEG-4 descriptor's header, its length in the four-byte form. */
static void descriptor(atoms *a, unsigned tag, size_t len)
{
	u8(a, tag);
	u8(a, 0x80 | (unsigned)(len >> 21 & 0x7F));
	u8(a, 0x80 | (unsigned)(len >> 14 & 0x7F));
	u8(a, 0x80 | (unsigned)(len >> 7 & 0x7F));
	u8(a, (unsigned)(len & 0x7F));
}

static void mp4a(atoms *a, const ts_mp4 *m, uint32_t bit_rate)
{
	const ts_mp4_info *in = m->info;
	open_atom(a, "mp4a");
	zeros(a, 6);
	u16(a, 1);   /* data reference */
	zeros(a, 8); /* version, revision, vendor */
	u16(a, 2);   /* channels: 2, ISO's template value, as FFmpeg writes it;
	                the AAC configuration says how many there are */
	u16(a, 16);  /* bits a sample */
	u32(a, 0);
	u32(a, in->rate << 16);
	open_full(a, "esds", 0, 0);
	size_t config = 5 + in->config_len;
	size_t decoder = 13 + config;
	descriptor(a, 3, 3 + 5 + decoder + 5 + 1); /* ES */
	u16(a, 1);                                 /* ES ID */
	u8(a, 0);
	descriptor(a, 4, decoder); /* decoder configuration */
	u8(a, 0x40);               /* MPEG-4 audio */
	u8(a, 0x15);               /* an audio stream */
	u8(a, 0), u16(a, 0);       /* buffer size */
	u32(a, bit_rate);          /* maximum */
	u32(a, bit_rate);          /* average */
	descriptor(a, 5, in->config_len);
	put(a, in->config, in->config_len);
	descriptor(a, 6, 1); /* SL configuration: predefined for MP4 */
	u8(a, 2);
	close_atom(a);
	open_atom(a, "btrt");
	u32(a, 0);
	u32(a, bit_rate);
	u32(a, bit_rate);
	close_atom(a);
	close_atom(a);
}

static uint64_t audio_chunks(const ts_mp4 *m)
{
	return (m->packets + CHUNK_PACKETS - 1) / CHUNK_PACKETS;
}

static int wide_offsets(const ts_mp4 *m)
{
	return m->audio_at + m->bytes > m->limit;
}

static void audio_stbl(atoms *a, const ts_mp4 *m, uint32_t bit_rate)
{
	open_atom(a, "stbl");
	open_full(a, "stsd", 0, 0);
	u32(a, 1);
	mp4a(a, m, bit_rate);
	close_atom(a);
	open_full(a, "stts", 0, 0);
	u32(a, (uint32_t)m->nruns);
	for (size_t i = 0; i < m->nruns; i++)
		u32(a, (uint32_t)m->runs[i].count), u32(a, m->runs[i].delta);
	close_atom(a);
	uint64_t chunks = audio_chunks(m), last = m->packets - (chunks - 1) * CHUNK_PACKETS;
	open_full(a, "stsc", 0, 0);
	u32(a, chunks == 0 ? 0 : last == CHUNK_PACKETS || chunks == 1 ? 1 : 2);
	if (chunks > 1 || (chunks == 1 && last == CHUNK_PACKETS))
		u32(a, 1), u32(a, CHUNK_PACKETS), u32(a, 1);
	if (chunks > 0 && last != CHUNK_PACKETS)
		u32(a, (uint32_t)chunks), u32(a, (uint32_t)last), u32(a, 1);
	close_atom(a);
	open_full(a, "stsz", 0, 0);
	u32(a, 0);
	u32(a, (uint32_t)m->packets);
	add_hole(a, HOLE_SIZES, 4 * m->packets);
	close_atom(a);
	open_full(a, wide_offsets(m) ? "co64" : "stco", 0, 0);
	u32(a, (uint32_t)chunks);
	add_hole(a, HOLE_OFFSETS, (wide_offsets(m) ? 8 : 4) * chunks);
	close_atom(a);
	/* Each packet needs the one before it to decode (AAC's overlap). */
	open_full(a, "sgpd", 1, 0);
	fourcc(a, "roll");
	u32(a, 2);
	u32(a, 1);
	u16(a, 0xFFFF); /* -1 */
	close_atom(a);
	open_full(a, "sbgp", 0, 0);
	fourcc(a, "roll");
	u32(a, 1);
	u32(a, (uint32_t)m->packets);
	u32(a, 1);
	close_atom(a);
	close_atom(a);
}

static void audio_trak(atoms *a, const ts_mp4 *m, uint64_t heard)
{
	const ts_mp4_info *in = m->info;
	uint64_t secs = m->media / in->rate ? m->media / in->rate : 1;
	uint32_t bit_rate = (uint32_t)(m->bytes * 8 / secs);
	open_atom(a, "trak");
	tkhd(a, 3, 1, to_movie(heard, in->rate), 1);
	edts(a, to_movie(heard, in->rate), in->priming);
	if (in->chapters) {
		open_atom(a, "tref");
		open_atom(a, "chap");
		u32(a, TEXT_TRACK);
		close_atom(a);
		close_atom(a);
	}
	open_atom(a, "mdia");
	mdhd(a, in->rate, m->media, 0x55C4 /* "und" */);
	hdlr(a, "soun", "SoundHandler");
	open_atom(a, "minf");
	open_full(a, "smhd", 0, 0);
	u32(a, 0);
	close_atom(a);
	dinf(a);
	audio_stbl(a, m, bit_rate);
	close_atom(a);
	close_atom(a);
	close_atom(a);
}

/* The chapter i's length in the movie's scale. */
static uint64_t chapter_ms(const ts_mp4_info *in, size_t i, uint64_t heard)
{
	uint64_t end = i + 1 < in->chapters ? in->chapter[i + 1].start : heard;
	uint64_t a = to_movie(in->chapter[i].start, in->rate), b = to_movie(end, in->rate);
	return b > a ? b - a : 1;
}

/* QuickTime's text sample description, as FFmpeg writes it for chapters. */
static const unsigned char text_description[43] = {
    0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,  0,   0,   0,   0,   0, 0, 0, 0, 0, 0,
    0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 13, 'f', 't', 'a', 'b', 0, 1, 0, 1, 0};

static const unsigned char text_media_header[36] = {0, 1, 0, 0, 0, 0, 0, 0, 0,    0, 0, 0,
                                                    0, 0, 0, 0, 0, 1, 0, 0, 0,    0, 0, 0,
                                                    0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0};

static void text_trak(atoms *a, const ts_mp4 *m, uint64_t heard)
{
	const ts_mp4_info *in = m->info;
	uint64_t total = 0;
	for (size_t i = 0; i < in->chapters; i++)
		total += chapter_ms(in, i, heard);
	open_atom(a, "trak");
	tkhd(a, 2, TEXT_TRACK, total, 0);
	edts(a, total, 0);
	open_atom(a, "mdia");
	mdhd(a, MOVIE_SCALE, total, 0);
	hdlr(a, "text", "SubtitleHandler");
	open_atom(a, "minf");
	open_atom(a, "gmhd");
	open_full(a, "gmin", 0, 0);
	u16(a, 0x40); /* graphics mode: copy */
	u16(a, 0x8000), u16(a, 0x8000), u16(a, 0x8000);
	u16(a, 0), u16(a, 0);
	close_atom(a);
	open_atom(a, "text");
	put(a, text_media_header, sizeof text_media_header);
	close_atom(a);
	close_atom(a);
	dinf(a);
	open_atom(a, "stbl");
	open_full(a, "stsd", 0, 0);
	u32(a, 1);
	open_atom(a, "text");
	zeros(a, 6);
	u16(a, 1);
	put(a, text_description, sizeof text_description);
	close_atom(a);
	close_atom(a);
	open_full(a, "stts", 0, 0);
	size_t at = a->b.len, runs = 0;
	u32(a, 0);
	for (size_t i = 0; i < in->chapters;) {
		uint64_t d = chapter_ms(in, i, heard);
		size_t j = i + 1;
		while (j < in->chapters && chapter_ms(in, j, heard) == d)
			j++;
		u32(a, (uint32_t)(j - i)), u32(a, (uint32_t)d);
		runs++, i = j;
	}
	if (a->b.data && a->b.len >= at + 4)
		be32((unsigned char *)a->b.data + at, (uint32_t)runs);
	close_atom(a);
	open_full(a, "stsc", 0, 0);
	u32(a, 1);
	u32(a, 1), u32(a, (uint32_t)in->chapters), u32(a, 1);
	close_atom(a);
	open_full(a, "stsz", 0, 0);
	u32(a, 0);
	u32(a, (uint32_t)in->chapters);
	for (size_t i = 0; i < in->chapters; i++)
		u32(a, (uint32_t)(2 + title_len(in->chapter[i].title) + sizeof encd));
	close_atom(a);
	open_full(a, "stco", 0, 0);
	u32(a, 1);
	u32(a, (uint32_t)m->text_at);
	close_atom(a);
	close_atom(a);
	close_atom(a);
	close_atom(a);
	close_atom(a);
}

/* An iTunes tag: the atom type, its data's type (1 text, 0 binary, 13
 * JPEG, 14 PNG) and bytes. */
static void tag(atoms *a, const char *type, uint32_t kind, const void *p, size_t n)
{
	open_atom(a, type);
	open_atom(a, "data");
	u32(a, kind);
	u32(a, 0);
	put(a, p, n);
	close_atom(a);
	close_atom(a);
}

static void text_tag(atoms *a, const char *type, const char *s)
{
	if (s && s[0])
		tag(a, type, 1, s, strlen(s));
}

static void udta(atoms *a, const ts_mp4 *m)
{
	const ts_mp4_info *in = m->info;
	open_atom(a, "udta");
	open_full(a, "meta", 0, 0);
	open_full(a, "hdlr", 0, 0);
	u32(a, 0);
	fourcc(a, "mdir");
	fourcc(a, "appl");
	zeros(a, 9);
	close_atom(a);
	open_atom(a, "ilst");
	text_tag(a, "\251nam", in->title);
	text_tag(a, "\251ART", in->artist);
	text_tag(a, "\251alb", in->album);
	text_tag(a, "\251too", in->tool);
	text_tag(a, "\251gen", in->genre);
	if (in->cover)
		tag(a, "covr", in->cover_png ? 14 : 13, in->cover, in->cover_len);
	if (in->track) {
		unsigned char t[8] = {0, 0, 0, 0, 0, 0, 0, 0};
		t[2] = (unsigned char)(in->track >> 8), t[3] = (unsigned char)in->track;
		t[4] = (unsigned char)(in->tracks >> 8), t[5] = (unsigned char)in->tracks;
		tag(a, "trkn", 0, t, sizeof t);
	}
	close_atom(a);
	close_atom(a);
	if (in->chapters) { /* Nero's list: at most 255, titles of 255 bytes */
		size_t n = in->chapters < 255 ? in->chapters : 255;
		open_full(a, "chpl", 1, 0);
		u32(a, 0);
		u8(a, (unsigned)n);
		for (size_t i = 0; i < n; i++) {
			const char *t = in->chapter[i].title ? in->chapter[i].title : "";
			size_t len = title_len(t);
			if (len > 255)
				len = ts_utf8_check(t, 255, 0);
			u64(a, (in->chapter[i].start * 10000000 + in->rate / 2) /
			           in->rate); /* 100 ns */
			u8(a, (unsigned)len);
			put(a, t, len);
		}
		close_atom(a);
	}
	close_atom(a);
}

/* Fill a hole of the moov from the sample sizes file: the sizes as they are, or the
 * chunks' offsets from them. */
static int fill_hole(ts_mp4 *m, enum hole_kind kind)
{
	unsigned char block[OUT_BUFFER];
	uint64_t offset = m->audio_at, seen = 0;
	int wide64 = wide_offsets(m);
	if (lseek(m->sample_sizes.fd, 0, SEEK_SET) != 0) {
		m->o.sys_errno = errno;
		return m->o.code = ts_errno_code(errno);
	}
	while (seen < m->packets && !m->o.code) {
		size_t want = (m->packets - seen) * 4 < sizeof block
		                  ? (size_t)(m->packets - seen) * 4
		                  : sizeof block;
		ssize_t k = read(m->sample_sizes.fd, block, want);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0 || k % 4) {
			m->o.sys_errno = k < 0 ? errno : EIO;
			return m->o.code = ts_errno_code(m->o.sys_errno);
		}
		if (kind == HOLE_SIZES) {
			out_put(&m->o, block, (size_t)k);
			seen += (uint64_t)k / 4;
			continue;
		}
		for (ssize_t i = 0; i < k; i += 4, seen++) {
			if (seen % CHUNK_PACKETS == 0) {
				unsigned char c[8];
				be32(c, (uint32_t)(offset >> 32));
				be32(c + 4, (uint32_t)offset);
				out_put(&m->o, wide64 ? c : c + 4, wide64 ? 8 : 4);
			}
			offset += get_be32(block + i);
		}
	}
	return m->o.code;
}

int ts_mp4_finish(ts_mp4 *m, uint64_t samples)
{
	const ts_mp4_info *in = m->info;
	if (m->o.code || m->sample_sizes.code || out_flush(&m->sample_sizes) || out_flush(&m->o))
		return m->o.code ? m->o.code : m->sample_sizes.code;
	/* The mdat's size, from the free atom on when it needs 64 bits. */
	uint64_t mdat = m->o.pos - (m->free_at + 8);
	unsigned char h[16];
	if (mdat <= m->limit) {
		be32(h, (uint32_t)mdat);
		write_all(&m->o, h, 4, (int64_t)m->free_at + 8);
	} else {
		be32(h, 1);
		memcpy(h + 4, "mdat", 4);
		be32(h + 8, (uint32_t)((mdat + 8) >> 32));
		be32(h + 12, (uint32_t)(mdat + 8));
		write_all(&m->o, h, 16, (int64_t)m->free_at);
	}
	atoms a = {.limit = m->limit};
	open_atom(&a, "moov");
	mvhd(&a, to_movie(samples, in->rate));
	audio_trak(&a, m, samples);
	if (in->chapters)
		text_trak(&a, m, samples);
	udta(&a, m);
	close_atom(&a);
	if (ts_buf_error(&a.b)) {
		ts_buf_free(&a.b);
		return m->o.code = TS_ENOMEM;
	}
	size_t from = 0;
	for (int i = 0; i < a.holes && !m->o.code; i++) {
		out_put(&m->o, a.b.data + from, a.hole[i].at - from);
		from = a.hole[i].at;
		fill_hole(m, a.hole[i].kind);
	}
	out_put(&m->o, a.b.data + from, a.b.len - from);
	ts_buf_free(&a.b);
	return out_flush(&m->o);
}

void ts_mp4_set_limit(ts_mp4 *m, uint64_t limit)
{
	m->limit = limit;
}

int ts_mp4_errno(const ts_mp4 *m)
{
	return m->o.sys_errno ? m->o.sys_errno : m->sample_sizes.sys_errno;
}

void ts_mp4_free(ts_mp4 *m)
{
	if (!m)
		return;
	free(m->o.buf);
	free(m->sample_sizes.buf);
	free(m->runs);
	free(m);
}
