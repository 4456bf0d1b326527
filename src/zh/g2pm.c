/* g2pm.c - loading and running the g2pM polyphone model (see g2pm.h; the
 * file format is documented in tools/build-g2pm.py).
 *
 * Bad-input policy: the file is refused unless it is a regular file of at
 * most MAX_FILE bytes whose header, sections and sizes agree exactly,
 * whose character table is in strictly ascending order with rows inside
 * the embedding, whose class names are syllables, and whose weights are
 * all finite; the error names the file and the first thing wrong.  The
 * weights are read in place as floats: the format keeps them on 4-byte
 * boundaries, and a big-endian host refuses the file. */
#define _GNU_SOURCE /* qsort_r */
#include "zh/g2pm.h"

#include "zh/mapped.h"

#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_SIZE 72
#define MAX_FILE    (64u << 20)
#define MAX_EMB     256
#define MAX_HID     128
#define MAX_DENSE   256
#define MAX_CLASS   4096
#define MAX_VOCAB   (1u << 20)
#define POLY_SIZE   16 /* u32 code point, u16 class[TS_G2PM_MAX_READINGS] */

enum { EMB_F32, EMB_F16, EMB_I8 };

/* The header: magic, version, size (see mapped.h), then 14 fields: the
 * sizes nchar, vocab, emb, hid, dense, nclass, the rows unk, bos, eos,
 * emb_type, npoly and the offsets of the character table, the polyphone
 * table and the classes. */
static const ts_mapped_format format = {
    .what = "tingshu g2pM model",
    .tool = "tools/build-g2pm.py",
    .magic = "TSG2PM\0\0",
    .version = 1,
    .nfields = (HEADER_SIZE - TS_MAPPED_PREFIX) / 4,
    .min_size = HEADER_SIZE,
    .max_size = MAX_FILE,
    .bad_size = "truncated or overlong: its size is not the one its header gives",
};

struct ts_g2pm {
	ts_mapped file;
	uint32_t nchar, vocab, emb, hid, dense, nclass, unk, bos, eos, emb_type, npoly;
	const unsigned char *chars;     /* nchar pairs (cp, row) */
	const unsigned char *poly;      /* npoly records (cp, class[6]) */
	const unsigned char *class_off; /* u16[nclass + 1] */
	const char *class_str;
	uint16_t *by_name;                   /* the classes in the order of their names */
	const unsigned char *embedding;      /* as emb_type says */
	const float *emb_scale;              /* EMB_I8: one scale a row */
	const float *wih[2], *whh[2], *b[2]; /* forward, backward */
	const float *w1, *b1, *w2, *b2;
	/* What each embedding row adds to the gates of both directions (bias
	 * included: 8 x hid values a row), computed the first time a row is
	 * read by any run of this process and kept: two thirds of the work of
	 * a character, done once for each character of a book, and once for
	 * all the chapters (or fuzz inputs) a process reads.  Allocated on
	 * first use, zero pages until touched; held through a pointer so that
	 * runs, which see the model const, can fill it. */
	struct proj_cache *cache;
};

struct proj_cache {
	float *proj;
	unsigned char *have; /* vocab flags: proj of that row is there */
};

struct ts_g2pm_run {
	const ts_g2pm *m;
	size_t cap;               /* positions the arrays hold */
	size_t n;                 /* characters of the sentence encoded */
	float *h[2];              /* hidden states, (n + 2) x hid each: begin, characters, end */
	struct proj_cache *cache; /* the model's */
};

/* IEEE half precision to single. */
static float half_to_float(uint16_t h)
{
	unsigned e = (h >> 10) & 31, f = h & 1023;
	float v = e == 0    ? ldexpf((float)f, -24)
	          : e == 31 ? (f ? NAN : INFINITY)
	                    : ldexpf((float)(f | 1024), (int)e - 25);
	return h & 0x8000 ? -v : v;
}

