/* epub.c - the whole book as a read-aloud EPUB 3 (see epub.h).
 *
 * Everything from the book (titles, the author, the sentences) goes into
 * the documents through ts_html_text(): escaped, control characters left
 * out, so that a hostile title stays text.  Times are whole milliseconds,
 * as in the .vtt, so that each overlay's duration is exactly the sum of
 * its clips and the book's the sum of the overlays'. */
#include "publish/epub.h"

#include "base/file.h"
#include "base/hash.h"
#include "base/util.h"
#include "publish/html.h"
#include "publish/m4b.h"
#include "publish/webvtt.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zip.h>

#define VTT_MAX      (64u << 20)
#define ACTIVE_CLASS "-epub-media-overlay-active"
/* Every entry's time: a fixed one, so that the same book gives the same
 * bytes (2000-01-01 00:00:00 UTC). */
#define ENTRY_MTIME 946684800

/* The extension of a chapter's audio in the archive, by its media type. */
static const char *audio_ext(const ts_epub_chapter *c)
{
	return strcmp(c->audio_type, "audio/mpeg") == 0 ? "mp3" : "m4a";
}

/* Milliseconds as a SMIL clock value, "h:mm:ss.fff". */
static int clock_value(ts_buf *b, long long ms)
{
	return ts_buf_printf(b, "%lld:%02lld:%02lld.%03lld", ms / 3600000, ms / 60000 % 60,
	                     ms / 1000 % 60, ms % 1000);
}

static long long to_ms(double s)
{
	return (long long)(s * 1000 + 0.5);
}

/* The top of an XHTML document titled title. */
static int xhtml_top(ts_buf *b, const char *title)
{
	int rc = ts_buf_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n"
	                          "<html xmlns=\"http://www.w3.org/1999/xhtml\" "
	                          "xmlns:epub=\"http://www.idpf.org/2007/ops\" xml:lang=\"zh\" "
	                          "lang=\"zh\">\n<head>\n<meta charset=\"UTF-8\"/>\n<title>");
	rc |= ts_html_text(b, title);
	rc |= ts_buf_printf(b, "</title>\n<link rel=\"stylesheet\" type=\"text/css\" "
	                       "href=\"style.css\"/>\n</head>\n<body>\n");
	return rc;
}

/* Chapter k's XHTML (its sentences, s1, s2 ... in paragraphs; the first
 * as the heading when it is the title spoken) and SMIL documents; *ms
 * gets the overlay's duration. */
