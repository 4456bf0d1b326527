/* epubread.c - the text and chapters of an EPUB (see epubread.h), with
 * libzip for the container and libxml2 for its documents: the parser the
 * EPUB kind of input (epub.c) reads a book with. */
#define _GNU_SOURCE /* memrchr */
#include "input/epubread.h"

#include "base/util.h"
#include "text/encoding.h"

#include <ctype.h>
#include <errno.h>
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <zip.h>

#define COVER_MAX (20u << 20)

typedef struct item {
	char *id, *name, *type, *props; /* name: the zip entry */
} item;

typedef struct toc_entry {
	char *title;
	size_t doc;  /* index in the spine */
	char *frag;  /* where in it, or NULL for its start */
	int started; /* its chapter was started */
} toc_entry;

typedef struct reader {
	const char *display;
	ts_error *err;
	zip_t *za;
	char *opf_dir; /* folder of the package document, "" or ending in '/' */
	item *items;
	size_t nitems;
	size_t *spine; /* linear documents, as indexes of items */
	char *skip;    /* per spine document: not the book's text (guide, nav) */
	size_t nspine;
	item **by_id;    /* the items sorted by id */
	size_t *by_name; /* the spine's indexes sorted by their documents' names */
	char *toc_id, *cover_id;
	toc_entry *toc;
	size_t ntoc;
	size_t doc;      /* the spine document being read */
	size_t next_toc; /* the first entry not started */
	FILE *out;
	long pos, line; /* bytes and lines written */
	ts_buf para;    /* the paragraph being gathered */
	int space;      /* a space is pending in it */
	uint32_t last;  /* its last character */
	int fresh;      /* the open chapter has no text yet: a heading is its title */
	ts_epub_book *book;
	int open; /* a chapter is open */
	int rc;
	char xml_why[400]; /* what the XML parser last found wrong, "FILE:LINE: what" */
} reader;

/* ---- small helpers -------------------------------------------------- */

static int fail(reader *r, int code, const char *fmt, const char *what)
{
	if (!r->rc) {
		char msg[700];
		snprintf(msg, sizeof msg, fmt, what ? what : "");
		r->rc = ts_error_set(r->err, code, "%s: %s", r->display, msg);
	}
	return r->rc;
}

static int oom(reader *r)
{
	if (!r->rc)
		r->rc = ts_error_set(r->err, TS_ENOMEM, NULL);
	return r->rc;
}

static const char *local_name(const xmlNode *n)
{
	return n && n->name ? (const char *)n->name : "";
}

static int is(const xmlNode *n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && strcasecmp(local_name(n), name) == 0;
}

/* An attribute by its name, with or without a prefix ("epub:type" in the
 * HTML parser's view, "type" in the epub namespace in the XML one). */
static char *attr(const xmlNode *n, const char *name)
{
	const char *colon = strchr(name, ':');
	size_t plen = colon ? (size_t)(colon - name) : 0;
	for (const xmlAttr *a = n->properties; a; a = a->next) {
		const char *an = (const char *)a->name;
		const char *prefix = a->ns && a->ns->prefix ? (const char *)a->ns->prefix : NULL;
		if (strcasecmp(an, name) == 0 ||
		    (colon && prefix && strlen(prefix) == plen &&
		     strncasecmp(prefix, name, plen) == 0 && strcasecmp(an, colon + 1) == 0))
			return (char *)xmlNodeGetContent((const xmlNode *)a);
	}
	return NULL;
}

/* Does the space-separated list s hold one of the words? */
static int has_word(const char *s, const char *const *words)
{
	for (const char *p = s; p && *p;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		size_t n = strcspn(p, " \t\n");
		for (size_t i = 0; n && words[i]; i++)
			if (strlen(words[i]) == n && strncasecmp(p, words[i], n) == 0)
				return 1;
		p += n;
	}
	return 0;
}

/* The text of a node, whitespace folded; the caller frees it. */
static char *folded_text(const xmlNode *n)
{
	char *t = (char *)xmlNodeGetContent(n);
	if (!t)
		return NULL;
	size_t o = 0;
	int space = 0;
	for (size_t i = 0; t[i]; i++) {
		unsigned char c = (unsigned char)t[i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
			space = o > 0;
			continue;
		}
		if (space)
			t[o++] = ' ';
		space = 0;
		t[o++] = (char)c;
	}
	t[o] = '\0';
	char *s = ts_strdup(t);
	xmlFree(t);
	return s;
}

/* ---- the container ------------------------------------------------- */

/* The entry name of href (a URL relative to the folder dir: percent
 * escapes decoded, "." and ".." resolved); NULL when it leaves the
 * container or memory runs out.  *frag gets its fragment (or NULL). */