/* ---- checks -------------------------------------------------------- */

/* Are all of a[0..n) finite? */
static int finite_all(const float *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(a[i]))
			return 0;
	return 1;
}

/* The header's sizes (the common part is checked by ts_mapped_open()),
 * in range. */
static const char *check_sizes(ts_g2pm *m)
{
	const uint32_t *f = m->file.field;
	m->nchar = f[0];
	m->vocab = f[1];
	m->emb = f[2];
	m->hid = f[3];
	m->dense = f[4];
	m->nclass = f[5];
	m->unk = f[6];
	m->bos = f[7];
	m->eos = f[8];
	m->emb_type = f[9];
	m->npoly = f[10];
	if (m->npoly > (1u << 16) || m->vocab == 0 || m->vocab > MAX_VOCAB || m->nchar > m->vocab ||
	    m->emb == 0 || m->emb > MAX_EMB || m->hid == 0 || m->hid > MAX_HID || m->dense == 0 ||
	    m->dense > MAX_DENSE || m->nclass == 0 || m->nclass > MAX_CLASS)
		return "sizes out of range";
	if (m->unk >= m->vocab || m->bos >= m->vocab || m->eos >= m->vocab)
		return "special rows out of range";
	if (m->emb_type > EMB_I8)
		return "unknown embedding type";
	return NULL;
}

/* Where each section starts; every size is checked against the file's. */
static const char *check_layout(ts_g2pm *m)
{
	const ts_mapped *mf = &m->file;
	size_t off_chars = mf->field[11], off_poly = mf->field[12];
	size_t off_classes = mf->field[13], size = mf->size;
	if (off_chars != HEADER_SIZE || off_poly != off_chars + 8 * (size_t)m->nchar ||
	    off_classes != off_poly + POLY_SIZE * (size_t)m->npoly ||
	    off_classes + 2 * ((size_t)m->nclass + 1) > size)
		return "bad section offsets";
	m->chars = ts_mapped_at(mf, off_chars, off_poly - off_chars);
	m->poly = ts_mapped_at(mf, off_poly, off_classes - off_poly);
	m->class_off = ts_mapped_at(mf, off_classes, 2 * ((size_t)m->nclass + 1));
	m->class_str = (const char *)m->class_off + 2 * ((size_t)m->nclass + 1);
	size_t str_len = ts_le16(m->class_off + 2 * (size_t)m->nclass);
	size_t at = off_classes + 2 * ((size_t)m->nclass + 1) + str_len;
	at = (at + 3) & ~(size_t)3;
	size_t n_emb = (size_t)m->vocab * m->emb, H4 = 4 * (size_t)m->hid;
	size_t emb_bytes = m->emb_type == EMB_F32   ? 4 * n_emb
	                   : m->emb_type == EMB_F16 ? 2 * n_emb
	                                            : 4 * (size_t)m->vocab + n_emb;
	emb_bytes = (emb_bytes + 3) & ~(size_t)3;
	size_t n_float = 2 * (m->emb * H4 + m->hid * H4 + H4) + 2 * (size_t)m->hid * m->dense +
	                 m->dense + (size_t)m->nclass * m->dense + m->nclass;
	if (at > size || size - at != emb_bytes + 4 * n_float)
		return "the weights do not fill the file as its sizes say";
	m->embedding = mf->p + at;
	if (m->emb_type == EMB_I8) {
		m->emb_scale = (const float *)m->embedding;
		m->embedding += 4 * (size_t)m->vocab;
	}
	const float *w = (const float *)(mf->p + at + emb_bytes);
	for (int d = 0; d < 2; d++) {
		m->wih[d] = w;
		m->whh[d] = w += m->emb * H4;
		m->b[d] = w += m->hid * H4;
		w += H4;
	}
	m->w1 = w;
	m->b1 = w += 2 * (size_t)m->hid * m->dense;
	m->w2 = w += m->dense;
	m->b2 = w += (size_t)m->nclass * m->dense;
	if (!finite_all(m->wih[0], n_float))
		return "a weight is not a finite number";
	if (m->emb_type == EMB_F32 && !finite_all((const float *)m->embedding, n_emb))
		return "an embedding value is not a finite number";
	if (m->emb_type == EMB_I8 && !finite_all(m->emb_scale, m->vocab))
		return "an embedding scale is not a finite number";
	if (m->emb_type == EMB_F16)
		for (size_t i = 0; i < n_emb; i++)
			if (!isfinite(half_to_float(ts_le16(m->embedding + 2 * i))))
				return "an embedding value is not a finite number";
	return NULL;
}