static int chapter_docs(ts_buf *x, ts_buf *smil, size_t k, const ts_epub_chapter *c,
                        const ts_cue *cue, size_t n, long long *ms)
{
	char doc[32], audio[32];
	const char *ext = audio_ext(c);
	snprintf(doc, sizeof doc, "c%03zu.xhtml", k + 1);
	snprintf(audio, sizeof audio, "audio/c%03zu.%s", k + 1, ext);
	int rc = xhtml_top(x, c->title);
	rc |= ts_buf_printf(x, "<section id=\"chapter\" epub:type=\"chapter\">\n");
	/* The title spoken, or its end: a chapter after its volume's first
	 * says only its own heading (第2章 下山 of 第一卷 潜龙在渊 第2章 下山),
	 * which keeps the volume before it, unspoken. */
	size_t tl = strlen(c->title), cl = n > 0 ? strlen(cue[0].text) : 0;
	int heading = n > 0 && strcmp(cue[0].text, c->title) == 0;
	size_t before = 0;
	if (!heading && cl > 0 && cl + 1 < tl && c->title[tl - cl - 1] == ' ' &&
	    strcmp(c->title + tl - cl, cue[0].text) == 0)
		heading = 1, before = tl - cl;
	if (!heading) { /* the title is not spoken: a heading of its own */
		rc |= ts_buf_printf(x, "<h1>");
		rc |= ts_html_text(x, c->title);
		rc |= ts_buf_printf(x, "</h1>\n");
	}
	rc |= ts_buf_printf(smil,
	                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	                    "<smil xmlns=\"http://www.w3.org/ns/SMIL\" "
	                    "xmlns:epub=\"http://www.idpf.org/2007/ops\" version=\"3.0\">\n"
	                    "<body>\n<seq id=\"seq1\" epub:textref=\"%s#chapter\">\n",
	                    doc);
	*ms = 0;
	int open = 0; /* a <p> is open */
	for (size_t i = 0; i < n && !rc; i++) {
		if (i == 0 && heading && before) {
			rc |= ts_buf_printf(x, "<h1>");
			char *vol = ts_strndup(c->title, before);
			rc |= vol ? ts_html_text(x, vol) : TS_ENOMEM;
			free(vol);
			rc |= ts_buf_printf(x, "<span id=\"s1\">");
		} else if (i == 0 && heading) {
			rc |= ts_buf_printf(x, "<h1 id=\"s1\">");
		} else {
			if (open && (cue[i].paragraph || i == 1))
				rc |= ts_buf_printf(x, "</p>\n"), open = 0;
			if (!open)
				rc |= ts_buf_printf(x, "<p>"), open = 1;
			rc |= ts_buf_printf(x, "<span id=\"s%zu\">", i + 1);
		}
		rc |= ts_html_text(x, cue[i].text);
		rc |= ts_buf_printf(x, i == 0 && heading && before ? "</span></h1>\n"
		                       : i == 0 && heading         ? "</h1>\n"
		                                                   : "</span>");
		long long b = to_ms(cue[i].start), e = to_ms(cue[i].end);
		*ms += e - b;
		rc |= ts_buf_printf(smil,
		                    "<par id=\"p%zu\"><text src=\"%s#s%zu\"/><audio src=\"%s\" "
		                    "clipBegin=\"",
		                    i + 1, doc, i + 1, audio);
		rc |= clock_value(smil, b);
		rc |= ts_buf_printf(smil, "\" clipEnd=\"");
		rc |= clock_value(smil, e);
		rc |= ts_buf_printf(smil, "\"/></par>\n");
	}
	if (open)
		rc |= ts_buf_printf(x, "</p>\n");
	rc |= ts_buf_printf(x, "</section>\n</body>\n</html>\n");
	rc |= ts_buf_printf(smil, "</seq>\n</body>\n</smil>\n");
	return rc ? TS_ENOMEM : 0;
}

/* nav.xhtml and toc.ncx. */
static int toc_docs(ts_buf *nav, ts_buf *ncx, const ts_epub_chapter *ch, size_t n,
                    const ts_epub_opts *o)
{
	int rc = xhtml_top(nav, o->title);
	rc |= ts_buf_printf(nav, "<nav epub:type=\"toc\" id=\"toc\">\n<h1>目录</h1>\n<ol>\n");
	rc |= ts_buf_printf(ncx, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	                         "<ncx xmlns=\"http://www.daisy.org/z3986/2005/ncx/\" "
	                         "version=\"2005-1\" xml:lang=\"zh\">\n<head>\n"
	                         "<meta name=\"dtb:uid\" content=\"");
	rc |= ts_html_text(ncx, o->identifier);
	rc |= ts_buf_printf(ncx, "\"/>\n<meta name=\"dtb:depth\" content=\"1\"/>\n"
	                         "<meta name=\"dtb:totalPageCount\" content=\"0\"/>\n"
	                         "<meta name=\"dtb:maxPageNumber\" content=\"0\"/>\n</head>\n"
	                         "<docTitle><text>");
	rc |= ts_html_text(ncx, o->title);
	rc |= ts_buf_printf(ncx, "</text></docTitle>\n<navMap>\n");
	for (size_t k = 0; k < n; k++) {
		rc |= ts_buf_printf(nav, "<li><a href=\"c%03zu.xhtml\">", k + 1);
		rc |= ts_html_text(nav, ch[k].title);
		rc |= ts_buf_printf(nav, "</a></li>\n");
		rc |= ts_buf_printf(ncx, "<navPoint id=\"n%zu\" playOrder=\"%zu\"><navLabel><text>",
		                    k + 1, k + 1);
		rc |= ts_html_text(ncx, ch[k].title);
		rc |= ts_buf_printf(
		    ncx, "</text></navLabel><content src=\"c%03zu.xhtml\"/></navPoint>\n", k + 1);
	}
	rc |= ts_buf_printf(nav, "</ol>\n</nav>\n</body>\n</html>\n");
	rc |= ts_buf_printf(ncx, "</navMap>\n</ncx>\n");
	return rc ? TS_ENOMEM : 0;
}

