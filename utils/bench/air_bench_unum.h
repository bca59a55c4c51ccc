//===- air_bench_unum.h - Memref descriptors for the Unum wrappers -*- C++ -*-//
//
// Helpers for the air_bench_unum_*.cpp wrappers, which turn the driver's
// plain pointers into the descriptors of the unum-airc ABI (the standard MLIR
// ranked memref descriptor: allocated, aligned, offset, sizes, strides). One
// wrapper per translation unit, so two generated headers never meet.
//
//===----------------------------------------------------------------------===//

#ifndef UNUM_UTILS_BENCH_AIR_BENCH_UNUM_H
#define UNUM_UTILS_BENCH_AIR_BENCH_UNUM_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace airbench {

// A contiguous row-major descriptor of any rank over `p`.
template <typename MemRef, int R>
MemRef unumMemRef(const float *p, const int64_t (&sizes)[R]) {
  MemRef m;
  m.allocated = m.aligned = const_cast<float *>(p);
  m.offset = 0;
  int64_t stride = 1;
  for (int i = R - 1; i >= 0; --i) {
    m.sizes[i] = sizes[i];
    m.strides[i] = stride;
    stride *= sizes[i];
  }
  return m;
}

// A kernel's status must be UNUM_AIR_OK (0): the driver passes right sizes.
inline void unumCheck(int32_t status, const char *kernel) {
  if (status != 0) {
    std::fprintf(stderr, "unum-air-bench: %s returned status %d\n", kernel,
                 (int)status);
    std::abort();
  }
}

// Calls an elementwise kernel of four f32[n] inputs and one f32[n] result.
template <typename M, typename Fn>
void unumCall4(Fn fn, const float *a, const float *b, const float *c,
               const float *d, float *out, int64_t n) {
  M ma = unumMemRef<M>(a, {n}), mb = unumMemRef<M>(b, {n}),
    mc = unumMemRef<M>(c, {n}), md = unumMemRef<M>(d, {n}),
    mo = unumMemRef<M>(out, {n});
  unumCheck(fn(&ma, &mb, &mc, &md, &mo), "an elementwise kernel");
}

} // namespace airbench

#endif // UNUM_UTILS_BENCH_AIR_BENCH_UNUM_H
