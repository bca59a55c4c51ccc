//===- air_bench_matmul.cpp - matmul: Unum against OpenBLAS ---------------===//
//
// C[M,N] = A[M,K] B[K,N], f32, square sizes. The Unum kernel is one AIR
// function with dynamic sizes, JIT-compiled in this process twice: for this
// host's CPU (its vector registers size air-vectorize's blocks) and for
// --mcpu=haswell (AVX2). OpenBLAS's cblas_sgemm is loaded with dlopen from
// Debian's libopenblas0-pthread (not linked: Debian's default libblas.so.3 is
// the reference BLAS), one thread. Every kernel's result is checked against
// OpenBLAS's (or, without it, against a plain loop at the smallest size).
//
//===----------------------------------------------------------------------===//
#include "air_bench.h"
#include "unum/AirCompiler/AirCompiler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace {
using Clock = std::chrono::steady_clock;

struct Desc2 {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};

Desc2 desc(float *p, int64_t rows, int64_t cols) {
  return {p, p, 0, {rows, cols}, {cols, 1}};
}

const char *kMatmulAir = "function matmul(%a: f32[M, K], %b: f32[K, N]) {\n"
                         "    %0 = kernel(matmul, %a, %b)\n"
                         "    ret %0\n"
                         "}\n";

using Sgemm = void (*)(int, int, int, int, int, int, float, const float *, int,
                       const float *, int, float, float *, int);
using SetThreads = void (*)(int);

struct OpenBlas {
  Sgemm sgemm = nullptr;
  SetThreads setThreads = nullptr;
  std::string path;
};

OpenBlas loadOpenBlas() {
  OpenBlas blas;
  for (const char *path :
       {"/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
        "libopenblas.so.0"}) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
      continue;
    blas.sgemm = reinterpret_cast<Sgemm>(dlsym(h, "cblas_sgemm"));
    blas.setThreads =
        reinterpret_cast<SetThreads>(dlsym(h, "openblas_set_num_threads"));
    if (blas.sgemm) {
      blas.path = path;
      return blas;
    }
  }
  return blas;
}

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown", flags;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0 && model == "unknown")
      model = line.substr(line.find(':') + 2);
    if (line.rfind("flags", 0) == 0 && flags.empty())
      flags = " " + line.substr(line.find(':') + 1) + " ";
  }
  std::string simd;
  for (const char *f :
       {"avx", "avx2", "fma", "avx512f", "avx512vl", "avx512_bf16", "amx_tile"})
    if (flags.find(std::string(" ") + f + " ") != std::string::npos)
      simd += std::string(simd.empty() ? "" : " ") + f;
  return model + " [" + simd + "]";
}

struct Kernel {
  std::string label, cpu;
  std::unique_ptr<unum::air::AirCompiler> compiler;
  std::unique_ptr<unum::air::JitKernels> jit;
  double compileSeconds = 0;
};

bool build(Kernel &k) {
  auto start = Clock::now();
  k.compiler = std::make_unique<unum::air::AirCompiler>();
  unum::air::CompileOptions options;
  options.cpu = k.cpu;
  if (!k.compiler->compile(kMatmulAir, "matmul.air", options)) {
    std::printf("!!! %s: %s", k.label.c_str(), k.compiler->errors().c_str());
    return false;
  }
  k.jit = k.compiler->jit();
  k.compileSeconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  if (!k.jit)
    std::printf("!!! %s: %s", k.label.c_str(), k.compiler->errors().c_str());
  return k.jit != nullptr;
}

template <typename F> std::pair<double, double> timeIt(int reps, F &&f) {
  std::vector<double> t;
  f(); // warm-up
  for (int r = 0; r < reps; ++r) {
    auto s = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - s).count());
  }
  std::sort(t.begin(), t.end());
  return {t.front(), t[t.size() / 2]};
}

double maxRelError(const std::vector<float> &got,
                   const std::vector<float> &want) {
  double worst = 0, scale = 0;
  for (float w : want)
    scale = std::max(scale, (double)std::fabs(w));
  for (size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::fabs((double)got[i] - want[i]) /
                                std::max(scale, 1e-30));
  return std::isnan(worst) ? INFINITY : worst;
}
} // namespace