/* Is the cover picture at path a PNG (else a JPEG: it was checked as one
 * or the other), by its first bytes? */
static int cover_is_png(const char *path)
{
	unsigned char head[2] = {0};
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(head, 1, sizeof head, f) : 0;
	if (f)
		fclose(f);
	return n == 2 && head[0] == 0x89 && head[1] == 'P';
}

/* The package document; ms[k] is chapter k's overlay's duration, -1 for
 * a chapter without one. */
static int package_doc(ts_buf *b, const ts_epub_chapter *ch, size_t n, const long long *ms,
                       const ts_epub_opts *o, int png)
{
	long long total = 0;
	int rc = ts_buf_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	                          "<package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\" "
	                          "unique-identifier=\"uid\" xml:lang=\"zh\">\n"
	                          "<metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\">\n"
	                          "<dc:identifier id=\"uid\">");
	rc |= ts_html_text(b, o->identifier);
	rc |= ts_buf_printf(b, "</dc:identifier>\n<dc:title>");
	rc |= ts_html_text(b, o->title);
	rc |= ts_buf_printf(b, "</dc:title>\n");
	if (o->author && o->author[0]) {
		rc |= ts_buf_printf(b, "<dc:creator>");
		rc |= ts_html_text(b, o->author);
		rc |= ts_buf_printf(b, "</dc:creator>\n");
	}
	if (o->cover)
		rc |= ts_buf_printf(b, "<meta name=\"cover\" content=\"cover\"/>\n");
	rc |= ts_buf_printf(b,
	                    "<dc:language>zh</dc:language>\n"
	                    "<meta property=\"dcterms:modified\">%s</meta>\n",
	                    o->modified);
	for (size_t k = 0; k < n; k++) {
		if (ms[k] < 0)
			continue;
		total += ms[k];
		rc |= ts_buf_printf(b, "<meta property=\"media:duration\" refines=\"#mo%zu\">",
		                    k + 1);
		rc |= clock_value(b, ms[k]);
		rc |= ts_buf_printf(b, "</meta>\n");
	}
	rc |= ts_buf_printf(b, "<meta property=\"media:duration\">");
	rc |= clock_value(b, total);
	rc |= ts_buf_printf(b, "</meta>\n<meta property=\"media:active-class\">" ACTIVE_CLASS
	                       "</meta>\n</metadata>\n<manifest>\n"
	                       "<item id=\"nav\" href=\"nav.xhtml\" "
	                       "media-type=\"application/xhtml+xml\" properties=\"nav\"/>\n"
	                       "<item id=\"ncx\" href=\"toc.ncx\" "
	                       "media-type=\"application/x-dtbncx+xml\"/>\n"
	                       "<item id=\"css\" href=\"style.css\" media-type=\"text/css\"/>\n");
	if (o->cover)
		rc |= ts_buf_printf(b,
		                    "<item id=\"cover\" href=\"cover.%s\" media-type=\"image/%s\" "
		                    "properties=\"cover-image\"/>\n",
		                    png ? "png" : "jpg", png ? "png" : "jpeg");
	for (size_t k = 0; k < n; k++) {
		const char *ext = audio_ext(&ch[k]);
		rc |= ts_buf_printf(b,
		                    "<item id=\"c%zu\" href=\"c%03zu.xhtml\" "
		                    "media-type=\"application/xhtml+xml\"",
		                    k + 1, k + 1);
		if (ms[k] >= 0)
			rc |= ts_buf_printf(
			    b,
			    " media-overlay=\"mo%zu\"/>\n<item id=\"mo%zu\" "
			    "href=\"c%03zu.smil\" media-type=\"application/smil+xml\"",
			    k + 1, k + 1, k + 1);
		rc |= ts_buf_printf(
		    b, "/>\n<item id=\"a%zu\" href=\"audio/c%03zu.%s\" media-type=\"%s\"/>\n",
		    k + 1, k + 1, ext, ch[k].audio_type);
	}
	rc |= ts_buf_printf(b, "</manifest>\n<spine toc=\"ncx\">\n");
	for (size_t k = 0; k < n; k++)
		rc |= ts_buf_printf(b, "<itemref idref=\"c%zu\"/>\n", k + 1);
	rc |= ts_buf_printf(b, "</spine>\n</package>\n");
	return rc ? TS_ENOMEM : 0;
}

