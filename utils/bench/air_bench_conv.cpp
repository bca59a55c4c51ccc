//===- air_bench_conv.cpp - conv1d: naive loop nest and oneDNN ------------===//
//
// Layout everywhere: x[L][C_in], w[K][C_in][C_out], y[L-K+1][C_out], valid
// padding, stride 1, no bias. Built with -O3 -march=native.
//
//===----------------------------------------------------------------------===//

#include "air_bench.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef UNUM_BENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
#include <omp.h>
#endif
#endif

namespace airbench {

// The textbook loop nest: one output at a time, a scalar accumulator over
// (k, ci). Without -ffast-math the (k, ci) sum is not reassociated, so this
// is a scalar dependent chain: what a straightforward implementation gets.
__attribute__((noinline)) void naiveConv1d(const float *x, const float *w,
                                           float *y, int64_t L, int64_t K,
                                           int64_t cin, int64_t cout) {
  for (int64_t l = 0; l + K <= L; ++l)
    for (int64_t co = 0; co < cout; ++co) {
      float acc = 0;
      for (int64_t k = 0; k < K; ++k)
        for (int64_t ci = 0; ci < cin; ++ci)
          acc += x[(l + k) * cin + ci] * w[(k * cin + ci) * cout + co];
      y[l * cout + co] = acc;
    }
}

#ifdef UNUM_BENCH_HAVE_DNNL

bool haveDnnl() { return true; }

class DnnlConv {
public:
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::convolution_forward prim;
  dnnl::memory src, wei, dst;
  dnnl::memory userDst; // y in our nwc layout
  std::string impl;
};

// oneDNN's 1-D convolution is N x C x W; our x[L][C_in] with N = 1 is its
// `nwc`, w[K][C_in][C_out] is `wio` and y[L'][C_out] is `nwc`.
DnnlConv *dnnlConvCreate(int64_t L, int64_t K, int64_t cin, int64_t cout,
                         bool blocked, const float *x, const float *w,
                         int threads) {
  using namespace dnnl;
  using tag = memory::format_tag;
  using dt = memory::data_type;
#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
  // The thread count, explicitly (one OpenMP runtime in this process:
  // libdnnl's libgomp.so.1 resolves, through the RUNPATH LLVM's libraries
  // need, to /usr/lib/llvm-22/lib/libgomp.so.1 -> libomp.so.5, the runtime
  // the JIT's kernels use too). oneDNN's jit kernels take the thread count
  // when the primitive is created (they partition the work then), so it is
  // set here, not before each run.
  omp_set_num_threads(threads);
#else
  (void)threads;
#endif
  auto *c = new DnnlConv;
  int64_t lout = L - K + 1;
  memory::desc userSrc({1, cin, L}, dt::f32, tag::nwc);
  memory::desc userWei({cout, cin, K}, dt::f32, tag::wio);
  memory::desc userDst({1, cout, lout}, dt::f32, tag::nwc);
  // With `blocked`, format_tag::any: oneDNN picks its preferred (blocked)
  // layouts and we reorder into them once here, outside the timed region.
  memory::desc srcMd =
      blocked ? memory::desc({1, cin, L}, dt::f32, tag::any) : userSrc;
  memory::desc weiMd =
      blocked ? memory::desc({cout, cin, K}, dt::f32, tag::any) : userWei;
  memory::desc dstMd =
      blocked ? memory::desc({1, cout, lout}, dt::f32, tag::any) : userDst;
  convolution_forward::desc desc(prop_kind::forward_inference,
                                 algorithm::convolution_direct, srcMd, weiMd,
                                 dstMd, {1}, {0}, {0});
  convolution_forward::primitive_desc pd(desc, c->eng);
  c->impl = pd.impl_info_str();
  c->prim = convolution_forward(pd);

  memory xMem(userSrc, c->eng, const_cast<float *>(x));
  memory wMem(userWei, c->eng, const_cast<float *>(w));
  c->src = memory(pd.src_desc(), c->eng);
  c->wei = memory(pd.weights_desc(), c->eng);
  c->dst = memory(pd.dst_desc(), c->eng);
  c->userDst = memory(userDst, c->eng);
  reorder(xMem, c->src).execute(c->strm, xMem, c->src);
  reorder(wMem, c->wei).execute(c->strm, wMem, c->wei);
  c->strm.wait();
  return c;
}

void dnnlConvRun(DnnlConv *c) {
  c->prim.execute(c->strm, {{DNNL_ARG_SRC, c->src},
                            {DNNL_ARG_WEIGHTS, c->wei},
                            {DNNL_ARG_DST, c->dst}});
  c->strm.wait();
}

void dnnlConvResult(DnnlConv *c, float *y) {
  dnnl::reorder(c->dst, c->userDst).execute(c->strm, c->dst, c->userDst);
  c->strm.wait();
  std::memcpy(y, c->userDst.get_data_handle(),
              c->userDst.get_desc().get_size());
}

const char *dnnlConvImpl(DnnlConv *c) { return c->impl.c_str(); }
void dnnlConvDestroy(DnnlConv *c) { delete c; }

#else // !UNUM_BENCH_HAVE_DNNL

bool haveDnnl() { return false; }
class DnnlConv {};
DnnlConv *dnnlConvCreate(int64_t, int64_t, int64_t, int64_t, bool,
                         const float *, const float *, int) {
  return nullptr;
}
void dnnlConvRun(DnnlConv *) {}
void dnnlConvResult(DnnlConv *, float *) {}
const char *dnnlConvImpl(DnnlConv *) { return "none"; }
void dnnlConvDestroy(DnnlConv *) {}

#endif

} // namespace airbench