/* The character table and the class names. */
static const char *check_tables(const ts_g2pm *m)
{
	for (uint32_t i = 0; i < m->nchar; i++) {
		const unsigned char *p = m->chars + 8 * (size_t)i;
		if (ts_le32(p + 4) >= m->vocab || (i > 0 && ts_le32(p) <= ts_le32(p - 8)))
			return "bad character table";
	}
	for (uint32_t i = 0; i < m->npoly; i++) {
		const unsigned char *p = m->poly + POLY_SIZE * (size_t)i;
		if (i > 0 && ts_le32(p) <= ts_le32(p - POLY_SIZE))
			return "bad polyphone table";
		unsigned k = 0;
		while (k < TS_G2PM_MAX_READINGS && ts_le16(p + 4 + 2 * k) != 0xFFFF)
			if (ts_le16(p + 4 + 2 * k++) >= m->nclass)
				return "bad polyphone table";
		for (unsigned j = k; j < TS_G2PM_MAX_READINGS; j++)
			if (ts_le16(p + 4 + 2 * j) != 0xFFFF)
				return "bad polyphone table";
		if (k < 2)
			return "bad polyphone table";
	}
	for (uint32_t k = 0; k < m->nclass; k++) {
		size_t a = ts_le16(m->class_off + 2 * (size_t)k),
		       b = ts_le16(m->class_off + 2 * (size_t)k + 2);
		if (b < a + 2 || b - a > 7)
			return "bad class name";
		for (size_t j = a; j < b - 1; j++)
			if (m->class_str[j] < 'a' || m->class_str[j] > 'z')
				return "bad class name";
		if (m->class_str[b - 1] < '1' || m->class_str[b - 1] > '5')
			return "bad class name";
	}
	return NULL;
}

static const char *check(ts_g2pm *m)
{
	const uint32_t one = 1;
	if (*(const unsigned char *)&one != 1)
		return "this machine is big-endian, the weights are little-endian";
	const char *why = check_sizes(m);
	why = why ? why : check_layout(m);
	return why ? why : check_tables(m);
}

/* Names in byte order, a prefix first. */
static int cmp_names(const char *a, size_t na, const char *b, size_t nb)
{
	int d = memcmp(a, b, na < nb ? na : nb);
	return d ? d : (na > nb) - (na < nb);
}

static int cmp_class(const void *a, const void *b, void *ud)
{
	const ts_g2pm *m = ud;
	size_t na, nb;
	const char *sa = ts_g2pm_class(m, *(const uint16_t *)a, &na);
	const char *sb = ts_g2pm_class(m, *(const uint16_t *)b, &nb);
	int d = cmp_names(sa, na, sb, nb);
	return d ? d
	         : (*(const uint16_t *)a > *(const uint16_t *)b) -
	               (*(const uint16_t *)a < *(const uint16_t *)b);
}

