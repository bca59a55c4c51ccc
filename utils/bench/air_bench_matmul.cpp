//===- air_bench_matmul.cpp - matmul and conv1d on 1 and 2 threads --------===//
//
// C[M,N] = A[M,K] B[K,N], f32, square sizes. The Unum kernel is one AIR
// function with dynamic sizes, JIT-compiled in this process four times: for
// this host's CPU (its vector registers size air-vectorize's blocks) and for
// --mcpu=haswell (AVX2), each with 1 and 2 threads (--threads, OpenMP).
// OpenBLAS's cblas_sgemm is loaded with dlopen from Debian's
// libopenblas0-pthread (not linked: Debian's default libblas.so.3 is the
// reference BLAS), with 1 and 2 threads. Every kernel's result is checked
// against OpenBLAS's (or, without it, against a plain loop).
//
// conv1d (L = 4096, C = 32, K = 3..9) the same way: the AIR kernel with
// static shapes JIT-compiled for this host and --mcpu=haswell, 1 and 2
// threads each, against oneDNN's blocked layout (`any`) on 1 and 2 OpenMP
// threads.
//
// Both tables run on every CPU the process was allowed at start: the driver
// pins itself to one CPU for the single-thread tables, and threads created
// while it is pinned (OpenMP teams, OpenBLAS's pool) would share that CPU.
//
//===----------------------------------------------------------------------===//
#include "air_bench.h"
#include "air_bench_threads.h"
#include "unum/AirCompiler/AirCompiler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <dlfcn.h>
#include <fstream>
#include <functional>
#include <memory>
#include <sched.h>
#include <string>
#include <thread>
#include <vector>

namespace {
using Clock = std::chrono::steady_clock;

/// The CPUs this process may run on, read before main() pins it.
cpu_set_t startCpus = [] {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  return set;
}();

/// Runs on all of startCpus while alive (then back on the pinned CPU).
class AllCpus {
public:
  AllCpus() {
    CPU_ZERO(&pinned);
    sched_getaffinity(0, sizeof pinned, &pinned);
    sched_setaffinity(0, sizeof startCpus, &startCpus);
    std::printf("running on %d CPUs (threads created now are not pinned); "
                "load average %s\n",
                CPU_COUNT(&startCpus), loadAverage().c_str());
  }
  ~AllCpus() { sched_setaffinity(0, sizeof pinned, &pinned); }

  static std::string loadAverage() {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
  }

private:
  cpu_set_t pinned;
};

/// Waits until the worker threads of the library timed last have stopped
/// spinning: OpenBLAS's idle workers spin for 2^28 cycles (~0.1 s) before
/// they sleep, libomp's (the JIT's kernels and oneDNN, see
/// air_bench_conv.cpp) for its KMP_BLOCKTIME (200 ms). The next kernel timed
/// on two threads would share a CPU with them (it measured n = 256 matmul at
/// 0.84x of one thread, right after OpenBLAS's rows).
/// Fills `v` with values in [-0.5, 0.5) from a linear congruential stream
/// that `seed` carries on (the same inputs every run, no <random> needed).
void fillRandom(std::vector<float> &v, unsigned &seed) {
  for (float &x : v) {
    seed = seed * 1103515245u + 12345u;
    x = (float)((seed >> 9) & 0xffff) / 65536.f - 0.5f;
  }
}

void letIdleWorkersSleep() {
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
}

struct Desc1 {
  float *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
};

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
  int threads = 1;
  std::unique_ptr<unum::air::AirCompiler> compiler;
  std::unique_ptr<unum::air::JitKernels> jit;
  double compileSeconds = 0;
};

