//===- air_bench_unum_sqdist.cpp - E3 through the unum-airc kernel --------===//

#include "air_bench.h"
#include "air_bench_unum.h"

extern "C" {
#include "sqdist.h"
}

float airbench::unumSqDist(const float *a, const float *b, int64_t n) {
  using M = UnumMemRef_f32_1d;
  M ma = unumMemRef<M>(a, {n}), mb = unumMemRef<M>(b, {n});
  // The scalar result is a rank-0 memref the caller allocates.
  float result = 0;
  UnumMemRef_f32_0d mr;
  mr.allocated = mr.aligned = &result;
  mr.offset = 0;
  unumCheck(sqdist(&ma, &mb, &mr), "sqdist");
  return result;
}