static const char container_xml[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<container version=\"1.0\" xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\">\n"
    "<rootfiles>\n<rootfile full-path=\"EPUB/package.opf\" "
    "media-type=\"application/oebps-package+xml\"/>\n</rootfiles>\n</container>\n";

static const char style_css[] = "body { line-height: 1.8; }\n"
                                "p { text-indent: 2em; margin: 0.4em 0; }\n"
                                "h1 { font-size: 1.4em; text-align: center; }\n"
                                "." ACTIVE_CLASS " { background-color: #ffe08a; color: #000; }\n";

/* An archive being made, and why it failed. */
typedef struct archive {
	zip_t *za;
	ts_error *err;
	const char *path;
} archive;

/* Add name to the archive from buffer b (taken: emptied) or, when file
 * is not NULL, from that file, read as the archive is written; stored
 * (not compressed) when store.  0 or a code with a->err filled. */
static int add(archive *a, const char *name, ts_buf *b, const char *file, int store)
{
	zip_source_t *src;
	if (file)
		src = zip_source_file(a->za, file, 0, -1);
	else {
		src = zip_source_buffer(a->za, b->data ? b->data : "", b->len, b->data != NULL);
		if (src)
			*b = (ts_buf){0}; /* the source frees it */
	}
	zip_int64_t i = src ? zip_file_add(a->za, name, src, ZIP_FL_ENC_UTF_8) : -1;
	if (i < 0 && src)
		zip_source_free(src);
	if (i < 0 ||
	    zip_set_file_compression(a->za, (zip_uint64_t)i, store ? ZIP_CM_STORE : ZIP_CM_DEFLATE,
	                             0) ||
	    zip_file_set_mtime(a->za, (zip_uint64_t)i, ENTRY_MTIME, 0))
		return ts_error_set(a->err, TS_EIO, "%s: cannot add %s: %s", a->path, name,
		                    zip_error_strerror(zip_get_error(a->za)));
	return 0;
}

/* libzip's question while it writes: stop? */
static int stop_asked(zip_t *za, void *cancel)
{
	(void)za;
	return *(volatile sig_atomic_t *)cancel != 0;
}

/* The documents of every chapter into the archive; ms[k] gets each
 * overlay's duration. */
static int add_chapters(archive *a, const ts_epub_chapter *ch, size_t n, long long *ms,
                        volatile sig_atomic_t *cancel)
{
	int rc = 0;
	for (size_t k = 0; k < n && !rc; k++) {
		if (cancel && *cancel)
			return ts_error_set(a->err, TS_ECANCELED, "%s: interrupted", a->path);
		ts_cue *cues = NULL;
		size_t nc = 0;
		ts_buf x = {0}, smil = {0};
		char name[64];
		int e;
		if ((rc = ts_vtt_read(ch[k].vtt, VTT_MAX, &cues, &nc, &e, a->err)))
			break;
		if (chapter_docs(&x, &smil, k, &ch[k], cues, nc, &ms[k]))
			rc = ts_error_set(a->err, TS_ENOMEM, NULL);
		if (nc == 0)
			ms[k] = -1; /* nothing to pair: no overlay */
		snprintf(name, sizeof name, "EPUB/c%03zu.xhtml", k + 1);
		if (!rc)
			rc = add(a, name, &x, NULL, 0);
		snprintf(name, sizeof name, "EPUB/c%03zu.smil", k + 1);
		if (!rc && nc)
			rc = add(a, name, &smil, NULL, 0);
		snprintf(name, sizeof name, "EPUB/audio/c%03zu.%s", k + 1, audio_ext(&ch[k]));
		if (!rc)
			rc = add(a, name, NULL, ch[k].audio, 1);
		ts_buf_free(&x);
		ts_buf_free(&smil);
		ts_vtt_free(cues, nc);
	}
	return rc;
}

int ts_epub_write(const char *path, const ts_epub_chapter *ch, size_t n, const ts_epub_opts *o,
                  ts_error *err)
{
	char *tmp = ts_temp_name(path, o->owner_pid);
	long long *ms = calloc(n ? n : 1, sizeof *ms);
	ts_buf mimetype = {0}, nav = {0}, ncx = {0}, opf = {0}, css = {0}, cont = {0};
	archive a = {.err = err, .path = path};
	int rc = 0, ze = 0, png = o->cover && cover_is_png(o->cover);
	if (!tmp || !ms) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	if (!(a.za = zip_open(tmp, ZIP_CREATE | ZIP_EXCL, &ze))) {
		zip_error_t e;
		zip_error_init_with_code(&e, ze);
		rc = ts_error_set(err, ze == ZIP_ER_MEMORY ? TS_ENOMEM : TS_EIO,
		                  "%s: cannot create it: %s", tmp, zip_error_strerror(&e));
		zip_error_fini(&e);
		goto out;
	}
	/* "mimetype" first and stored, as the standard wants. */
	if (ts_buf_printf(&mimetype, "application/epub+zip") ||
	    ts_buf_append(&cont, container_xml, sizeof container_xml - 1) ||
	    ts_buf_append(&css, style_css, sizeof style_css - 1)) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	if ((rc = add(&a, "mimetype", &mimetype, NULL, 1)) ||
	    (rc = add(&a, "META-INF/container.xml", &cont, NULL, 0)) ||
	    (rc = add(&a, "EPUB/style.css", &css, NULL, 0)) ||
	    (rc = add_chapters(&a, ch, n, ms, o->cancel)))
		goto out;
	if (toc_docs(&nav, &ncx, ch, n, o) || package_doc(&opf, ch, n, ms, o, png)) {
		rc = ts_error_set(err, TS_ENOMEM, NULL);
		goto out;
	}
	if (o->cover &&
	    (rc = add(&a, png ? "EPUB/cover.png" : "EPUB/cover.jpg", NULL, o->cover, 1)))
		goto out;
	if ((rc = add(&a, "EPUB/nav.xhtml", &nav, NULL, 0)) ||
	    (rc = add(&a, "EPUB/toc.ncx", &ncx, NULL, 0)) ||
	    (rc = add(&a, "EPUB/package.opf", &opf, NULL, 0)))
		goto out;
	/* Written now: the audio read from its files; libzip asks whether
	 * to stop as it goes, and removes what it wrote. */
	if (o->cancel)
		zip_register_cancel_callback_with_state(a.za, stop_asked, NULL, (void *)o->cancel);
	if (zip_close(a.za) != 0) {
		zip_error_t *e = zip_get_error(a.za);
		int sys = zip_error_code_system(e);
		if (zip_error_code_zip(e) == ZIP_ER_CANCELLED)
			rc = ts_error_set(err, TS_ECANCELED, "%s: interrupted", path);
		else
			rc = ts_error_set(err, sys ? ts_errno_code(sys) : TS_EIO,
			                  "%s: cannot write it: %s", path, zip_error_strerror(e));
		goto out;
	}
	a.za = NULL;
out:
	if (a.za)
		zip_discard(a.za); /* nothing written */
	if (rc && tmp)
		unlink(tmp);
	ts_buf_free(&mimetype);
	ts_buf_free(&cont);
	ts_buf_free(&css);
	ts_buf_free(&nav);
	ts_buf_free(&ncx);
	ts_buf_free(&opf);
	free(ms);
	free(tmp);
	return rc;
}

/* A stable identifier for the book, from its title and author, into id
 * (64 bytes): "urn:uuid:...". */
static void book_identifier(const ts_bookfile *book, char *id, size_t size)
{
	ts_hash h;
	char hex[TS_HASH_HEX];
	ts_hash_init(&h);
	ts_hash_str(&h, book->title);
	ts_hash_str(&h, book->author ? book->author : "");
	ts_hash_hex(&h, hex);
	snprintf(id, size, "urn:uuid:%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16,
	         hex + 20);
}

/* When the book was modified, into when (32 bytes): SOURCE_DATE_EPOCH
 * when it is set (reproducible-builds.org), else the fixed time of the
 * entries: never a time from the file system or the clock, so that two
 * builds of one book give the same bytes.  0, or TS_EINVAL with err
 * filled when SOURCE_DATE_EPOCH is not a number of seconds. */
static int book_modified(char *when, size_t size, ts_error *err)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	long long t = ENTRY_MTIME;
	char *end = NULL;
	struct tm tm;
	if (sde) {
		errno = 0;
		t = strtoll(sde, &end, 10);
		/* Up to the year 9999, which the date's four digits hold. */
		if (!*sde || *end || errno || *sde == '-' || *sde == '+' || t > 253402300799LL)
			return ts_error_set(err, TS_EINVAL,
			                    "SOURCE_DATE_EPOCH=%s: not a number of seconds since "
			                    "1970-01-01 (the EPUB's date)",
			                    sde);
	}
	time_t tt = (time_t)t;
	strftime(when, size, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&tt, &tm));
	return 0;
}

