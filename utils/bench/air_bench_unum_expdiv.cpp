//===- air_bench_unum_expdiv.cpp - E2 through the unum-airc kernel --------===//

#include "air_bench.h"
#include "air_bench_unum.h"

extern "C" {
#include "expdiv.h"
}

void airbench::unumExpDiv(const float *a, const float *b, const float *c,
                          const float *d, float *out, int64_t n) {
  unumCall4<UnumMemRef_f32_1d>(expdiv, a, b, c, d, out, n);
}