static char *resolve(const char *dir, const char *href, char **frag)
{
	*frag = NULL;
	ts_buf raw = {0}, out = {0};
	const char *h = strchr(href, '#');
	size_t n = h ? (size_t)(h - href) : strlen(href);
	if (h && h[1] && !(*frag = ts_strdup(h + 1)))
		return NULL;
	if (href[0] != '/')
		ts_buf_append(&raw, dir, strlen(dir));
	for (size_t i = href[0] == '/'; i < n; i++) {
		char c = href[i];
		if (c == '?')
			break;
		if (c == '%' && i + 2 < n + 1 && isxdigit((unsigned char)href[i + 1]) &&
		    isxdigit((unsigned char)href[i + 2])) {
			char hex[3] = {href[i + 1], href[i + 2], 0};
			c = (char)strtol(hex, NULL, 16);
			i += 2;
		}
		ts_buf_putc(&raw, c);
	}
	ts_buf_putc(&raw, '\0');
	/* Segments, with "." and ".." folded; ".." above the root escapes. */
	int bad = ts_buf_error(&raw);
	char *p = raw.data;
	while (!bad && p && *p) {
		size_t k = strcspn(p, "/");
		if (k == 0 || (k == 1 && p[0] == '.')) {
		} else if (k == 2 && p[0] == '.' && p[1] == '.') {
			if (out.len == 0) {
				bad = 1;
				break;
			}
			char *slash = out.data ? memrchr(out.data, '/', out.len - 1) : NULL;
			out.len = slash ? (size_t)(slash - out.data) + 1 : 0;
		} else {
			ts_buf_append(&out, p, k);
			if (p[k] == '/')
				ts_buf_putc(&out, '/');
		}
		p += k + (p[k] == '/');
	}
	ts_buf_putc(&out, '\0');
	ts_buf_free(&raw);
	if (bad || ts_buf_error(&out) || out.len <= 1 || strlen(out.data) != out.len - 1) {
		ts_buf_free(&out);
		free(*frag);
		*frag = NULL;
		return NULL;
	}
	return out.data;
}

/* The entry name, its bytes (NUL-terminated) in *data and length in *n,
 * read with the bound.  0, or a code with r's error set. */
static int read_entry(reader *r, const char *name, char **data, size_t *n, size_t max)
{
	*data = NULL;
	*n = 0;
	zip_int64_t i = zip_name_locate(r->za, name, 0);
	if (i < 0)
		i = zip_name_locate(r->za, name, ZIP_FL_NOCASE);
	if (i < 0)
		return fail(r, TS_EINVAL, "%s is missing from the EPUB", name);
	zip_file_t *f = zip_fopen_index(r->za, (zip_uint64_t)i, 0);
	if (!f)
		return fail(r, TS_EINVAL, "%s cannot be read: not a valid EPUB (zip), or encrypted",
		            name);
	ts_buf b = {0};
	char block[65536];
	zip_int64_t k;
	while ((k = zip_fread(f, block, sizeof block)) > 0) {
		if (b.len + (size_t)k > max) {
			zip_fclose(f);
			ts_buf_free(&b);
			return fail(r, TS_EINVAL,
			            "%s is too large once uncompressed (more than 32 MB): not read",
			            name);
		}
		if (ts_buf_append(&b, block, (size_t)k)) {
			zip_fclose(f);
			ts_buf_free(&b);
			return oom(r);
		}
	}
	zip_fclose(f);
	if (k < 0) {
		ts_buf_free(&b);
		return fail(r, TS_EINVAL, "%s cannot be read: not a valid EPUB (zip), cut short?",
		            name);
	}
	if (ts_buf_putc(&b, '\0')) {
		ts_buf_free(&b);
		return oom(r);
	}
	*data = b.data;
	*n = b.len - 1;
	return 0;
}

/* An XML document of the EPUB, read leniently; what was wrong with it (a
 * depth or entity limit, a tag left open) kept in r->xml_why for when what
 * could be read of it is not enough. */
static xmlDoc *parse_xml(reader *r, const char *name)
{
	char *data;
	size_t n;
	if (read_entry(r, name, &data, &n, TS_EPUB_ENTRY_MAX))
		return NULL;
	xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
	xmlDoc *d = ctxt ? xmlCtxtReadMemory(ctxt, data, (int)n, name, NULL,
	                                     XML_PARSE_NONET | XML_PARSE_NOERROR |
	                                         XML_PARSE_NOWARNING | XML_PARSE_RECOVER)
	                 : NULL;
	if (ctxt && !ctxt->wellFormed && ctxt->lastError.message) {
		const char *m = ctxt->lastError.message;
		snprintf(r->xml_why, sizeof r->xml_why, "%s:%d: %.*s", name, ctxt->lastError.line,
		         (int)strcspn(m, "\n"), m);
	}
	if (ctxt)
		xmlFreeParserCtxt(ctxt);
	free(data);
	if (!d && !ctxt)
		oom(r);
	else if (!d)
		fail(r, TS_EINVAL, "%s is not readable XML", name);
	return d;
}

/* The encoding an XHTML document declares (its byte-order mark or XML
 * declaration); UTF-8, which EPUB requires, when it says none. */
static const char *declared_encoding(const char *data, size_t n, char *buf, size_t sz)
{
	if (n >= 2 && ((unsigned char)data[0] == 0xFF || (unsigned char)data[0] == 0xFE))
		return "UTF-16";
	if (n > 5 && strncmp(data, "<?xml", 5) == 0) {
		const char *end = memchr(data, '>', n < 200 ? n : 200);
		const char *e = end ? strstr(data, "encoding") : NULL;
		if (e && e < end) {
			e = strpbrk(e, "\"'");
			size_t k = e && e < end ? strcspn(e + 1, "\"'") : 0;
			if (k > 0 && k < sz) {
				memcpy(buf, e + 1, k);
				buf[k] = '\0';
				return buf;
			}
		}
	}
	return "UTF-8";
}