/* The EPUB's audio: the chapters' own files when they are MP3 (a core
 * media type), else each chapter's AAC (audio/mp4) in an MP4 of its own,
 * its packets copied (ts_m4b_write()), not encoded again, at the
 * temporary names of WORKDIR/epub-NNN.m4a, removed once the EPUB is
 * made. */
int ts_epub_make(const char *path, const ts_bookfile *book, ts_error *err)
{
	size_t n = book->n;
	ts_epub_chapter *ch = calloc(n ? n : 1, sizeof *ch);
	char **m4a = calloc(n ? n : 1, sizeof *m4a);
	int mp3 = strcmp(book->audio_format, "mp3") == 0, rc = 0;
	char tmp[PATH_MAX], id[64], when[32];
	if (!ch || !m4a)
		rc = ts_error_set(err, TS_ENOMEM, NULL);
	else
		rc = book_modified(when, sizeof when, err);
	for (size_t j = 0; j < n && !rc; j++) {
		const ts_bookfile_chapter *c = &book->chapters[j];
		if (!c->vtt) { /* the book layer asks for vtt with --book epub */
			rc = ts_error_set(err, TS_EINVAL,
			                  "%s: the EPUB needs its WebVTT timing file", c->title);
			break;
		}
		ch[j] = (ts_epub_chapter){.title = c->title,
		                          .vtt = c->vtt,
		                          .audio = c->audio,
		                          .audio_type = mp3 ? "audio/mpeg" : "audio/mp4"};
		if (mp3)
			continue;
		ts_m4b_chapter one = {c->title, c->aac};
		ts_m4b_opts o = {.title = book->title,
		                 .artist = book->author,
		                 .owner_pid = book->owner_pid,
		                 .cancel = book->cancel,
		                 .scratch = 1};
		snprintf(tmp, sizeof tmp, "%s/epub-%03zu.m4a", book->workdir, j + 1);
		if ((rc = ts_m4b_write(tmp, &one, 1, &o, err)))
			break;
		if (!(m4a[j] = ts_temp_name(tmp, book->owner_pid)))
			rc = ts_error_set(err, TS_ENOMEM, NULL);
		ch[j].audio = m4a[j];
	}
	book_identifier(book, id, sizeof id);
	ts_epub_opts o = {.title = book->title,
	                  .author = book->author,
	                  .identifier = id,
	                  .modified = when,
	                  .cover = book->cover,
	                  .owner_pid = book->owner_pid,
	                  .cancel = book->cancel};
	if (!rc)
		rc = ts_epub_write(path, ch, n, &o, err);
	for (size_t j = 0; m4a && j < n; j++) {
		if (m4a[j])
			unlink(m4a[j]);
		free(m4a[j]);
	}
	free(m4a);
	free(ch);
	return rc;
}