bool build(Kernel &k, const char *air = kMatmulAir) {
  auto start = Clock::now();
  k.compiler = std::make_unique<unum::air::AirCompiler>();
  unum::air::CompileOptions options;
  options.cpu = k.cpu;
  options.threads = k.threads;
  if (!k.compiler->compile(air, "bench.air", options)) {
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

/// Seconds of CPU this process's threads have run (the scheduler's exact
/// count: getrusage's user/system split lags by ticks over a few ms).
double processCpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/// What the OpenMP threads did in one timed call (or batch of calls) of
/// race() (air_bench_threads.h): the threads that ran a share of a shared
/// loop, their seconds inside their shares, the union of those intervals,
/// and those threads' CPU seconds and involuntary context switches over a
/// window from just before the call to just after it.
struct RoundEvidence {
  int threads = 0;      // threads that ran a share
  double shareWall = 0; // their seconds inside their shares, summed
  double span = 0;      // seconds any of them was inside one
  double windowCpu = 0; // their CPU seconds over the window, summed
  double window = 0;    // the window's seconds
  long involuntary = 0; // their involuntary context switches in it
  double callerCpu = 0; // the calling thread's CPU seconds in the window
};

/// Best and median seconds of a call, and the CPUs the process had while
/// timed: its CPU time / wall time (OpenMP's idle workers spin, so with
/// two threads this is ~2 whenever both got a CPU; ~1 means the machine
/// gave the process one CPU, e.g. another session busy: autogroup shares
/// the cores between sessions, and 2 threads cannot beat 1 then).
struct Timing {
  double best = 0, median = 0, cpus = 0;
  /// From race(): each round's seconds and what the threads did in it.
  std::vector<double> rounds;
  std::vector<RoundEvidence> evidence;
};

template <typename F> Timing timeIt(int reps, F &&f) {
  std::vector<double> t;
  f(); // warm-up
  double cpu0 = processCpuSeconds();
  auto start = Clock::now();
  for (int r = 0; r < reps; ++r) {
    auto s = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - s).count());
  }
  double wall = std::chrono::duration<double>(Clock::now() - start).count();
  std::sort(t.begin(), t.end());
  return {t.front(), t[t.size() / 2],
          wall > 0 ? (processCpuSeconds() - cpu0) / wall : 0};
}

/// Times the calls `fs` in turn, one call of each per round, `rounds`
/// rounds after one warm-up round: a change of the machine's load during
/// the run (other processes on this shared VM) then hits every contestant
/// alike, and their ratios hold even when their absolute times move. `cpus`
/// is the process's CPU time / wall time over all the rounds, the same for
/// every contestant: the kernel accounts another running thread's CPU time
/// only at scheduler ticks (4 ms), too coarse to split between calls of
/// 1-2 ms (an OpenMP worker spinning after a 2-thread call also runs during
/// the next 1-thread one).
std::vector<Timing> race(int rounds,
                         const std::vector<std::function<void()>> &fs) {
  size_t n = fs.size();
  std::vector<std::vector<double>> t(n);
  for (const auto &f : fs)
    f(); // warm-up
  double cpu0 = processCpuSeconds();
  auto start = Clock::now();
  std::vector<std::vector<RoundEvidence>> ev(n);
  for (int r = 0; r < rounds; ++r)
    for (size_t i = 0; i < n; ++i) {
      airbench::resetThreadShares();
      airbench::ThreadClocks before = airbench::readThreadClocks();
      auto s = Clock::now();
      fs[i]();
      t[i].push_back(std::chrono::duration<double>(Clock::now() - s).count());
      airbench::ThreadClocks after = airbench::readThreadClocks();
      RoundEvidence e;
      e.span = airbench::loopSpanSeconds();
      e.window = after.wall - before.wall;
      e.callerCpu = after.callerCpu - before.callerCpu;
      for (const airbench::ThreadShare &share : airbench::threadShares()) {
        ++e.threads;
        e.shareWall += share.wall;
        size_t k = share.thread;
        if (k < before.cpu.size() && k < after.cpu.size()) {
          e.windowCpu += after.cpu[k] - before.cpu[k];
          e.involuntary += after.involuntary[k] - before.involuntary[k];
        }
      }
      ev[i].push_back(std::move(e));
    }
  double wall = std::chrono::duration<double>(Clock::now() - start).count();
  double cpus = wall > 0 ? (processCpuSeconds() - cpu0) / wall : 0;
  std::vector<Timing> out(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> sorted = t[i];
    std::sort(sorted.begin(), sorted.end());
    out[i] = {sorted.front(), sorted[sorted.size() / 2], cpus, t[i],
              std::move(ev[i])};
  }
  return out;
}

