/* fixup.c - in-place repairs to files libsndfile has written (see
 * fixup.h).
 *
 * Both repairs touch header bytes only, so they read what they need, patch
 * it and write it back at the same offset; nothing else in the file moves.
 * Anything unexpected in an Ogg file is an error (its bytes would not be
 * reproducible); anything unexpected in an ID3 tag leaves the tag as it
 * is (it still plays, only its text may show wrong). */
#include "audio/fixup.h"

#include "base/file.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* errno's message for path into *err; returns TS_EIO. */
static int io_failed(const char *path, ts_error *err)
{
	return ts_error_set(err, ts_errno_code(errno), "%s: %s", path, strerror(errno));
}

/* ---- Ogg ------------------------------------------------------------ */

/* The CRC of each 4-bit value, most significant bit first: a table of 16
 * keeps the code small, and the pages of a chapter are a few megabytes. */
static const uint32_t crc_nibble[16] = {
    0x00000000, 0x04c11db7, 0x09823b6e, 0x0d4326d9, 0x130476dc, 0x17c56b6b, 0x1a864db2, 0x1e475005,
    0x2608edb8, 0x22c9f00f, 0x2f8ad6d6, 0x2b4bcb61, 0x350c9b64, 0x31cd86d3, 0x3c8ea00a, 0x384fbdbd,
};

uint32_t ts_ogg_crc(uint32_t crc, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		crc = (crc << 4) ^ crc_nibble[(crc >> 28) ^ (p[i] >> 4)];
		crc = (crc << 4) ^ crc_nibble[(crc >> 28) ^ (p[i] & 15u)];
	}
	return crc;
}

/* A page: 27 bytes of header, up to 255 lacing values, up to 255 * 255
 * bytes of body. */
enum { OGG_HEADER = 27, OGG_PAGE_MAX = 27 + 255 + 255 * 255 };

/* The checksum of a page with its checksum field taken as zero. */
static uint32_t page_crc(unsigned char *page, size_t len)
{
	unsigned char saved[4];
	memcpy(saved, page + 22, 4);
	memset(page + 22, 0, 4);
	uint32_t crc = ts_ogg_crc(0, page, len);
	memcpy(page + 22, saved, 4);
	return crc;
}

int ts_ogg_set_serial(const char *path, uint32_t serial, ts_error *err)
{
	int rc = 0;
	unsigned char *page = NULL;
	off_t off = 0;
	uint32_t stream = 0;
	long pages = 0;
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		goto io_error;
	if (!(page = malloc(OGG_PAGE_MAX))) {
		rc = ts_error_set(err, TS_ENOMEM, "out of memory");
		goto out;
	}
	for (;; pages++) {
		ssize_t got = ts_pread_full(fd, page, OGG_HEADER, off);
		if (got < 0)
			goto io_error;
		if (got == 0)
			break;
		if (got < OGG_HEADER || memcmp(page, "OggS", 4) != 0 || page[4] != 0)
			goto bad_page;
		size_t nseg = page[26], body = 0;
		if (ts_pread_full(fd, page + OGG_HEADER, nseg, off + OGG_HEADER) != (ssize_t)nseg)
			goto bad_page;
		for (size_t i = 0; i < nseg; i++)
			body += page[OGG_HEADER + i];
		size_t len = OGG_HEADER + nseg + body;
		got = ts_pread_full(fd, page + OGG_HEADER + nseg, body,
		                    off + (off_t)(OGG_HEADER + nseg));
		if (got < 0)
			goto io_error;
		/* A page that was already damaged, or a second stream, means
		 * this is not the file libsndfile was asked to write. */
		if ((size_t)got != body || page_crc(page, len) != get_le32(page + 22))
			goto bad_page;
		if (pages == 0)
			stream = get_le32(page + 14);
		else if (get_le32(page + 14) != stream)
			goto bad_page;
		put_le32(page + 14, serial);
		put_le32(page + 22, page_crc(page, len));
		if (ts_pwrite_full(fd, page, OGG_HEADER, off) != 0)
			goto io_error;
		off += (off_t)len;
	}
	if (pages == 0)
		goto bad_page;
	goto out;
bad_page:
	rc = ts_error_set(err, TS_EAUDIO, "%s: not a single Ogg stream at byte %lld", path,
	                  (long long)off);
	goto out;
io_error:
	rc = io_failed(path, err);
out:
	if (fd >= 0 && close(fd) != 0 && !rc)
		rc = io_failed(path, err);
	free(page);
	return rc;
}