/* The encoding to read an XHTML document in: the one it declares; when
 * that is UTF-8 (said, or taken when it says none) and its bytes are not,
 * the one they look like, found as a text file's is (text/encoding.c).
 * NULL with r's error set when they are not text or in no encoding that
 * can be told: read as UTF-8 they would be noise, not the book. */
static const char *document_encoding(reader *r, const char *name, const char *data, size_t n,
                                     char *buf, size_t sz)
{
	char what[600];
	const char *enc = declared_encoding(data, n, buf, sz);
	if (ts_encoding_wide(enc))
		return enc;
	if (memchr(data, '\0', n)) {
		snprintf(what, sizeof what, "%s is not text (a NUL byte at byte %zu): not read",
		         name, (size_t)((const char *)memchr(data, '\0', n) - data));
		fail(r, TS_EINVAL, "%s", what);
		return NULL;
	}
	if (!ts_encoding_is_utf8(enc) || ts_utf8_check(data, n, 1) == n)
		return enc;
	ts_guess g;
	int rc = ts_encoding_guess(data, n, 1, &g);
	if (!rc) {
		snprintf(buf, sz, "%s", g.name);
		return buf;
	}
	if (rc == TS_ENOMEM)
		oom(r);
	else {
		snprintf(
		    what, sizeof what,
		    "%s is not UTF-8 (byte %zu) and its encoding cannot be told%s%s: not read; "
		    "declare it (<?xml version=\"1.0\" encoding=\"GBK\"?>) or convert it to UTF-8",
		    name, ts_utf8_check(data, n, 1), g.detector[0] ? "; uchardet says " : "",
		    g.detector);
		fail(r, TS_EINVAL, "%s", what);
	}
	return NULL;
}

/* Blank the internal subset of the document's DOCTYPE (<!DOCTYPE html
 * PUBLIC "..." [<!ENTITY nbsp "&#160;">]>, EPUB 2's way to name
 * entities): the HTML parser knows no subset and would read "]>" as text.
 * Its line breaks stay, so that lines still count. */
static void blank_internal_subset(char *data, size_t n)
{
	char *p = data, *e = data + n;
	while (p < e && (p = memchr(p, '<', (size_t)(e - p))) && p + 1 < e && p[1] == '?')
		p++; /* the XML declaration */
	if (!p || e - p < 9 || strncasecmp(p, "<!DOCTYPE", 9) != 0)
		return;
	for (p += 9; p < e && *p != '>' && *p != '['; p++)
		if (*p == '"' || *p == '\'') { /* a quoted identifier */
			char *q = memchr(p + 1, *p, (size_t)(e - p - 1));
			if (!q)
				return;
			p = q;
		}
	if (p == e || *p != '[')
		return;
	for (char *q = p + 1; q < e; q++) {
		if (*q != ']')
			continue;
		char *t = q + 1;
		while (t < e && isspace((unsigned char)*t))
			t++;
		if (t < e && *t == '>') {
			for (; p <= q; p++)
				if (*p != '\n')
					*p = ' ';
			return;
		}
	}
}

/* Past this many elements inside each other a document is refused, so
 * that what reads its tree (walk(), recursive) has a bound.  libxml2's
 * own limit (256, XML_PARSE_HUGE lifts it) would lose the rest of the
 * document without a word: it is ours instead, checked as each element
 * starts. */
enum { DEPTH_MAX = 1024 };

typedef struct depth_watch {
	startElementSAXFunc start;
	endElementSAXFunc end;
	int depth;
	int line; /* where the limit was passed, or 0 */
} depth_watch;

static void watch_start(void *ctx, const xmlChar *name, const xmlChar **atts)
{
	htmlParserCtxtPtr c = ctx;
	depth_watch *w = c->_private;
	if (++w->depth <= DEPTH_MAX) {
		w->start(ctx, name, atts);
	} else if (!w->line) {
		w->line = c->input ? c->input->line : -1;
		xmlStopParser(c);
	}
}

static void watch_end(void *ctx, const xmlChar *name)
{
	htmlParserCtxtPtr c = ctx;
	depth_watch *w = c->_private;
	if (w->depth-- <= DEPTH_MAX)
		w->end(ctx, name);
}

static xmlDoc *parse_html(reader *r, const char *name)
{
	char *data, enc[32];
	size_t n;
	if (read_entry(r, name, &data, &n, TS_EPUB_ENTRY_MAX))
		return NULL;
	const char *encoding = document_encoding(r, name, data, n, enc, sizeof enc);
	htmlParserCtxtPtr ctxt = encoding ? htmlNewParserCtxt() : NULL;
	xmlDoc *d = NULL;
	depth_watch w = {0};
	if (ctxt) {
		blank_internal_subset(data, n);
		w.start = ctxt->sax->startElement, w.end = ctxt->sax->endElement;
		ctxt->sax->startElement = watch_start, ctxt->sax->endElement = watch_end;
		ctxt->_private = &w;
		d = htmlCtxtReadMemory(ctxt, data, (int)n, name, encoding,
		                       HTML_PARSE_RECOVER | HTML_PARSE_NOERROR |
		                           HTML_PARSE_NOWARNING | HTML_PARSE_NONET |
		                           HTML_PARSE_NOBLANKS | XML_PARSE_HUGE);
		if (w.line) {
			char what[300];
			snprintf(what, sizeof what,
			         "%s:%d: elements nested more than %d deep: the text from there on "
			         "cannot be read",
			         name, w.line, DEPTH_MAX);
			fail(r, TS_EINVAL, "%s", what);
			xmlFreeDoc(d);
			d = NULL;
		}
		htmlFreeParserCtxt(ctxt);
	}
	free(data);
	if (!d && encoding && !w.line)
		oom(r);
	return d;
}

