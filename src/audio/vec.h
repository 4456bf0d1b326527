/* vec.h - four floats at a time, with GCC's (and clang's) vector
 * extensions, for the audio layer's loops (master, loudness).  The
 * arithmetic is the same in every lane and in every build (no fused
 * multiply-add), so results do not depend on the processor. */
#ifndef TS_VEC_H
#define TS_VEC_H

#include <stdint.h>
#include <string.h>

typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

/* Four floats from p, aligned or not. */
static inline v4f load4(const float *p)
{
	v4f v;
	memcpy(&v, p, sizeof v);
	return v;
}

#endif