ts_g2pm *ts_g2pm_open(const char *path, ts_error *err)
{
	ts_g2pm *m = calloc(1, sizeof *m);
	if (!m) {
		ts_error_set(err, TS_ENOMEM, NULL);
		return NULL;
	}
	if (ts_mapped_open(&m->file, path, &format, err)) {
		free(m);
		return NULL;
	}
	const char *why = check(m);
	if (why) {
		ts_mapped_bad(&m->file, path, why, err);
		ts_g2pm_free(m);
		return NULL;
	}
	m->by_name = malloc((m->nclass ? m->nclass : 1) * sizeof *m->by_name);
	m->cache = calloc(1, sizeof *m->cache);
	if (!m->by_name || !m->cache) {
		ts_error_set(err, TS_ENOMEM, NULL);
		ts_g2pm_free(m);
		return NULL;
	}
	for (unsigned k = 0; k < m->nclass; k++)
		m->by_name[k] = (uint16_t)k;
	qsort_r(m->by_name, m->nclass, sizeof *m->by_name, cmp_class, m);
	return m;
}

void ts_g2pm_free(ts_g2pm *m)
{
	if (!m)
		return;
	ts_mapped_close(&m->file);
	free(m->by_name);
	if (m->cache) {
		free(m->cache->proj);
		free(m->cache->have);
		free(m->cache);
	}
	free(m);
}

unsigned ts_g2pm_nclass(const ts_g2pm *m)
{
	return m->nclass;
}

const char *ts_g2pm_class(const ts_g2pm *m, unsigned k, size_t *len)
{
	size_t a = ts_le16(m->class_off + 2 * (size_t)k),
	       b = ts_le16(m->class_off + 2 * (size_t)k + 2);
	*len = b - a;
	return m->class_str + a;
}

int ts_g2pm_find_class(const ts_g2pm *m, const char *s, size_t n)
{
	/* The first of that name (the lowest class), as a scan would find. */
	size_t lo = 0, hi = m->nclass, len;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const char *c = ts_g2pm_class(m, m->by_name[mid], &len);
		if (cmp_names(c, len, s, n) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->nclass)
		return -1;
	const char *c = ts_g2pm_class(m, m->by_name[lo], &len);
	return cmp_names(c, len, s, n) == 0 ? m->by_name[lo] : -1;
}

unsigned ts_g2pm_readings(const ts_g2pm *m, uint32_t cp, int cls[TS_G2PM_MAX_READINGS])
{
	size_t lo = 0, hi = m->npoly;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const unsigned char *p = m->poly + POLY_SIZE * mid;
		uint32_t c = ts_le32(p);
		if (c < cp) {
			lo = mid + 1;
		} else if (c > cp) {
			hi = mid;
		} else {
			unsigned k = 0;
			while (k < TS_G2PM_MAX_READINGS && ts_le16(p + 4 + 2 * k) != 0xFFFF) {
				cls[k] = ts_le16(p + 4 + 2 * k);
				k++;
			}
			return k;
		}
	}
	return 0;
}

/* ---- inference ----------------------------------------------------- */

