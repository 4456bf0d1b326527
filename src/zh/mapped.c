/* mapped.c - the shared reader of the mapped language data files (see
 * mapped.h).
 *
 * Bad-input policy: a file is refused, with the reason, unless its size
 * is in the format's range, it holds the whole header, and its magic,
 * version and the size its header gives are right; the format's module
 * checks the rest before trusting any of it. */
#include "zh/mapped.h"

#include "base/file.h"

#include <string.h>

int ts_mapped_bad(const ts_mapped *m, const char *path, const char *why, ts_error *err)
{
	return ts_error_set(err, TS_EINVAL, "%s: not a %s of format %d (%s); rebuild it with %s",
	                    path, m->f->what, (int)m->f->version, why, m->f->tool);
}

int ts_mapped_open(ts_mapped *m, const char *path, const ts_mapped_format *f, ts_error *err)
{
	ts_error own = {0}; /* the code is needed when err is NULL */
	ts_error *e = err ? err : &own;
	memset(m, 0, sizeof *m);
	m->f = f;
	m->p = ts_map_file(path, f->what, f->min_size, f->max_size, &m->size, e);
	if (!m->p)
		return e->code;
	size_t header = TS_MAPPED_PREFIX + 4 * f->nfields;
	const char *why = NULL;
	if (m->size < header || memcmp(m->p, f->magic, 8) != 0)
		why = "bad magic";
	else if (ts_le32(m->p + 8) != f->version)
		why = "other format version";
	else if (ts_le32(m->p + 12) != m->size)
		why = f->bad_size;
	if (why) {
		int rc = ts_mapped_bad(m, path, why, e);
		ts_mapped_close(m);
		return rc;
	}
	for (size_t i = 0; i < f->nfields && i < TS_MAPPED_MAX_FIELDS; i++)
		m->field[i] = ts_le32(m->p + TS_MAPPED_PREFIX + 4 * i);
	return 0;
}

void ts_mapped_close(ts_mapped *m)
{
	ts_unmap_file(m->p, m->size);
	m->p = NULL;
	m->size = 0;
}

const unsigned char *ts_mapped_at(const ts_mapped *m, uint64_t off, uint64_t len)
{
	if (!m->p || off > m->size || len > m->size - off)
		return NULL;
	return m->p + off;
}