/// A 2-thread contestant of race() against its 1-thread one, from the
/// per-round evidence. A round is *parallel* when both threads had a CPU and
/// computed side by side: (1) the threads that ran the shared loop had at
/// least 1.8 CPUs over the call (their CPU time over a window from just
/// before the call to just after it, at least 1.8 x the window; libomp's
/// workers spin between calls, so a thread with a CPU of its own counts
/// ~1.0 whether it works or waits), and (2) their shares overlapped: the
/// seconds inside their shares add up to at least 1.8 x the seconds during
/// which any was inside one (1.0: one ran after the other, i.e. both on one
/// CPU; a share 10% shorter than the other gives 1.9), and (3) the
/// round's 1-thread call had its CPU: the calling thread's CPU time over
/// that call's window is at least 0.9 x the window (a 1-thread call slowed
/// by the machine would inflate the ratio).
struct PairFigures {
  bool available = false; // the OMPT tool reported (threadEvidence())
  int rounds = 0, parallel = 0;
  double ratio = 0; // 1-thread time / 2-thread time over the parallel rounds
  double cpus = 0;  // median round's (1)
  double side = 0;  // median round's (2)
  double work = 0;  // median round's seconds inside the shares / the
                    // 1-thread call's seconds
  long involuntary = 0; // involuntary context switches, all rounds' windows
};

