//===- air_bench_ref.cpp - Naive and hand-fused loops, STREAM triad -------===//
//
// Built with -O3 -march=native and no -ffast-math (E2, the transcendental
// expression, is in air_bench_ref_exp.cpp). Each function is noinline so the
// compiler cannot fuse the naive evaluator's loops (air_bench_loops.h) across
// calls: the point of column (i) is the cost of not fusing.
//
//===----------------------------------------------------------------------===//

#include "air_bench.h"
#include "air_bench_loops.h"

#define NOINLINE __attribute__((noinline))

namespace airbench {

// Without -ffast-math the compiler may not reassociate a float sum, so a
// plain `s += x[i]` loop is one scalar add per element, latency bound. Instead
// 32 independent partial sums (four 8-lane AVX2 vectors) over fixed blocks of
// 4096 elements: the inner loop is unrolled and SLP-vectorized into four
// register accumulators. Each block's sum is added to a double, so no f32
// accumulator grows large enough for the small terms of sum((a-b)^2) to
// round away (one running f32 sum is off by ~1e-4 already at 2^24).
static constexpr int kLanes = 32;
static constexpr int64_t kBlock = 4096;

template <typename Term>
static inline float blockedSum(int64_t n, Term term) {
  double total = 0;
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    float acc[kLanes] = {};
    for (int64_t k = 0; k < kBlock; k += kLanes)
      for (int j = 0; j < kLanes; ++j)
        acc[j] += term(i + k + j);
    float s = 0;
    for (int j = 0; j < kLanes; ++j)
      s += acc[j];
    total += s;
  }
  for (; i < n; ++i)
    total += term(i);
  return float(total);
}

NOINLINE float sumF32(const float *__restrict x, int64_t n) {
  return blockedSum(n, [x](int64_t i) { return x[i]; });
}

void naiveFma4(const float *a, const float *b, const float *c, const float *d,
               float *out, int64_t n, Temps &tmp) {
  binaryOp<Mul>(a, b, tmp.t[0], n);
  binaryOp<Add>(tmp.t[0], c, tmp.t[1], n);
  binaryOp<Mul>(tmp.t[1], d, out, n);
}

float naiveSqDist(const float *a, const float *b, int64_t n, Temps &tmp) {
  binaryOp<Sub>(a, b, tmp.t[0], n);
  binaryOp<Mul>(tmp.t[0], tmp.t[0], tmp.t[1], n);
  return sumF32(tmp.t[1], n);
}

NOINLINE void fusedFma4(const float *__restrict a, const float *__restrict b,
                        const float *__restrict c, const float *__restrict d,
                        float *__restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = (a[i] * b[i] + c[i]) * d[i];
}

// The same reduction as sumF32, with the subtraction and square fused in.
NOINLINE float fusedSqDist(const float *__restrict a, const float *__restrict b,
                           int64_t n) {
  return blockedSum(n, [a, b](int64_t i) {
    float t = a[i] - b[i];
    return t * t;
  });
}

NOINLINE void triad(float *__restrict a, const float *__restrict b,
                    const float *__restrict c, float s, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    a[i] = b[i] + s * c[i];
}

} // namespace airbench
