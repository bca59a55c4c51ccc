//===- air_bench_unum_fma4.cpp - E1 through the unum-airc kernel ----------===//

#include "air_bench.h"
#include "air_bench_unum.h"

extern "C" {
#include "fma4.h"
}

void airbench::unumFma4(const float *a, const float *b, const float *c,
                        const float *d, float *out, int64_t n) {
  unumCall4<UnumMemRef_f32_1d>(fma4, a, b, c, d, out, n);
}