/* ---- ID3 ------------------------------------------------------------ */

/* LAME writes a tag of a few hundred bytes; one much larger is not
 * LAME's, and is left alone rather than read into memory. */
enum { ID3_TAG_MAX = 64 * 1024 };

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* ID3v2's 28-bit integers: 7 bits a byte, the top bit always clear. */
static void put_syncsafe(unsigned char *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 7)
		p[i] = v & 0x7f;
}

static uint32_t get_syncsafe(const unsigned char *p)
{
	return (uint32_t)p[0] << 21 | (uint32_t)p[1] << 14 | (uint32_t)p[2] << 7 | p[3];
}

/* Rewrite the frames of an ID3v2.3 tag body (size bytes) as ID3v2.4: frame
 * sizes become syncsafe, Latin-1 text frames whose bytes are valid UTF-8
 * are marked UTF-8.  Returns 0, or -1 for a tag this does not understand
 * (tag may then be half rewritten: not to be written back). */
static int id3v23_to_v24(unsigned char *tag, uint32_t size)
{
	uint32_t pos = 0;
	while (pos + 10 <= size && tag[pos] != 0) { /* a zero byte starts the padding */
		const unsigned char *id = tag + pos;
		for (int i = 0; i < 4; i++)
			if (!((id[i] >= 'A' && id[i] <= 'Z') || (id[i] >= '0' && id[i] <= '9')))
				return -1;
		uint32_t fsz = get_be32(tag + pos + 4);
		/* Flags (compression, encryption, grouping) differ between
		 * versions: LAME sets none. */
		if (fsz > size - pos - 10 || fsz >= (1u << 28) || tag[pos + 8] || tag[pos + 9])
			return -1;
		put_syncsafe(tag + pos + 4, fsz);
		const unsigned char *text = tag + pos + 10;
		int has_encoding = id[0] == 'T' || memcmp(id, "COMM", 4) == 0;
		if (has_encoding && fsz > 1 && text[0] == 0 &&
		    ts_utf8_check((const char *)text + 1, fsz - 1, 1) == fsz - 1)
			tag[pos + 10] = 3; /* UTF-8 */
		pos += 10 + fsz;
	}
	return 0;
}

/* ID3v1: "TAG", title, artist, album (30 bytes each), year (4), comment
 * (30), genre (1). */
static int id3v1_is_ascii(const unsigned char *t)
{
	for (int i = 3; i < 3 + 30 * 3 + 4 + 30; i++)
		if (t[i] >= 0x80)
			return 0;
	return 1;
}

int ts_id3_utf8(const char *path, ts_error *err)
{
	int rc = 0;
	unsigned char *tag = NULL;
	unsigned char h[10], v1[128];
	struct stat st;
	ssize_t got;
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		goto io_error;
	got = ts_pread_full(fd, h, sizeof h, 0);
	if (got < 0)
		goto io_error;
	if (got == sizeof h && memcmp(h, "ID3", 3) == 0 && h[3] == 3 && h[4] == 0 && h[5] == 0 &&
	    !((h[6] | h[7] | h[8] | h[9]) & 0x80)) {
		uint32_t size = get_syncsafe(h + 6);
		if (size <= ID3_TAG_MAX) {
			if (!(tag = malloc(size ? size : 1))) {
				rc = ts_error_set(err, TS_ENOMEM, "out of memory");
				goto out;
			}
			got = ts_pread_full(fd, tag, size, sizeof h);
			if (got < 0)
				goto io_error;
			if ((uint32_t)got == size && id3v23_to_v24(tag, size) == 0) {
				h[3] = 4;
				if (ts_pwrite_full(fd, tag, size, sizeof h) != 0 ||
				    ts_pwrite_full(fd, h, sizeof h, 0) != 0)
					goto io_error;
			}
		}
	}
	if (fstat(fd, &st) != 0)
		goto io_error;
	if (st.st_size >= (off_t)sizeof v1) {
		got = ts_pread_full(fd, v1, sizeof v1, st.st_size - (off_t)sizeof v1);
		if (got < 0)
			goto io_error;
		if (got == sizeof v1 && memcmp(v1, "TAG", 3) == 0 && !id3v1_is_ascii(v1) &&
		    ftruncate(fd, st.st_size - (off_t)sizeof v1) != 0)
			goto io_error;
	}
	goto out;
io_error:
	rc = io_failed(path, err);
out:
	if (fd >= 0 && close(fd) != 0 && !rc)
		rc = io_failed(path, err);
	free(tag);
	return rc;
}
