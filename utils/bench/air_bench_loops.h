//===- air_bench_loops.h - The naive evaluator's one-op loops ---*- C++ -*-===//
//
// Included by air_bench_ref.cpp and air_bench_ref_exp.cpp, so each op is
// compiled with the flags of the expression that uses it. Each op is one
// noinline loop writing a full array: the compiler cannot fuse them.
//
//===----------------------------------------------------------------------===//

#ifndef UNUM_UTILS_BENCH_AIR_BENCH_LOOPS_H
#define UNUM_UTILS_BENCH_AIR_BENCH_LOOPS_H

#include <cstdint>

namespace airbench {
// Internal linkage: each including unit keeps its own instantiations, built
// with its own flags, instead of the linker picking one.
namespace {

template <typename Op>
__attribute__((noinline)) void binaryOp(const float *__restrict x,
                                        const float *__restrict y,
                                        float *__restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = Op()(x[i], y[i]);
}

struct Add {
  float operator()(float x, float y) const { return x + y; }
};
struct Sub {
  float operator()(float x, float y) const { return x - y; }
};
struct Mul {
  float operator()(float x, float y) const { return x * y; }
};
struct Div {
  float operator()(float x, float y) const { return x / y; }
};

} // namespace
} // namespace airbench

#endif // UNUM_UTILS_BENCH_AIR_BENCH_LOOPS_H
