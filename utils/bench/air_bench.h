//===- air_bench.h - Kernels compared by unum-air-bench ---------*- C++ -*-===//
//
// Every column of the benchmark is a function declared here, so the driver
// (air_bench.cpp) only times and checks. The implementations live in separate
// translation units because each column needs its own compile flags:
//   air_bench_ref.cpp       -O3 -march=native              (i), (iii), triad
//   air_bench_ref_exp.cpp   -O3 -march=native -ffast-math  E2 for (i), (iii)
//   air_bench_conv.cpp      naive conv1d and oneDNN
//   air_bench_unum_*.cpp    wrappers around the unum-airc objects
//
//===----------------------------------------------------------------------===//

#ifndef UNUM_UTILS_BENCH_AIR_BENCH_H
#define UNUM_UTILS_BENCH_AIR_BENCH_H

#include <cstdint>
#include <vector>

namespace airbench {

// The temporaries of the naive evaluator. Allocated (and faulted in) once by
// the driver, so (i) pays for the extra passes over memory, not for mmap and
// page faults: the cheapest honest form of op-by-op evaluation.
struct Temps {
  float *t[3];
};

//--- (i) op-by-op, one loop and one full temporary per op -------------------
void naiveFma4(const float *a, const float *b, const float *c, const float *d,
               float *out, int64_t n, Temps &tmp);
void naiveExpDiv(const float *a, const float *b, const float *c,
                 const float *d, float *out, int64_t n, Temps &tmp);
float naiveSqDist(const float *a, const float *b, int64_t n, Temps &tmp);

//--- (iii) hand-written fused loops ------------------------------------------
void fusedFma4(const float *a, const float *b, const float *c, const float *d,
               float *out, int64_t n);
void fusedExpDiv(const float *a, const float *b, const float *c,
                 const float *d, float *out, int64_t n);
float fusedSqDist(const float *a, const float *b, int64_t n);

// The one reduction loop shared by naive and fused code (so the two differ
// only in fusion): several partial sums let the compiler vectorize a float
// sum without -ffast-math.
float sumF32(const float *x, int64_t n);

//--- (iv) STREAM triad: a[i] = b[i] + s * c[i] -------------------------------
void triad(float *a, const float *b, const float *c, float s, int64_t n);

//--- conv1d: x[L][C_in], w[K][C_in][C_out] -> y[L-K+1][C_out] ---------------
void naiveConv1d(const float *x, const float *w, float *y, int64_t L,
                 int64_t K, int64_t cin, int64_t cout);

// oneDNN forward-inference convolution, set up once per shape and run many
// times. `blocked` lets oneDNN choose its own layouts (format_tag::any); the
// reorders into and out of them happen in setup and are not timed.
// `threads`: oneDNN's OpenMP threads, fixed when the primitive is created
// (its kernels split the work for the thread count of that moment, so a
// primitive created for one thread runs on one whatever the count later).
class DnnlConv;
DnnlConv *dnnlConvCreate(int64_t L, int64_t K, int64_t cin, int64_t cout,
                         bool blocked, const float *x, const float *w,
                         int threads = 1);
void dnnlConvRun(DnnlConv *conv);
// Copies the result back into y[L-K+1][C_out] (reordering if blocked).
void dnnlConvResult(DnnlConv *conv, float *y);
const char *dnnlConvImpl(DnnlConv *conv);
void dnnlConvDestroy(DnnlConv *conv);
bool haveDnnl();

//--- matmul: the JIT-compiled Unum kernel (host CPU and --mcpu=haswell)
// against OpenBLAS (dlopen), sizes n x n; false if a result mismatched.
bool benchMatmul(const std::vector<int> &sizes, int reps, bool median);
//--- conv1d (L = 4096, C = 32, K = 3..9) JIT-compiled for 1 and 2 threads
// against oneDNN on 1 and 2 threads; false if a result mismatched.
bool benchConvThreads(int reps, bool median);

//--- (0) Unum AOT kernels ----------------------------------------------------
// Declared weak: the wrappers are linked only when unum-airc built the
// kernels, and the driver prints n/a for a column whose symbol is null.
__attribute__((weak)) void unumFma4(const float *a, const float *b,
                                    const float *c, const float *d,
                                    float *out, int64_t n);
__attribute__((weak)) void unumExpDiv(const float *a, const float *b,
                                      const float *c, const float *d,
                                      float *out, int64_t n);
__attribute__((weak)) float unumSqDist(const float *a, const float *b,
                                       int64_t n);
// One kernel per K (static shapes: L = 4096, C_in = C_out = 32).
__attribute__((weak)) void unumConvK3(const float *x, const float *w, float *y);
__attribute__((weak)) void unumConvK5(const float *x, const float *w, float *y);
__attribute__((weak)) void unumConvK7(const float *x, const float *w, float *y);
__attribute__((weak)) void unumConvK9(const float *x, const float *w, float *y);

} // namespace airbench

#endif // UNUM_UTILS_BENCH_AIR_BENCH_H