double medianOf(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// `callsOne` and `callsTwo`: calls per round of each (batches of calls).
PairFigures pairFigures(const Timing &one, const Timing &two, bool median,
                        int callsOne = 1, int callsTwo = 1) {
  PairFigures f;
  f.available = airbench::threadEvidence();
  if (!f.available)
    return f;
  std::vector<double> t1, t2, cpus, side, work;
  size_t n = std::min(two.evidence.size(), one.evidence.size());
  f.rounds = (int)n;
  for (size_t r = 0; r < n; ++r) {
    const RoundEvidence &e = two.evidence[r];
    f.involuntary += e.involuntary;
    double c = e.window > 0 ? e.windowCpu / e.window : 0;
    double s = e.span > 0 ? e.shareWall / e.span : 0;
    cpus.push_back(c);
    side.push_back(s);
    double oneCall = one.rounds[r] / callsOne;
    if (oneCall > 0)
      work.push_back(e.shareWall / callsTwo / oneCall);
    // The 1-thread call of the round had its CPU (>= 90% of its window).
    const RoundEvidence &o = one.evidence[r];
    bool oneRan = o.window > 0 && o.callerCpu >= 0.9 * o.window;
    if (e.threads >= 2 && c >= 1.8 && s >= 1.8 && oneRan) {
      ++f.parallel;
      t1.push_back(oneCall);
      t2.push_back(two.rounds[r] / callsTwo);
    }
  }
  f.cpus = medianOf(cpus);
  f.side = medianOf(side);
  f.work = medianOf(work);
  if (!t2.empty()) {
    double a = median ? medianOf(t1) : *std::min_element(t1.begin(), t1.end());
    double b = median ? medianOf(t2) : *std::min_element(t2.begin(), t2.end());
    f.ratio = b > 0 ? a / b : 0;
  }
  return f;
}

/// The evidence columns of a 2-thread row (blank for 1-thread rows).
std::string evidenceColumns(const PairFigures *f) {
  char out[96];
  if (!f) {
    std::snprintf(out, sizeof out, " %6s %9s %5s %5s %6s %6s", "", "", "", "",
                  "", "");
  } else if (!f->available) {
    std::snprintf(out, sizeof out, " %6s %9s %5s %5s %6s %6s", "n/a", "n/a",
                  "n/a", "n/a", "n/a", "n/a");
  } else {
    char par[16], ratio[16] = "-";
    std::snprintf(par, sizeof par, "%d/%d", f->parallel, f->rounds);
    if (f->parallel > 0)
      std::snprintf(ratio, sizeof ratio, "%.2fx", f->ratio);
    std::snprintf(out, sizeof out, " %6s %9s %5.2f %5.2f %6.2f %6ld", par,
                  ratio, f->cpus, f->side, f->work, f->involuntary);
  }
  return out;
}

/// The header of the evidence columns (ending the line), and what they mean.
void printEvidenceHeader() {
  std::printf(" %6s %9s %5s %5s %6s %6s\n", "par", "vs 1t par", "tcpus", "side",
              "work", "ivcs");
}
void printEvidenceLegend() {
  std::printf(
      "2-thread evidence (an OMPT tool in this process times each OpenMP "
      "thread's share of the kernel's shared loop; the threads' CPU clocks "
      "and /proc counters are read just before and after each call): tcpus "
      "= CPU time of the threads that ran the loop / wall time, over the "
      "call (median round; ~2 when each had a CPU, ~1 when they shared one); "
      "side = their seconds inside their shares / the seconds any was inside "
      "one (median round; 2 = side by side, 1 = one after the other); par = "
      "rounds with tcpus >= 1.8 and side >= 1.8 (both threads had a CPU and "
      "computed together) whose 1-thread call had its CPU (>= 90%% of its "
      "time) / all rounds; vs 1t par = vs 1t over those rounds "
      "only (vs 1t is over all rounds); work = seconds inside the two shares "
      "/ the 1-thread call's seconds in the same round (median; 1.00 = no "
      "extra work; more = work done twice, waiting inside a share, or a CPU "
      "slower than in the 1-thread call); ivcs = involuntary context "
      "switches of those threads over all rounds (another thread took their "
      "CPU)\n");
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
  std::printf("\n== matmul C[n,n] = A[n,n] B[n,n], f32, 1 and 2 threads ==\n");
  std::printf("CPU: %s\n", cpuModel().c_str());
  AllCpus all; // before OpenBLAS starts its threads
  OpenBlas blas = loadOpenBlas();
  if (blas.sgemm) {
    std::printf("OpenBLAS: %s (cblas_sgemm, openblas_set_num_threads per "
                "row)\n",
                blas.path.c_str());
  } else {
    std::printf("OpenBLAS: not found (apt-get install libopenblas0-pthread): "
                "its rows and ratios are n/a\n");
  }
  std::vector<Kernel> kernels(4);
  kernels[0].label = "unum";
  kernels[1].label = "unum";
  kernels[1].cpu = "haswell";
  kernels[2].label = "unum";
  kernels[2].threads = 2;
  kernels[3].label = "unum";
  kernels[3].cpu = "haswell";
  kernels[3].threads = 2;
  bool ok = true;
  for (Kernel &k : kernels) {
    ok &= build(k);
    std::printf("%s: --mcpu=%s --threads=%d, JIT compile %.2f s\n",
                k.label.c_str(), k.cpu.empty() ? "(host)" : k.cpu.c_str(),
                k.threads, k.compileSeconds);
  }
  if (!ok)
    return false;
  std::printf(
      "GFLOP/s = 2 n^3 / time, best and median of %d; the 1-thread rows "
      "(OpenBLAS, Unum host, Unum haswell) are timed in turn, one call of "
      "each per round, and so are Unum's 1- and 2-thread kernels for `vs 1t`, "
      "so a change of the machine's load hits both sides of a ratio; vs "
      "blas = OpenBLAS time / Unum time, both with the same threads and the "
      "%s (>= 0.8 is the goal at 1 thread); vs 1t = the same kernel's "
      "1-thread time / its time, from the same rounds (goal >= 1.7 at 2); "
      "cpus = the process's CPU time / wall time over the rounds the row "
      "was timed in (the same for the rows timed in turn; ~1 at 2 threads: "
      "the machine gave it one CPU, the 2-thread ratios mean nothing)\n",
      reps, median ? "median" : "best");
  printEvidenceLegend();
  std::printf("%6s %-9s %-8s %7s %9s %9s %8s %7s %5s %9s", "n", "kernel",
              "mcpu", "threads", "best", "median", "vs blas", "vs 1t", "cpus",
              "max err");
  printEvidenceHeader();
  for (int n : sizes) {
    int64_t nn = (int64_t)n * n;
    std::vector<float> a(nn), b(nn), want(nn, 0.f);
    unsigned seed = 12345;
    fillRandom(a, seed);
    fillRandom(b, seed);
    double flops = 2.0 * n * (double)n * n;
    auto gf = [&](double t) { return t > 0 ? flops / t * 1e-9 : 0.0; };
    auto pick = [&](const Timing &t) { return median ? t.median : t.best; };
    auto row = [&](const char *label, const char *cpu, int threads,
                   const Timing &t, const char *vsBlas, const char *vsOne,
                   const char *err, const PairFigures *evidence = nullptr) {
      std::printf("%6d %-9s %-8s %7d %9.1f %9.1f %8s %7s %5.2f %9s%s\n", n,
                  label, cpu, threads, gf(t.best), gf(t.median), vsBlas, vsOne,
                  t.cpus, err, evidenceColumns(evidence).c_str());
      std::fflush(stdout);
    };
    auto ratio = [](char(&out)[32], double num, double den) {
      std::snprintf(out, sizeof out, "%.2fx", den > 0 ? num / den : 0.0);
    };
    // Every Unum kernel writes its own C, checked after the timing.
    std::vector<std::vector<float>> c(kernels.size(),
                                      std::vector<float>(nn, NAN));
    std::vector<int32_t> status(kernels.size(), 0);
    Desc2 da = desc(a.data(), n, n), db = desc(b.data(), n, n);
    std::vector<Desc2> dc;
    for (auto &ci : c)
      dc.push_back(desc(ci.data(), n, n));
    auto unum = [&](size_t i) -> std::function<void()> {
      return [&, i] {
        status[i] = kernels[i].jit->call("matmul", &da, &db, &dc[i]);
      };
    };
    std::vector<float> blasC(nn, 0.f);
    auto sgemm = [&](float *out) {
      blas.sgemm(101 /*RowMajor*/, 111 /*NoTrans*/, 111, n, n, n, 1.f, a.data(),
                 n, b.data(), n, 0.f, out, n);
    };
    if (blas.sgemm) {
      if (blas.setThreads)
        blas.setThreads(1);
      sgemm(want.data());
    } else {
      for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k)
          for (int j = 0; j < n; ++j)
            want[(int64_t)i * n + j] +=
                a[(int64_t)i * n + k] * b[(int64_t)k * n + j];
    }
    // One thread: OpenBLAS, Unum host, Unum haswell in turn.
    std::vector<std::function<void()>> one;
    if (blas.sgemm)
      one.push_back([&] { sgemm(blasC.data()); });
    one.push_back(unum(0));
    one.push_back(unum(1));
    std::vector<Timing> t1 = race(reps, one);
    size_t u = blas.sgemm ? 1 : 0; // first Unum entry of t1
    // OpenBLAS on two threads alone (its idle workers spin ~0.1 s after a
    // call and would share the CPUs with Unum's threads).
    Timing blas2;
    if (blas.sgemm) {
      if (blas.setThreads)
        blas.setThreads(2);
      blas2 = timeIt(reps, [&] { sgemm(blasC.data()); });
      if (blas.setThreads)
        blas.setThreads(1);
      letIdleWorkersSleep();
    }
    // Unum's 1- and 2-thread kernels in turn (host 1t, host 2t, haswell 1t,
    // haswell 2t): `vs 1t` from the same rounds.
    std::vector<Timing> t2 = race(reps, {unum(0), unum(2), unum(1), unum(3)});
    letIdleWorkersSleep();
    char none[32] = "", vsBlas[32], vsOne[32];
    if (blas.sgemm) {
      row("openblas", "", 1, t1[0], none, none, "");
      ratio(vsOne, pick(t1[0]), pick(blas2));
      row("openblas", "", 2, blas2, none, vsOne, "");
    }
    for (size_t i = 0; i < kernels.size(); ++i) {
      Kernel &k = kernels[i];
      bool two = k.threads > 1;
      size_t haswell = k.cpu.empty() ? 0 : 1;
      const Timing &t = two ? t2[2 * haswell + 1] : t1[u + haswell];
      std::snprintf(vsBlas, sizeof vsBlas, "n/a");
      if (blas.sgemm)
        ratio(vsBlas, pick(two ? blas2 : t1[0]), pick(t));
      vsOne[0] = 0;
      PairFigures evidence;
      if (two) {
        ratio(vsOne, pick(t2[2 * haswell]), pick(t));
        evidence = pairFigures(t2[2 * haswell], t, median);
      }
      double e = maxRelError(c[i], want);
      if (status[i] != 0 || !(e < 1e-4)) {
        std::printf("!!! MISMATCH: %s --mcpu=%s --threads=%d n=%d status %d "
                    "max rel err %g\n",
                    k.label.c_str(), k.cpu.c_str(), k.threads, n, status[i], e);
        ok = false;
      }
      char err[32];
      std::snprintf(err, sizeof err, "%9.1e", e);
      row(k.label.c_str(), k.cpu.empty() ? "host" : k.cpu.c_str(), k.threads, t,
          vsBlas, vsOne, err, two ? &evidence : nullptr);
    }
  }
  return ok;
}