static xmlNode *child(const xmlNode *n, const char *name)
{
	for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
		if (is(c, name))
			return c;
	return NULL;
}

/* The first element named name under n, depth first. */
static xmlNode *find(xmlNode *n, const char *name)
{
	for (xmlNode *c = n; c; c = c->next) {
		if (is(c, name))
			return c;
		xmlNode *f = c->type == XML_ELEMENT_NODE ? find(c->children, name) : NULL;
		if (f)
			return f;
	}
	return NULL;
}

static char *container_rootfile(reader *r)
{
	xmlDoc *d = parse_xml(r, "META-INF/container.xml");
	if (!d)
		return NULL;
	xmlNode *rf = find(xmlDocGetRootElement(d), "rootfile");
	char *path = rf ? attr(rf, "full-path") : NULL;
	char *s = path ? ts_strdup(path) : NULL;
	xmlFree(path);
	xmlFreeDoc(d);
	if (!s)
		fail(r, TS_EINVAL, "META-INF/container.xml names no package document%s", NULL);
	return s;
}

/* DRM: META-INF/encryption.xml naming anything but obfuscated fonts. */
static int check_encryption(reader *r)
{
	if (zip_name_locate(r->za, "META-INF/encryption.xml", 0) < 0)
		return 0;
	xmlDoc *d = parse_xml(r, "META-INF/encryption.xml");
	if (!d)
		return r->rc;
	static const char *const fonts[] = {"http://www.idpf.org/2008/embedding",
	                                    "http://ns.adobe.com/pdf/enc#RC", NULL};
	for (xmlNode *e = find(xmlDocGetRootElement(d), "EncryptedData"); e && !r->rc;
	     e = e->next) {
		if (!is(e, "EncryptedData"))
			continue;
		xmlNode *m = find(e->children, "EncryptionMethod");
		char *alg = m ? attr(m, "Algorithm") : NULL;
		int font = alg && has_word(alg, fonts);
		xmlNode *ref = find(e->children, "CipherReference");
		char *uri = ref ? attr(ref, "URI") : NULL;
		if (!font)
			fail(r, TS_EINVAL,
			     "its content is encrypted (DRM; %s): tingshu reads only EPUBs without "
			     "DRM",
			     uri ? uri : "META-INF/encryption.xml");
		xmlFree(alg);
		xmlFree(uri);
	}
	xmlFreeDoc(d);
	return r->rc;
}

/* ---- the package ----------------------------------------------------- */

/* Lookups by id and by name are binary searches: a book of thousands of
 * chapters has thousands of items, spine entries and contents entries. */
static int cmp_item_id(const void *a, const void *b)
{
	return strcmp((*(item *const *)a)->id, (*(item *const *)b)->id);
}

static item *item_by_id(reader *r, const char *id)
{
	if (!id || !r->by_id)
		return NULL;
	item key = {.id = (char *)id}, *k = &key;
	item **hit = bsearch(&k, r->by_id, r->nitems, sizeof *r->by_id, cmp_item_id);
	return hit ? *hit : NULL;
}

static int index_items(reader *r)
{
	if (r->nitems == 0)
		return 0;
	if (!(r->by_id = malloc(r->nitems * sizeof *r->by_id)))
		return oom(r);
	for (size_t i = 0; i < r->nitems; i++)
		r->by_id[i] = &r->items[i];
	qsort(r->by_id, r->nitems, sizeof *r->by_id, cmp_item_id);
	return 0;
}

static void set_meta(char **dst, xmlNode *n)
{
	if (*dst || !n)
		return;
	*dst = folded_text(n);
	if (*dst && !**dst) {
		free(*dst);
		*dst = NULL;
	}
}

static int read_manifest(reader *r, xmlNode *manifest)
{
	for (xmlNode *c = manifest ? manifest->children : NULL; c && !r->rc; c = c->next) {
		if (!is(c, "item"))
			continue;
		char *id = attr(c, "id"), *href = attr(c, "href"), *type = attr(c, "media-type"),
		     *props = attr(c, "properties"), *frag = NULL;
		char *name = id && href ? resolve(r->opf_dir, href, &frag) : NULL;
		free(frag);
		if (id && href && TS_RESIZE(r->items, r->nitems + 1) == 0) {
			item *it = &r->items[r->nitems];
			*it = (item){ts_strdup(id), name ? name : ts_strdup(""),
			             ts_strdup(type ? type : ""), ts_strdup(props ? props : "")};
			if (!it->id || !it->name || !it->type || !it->props)
				oom(r);
			r->nitems++;
			/* Outside the container: refused if the spine reads it. */
			if (!name)
				it->name[0] = '\0';
		} else if (id && href) {
			free(name);
			oom(r);
		}
		xmlFree(id), xmlFree(href), xmlFree(type), xmlFree(props);
	}
	return r->rc;
}