namespace airbench {

bool benchMatmul(const std::vector<int> &sizes, int reps, bool median) {
  std::printf("\n== matmul C[n,n] = A[n,n] B[n,n], f32, one thread ==\n");
  std::printf("CPU: %s\n", cpuModel().c_str());
  OpenBlas blas = loadOpenBlas();
  if (blas.sgemm) {
    if (blas.setThreads)
      blas.setThreads(1);
    std::printf("OpenBLAS: %s (cblas_sgemm, 1 thread)\n", blas.path.c_str());
  } else {
    std::printf("OpenBLAS: not found (apt-get install libopenblas0-pthread): "
                "its column is n/a\n");
  }
  std::vector<Kernel> kernels(2);
  kernels[0].label = "unum host";
  kernels[1].label = "unum haswell";
  kernels[1].cpu = "haswell";
  bool ok = true;
  for (Kernel &k : kernels) {
    ok &= build(k);
    std::printf("%s: --mcpu=%s, JIT compile %.2f s\n", k.label.c_str(),
                k.cpu.empty() ? "(host)" : k.cpu.c_str(), k.compileSeconds);
  }
  if (!ok)
    return false;
  std::printf("GFLOP/s = 2 n^3 / time (%s of %d); ratio = OpenBLAS time / "
              "Unum time (>= 0.8 is the goal); threads: 1 (Unum kernels are "
              "single-threaded)\n",
              median ? "median" : "best", reps);
  std::printf("%6s %8s %12s %12s %12s %10s %10s %9s\n", "n", "threads",
              "openblas", "unum host", "unum hsw", "host/blas", "hsw/blas",
              "max err");
  for (int n : sizes) {
    int64_t nn = (int64_t)n * n;
    std::vector<float> a(nn), b(nn), want(nn, 0.f);
    unsigned seed = 12345;
    auto rnd = [&] {
      seed = seed * 1103515245u + 12345u;
      return (float)((seed >> 9) & 0xffff) / 65536.f - 0.5f;
    };
    for (auto &x : a)
      x = rnd();
    for (auto &x : b)
      x = rnd();
    double flops = 2.0 * n * (double)n * n;
    double blasTime = 0;
    if (blas.sgemm) {
      auto t = timeIt(reps, [&] {
        blas.sgemm(101 /*RowMajor*/, 111 /*NoTrans*/, 111, n, n, n, 1.f,
                   a.data(), n, b.data(), n, 0.f, want.data(), n);
      });
      blasTime = median ? t.second : t.first;
    } else {
      for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k)
          for (int j = 0; j < n; ++j)
            want[(int64_t)i * n + j] +=
                a[(int64_t)i * n + k] * b[(int64_t)k * n + j];
    }
    double unumTime[2];
    double err = 0;
    for (int i = 0; i < 2; ++i) {
      std::vector<float> c(nn, NAN);
      Desc2 da = desc(a.data(), n, n), db = desc(b.data(), n, n),
            dc = desc(c.data(), n, n);
      int32_t status = 0;
      auto t = timeIt(reps, [&] {
        status = kernels[i].jit->call("matmul", &da, &db, &dc);
      });
      unumTime[i] = median ? t.second : t.first;
      double e = maxRelError(c, want);
      err = std::max(err, e);
      if (status != 0 || !(e < 1e-4)) {
        std::printf("!!! MISMATCH: %s n=%d status %d max rel err %g\n",
                    kernels[i].label.c_str(), n, status, e);
        ok = false;
      }
    }
    auto gf = [&](double t) { return t > 0 ? flops / t * 1e-9 : 0.0; };
    char blasCol[32] = "n/a", r0[32] = "n/a", r1[32] = "n/a";
    if (blas.sgemm) {
      std::snprintf(blasCol, sizeof blasCol, "%.1f", gf(blasTime));
      std::snprintf(r0, sizeof r0, "%.2fx", blasTime / unumTime[0]);
      std::snprintf(r1, sizeof r1, "%.2fx", blasTime / unumTime[1]);
    }
    std::printf("%6d %8d %12s %12.1f %12.1f %10s %10s %9.1e\n", n, 1, blasCol,
                gf(unumTime[0]), gf(unumTime[1]), r0, r1, err);
    std::fflush(stdout);
  }
  return ok;
}

} // namespace airbench
