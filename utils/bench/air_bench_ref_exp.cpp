//===- air_bench_ref_exp.cpp - E2 = exp(a)*b + c/d, naive and fused ------===//
//
// Built with -O3 -march=native -ffast-math: -ffast-math lets GCC call glibc's
// vector expf (libmvec, 8 lanes with AVX2) instead of scalar expf, which is
// what makes a hand-fused loop beat numpy. The naive evaluator's exp op is in
// this unit too, so (i) and (iii) differ only in fusion, not in the exp.
//
//===----------------------------------------------------------------------===//

#include "air_bench.h"
#include "air_bench_loops.h"

#include <cmath>

#define NOINLINE __attribute__((noinline))

namespace airbench {

NOINLINE static void opExp(const float *__restrict x, float *__restrict out,
                           int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = std::exp(x[i]);
}

void naiveExpDiv(const float *a, const float *b, const float *c,
                 const float *d, float *out, int64_t n, Temps &tmp) {
  opExp(a, tmp.t[0], n);
  binaryOp<Mul>(tmp.t[0], b, tmp.t[1], n);
  binaryOp<Div>(c, d, tmp.t[2], n);
  binaryOp<Add>(tmp.t[1], tmp.t[2], out, n);
}

NOINLINE void fusedExpDiv(const float *__restrict a, const float *__restrict b,
                          const float *__restrict c, const float *__restrict d,
                          float *__restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = std::exp(a[i]) * b[i] + c[i] / d[i];
}

} // namespace airbench