static int read_spine(reader *r, xmlNode *spine)
{
	char *toc = spine ? attr(spine, "toc") : NULL;
	if (toc && !(r->toc_id = ts_strdup(toc)))
		oom(r);
	xmlFree(toc);
	for (xmlNode *c = spine ? spine->children : NULL; c && !r->rc; c = c->next) {
		if (!is(c, "itemref"))
			continue;
		char *idref = attr(c, "idref"), *linear = attr(c, "linear");
		item *it = item_by_id(r, idref);
		if (!it)
			fail(r, TS_EINVAL,
			     "the spine names \"%s\", which the manifest does not list", idref);
		else if (!it->name[0])
			fail(r, TS_EINVAL, "a spine document is outside the EPUB (%s)", idref);
		else if (!(linear && strcmp(linear, "no") == 0)) {
			if (TS_RESIZE(r->spine, r->nspine + 1) || TS_RESIZE(r->skip, r->nspine + 1))
				oom(r);
			else {
				r->skip[r->nspine] = strstr(it->props, "nav") != NULL;
				r->spine[r->nspine++] = (size_t)(it - r->items);
			}
		}
		xmlFree(idref), xmlFree(linear);
	}
	return r->rc;
}

static int cmp_spine_name(const void *a, const void *b, void *ud)
{
	const reader *r = ud;
	int c = strcmp(r->items[r->spine[*(const size_t *)a]].name,
	               r->items[r->spine[*(const size_t *)b]].name);
	return c ? c
	         : (*(const size_t *)a > *(const size_t *)b) -
	               (*(const size_t *)a < *(const size_t *)b);
}

static int index_spine(reader *r)
{
	if (r->nspine == 0)
		return 0;
	if (!(r->by_name = malloc(r->nspine * sizeof *r->by_name)))
		return oom(r);
	for (size_t i = 0; i < r->nspine; i++)
		r->by_name[i] = i;
	qsort_r(r->by_name, r->nspine, sizeof *r->by_name, cmp_spine_name, r);
	return 0;
}

