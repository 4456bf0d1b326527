/* cueformat.c - what the timing formats share (see cueformat.h). */
#include "publish/cueformat.h"

int ts_cue_hms(ts_buf *b, uint64_t ms, char sep)
{
	return ts_buf_printf(b, "%02llu:%02llu:%02llu%c%03llu", (unsigned long long)(ms / 3600000),
	                     (unsigned long long)(ms / 60000 % 60),
	                     (unsigned long long)(ms / 1000 % 60), sep,
	                     (unsigned long long)(ms % 1000));
}
