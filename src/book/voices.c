/* voices.c - the list of `tingshu voices`: the presets of the voices
 * folder (speech/reading.h) as lines of text, the default marked. */
#include "base/util.h"
#include "speech/reading.h"
#include "tingshu.h"

#include <string.h>

typedef struct voices_out {
	ts_write_fn out;
	void *out_ud;
	ts_diag_fn diag;
	void *ud;
	size_t *bad;
	int rc; /* of out */
} voices_out;

static void print_voice(void *ud, const char *name, const char *description, const char *error)
{
	voices_out *v = ud;
	if (error) {
		if (v->diag)
			v->diag(v->ud, TS_WARNING, error);
		(*v->bad)++;
		return;
	}
	ts_buf line = {0};
	ts_buf_printf(&line, "%-12s %s%s\n", name, description,
	              strcmp(name, TS_VOICE_DEFAULT) == 0 ? " [default]" : "");
	if (!v->rc)
		v->rc = ts_buf_error(&line) ? ts_buf_error(&line)
		                            : v->out(v->out_ud, line.data, line.len);
	ts_buf_free(&line);
}

int ts_voices_print(const char *voices_dir, ts_write_fn out, void *out_ud, ts_diag_fn diag,
                    void *ud, size_t *bad, ts_error *err)
{
	voices_out v = {out, out_ud, diag, ud, bad, 0};
	*bad = 0;
	int n = ts_voices_each(voices_dir, print_voice, &v, err);
	if (n < 0)
		return n;
	if (n == 0 && diag)
		diag(ud, TS_WARNING, ts_error_msg(err));
	return v.rc;
}