/* The first place of the document name in the spine, or -1. */
static ssize_t spine_index(const reader *r, const char *name)
{
	size_t lo = 0, hi = r->nspine;
	while (r->by_name && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(r->items[r->spine[r->by_name[mid]]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (r->by_name && lo < r->nspine &&
	    strcmp(r->items[r->spine[r->by_name[lo]]].name, name) == 0)
		return (ssize_t)r->by_name[lo];
	return -1;
}

/* EPUB 2's guide: the cover, copyright and contents pages are skipped. */
static void read_guide(reader *r, xmlNode *guide)
{
	static const char *const skip[] = {"cover", "copyright-page", "toc", NULL};
	for (xmlNode *c = guide ? guide->children : NULL; c; c = c->next) {
		char *type = is(c, "reference") ? attr(c, "type") : NULL;
		char *href = type && has_word(type, skip) ? attr(c, "href") : NULL, *frag = NULL;
		char *name = href ? resolve(r->opf_dir, href, &frag) : NULL;
		ssize_t i = name && !frag ? spine_index(r, name) : -1;
		if (i >= 0)
			r->skip[i] = 1;
		free(name), free(frag);
		xmlFree(type), xmlFree(href);
	}
}

/* The folder of the entry name, as hrefs in it are resolved against: ""
 * or ending in '/'.  NULL when out of memory; the caller frees it. */
static char *folder_of(const char *name)
{
	const char *slash = strrchr(name, '/');
	return ts_strndup(name, slash ? (size_t)(slash - name) + 1 : 0);
}

static int read_package(reader *r, const char *opf)
{
	if (!(r->opf_dir = folder_of(opf)))
		return oom(r);
	if (zip_name_locate(r->za, opf, 0) < 0)
		return fail(r, TS_EINVAL, "the package document %s is missing", opf);
	xmlDoc *d = parse_xml(r, opf);
	if (!d)
		return r->rc;
	xmlNode *pkg = xmlDocGetRootElement(d);
	xmlNode *meta = child(pkg, "metadata");
	set_meta(&r->book->title, find(meta ? meta->children : NULL, "title"));
	set_meta(&r->book->author, find(meta ? meta->children : NULL, "creator"));
	for (xmlNode *c = meta ? meta->children : NULL; c; c = c->next) {
		char *name = is(c, "meta") ? attr(c, "name") : NULL;
		char *content = name && strcmp(name, "cover") == 0 ? attr(c, "content") : NULL;
		if (content && !r->cover_id)
			r->cover_id = ts_strdup(content);
		xmlFree(name), xmlFree(content);
	}
	if (!read_manifest(r, child(pkg, "manifest")) && !index_items(r) &&
	    !read_spine(r, child(pkg, "spine")))
		index_spine(r);
	if (!r->rc)
		read_guide(r, child(pkg, "guide"));
	xmlFreeDoc(d);
	if (!r->rc && r->nspine == 0 && r->xml_why[0])
		fail(r, TS_EINVAL,
		     "the package document cannot be read whole (%s): its spine is lost",
		     r->xml_why);
	else if (!r->rc && r->nspine == 0)
		fail(r, TS_EINVAL, "its spine lists no document to read%s", NULL);
	return r->rc;
}

/* ---- the table of contents -------------------------------------------- */

/* A contents entry for href (relative to the folder dir) titled title. */
static void add_toc(reader *r, const char *dir, const char *href, char *title)
{
	char *frag = NULL, *name = href ? resolve(dir, href, &frag) : NULL;
	ssize_t i = name ? spine_index(r, name) : -1;
	size_t last = r->ntoc ? r->toc[r->ntoc - 1].doc : 0;
	/* Entries out of the reading order, or in no read document, are
	 * left out; their text is in the chapter before. */
	if (i >= 0 && (size_t)i >= last && title && title[0] &&
	    TS_RESIZE(r->toc, r->ntoc + 1) == 0) {
		r->toc[r->ntoc++] = (toc_entry){title, (size_t)i, frag, 0};
		title = frag = NULL;
	}
	free(name), free(frag), free(title);
}

static void nav_links(reader *r, const char *dir, xmlNode *n)
{
	for (xmlNode *c = n; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (is(c, "a")) {
			char *href = attr(c, "href");
			add_toc(r, dir, href, folded_text(c));
			xmlFree(href);
		} else {
			nav_links(r, dir, c->children);
		}
	}
}

static xmlNode *find_toc_nav(xmlNode *n)
{
	static const char *const toc[] = {"toc", "doc-toc", NULL};
	for (xmlNode *c = n; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		char *t = attr(c, "epub:type"), *role = attr(c, "role");
		int hit = is(c, "nav") && (has_word(t, toc) || has_word(role, toc));
		xmlFree(t), xmlFree(role);
		if (hit)
			return c;
		xmlNode *f = find_toc_nav(c->children);
		if (f)
			return f;
	}
	return NULL;
}

static void ncx_points(reader *r, const char *dir, xmlNode *n)
{
	for (xmlNode *c = n; c; c = c->next) {
		if (!is(c, "navPoint"))
			continue;
		xmlNode *label = find(c->children, "text"), *content = child(c, "content");
		char *src = content ? attr(content, "src") : NULL;
		add_toc(r, dir, src, label ? folded_text(label) : NULL);
		xmlFree(src);
		ncx_points(r, dir, c->children);
	}
}

static void read_toc(reader *r)
{
	for (size_t i = 0; i < r->nitems && !r->rc; i++) {
		item *it = &r->items[i];
		if (!has_word(it->props, (const char *const[]){"nav", NULL}) || !it->name[0])
			continue;
		xmlDoc *d = parse_html(r, it->name);
		xmlNode *nav = d ? find_toc_nav(xmlDocGetRootElement(d)) : NULL;
		char *dir = folder_of(it->name);
		if (!dir)
			oom(r);
		else if (nav)
			nav_links(r, dir, nav->children);
		free(dir);
		xmlFreeDoc(d);
		if (r->ntoc)
			return;
	}
	item *ncx = item_by_id(r, r->toc_id);
	for (size_t i = 0; !ncx && i < r->nitems; i++)
		if (strcmp(r->items[i].type, "application/x-dtbncx+xml") == 0)
			ncx = &r->items[i];
	if (r->rc || !ncx || !ncx->name[0])
		return;
	xmlDoc *d = parse_xml(r, ncx->name);
	xmlNode *map = d ? find(xmlDocGetRootElement(d), "navMap") : NULL;
	char *dir = folder_of(ncx->name);
	if (!dir)
		oom(r);
	else if (map)
		ncx_points(r, dir, map->children);
	free(dir);
	xmlFreeDoc(d);
}

/* ---- the text ---------------------------------------------------------- */

static void put_line(reader *r, const char *s, size_t n)
{
	if (fwrite(s, 1, n, r->out) != n || putc('\n', r->out) == EOF)
		fail(r, TS_EIO, "cannot write its text: %s", strerror(errno));
	r->pos += (long)n + 1;
	r->line++;
}

static size_t count_chars(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += ((unsigned char)s[i] & 0xC0) != 0x80 && s[i] != ' ';
	return k;
}

/* The paragraph gathered so far, as a line of the open chapter's body. */
static void flush(reader *r)
{
	if (r->para.len > 0 && !r->rc) {
		if (r->open) {
			put_line(r, r->para.data, r->para.len);
			ts_epub_chapter *c = &r->book->chapter[r->book->chapters - 1];
			c->chars += count_chars(r->para.data, r->para.len);
			c->end = r->pos;
			r->fresh = 0;
		}
	}
	ts_buf_clear(&r->para);
	r->space = 0;
	r->last = 0;
}

static void start_chapter(reader *r, const char *title, int front)
{
	flush(r);
	if (r->rc)
		return;
	if (TS_RESIZE(r->book->chapter, r->book->chapters + 1)) {
		oom(r);
		return;
	}
	ts_epub_chapter *c = &r->book->chapter[r->book->chapters++];
	memset(c, 0, sizeof *c);
	if (!(c->title = ts_strdup(title ? title : ""))) {
		r->book->chapters--;
		oom(r);
		return;
	}
	if (!front && title && title[0])
		put_line(r, title, strlen(title));
	c->front = front;
	c->start = c->end = r->pos;
	c->line = r->line + 1;
	r->open = 1;
	r->fresh = 1;
}

/* A space between two of these was a line break in the source: none. */
static int cjk(uint32_t c)
{
	return c >= 0x2E80;
}

static void add_text(reader *r, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), run = SIZE_MAX; /* the start of a run of text kept as it is */
	for (size_t i = 0; i < n;) {
		uint32_t c = u[i];
		int k = c < 0x80 ? 1 : ts_utf8_decode(u + i, n - i, &c);
		int space =
		    c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0xA0;
		int keep = k > 0 && !space && c >= 0x20 && c != 0x7F && !(c >= 0x80 && c < 0xA0);
		if (keep && run == SIZE_MAX) {
			if (r->space && !(cjk(r->last) && cjk(c)))
				ts_buf_putc(&r->para, ' ');
			r->space = 0;
			run = i;
		} else if (!keep && run != SIZE_MAX) {
			ts_buf_append(&r->para, s + run, i - run);
			run = SIZE_MAX;
		}
		if (keep)
			r->last = c;
		else if (space)
			r->space = r->para.len > 0;
		i += k > 0 ? (size_t)k : 1; /* libxml2 gives UTF-8: k <= 0 is not expected */
	}
	if (run != SIZE_MAX)
		ts_buf_append(&r->para, s + run, n - run);
	if (ts_buf_error(&r->para))
		oom(r);
}

/* Elements whose text is not the book's. */
static int skipped(const xmlNode *n)
{
	static const char *const names[] = {"head",     "script",   "style",  "rt",       "rp",
	                                    "aside",    "nav",      "img",    "svg",      "math",
	                                    "template", "noscript", "iframe", "object",   "audio",
	                                    "video",    "button",   "select", "textarea", NULL};
	static const char *const types[] = {
	    "footnote",  "endnote",   "rearnote",   "footnotes", "endnotes",       "rearnotes",
	    "note",      "noteref",   "annotation", "cover",     "copyright-page", "toc",
	    "landmarks", "page-list", "loi",        "lot",       "pagebreak",      NULL};
	static const char *const roles[] = {"doc-noteref",   "doc-footnote", "doc-endnote",
	                                    "doc-endnotes",  "doc-toc",      "doc-cover",
	                                    "doc-pagebreak", "doc-pagelist", NULL};
	for (size_t i = 0; names[i]; i++)
		if (is(n, names[i]))
			return 1;
	char *t = attr(n, "epub:type"), *role = attr(n, "role");
	int hit = has_word(t, types) || has_word(role, roles);
	xmlFree(t), xmlFree(role);
	return hit;
}

static int block(const xmlNode *n)
{
	static const char *const names[] = {
	    "p",          "div",        "h1",      "h2",      "h3",     "h4",     "h5",
	    "h6",         "li",         "ul",      "ol",      "dl",     "dt",     "dd",
	    "blockquote", "pre",        "section", "article", "header", "footer", "main",
	    "figure",     "figcaption", "table",   "tr",      "td",     "th",     "hr",
	    "address",    "center",     "caption", "body",    NULL};
	for (size_t i = 0; names[i]; i++)
		if (is(n, names[i]))
			return 1;
	return 0;
}

static int heading(const xmlNode *n)
{
	const char *s = local_name(n);
	return n->type == XML_ELEMENT_NODE && (s[0] == 'h' || s[0] == 'H') && s[1] >= '1' &&
	       s[1] <= '6' && !s[2];
}

/* An element with an id: does a contents entry start its chapter here? */
static void check_start(reader *r, const xmlNode *n)
{
	char *id = attr(n, "id");
	for (size_t i = r->next_toc; id && i < r->ntoc && r->toc[i].doc == r->doc; i++) {
		if (r->toc[i].frag && strcmp(r->toc[i].frag, id) == 0) {
			r->next_toc = i + 1;
			start_chapter(r, r->toc[i].title, 0);
			break;
		}
	}
	xmlFree(id);
}

static void starts_in(reader *r, const xmlNode *n)
{
	for (const xmlNode *c = n; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE) {
			check_start(r, c);
			starts_in(r, c->children);
		}
}

static void walk(reader *r, xmlNode *n)
{
	for (xmlNode *c = n; c && !r->rc; c = c->next) {
		if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
			add_text(r, (const char *)c->content);
			continue;
		}
		if (c->type != XML_ELEMENT_NODE || skipped(c))
			continue;
		if (heading(c)) {
			/* A chapter's first heading is its title: not read. */
			flush(r);
			check_start(r, c);
			starts_in(r, c->children);
			if (r->fresh)
				continue;
			walk(r, c->children);
			flush(r);
			continue;
		}
		check_start(r, c);
		if (is(c, "br")) {
			flush(r);
			continue;
		}
		int b = block(c);
		if (b)
			flush(r);
		walk(r, c->children);
		if (b)
			flush(r);
	}
}

/* The title of a document without a contents entry: its first heading,
 * its <title>, or its file name. */
static char *doc_title(xmlNode *root, const char *name)
{
	xmlNode *body = find(root, "body");
	for (int level = 1; body && level <= 6; level++) {
		char h[3] = {'h', (char)('0' + level), 0};
		xmlNode *n = find(body->children, h);
		char *t = n ? folded_text(n) : NULL;
		if (t && t[0])
			return t;
		free(t);
	}
	xmlNode *title = find(root, "title");
	char *t = title ? folded_text(title) : NULL;
	if (t && t[0])
		return t;
	free(t);
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	return ts_strndup(base, strcspn(base, "."));
}

static void read_document(reader *r)
{
	const char *name = r->items[r->spine[r->doc]].name;
	xmlDoc *d = parse_html(r, name);
	if (!d)
		return;
	xmlNode *root = xmlDocGetRootElement(d);
	/* Entries at the document's start begin their chapter before it. */
	while (r->next_toc < r->ntoc && r->toc[r->next_toc].doc == r->doc &&
	       !r->toc[r->next_toc].frag)
		start_chapter(r, r->toc[r->next_toc++].title, 0);
	if (r->ntoc == 0) {
		char *t = doc_title(root, name);
		if (!t)
			oom(r);
		else
			start_chapter(r, t, 0);
		free(t);
	} else if (!r->open) {
		start_chapter(r, r->book->title, 1);
	}
	walk(r, root);
	flush(r);
	xmlFreeDoc(d);
}

static void read_cover(reader *r)
{
	item *cover = NULL;
	for (size_t i = 0; i < r->nitems && !cover; i++)
		if (has_word(r->items[i].props, (const char *const[]){"cover-image", NULL}))
			cover = &r->items[i];
	if (!cover)
		cover = item_by_id(r, r->cover_id);
	if (!cover || !cover->name[0] || strncmp(cover->type, "image/", 6) != 0)
		return;
	char *data;
	size_t n;
	ts_error quiet = {0};
	ts_error *keep = r->err;
	r->err = &quiet;
	if (read_entry(r, cover->name, &data, &n, COVER_MAX) == 0) {
		r->book->cover = (unsigned char *)data;
		r->book->cover_len = n;
	}
	r->err = keep;
	r->rc = r->rc == TS_ENOMEM ? oom(r) : 0; /* a cover that cannot be read is left out */
}

/* ---- the book ----------------------------------------------------------- */

int ts_epub_sniff(const char *path)
{
	size_t n = strlen(path);
	if (n > 5 && strcasecmp(path + n - 5, ".epub") == 0)
		return 1;
	unsigned char head[64];
	FILE *f = fopen(path, "rb");
	size_t k = f ? fread(head, 1, sizeof head, f) : 0;
	if (f)
		fclose(f);
	return k >= 58 && memcmp(head, "PK\3\4", 4) == 0 && memcmp(head + 30, "mimetype", 8) == 0 &&
	       memcmp(head + 38, "application/epub+zip", 20) == 0;
}

int ts_epub_read(const char *path, const char *display, FILE *out, ts_epub_book *book,
                 ts_error *err)
{
	reader r = {.display = display, .err = err, .out = out, .book = book};
	memset(book, 0, sizeof *book);
	int zerr = 0;
	r.za = zip_open(path, ZIP_RDONLY, &zerr);
	if (!r.za) {
		zip_error_t ze;
		zip_error_init_with_code(&ze, zerr);
		fail(&r, TS_EINVAL, "not a valid EPUB (zip): %s", zip_error_strerror(&ze));
		zip_error_fini(&ze);
		return r.rc;
	}
	char *opf = container_rootfile(&r);
	if (opf && !check_encryption(&r) && !read_package(&r, opf))
		read_toc(&r);
	for (r.doc = 0; !r.rc && r.doc < r.nspine; r.doc++) {
		size_t before = r.book->chapters;
		long at = r.pos;
		if (!r.skip[r.doc])
			read_document(&r);
		book->skipped += r.skip[r.doc] || (r.pos == at && r.book->chapters == before);
	}
	flush(&r);
	if (!r.rc)
		read_cover(&r);
	if (!r.rc && fflush(out) != 0)
		fail(&r, TS_EIO, "cannot write its text: %s", strerror(errno));
	free(opf);
	for (size_t i = 0; i < r.nitems; i++)
		free(r.items[i].id), free(r.items[i].name), free(r.items[i].type),
		    free(r.items[i].props);
	free(r.items);
	for (size_t i = 0; i < r.ntoc; i++)
		free(r.toc[i].title), free(r.toc[i].frag);
	free(r.toc);
	free(r.spine);
	free(r.skip);
	free(r.by_id);
	free(r.by_name);
	free(r.opf_dir);
	free(r.toc_id);
	free(r.cover_id);
	ts_buf_free(&r.para);
	zip_discard(r.za);
	return r.rc;
}

void ts_epub_book_clear(ts_epub_book *book)
{
	for (size_t i = 0; i < book->chapters; i++)
		free(book->chapter[i].title);
	free(book->chapter);
	free(book->title);
	free(book->author);
	free(book->cover);
	memset(book, 0, sizeof *book);
}