namespace {
struct Desc3 {
  float *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
};

/// Best and median seconds per call over `samples` batches of calls, each
/// batch lasting about 2 ms (a conv1d call takes well under one).
template <typename F> Timing timeBatches(int samples, F &&f) {
  auto s = Clock::now();
  f(); // warm-up, and the batch size
  double once = std::chrono::duration<double>(Clock::now() - s).count();
  int calls = std::max(1, int(0.002 / std::max(once, 1e-7)));
  Timing t = timeIt(samples, [&] {
    for (int i = 0; i < calls; ++i)
      f();
  });
  t.best /= calls;
  t.median /= calls;
  return t;
}
} // namespace

bool benchConvThreads(int reps, bool median) {
  const int64_t L = 4096, C = 32;
  std::printf("\n== conv1d x[%lld][%lld] * w[K][%lld][%lld], f32, 1 and 2 "
              "threads ==\n",
              (long long)L, (long long)C, (long long)C, (long long)C);
  AllCpus all; // before OpenMP (libomp: oneDNN's and the JIT's) forks
  std::printf("GFLOP/s = 2 (L-K+1) C^2 K / time, best and median of %d "
              "samples of ~2 ms; vs dnnl = oneDNN `any` (blocked layouts, "
              "reorders untimed) time / Unum time with the same threads and "
              "the %s; vs 1t = the same kernel's 1-thread time / its time, "
              "the two timed in turn (one batch of each per round; goal >= "
              "1.7 at 2); unum+b+r = conv1d + bias + relu (flops "
              "counted: the conv1d's), no oneDNN row; cpus as above\n",
              5 * reps, median ? "median" : "best");
  printEvidenceLegend();
  std::printf("%3s %-9s %-8s %7s %9s %9s %8s %7s %5s %9s", "K", "kernel",
              "mcpu", "threads", "best", "median", "vs dnnl", "vs 1t", "cpus",
              "max err");
  printEvidenceHeader();
  bool ok = true;
  std::vector<float> x(L * C);
  unsigned seed = 777;
  fillRandom(x, seed);
  for (int K : {3, 5, 7, 9}) {
    const int64_t lout = L - K + 1;
    std::vector<float> w(K * C * C), want(lout * C, 0.f);
    fillRandom(w, seed);
    for (int64_t l = 0; l < lout; ++l)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t ci = 0; ci < C; ++ci)
          for (int64_t co = 0; co < C; ++co)
            want[l * C + co] += x[(l + k) * C + ci] * w[(k * C + ci) * C + co];
    double flops = 2.0 * lout * C * C * K;
    auto gf = [&](double t) { return t > 0 ? flops / t * 1e-9 : 0.0; };
    double dnnlTime[3] = {0, 0, 0};
    if (haveDnnl()) {
      for (int threads : {1, 2}) {
        DnnlConv *conv = dnnlConvCreate(L, K, C, C, /*blocked=*/true, x.data(),
                                        w.data(), threads);
        auto t = timeBatches(5 * reps, [&] { dnnlConvRun(conv); });
        dnnlTime[threads] = median ? t.median : t.best;
        std::vector<float> y(lout * C);
        dnnlConvResult(conv, y.data());
        double e = maxRelError(y, want);
        char vsOne[32] = "";
        if (threads > 1)
          std::snprintf(vsOne, sizeof vsOne, "%.2fx",
                        dnnlTime[1] / dnnlTime[threads]);
        std::printf("%3d %-9s %-8s %7d %9.1f %9.1f %8s %7s %5.2f %9.1e\n", K,
                    "onednn", "", threads, gf(t.best), gf(t.median), "", vsOne,
                    t.cpus, e);
        dnnlConvDestroy(conv);
      }
      letIdleWorkersSleep();
    }
    // conv1d alone, then with a bias + relu epilogue (air-fuse-rows blocks
    // its rows; the threads share those blocks, one fork per call). oneDNN
    // is timed without the epilogue: `vs dnnl` is for the plain rows only.
    std::vector<float> bias(C), wantEpilogue(want);
    fillRandom(bias, seed);
    for (int64_t l = 0; l < lout; ++l)
      for (int64_t co = 0; co < C; ++co)
        wantEpilogue[l * C + co] = std::max(want[l * C + co] + bias[co], 0.f);
    std::string shapes = "%x: f32[" + std::to_string(L) + ", " +
                         std::to_string(C) + "], %w: f32[" + std::to_string(K) +
                         ", " + std::to_string(C) + ", " + std::to_string(C) +
                         "]";
    struct Variant {
      const char *label;
      std::string air;
      const std::vector<float> *want;
    } variants[] = {
        {"unum",
         "function conv(" + shapes +
             ") {\n    %0 = kernel(conv1d, %x, %w)\n    ret %0\n}\n",
         &want},
        {"unum+b+r",
         "function conv(" + shapes + ", %b: f32[" + std::to_string(C) +
             "]) {\n    %0 = kernel(conv1d, %x, %w)\n"
             "    %1 = kernel(add, %0, %b)\n    %2 = kernel(max, %1, 0.0)\n"
             "    ret %2\n}\n",
         &wantEpilogue}};
    for (const Variant &v : variants) {
      bool epilogue = v.want == &wantEpilogue;
      // This host's CPU, then --mcpu=haswell (the AVX2 figures every x86-64
      // host with AVX2 should reach), each on 1 and 2 threads.
      for (const char *cpu : {"", "haswell"}) {
        // The 1- and 2-thread kernels timed in turn (batches of ~2 ms each,
        // one batch of each per round): `vs 1t` from the same rounds.
        Kernel ks[2];
        std::vector<float> y[2];
        Desc2 dy[2];
        int32_t status[2] = {0, 0};
        Desc2 dx = desc(x.data(), L, C);
        Desc3 dw = {w.data(), w.data(), 0, {K, C, C}, {C * C, C, 1}};
        Desc1 db = {bias.data(), bias.data(), 0, {C}, {1}};
        std::vector<std::function<void()>> batches;
        int calls[2];
        for (int i = 0; i < 2; ++i) {
          ks[i].label = v.label;
          ks[i].cpu = cpu;
          ks[i].threads = i + 1;
          if (!build(ks[i], v.air.c_str()))
            return false;
          y[i].assign(lout * C, NAN);
          dy[i] = desc(y[i].data(), lout, C);
          auto once = [&, i] {
            status[i] = epilogue
                            ? ks[i].jit->call("conv", &dx, &dw, &db, &dy[i])
                            : ks[i].jit->call("conv", &dx, &dw, &dy[i]);
          };
          once(); // compiles lazily, faults y in
          auto s = Clock::now();
          once();
          double t = std::chrono::duration<double>(Clock::now() - s).count();
          calls[i] = std::max(1, int(0.002 / std::max(t, 1e-7)));
          batches.push_back([once, n = calls[i]] {
            for (int c = 0; c < n; ++c)
              once();
          });
        }
        std::vector<Timing> ts = race(5 * reps, batches);
        for (int i = 0; i < 2; ++i) {
          ts[i].best /= calls[i];
          ts[i].median /= calls[i];
        }
        for (int i = 0; i < 2; ++i) {
          int threads = i + 1;
          const Timing &t = ts[i];
          double time = median ? t.median : t.best;
          double e = maxRelError(y[i], *v.want);
          if (status[i] != 0 || !(e < 1e-4)) {
            std::printf("!!! MISMATCH: %s K=%d --mcpu=%s --threads=%d status "
                        "%d max rel err %g\n",
                        v.label, K, cpu, threads, status[i], e);
            ok = false;
          }
          char vsDnnl[32] = "n/a", vsOne[32] = "";
          if (dnnlTime[threads] > 0 && !epilogue)
            std::snprintf(vsDnnl, sizeof vsDnnl, "%.2fx",
                          dnnlTime[threads] / time);
          if (threads > 1)
            std::snprintf(vsOne, sizeof vsOne, "%.2fx",
                          (median ? ts[0].median : ts[0].best) / time);
          PairFigures evidence;
          if (threads > 1)
            evidence = pairFigures(ts[0], t, median, calls[0], calls[1]);
          std::printf(
              "%3d %-9s %-8s %7d %9.1f %9.1f %8s %7s %5.2f %9.1e%s\n", K,
              v.label, *cpu ? cpu : "host", threads, gf(t.best), gf(t.median),
              vsDnnl, vsOne, t.cpus, e,
              evidenceColumns(threads > 1 ? &evidence : nullptr).c_str());
          std::fflush(stdout);
        }
        letIdleWorkersSleep();
      }
    }
  }
  std::printf("load average at the end of the threads tables: %s\n",
              AllCpus::loadAverage().c_str());
  return ok;
}

} // namespace airbench