/* The embedding row of code point cp. */
static uint32_t row_of(const ts_g2pm *m, uint32_t cp)
{
	size_t lo = 0, hi = m->nchar;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint32_t c = ts_le32(m->chars + 8 * mid);
		if (c == cp)
			return ts_le32(m->chars + 8 * mid + 4);
		if (c < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return m->unk;
}

/* Embedding row `row` into x[0..emb). */
static void embed(const ts_g2pm *m, uint32_t row, float *x)
{
	size_t at = (size_t)row * m->emb;
	if (m->emb_type == EMB_F32) {
		memcpy(x, m->embedding + 4 * at, 4 * (size_t)m->emb);
	} else if (m->emb_type == EMB_F16) {
		for (uint32_t k = 0; k < m->emb; k++)
			x[k] = half_to_float(ts_le16(m->embedding + 2 * (at + k)));
	} else {
		const signed char *q = (const signed char *)m->embedding + at;
		for (uint32_t k = 0; k < m->emb; k++)
			x[k] = m->emb_scale[row] * (float)q[k];
	}
}

/* e^x within about 2e-7 of expf() (x clamped to [-87, 88]), written so
 * that loops of it vectorize (no branch, no call): 2^n e^r with
 * |r| <= ln2/2, n rounded by adding 1.5 * 2^23 (which leaves it in the low
 * bits of the sum), e^r by its Taylor polynomial of degree 6. */
static inline float exp_approx(float x)
{
	x = x < -87.0f ? -87.0f : x;
	x = x > 88.0f ? 88.0f : x;
	float k = x * 1.44269504f + 12582912.0f;
	uint32_t kb;
	memcpy(&kb, &k, sizeof kb);
	float nf = k - 12582912.0f;
	float r = x - nf * 0.693145752f - nf * 1.42860677e-6f;
	float p = 1.0f / 720;
	p = p * r + 1.0f / 120;
	p = p * r + 1.0f / 24;
	p = p * r + 1.0f / 6;
	p = p * r + 0.5f;
	p = p * r + 1.0f;
	p = p * r + 1.0f;
	uint32_t bits = (kb - 0x4B400000u + 127u) << 23;
	float scale;
	memcpy(&scale, &bits, sizeof scale);
	return p * scale;
}

/* The LSTM's nonlinearities over whole arrays, vectorized. */
TS_CLONES static void sigmoid_all(float *restrict v, size_t n)
{
	for (size_t j = 0; j < n; j++)
		v[j] = 1.0f / (1.0f + exp_approx(-v[j]));
}

TS_CLONES static void tanh_all(float *out, const float *v, size_t n)
{
	for (size_t j = 0; j < n; j++)
		out[j] = 2.0f / (1.0f + exp_approx(-2.0f * v[j])) - 1.0f;
}

/* z[0..cols) = z0[0..cols) + the sum over k of x[k] * w[k][0..cols):
 * whole rows at a time, which the compiler vectorizes, BLOCK columns at a
 * time so that their sums stay in registers while the rows go by.  z0 may
 * be z. */
#define BLOCK 32
TS_CLONES static void add_rows(float *z, const float *z0, const float *restrict w,
                               const float *restrict x, size_t rows, size_t cols)
{
	size_t j0 = 0;
	for (; j0 + BLOCK <= cols; j0 += BLOCK) {
		float acc[BLOCK];
		memcpy(acc, z0 + j0, sizeof acc);
		for (size_t k = 0; k < rows; k++) {
			const float *wk = w + k * cols + j0;
			float xk = x[k];
			for (size_t j = 0; j < BLOCK; j++)
				acc[j] += xk * wk[j];
		}
		memcpy(z + j0, acc, sizeof acc);
	}
	if (j0 < cols && z != z0)
		memcpy(z + j0, z0 + j0, (cols - j0) * sizeof *z);
	for (size_t k = 0; k < rows && j0 < cols; k++) {
		const float *wk = w + k * cols;
		float xk = x[k];
		for (size_t j = j0; j < cols; j++)
			z[j] += xk * wk[j];
	}
}

/* What row adds to the gates of direction d: proj + d * 4 hid. */
static const float *projection(ts_g2pm_run *r, uint32_t row, int d)
{
	const ts_g2pm *m = r->m;
	size_t H4 = 4 * (size_t)m->hid;
	float *p = r->cache->proj + (size_t)row * 2 * H4;
	if (!r->cache->have[row]) {
		float x[MAX_EMB];
		embed(m, row, x);
		for (int k = 0; k < 2; k++) {
			add_rows(p + k * H4, m->b[k], m->wih[k], x, m->emb, H4);
		}
		r->cache->have[row] = 1;
	}
	return p + d * H4;
}

/* One direction over rows[0..len): h[t] for each position t, in reading
 * order of that direction (d = 1 walks from the end). */
static void lstm(ts_g2pm_run *r, int d, const uint32_t *rows, size_t len, float *h)
{
	size_t H = r->m->hid, H4 = 4 * H;
	float z[4 * MAX_HID], c[MAX_HID], tc[MAX_HID];
	const float *prev = NULL;
	memset(c, 0, sizeof c);
	for (size_t s = 0; s < len; s++) {
		size_t t = d ? len - 1 - s : s;
		const float *p = projection(r, rows[t], d);
		if (prev)
			add_rows(z, p, r->m->whh[d], prev, H, H4);
		else
			memcpy(z, p, H4 * sizeof *z);
		/* PyTorch's gate order: i, f, g, o */
		sigmoid_all(z, 2 * H);
		tanh_all(z + 2 * H, z + 2 * H, H);
		sigmoid_all(z + 3 * H, H);
		for (size_t j = 0; j < H; j++)
			c[j] = z[H + j] * c[j] + z[j] * z[2 * H + j];
		tanh_all(tc, c, H);
		float *ht = h + t * H;
		for (size_t j = 0; j < H; j++)
			ht[j] = z[3 * H + j] * tc[j];
		prev = ht;
	}
}

ts_g2pm_run *ts_g2pm_run_new(const ts_g2pm *m)
{
	ts_g2pm_run *r = calloc(1, sizeof *r);
	if (r) {
		r->m = m;
		r->cache = m->cache;
	}
	return r;
}

void ts_g2pm_run_free(ts_g2pm_run *r)
{
	if (!r)
		return;
	free(r->h[0]);
	free(r->h[1]);
	free(r);
}

int ts_g2pm_encode(ts_g2pm_run *r, const uint32_t *cp, size_t n)
{
	const ts_g2pm *m = r->m;
	size_t len = n + 2;
	struct proj_cache *c = r->cache;
	if (!c->proj) {
		c->proj = calloc((size_t)m->vocab * 8, m->hid * sizeof *c->proj);
		c->have = calloc(m->vocab, 1);
		if (!c->proj || !c->have) {
			free(c->proj);
			free(c->have);
			c->proj = NULL;
			c->have = NULL;
			return TS_ENOMEM;
		}
	}
	if (len > r->cap) {
		size_t cap = len < 64 ? 64 : len;
		if (cap > SIZE_MAX / (4 * MAX_HID * sizeof(float)))
			return TS_ENOMEM;
		/* rows are kept after the two state arrays, in one allocation */
		size_t bytes = cap * m->hid * sizeof(float);
		float *h0 = malloc(bytes + cap * sizeof(uint32_t)), *h1 = malloc(bytes);
		if (!h0 || !h1) {
			free(h0);
			free(h1);
			return TS_ENOMEM;
		}
		free(r->h[0]);
		free(r->h[1]);
		r->h[0] = h0;
		r->h[1] = h1;
		r->cap = cap;
	}
	uint32_t *rows = (uint32_t *)(r->h[0] + r->cap * m->hid);
	rows[0] = m->bos;
	for (size_t i = 0; i < n; i++)
		rows[i + 1] = row_of(m, cp[i]);
	rows[n + 1] = m->eos;
	lstm(r, 0, rows, len, r->h[0]);
	lstm(r, 1, rows, len, r->h[1]);
	r->n = n;
	return 0;
}

void ts_g2pm_score(const ts_g2pm_run *r, size_t i, const int *cls, size_t k, float *out)
{
	const ts_g2pm *m = r->m;
	size_t H = m->hid, D = m->dense;
	float d[MAX_DENSE];
	add_rows(d, m->b1, m->w1, r->h[0] + (i + 1) * H, H, D);
	add_rows(d, d, m->w1 + H * D, r->h[1] + (i + 1) * H, H, D);
	for (size_t j = 0; j < D; j++)
		d[j] = d[j] > 0 ? d[j] : 0;
	for (size_t c = 0; c < k; c++) {
		const float *w = m->w2 + (size_t)cls[c] * D;
		float s = m->b2[cls[c]];
		for (size_t j = 0; j < D; j++)
			s += w[j] * d[j];
		out[c] = s;
	}
}
