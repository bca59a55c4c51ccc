//===- air_bench.cpp - unum-air-bench: fused AIR kernels vs the baselines -===//
//
// Not a test: one process prints one table per array size, every ratio
// measured in the same run (issue 5, "What must be shown").
//
//  * E1 (a*b+c)*d, E2 exp(a)*b + c/d, E3 sum((a-b)^2) on 2^k f32 elements:
//    (0) Unum's fused AOT kernel, (i) naive op-by-op evaluation with
//    temporaries, (ii) numpy (a subprocess), (iii) a hand-fused C++ loop,
//    (iv) the STREAM triad; ratios of (0) to each, and bandwidth as % triad.
//  * conv1d, L = 4096, C_in = C_out = 32, K = 3, 5, 7, 9: Unum, oneDNN and a
//    naive loop nest, in GFLOP/s.
//
// Robust to a shared machine: pinned to one core (the idlest one by default),
// columns timed round-robin so a burst of load hits all of them alike, best
// of R repetitions after a warm-up (the median is printed too), and the load
// on every CPU during the run is reported; samples during which another
// process had the core are counted, and `--clock cpu` times by process CPU
// time instead of wall clock for a busy machine. Every column's result is checked
// against a double-precision reference before and after timing; a mismatch
// is printed loudly, its time is marked '!' and the exit status is 1.
//
// usage: unum-air-bench [--sizes 24,25,26] [--quick] [--reps R] [--warmup W]
//          [--cpu auto|none|N] [--stat min|median] [--clock wall|cpu]
//          [--python PATH] [--no-numpy] [--no-expr] [--no-conv]
//          [--no-matmul] [--matmul-sizes 256,512,1024,2048]
//
//===----------------------------------------------------------------------===//

#include "air_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sched.h>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#ifndef UNUM_BENCH_NUMPY_SCRIPT
#define UNUM_BENCH_NUMPY_SCRIPT "air_bench_numpy.py"
#endif

using namespace airbench;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::vector<int> log2Sizes{25};
  int reps = 10;
  int warmup = 1;
  std::string cpu = "auto";
  bool median = false;
  bool cpuClock = false; // time by process CPU time instead of wall clock
  std::string python = "/usr/bin/python3";
  bool numpy = true, expr = true, conv = true, matmul = true;
  std::vector<int> matmulSizes{256, 512, 1024, 2048};
};

bool gFailed = false;

void mismatch(const std::string &what) {
  gFailed = true;
  std::printf("!!! MISMATCH: %s\n", what.c_str());
  std::fflush(stdout);
}

//===----------------------------------------------------------------------===//
// Arrays and inputs
//===----------------------------------------------------------------------===//

struct FreeDeleter {
  void operator()(float *p) const { std::free(p); }
};
using Array = std::unique_ptr<float[], FreeDeleter>;

// 2 MiB aligned, transparent huge pages requested (numpy does the same for
// large arrays), and touched so no page fault lands in a timed region.
Array allocArray(int64_t n) {
  const size_t align = 2 << 20;
  size_t bytes = (n * sizeof(float) + align - 1) / align * align;
  auto *p = static_cast<float *>(std::aligned_alloc(align, bytes));
  if (!p) {
    std::fprintf(stderr, "out of memory allocating %zu bytes\n", bytes);
    std::exit(2);
  }
  madvise(p, bytes, MADV_HUGEPAGE);
  std::memset(p, 0, bytes);
  return Array(p);
}

// u[i] in [0, 1), a multiple of 2^-23: the same splitmix64 hash of i as
// air_bench_numpy.py, so numpy sees bit-identical inputs.
float unitValue(uint64_t i, uint64_t seed) {
  uint64_t z = i * 0x9E3779B97F4A7C15ull + seed;
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ull;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 41) * 0x1p-23f;
}

const int kSamples = 16;
int64_t sampleIndex(int k, int64_t n) {
  return static_cast<int64_t>((k * 2654435761ull + 12345) % uint64_t(n));
}

//===----------------------------------------------------------------------===//
// CPU pinning and load
//===----------------------------------------------------------------------===//

struct CpuTimes {
  std::vector<unsigned long long> busy, total;
};

CpuTimes readCpuTimes() {
  CpuTimes t;
  std::ifstream in("/proc/stat");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, 3, "cpu") || line.size() < 4 || !isdigit(line[3]))
      continue;
    std::istringstream ss(line.substr(line.find(' ')));
    unsigned long long v[10] = {}, sum = 0;
    for (int i = 0; i < 10 && ss >> v[i]; ++i)
      sum += v[i];
    t.total.push_back(sum);
    t.busy.push_back(sum - v[3] - v[4]); // minus idle and iowait
  }
  return t;
}

std::vector<double> busyFractions(const CpuTimes &a, const CpuTimes &b) {
  std::vector<double> f;
  for (size_t i = 0; i < a.total.size() && i < b.total.size(); ++i) {
    double dt = double(b.total[i] - a.total[i]);
    f.push_back(dt > 0 ? double(b.busy[i] - a.busy[i]) / dt : 0);
  }
  return f;
}

std::string describeBusy(const std::vector<double> &f) {
  std::string s;
  for (size_t i = 0; i < f.size(); ++i) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%scpu%zu %.0f%%", i ? ", " : "", i,
                  100 * f[i]);
    s += buf;
  }
  return s;
}

std::string loadAvg() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

// Pins the process (and the numpy subprocess, which inherits the mask) to
// one CPU. "auto" takes the CPU that was least busy over the last 0.3 s.
std::string pinCpu(const std::string &which) {
  if (which == "none")
    return "not pinned";
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  sched_getaffinity(0, sizeof allowed, &allowed);
  int cpu = -1;
  std::string how;
  if (which == "auto") {
    CpuTimes t0 = readCpuTimes();
    usleep(300000);
    std::vector<double> f = busyFractions(t0, readCpuTimes());
    for (int i = 0; i < int(f.size()); ++i)
      if (CPU_ISSET(i, &allowed) && (cpu < 0 || f[i] < f[cpu]))
        cpu = i;
    how = " (auto: idlest over 0.3 s before the run: " + describeBusy(f) + ")";
  } else {
    cpu = std::atoi(which.c_str());
  }
  if (cpu < 0)
    return "not pinned (no CPU found)";
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0)
    return "not pinned (sched_setaffinity failed)";
  return "pinned to cpu" + std::to_string(cpu) + how;
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

// Samples in the clock chosen by --clock. `preempted` counts samples whose
// CPU time was under 90% of their wall time: another process had the core.
struct Stat {
  std::vector<double> secs;
  int preempted = 0;
  double best() const { return *std::min_element(secs.begin(), secs.end()); }
  double median() const {
    std::vector<double> s = secs;
    std::sort(s.begin(), s.end());
    size_t m = s.size() / 2;
    return s.size() % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  }
  bool empty() const { return secs.empty(); }
};

double cpuNow() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

struct Sample {
  double wall, cpu;
};

Sample timeOnce(const std::function<void()> &f) {
  double c0 = cpuNow();
  auto t0 = Clock::now();
  f();
  double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  return {wall, cpuNow() - c0};
}

// A column of a round-robin measurement: `run` is timed; `calls` runs of it
// are averaged per sample (>1 for kernels too short to time once).
struct Column {
  std::function<void()> run;
  Stat *stat;
  int calls = 1;
};

// Runs every column once per round, `warmup` rounds untimed then `reps`
// timed, so slow drifts in machine load affect all columns alike.
void roundRobin(std::vector<Column> &cols, int warmup, int reps,
                bool cpuClock) {
  for (int r = 0; r < warmup + reps; ++r)
    for (Column &c : cols) {
      Sample t = timeOnce([&] {
        for (int i = 0; i < c.calls; ++i)
          c.run();
      });
      if (r < warmup)
        continue;
      c.stat->secs.push_back((cpuClock ? t.cpu : t.wall) / c.calls);
      c.stat->preempted += t.cpu < 0.9 * t.wall;
    }
}

//===----------------------------------------------------------------------===//
// Checking
//===----------------------------------------------------------------------===//

// Max of |x - ref| / max(1, |ref|): an absolute error for values near zero
// (where fusing a*b+c into an FMA legitimately moves the last bits) and a
// relative one elsewhere. NaN (an element never written: outputs are
// poisoned before the first call) counts as infinite.
bool checkArray(const char *what, const float *x, const std::vector<double> &ref,
                double tol) {
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    double d = std::fabs(double(x[i]) - ref[i]) / std::max(1.0, std::fabs(ref[i]));
    if (std::isnan(d))
      d = INFINITY;
    if (d > worst) {
      worst = d;
      at = i;
    }
  }
  if (worst <= tol)
    return true;
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "%s: max error %.3g > %.1g at element %zu (%.9g, expected %.9g)",
                what, worst, tol, at, double(x[at]), ref[at]);
  mismatch(buf);
  return false;
}

bool checkScalar(const char *what, double x, double ref, double relTol) {
  if (std::fabs(x - ref) <= relTol * std::fabs(ref))
    return true;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s: %.9g, expected %.9g (rel tol %.1g)", what,
                x, ref, relTol);
  mismatch(buf);
  return false;
}

//===----------------------------------------------------------------------===//
// Output helpers
//===----------------------------------------------------------------------===//

std::string fmtTime(const Stat &s, bool bad) {
  if (s.empty())
    return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g (%.4g)%s", 1e3 * s.best(),
                1e3 * s.median(), bad ? "!" : "");
  return buf;
}

// ratio >= target -> "ok", else "LOW"; no target -> blank; NaN (from a
// column whose result mismatched) -> "wrong".
std::string fmtRatio(double r, double target, const char *suffix = "x") {
  if (std::isnan(r))
    return "wrong";
  if (!(r > 0))
    return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f%s%s", r, suffix,
                target <= 0 ? "" : (r >= target ? " ok" : " LOW"));
  return buf;
}

// Wall-clock best-of only helps while some samples run undisturbed.
void warnIfPreempted(const Options &opt, int preempted, int samples) {
  if (!opt.cpuClock && 4 * preempted > samples)
    std::printf("  (other processes held the core in over a quarter of the "
                "samples: these wall times are noise; rerun when the machine "
                "is quiet, or with --clock cpu)\n");
}

//===----------------------------------------------------------------------===//
// numpy
//===----------------------------------------------------------------------===//

struct NumpyResult {
  double best = 0, median = 0; // in the chosen clock
  int preempted = 0;
  double total = 0;
  std::vector<double> samples;
};

// One subprocess per size; returns results by expression name ("E1"..).
std::vector<std::pair<std::string, NumpyResult>>
runNumpy(const Options &opt, int lg, std::string &version) {
  std::vector<std::pair<std::string, NumpyResult>> out;
  std::string cmd = opt.python + " " + UNUM_BENCH_NUMPY_SCRIPT + " --log2 " +
                    std::to_string(lg) + " --reps " + std::to_string(opt.reps) +
                    " --warmup " + std::to_string(opt.warmup);
  FILE *p = popen(cmd.c_str(), "r");
  if (!p)
    return out;
  char line[4096];
  while (std::fgets(line, sizeof line, p)) {
    std::istringstream ss(line);
    std::string name;
    ss >> name;
    if (name == "numpy") {
      ss >> version;
      continue;
    }
    NumpyResult r;
    int l;
    double wallBest, wallMedian, cpuBest, cpuMedian;
    ss >> l >> wallBest >> wallMedian >> cpuBest >> cpuMedian >> r.preempted >>
        r.total;
    r.best = opt.cpuClock ? cpuBest : wallBest;
    r.median = opt.cpuClock ? cpuMedian : wallMedian;
    double v;
    while (ss >> v)
      r.samples.push_back(v);
    if (ss.fail() && !ss.eof())
      continue;
    out.emplace_back(name, r);
  }
  if (pclose(p) != 0)
    std::printf("  (numpy subprocess failed: %s)\n", cmd.c_str());
  return out;
}

//===----------------------------------------------------------------------===//
// Memory-bound expressions
//===----------------------------------------------------------------------===//

struct Expr {
  const char *name, *text;
  double bytesPerElt; // moved by a fused kernel, STREAM convention
  double targetNaive, targetNumpy, targetFused, targetTriad;
};

const Expr kExprs[] = {
    {"E1", "(a*b+c)*d", 20, 1.9, 1.6, 0.9, 0.9},
    {"E2", "exp(a)*b + c/d", 20, 1.9, 2.5, 0.9, 0.9},
    {"E3", "sum((a-b)^2)", 8, 1.9, 0, 0.9, 0.9},
};

void benchExprs(const Options &opt, int lg) {
  const int64_t n = int64_t(1) << lg;
  std::printf("\n== n = 2^%d = %lld f32 (%g MiB per array) ==\n", lg,
              (long long)n, n * 4.0 / (1 << 20));
  std::fflush(stdout);

  Array a = allocArray(n), b = allocArray(n), c = allocArray(n),
        d = allocArray(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = unitValue(i, 1) * 2.0f - 1.0f; // [-1, 1), exact
    b[i] = unitValue(i, 2);
    c[i] = unitValue(i, 3);
    d[i] = unitValue(i, 4) + 1.0f; // [1, 2), exact
  }
  Array outNaive = allocArray(n), outFused = allocArray(n),
        outUnum = allocArray(n), t0 = allocArray(n), t1 = allocArray(n),
        t2 = allocArray(n);
  Temps tmp{{t0.get(), t1.get(), t2.get()}};

  Stat triadStat;
  const float s = 3.0f;
  auto runTriad = [&] { triad(t2.get(), b.get(), c.get(), s, n); };

  struct Row {
    Stat unum, naive, fused;
    bool unumBad = false, naiveBad = false, fusedBad = false, numpyBad = false;
    double refTotal = 0; // sum of the reference result (or the scalar)
    // E3: relative error of each column's sum of the random inputs.
    double errUnum = 0, errNaive = 0, errFused = 0, errNumpy = 0;
    std::vector<double> refSamples;
    bool haveUnum = false;
  } rows[3];

  for (int e = 0; e < 3; ++e) {
    Row &row = rows[e];
    // Double-precision reference, untimed.
    std::vector<double> ref;
    double refScalar = 0;
    if (e == 2) {
      for (int64_t i = 0; i < n; ++i) {
        double t = double(a[i]) - double(b[i]);
        refScalar += t * t;
      }
      row.refTotal = refScalar;
    } else {
      ref.resize(n);
      for (int64_t i = 0; i < n; ++i)
        ref[i] = e == 0 ? (double(a[i]) * b[i] + c[i]) * d[i]
                        : std::exp(double(a[i])) * b[i] + double(c[i]) / d[i];
      for (int64_t i = 0; i < n; ++i)
        row.refTotal += ref[i];
      for (int k = 0; k < kSamples; ++k)
        row.refSamples.push_back(ref[sampleIndex(k, n)]);
    }

    float sNaive = 0, sFused = 0, sUnum = 0;
    std::function<void()> fNaive, fFused, fUnum;
    if (e == 0) {
      fNaive = [&] { naiveFma4(a.get(), b.get(), c.get(), d.get(), outNaive.get(), n, tmp); };
      fFused = [&] { fusedFma4(a.get(), b.get(), c.get(), d.get(), outFused.get(), n); };
      if (unumFma4)
        fUnum = [&] { unumFma4(a.get(), b.get(), c.get(), d.get(), outUnum.get(), n); };
    } else if (e == 1) {
      fNaive = [&] { naiveExpDiv(a.get(), b.get(), c.get(), d.get(), outNaive.get(), n, tmp); };
      fFused = [&] { fusedExpDiv(a.get(), b.get(), c.get(), d.get(), outFused.get(), n); };
      if (unumExpDiv)
        fUnum = [&] { unumExpDiv(a.get(), b.get(), c.get(), d.get(), outUnum.get(), n); };
    } else {
      fNaive = [&] { sNaive = naiveSqDist(a.get(), b.get(), n, tmp); };
      fFused = [&] { sFused = fusedSqDist(a.get(), b.get(), n); };
      if (unumSqDist)
        fUnum = [&] { sUnum = unumSqDist(a.get(), b.get(), n); };
    }
    row.haveUnum = bool(fUnum);

    // E3 first on inputs whose sum is exact in any order: (a-b)^2 is 1 at
    // scattered elements and the last one, 0 elsewhere, so every partial sum
    // is an integer below 2^24. One element skipped or counted twice shows.
    if (e == 2) {
      float *ea = outNaive.get(), *eb = outFused.get();
      int64_t ones = 0;
      for (int64_t i = 0; i < n; ++i) {
        bool one = (unitValue(i, 7) < 1.0f / 64) || i == n - 1;
        ea[i] = one && (i & 1) ? 1.0f : 0.0f; // a-b = +1 or -1
        eb[i] = one && !(i & 1) ? 1.0f : 0.0f;
        ones += one;
      }
      auto exact = [&](const char *col, float got) {
        if (got == float(ones))
          return true;
        mismatch(std::string("E3 ") + col + " 2^" + std::to_string(lg) +
                 " on exactly summable inputs: " + std::to_string(got) +
                 ", expected " + std::to_string(ones));
        return false;
      };
      row.naiveBad |= !exact("naive", naiveSqDist(ea, eb, n, tmp));
      row.fusedBad |= !exact("fused", fusedSqDist(ea, eb, n));
      if (unumSqDist)
        row.unumBad |= !exact("unum", unumSqDist(ea, eb, n));
    }

    // Check each column on its own first call (outputs poisoned with NaN so
    // an element left unwritten shows), again after the timed calls. An E3
    // sum of the random inputs only has to be within 1e-2 here (rounding
    // depends on the order); its error is reported below the table.
    auto check = [&](const char *col, float *out, float scalar,
                     double *sumErr) {
      std::string what = std::string(kExprs[e].name) + " " + col + " 2^" +
                         std::to_string(lg);
      if (e != 2)
        return checkArray(what.c_str(), out, ref, 1e-5);
      *sumErr = std::fabs(scalar - refScalar) / std::fabs(refScalar);
      if (std::isnan(*sumErr))
        *sumErr = INFINITY;
      return checkScalar(what.c_str(), scalar, refScalar, 1e-2);
    };
    const float nan = std::nanf("");
    for (float *o : {outNaive.get(), outFused.get(), outUnum.get()})
      std::fill(o, o + n, nan);
    sNaive = sFused = sUnum = nan;
    fNaive();
    row.naiveBad |= !check("naive", outNaive.get(), sNaive, &row.errNaive);
    fFused();
    row.fusedBad |= !check("fused", outFused.get(), sFused, &row.errFused);
    if (fUnum) {
      fUnum();
      row.unumBad |= !check("unum", outUnum.get(), sUnum, &row.errUnum);
    }

    std::vector<Column> cols{{fNaive, &row.naive}, {fFused, &row.fused},
                             {runTriad, &triadStat}};
    if (fUnum)
      cols.push_back({fUnum, &row.unum});
    roundRobin(cols, opt.warmup, opt.reps, opt.cpuClock);

    row.naiveBad |=
        !check("naive (after timing)", outNaive.get(), sNaive, &row.errNaive);
    row.fusedBad |=
        !check("fused (after timing)", outFused.get(), sFused, &row.errFused);
    if (fUnum)
      row.unumBad |=
          !check("unum (after timing)", outUnum.get(), sUnum, &row.errUnum);
  }
  // The triad's own result, a = b + 3c (up to FMA contraction).
  for (int64_t i = 0; i < n; i += 4099)
    if (std::fabs(t2[i] - (double(b[i]) + s * double(c[i]))) > 1e-6) {
      mismatch("triad 2^" + std::to_string(lg));
      break;
    }

  // numpy after the C++ columns (a subprocess cannot be interleaved).
  std::string npVersion = "?";
  std::vector<std::pair<std::string, NumpyResult>> np;
  if (opt.numpy)
    np = runNumpy(opt, lg, npVersion);
  auto numpyFor = [&](int e) -> const NumpyResult * {
    for (auto &p : np)
      if (p.first == kExprs[e].name)
        return &p.second;
    return nullptr;
  };
  for (int e = 0; e < 3; ++e) {
    const NumpyResult *r = numpyFor(e);
    if (!r)
      continue;
    std::string what = std::string(kExprs[e].name) + " numpy 2^" + std::to_string(lg);
    bool ok = true;
    if (e == 2) {
      ok = checkScalar(what.c_str(), r->total, rows[e].refTotal, 1e-2);
      rows[e].errNumpy =
          std::fabs(r->total - rows[e].refTotal) / std::fabs(rows[e].refTotal);
    } else {
      ok = checkScalar((what + " sum").c_str(), r->total, rows[e].refTotal, 1e-5);
      for (int k = 0; k < kSamples && ok; ++k)
        ok = k < int(r->samples.size()) &&
             checkScalar((what + " sample").c_str(), r->samples[k],
                         rows[e].refSamples[k], 1e-5);
    }
    rows[e].numpyBad = !ok;
  }

  auto pick = [&](const Stat &st) { return opt.median ? st.median() : st.best(); };
  double triadT = pick(triadStat);
  double triadBW = 12.0 * n / triadT;
  std::printf("(iv) STREAM triad a = b + 3*c, f32: %.4g ms (median %.4g), "
              "%.2f GB/s [12 bytes/element; write-allocate not counted]\n",
              1e3 * triadStat.best(), 1e3 * triadStat.median(), triadBW / 1e9);
  if (opt.numpy)
    std::printf("numpy %s via %s\n", npVersion.c_str(), opt.python.c_str());

  std::printf("\n%s ms, best of %-3d (median)     %-18s %-18s %-18s %-18s\n",
              opt.cpuClock ? "cpu " : "wall", opt.reps, "(0) unum",
              "(i) naive", "(ii) numpy", "(iii) hand-fused");
  for (int e = 0; e < 3; ++e) {
    Row &row = rows[e];
    const NumpyResult *r = numpyFor(e);
    std::string npCell = "n/a";
    if (r) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.4g (%.4g)%s", 1e3 * r->best,
                    1e3 * r->median, row.numpyBad ? "!" : "");
      npCell = buf;
    }
    std::printf("%s %-29s %-18s %-18s %-18s %-18s\n", kExprs[e].name,
                kExprs[e].text, fmtTime(row.unum, row.unumBad).c_str(),
                fmtTime(row.naive, row.naiveBad).c_str(), npCell.c_str(),
                fmtTime(row.fused, row.fusedBad).c_str());
  }
  // How often another process had our core: a high count means the medians
  // (and maybe the best times) are noise.
  int preempted = triadStat.preempted, samples = int(triadStat.secs.size());
  for (Row &row : rows)
    for (Stat *st : {&row.unum, &row.naive, &row.fused}) {
      preempted += st->preempted;
      samples += int(st->secs.size());
    }
  for (auto &p : np) {
    preempted += p.second.preempted;
    samples += opt.reps;
  }
  std::printf("preempted samples (cpu time < 90%% of wall): %d of %d\n",
              preempted, samples);
  warnIfPreempted(opt, preempted, samples);

  // Accuracy of the f32 sums: numpy's pairwise summation is the yardstick.
  {
    const Row &r3 = rows[2];
    auto err = [](bool have, double e) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1e", e);
      return have ? std::string(buf) : std::string("n/a");
    };
    std::printf("E3 relative error of the f32 sum: unum %s, naive %s, numpy %s, "
                "hand-fused %s\n",
                err(r3.haveUnum, r3.errUnum).c_str(),
                err(true, r3.errNaive).c_str(),
                err(numpyFor(2) != nullptr, r3.errNumpy).c_str(),
                err(true, r3.errFused).c_str());
    if (r3.haveUnum && r3.errUnum > 1e-5)
      std::printf("  (unum's sum is inaccurate, though not wrong: f32 vector "
                  "accumulators that run over all n elements lose the small "
                  "terms; sum blocks into fresh accumulators, or accumulate "
                  "in f64)\n");
  }

  // Speedups: time of the baseline / time of the kernel. %triad: the kernel's
  // bytes (each input read once, the output written once) per second over
  // the triad's. The same for (iii) shows what a fused loop reaches here.
  std::printf("\nspeedup (%s times)\n", opt.median ? "median" : "best");
  std::printf("              unum/(i)    unum/(ii)   unum/(iii)  unum %%triad  "
              "| (iii)/(i)  (iii)/(ii)  (iii) %%triad\n");
  for (int e = 0; e < 3; ++e) {
    const Expr &x = kExprs[e];
    Row &row = rows[e];
    const NumpyResult *r = numpyFor(e);
    // A column with a wrong result gets NaN: its ratios print "wrong".
    double tN = row.naiveBad ? NAN : pick(row.naive);
    double tF = row.fusedBad ? NAN : pick(row.fused);
    double tP = !r ? 0 : row.numpyBad ? NAN : opt.median ? r->median : r->best;
    double tU = row.unum.empty() ? 0 : row.unumBad ? NAN : pick(row.unum);
    auto ratio = [](double base, double t) {
      if (std::isnan(base) || std::isnan(t))
        return double(NAN);
      return t > 0 && base > 0 ? base / t : 0;
    };
    auto pct = [&](double t) {
      return std::isnan(t) || t > 0 ? 100 * (x.bytesPerElt * n / t) / triadBW : 0;
    };
    std::printf("%s (%2.0f B/el) %-11s %-11s %-11s %-12s | %-10s %-11s %s\n",
                x.name, x.bytesPerElt,
                fmtRatio(ratio(tN, tU), x.targetNaive).c_str(),
                fmtRatio(ratio(tP, tU), x.targetNumpy).c_str(),
                fmtRatio(ratio(tF, tU), x.targetFused).c_str(),
                fmtRatio(pct(tU), 100 * x.targetTriad, "%").c_str(),
                fmtRatio(ratio(tN, tF), 0).c_str(),
                fmtRatio(ratio(tP, tF), 0).c_str(),
                fmtRatio(pct(tF), 0, "%").c_str());
  }
  std::printf("targets: unum/(i) >= 1.9x, unum/(ii) >= 1.6x (E1) and 2.5x (E2), "
              "unum/(iii) >= 0.9x, >= 90%% of triad\n");
  std::fflush(stdout);
}

//===----------------------------------------------------------------------===//
// conv1d
//===----------------------------------------------------------------------===//

using UnumConv = void (*)(const float *, const float *, float *);

UnumConv unumConvFor(int K) {
  switch (K) {
  case 3: return unumConvK3 ? unumConvK3 : nullptr;
  case 5: return unumConvK5 ? unumConvK5 : nullptr;
  case 7: return unumConvK7 ? unumConvK7 : nullptr;
  case 9: return unumConvK9 ? unumConvK9 : nullptr;
  }
  return nullptr;
}

// A conv1d call takes well under a millisecond: many short samples (batches
// of calls lasting ~2 ms) give best-of a chance to find undisturbed ones on a
// shared core.
const int kConvRepsFactor = 5;
const double kConvSample = 0.002;

void benchConv(const Options &opt) {
  const int64_t L = 4096, C = 32;
  std::printf("\n== conv1d: x[%lld][%lld] * w[K][%lld][%lld] -> y[L-K+1][%lld], "
              "f32, valid, stride 1 ==\n",
              (long long)L, (long long)C, (long long)C, (long long)C,
              (long long)C);
  std::printf("oneDNN nwc/wio: our layouts as oneDNN's nwc src/dst and wio "
              "weights; oneDNN any: its chosen blocked layouts, reorders not "
              "timed.\nGFLOP/s = 2*(L-K+1)*C_in*C_out*K / time; %s of %d "
              "samples, each a batch of calls lasting ~2 ms; %s clock.\n",
              opt.median ? "median" : "best", kConvRepsFactor * opt.reps,
              opt.cpuClock ? "cpu" : "wall");
  std::printf("\n%-3s %-9s %-16s %-16s %-16s %-16s | %-12s %-12s %s\n", "K",
              "MFLOP", "(0) unum", "oneDNN nwc/wio", "oneDNN any", "naive",
              "unum/oneDNN", "unum/nwc", "unum/naive");
  std::vector<std::string> impls;
  int preempted = 0, samples = 0;
  Array x = allocArray(L * C);
  for (int64_t i = 0; i < L * C; ++i)
    x[i] = unitValue(i, 5) - 0.5f;
  for (int K : {3, 5, 7, 9}) {
    const int64_t lout = L - K + 1;
    Array w = allocArray(K * C * C);
    for (int64_t i = 0; i < K * C * C; ++i)
      w[i] = unitValue(i, 6 + K) - 0.5f;
    std::vector<double> ref(lout * C);
    for (int64_t l = 0; l < lout; ++l)
      for (int64_t co = 0; co < C; ++co) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k)
          for (int64_t ci = 0; ci < C; ++ci)
            acc += double(x[(l + k) * C + ci]) * w[(k * C + ci) * C + co];
        ref[l * C + co] = acc;
      }
    double flop = 2.0 * lout * C * C * K;

    Array yNaive = allocArray(lout * C), yUnum = allocArray(lout * C),
          yDnnl = allocArray(lout * C);
    struct Col {
      const char *name;
      std::function<void()> run;
      std::function<void(float *)> result; // copies the output into yDnnl
      float *out;
      Stat stat;
      bool bad = false;
    };
    std::vector<Col> cols;
    UnumConv u = unumConvFor(K);
    if (u)
      cols.push_back({"unum", [&, u] { u(x.get(), w.get(), yUnum.get()); },
                      nullptr, yUnum.get()});
    DnnlConv *dn[2] = {nullptr, nullptr};
    for (int blocked = 0; blocked < 2; ++blocked) {
      if (!haveDnnl())
        continue;
      DnnlConv *c = dn[blocked] =
          dnnlConvCreate(L, K, C, C, blocked, x.get(), w.get());
      impls.push_back("K=" + std::to_string(K) +
                      (blocked ? " any: " : " nwc/wio: ") + dnnlConvImpl(c));
      cols.push_back({blocked ? "oneDNN any" : "oneDNN nwc/wio",
                      [c] { dnnlConvRun(c); },
                      [c](float *y) { dnnlConvResult(c, y); }, yDnnl.get()});
    }
    cols.push_back({"naive",
                    [&, K] { naiveConv1d(x.get(), w.get(), yNaive.get(), L, K, C, C); },
                    nullptr, yNaive.get()});

    // Checked on the first call; batches of calls make each sample >= 20 ms.
    std::vector<Column> rr;
    for (Col &c : cols) {
      std::fill(c.out, c.out + lout * C, std::nanf(""));
      double t = timeOnce(c.run).wall;
      if (c.result)
        c.result(c.out);
      std::string what = std::string("conv1d K=") + std::to_string(K) + " " + c.name;
      c.bad = !checkArray(what.c_str(), c.out, ref, 1e-4);
      int calls = std::max(1, int(kConvSample / std::max(t, 1e-7)));
      rr.push_back({c.run, &c.stat, calls});
    }
    roundRobin(rr, opt.warmup, kConvRepsFactor * opt.reps, opt.cpuClock);
    for (Col &c : cols) {
      if (c.result)
        c.result(c.out);
      std::string what = std::string("conv1d K=") + std::to_string(K) + " " +
                         c.name + " (after timing)";
      c.bad |= !checkArray(what.c_str(), c.out, ref, 1e-4);
    }
    for (DnnlConv *c : dn)
      if (c)
        dnnlConvDestroy(c);
    for (Col &c : cols) {
      preempted += c.stat.preempted;
      samples += int(c.stat.secs.size());
    }

    auto find = [&](const char *name) -> const Col * {
      for (Col &c : cols)
        if (!std::strcmp(c.name, name))
          return &c;
      return nullptr;
    };
    auto rate = [&](const Col *c) {
      return flop / (opt.median ? c->stat.median() : c->stat.best()) / 1e9;
    };
    // For ratios: 0 when absent, NaN (printed "wrong") when it mismatched.
    auto gf = [&](const Col *c) {
      return !c ? 0.0 : c->bad ? double(NAN) : rate(c);
    };
    auto cell = [&](const char *name) -> std::string {
      const Col *c = find(name);
      if (!c)
        return "n/a";
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2f GF/s%s", rate(c), c->bad ? "!" : "");
      return buf;
    };
    double gU = gf(find("unum"));
    double gW = gf(find("oneDNN nwc/wio")), gA = gf(find("oneDNN any"));
    double gD = std::isnan(gW) || std::isnan(gA) ? NAN : std::max(gW, gA);
    double gN = gf(find("naive"));
    std::printf("%-3d %-9.1f %-16s %-16s %-16s %-16s | %-12s %-12s %s\n", K,
                flop / 1e6, cell("unum").c_str(),
                cell("oneDNN nwc/wio").c_str(), cell("oneDNN any").c_str(),
                cell("naive").c_str(),
                fmtRatio(gD > 0 || std::isnan(gD) ? gU / gD : 0, 0.8).c_str(),
                fmtRatio(gW > 0 || std::isnan(gW) ? gU / gW : 0, 0).c_str(),
                fmtRatio(gN > 0 || std::isnan(gN) ? gU / gN : 0, 10).c_str());
    std::fflush(stdout);
  }
  std::printf("preempted samples (cpu time < 90%% of wall): %d of %d\n",
              preempted, samples);
  warnIfPreempted(opt, preempted, samples);
  std::printf("targets: unum/oneDNN (the faster oneDNN column) >= 0.8x, "
              "unum/naive >= 10x\n");
  for (const std::string &s : impls)
    std::printf("  oneDNN implementation %s\n", s.c_str());
}

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

bool parseSizes(const std::string &s, std::vector<int> &out) {
  out.clear();
  std::istringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    int v = std::atoi(item.c_str());
    if (v < 10 || v > 30)
      return false;
    out.push_back(v);
  }
  return !out.empty();
}

int usage(const char *argv0) {
  std::fprintf(stderr,
               "usage: %s [--sizes 24,25,26] [--quick] [--reps R] [--warmup W]\n"
               "       [--cpu auto|none|N] [--stat min|median] [--clock wall|cpu]\n"
               "       [--python PATH] [--no-numpy] [--no-expr] [--no-conv]\n"
               "       [--no-matmul] [--matmul-sizes 256,512,1024,2048]\n"
               "sizes are log2 of the element count (default 25); --quick is\n"
               "--sizes 24 --reps 3\n",
               argv0);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  // The single-core tables pin this process to one CPU and the threads
  // tables widen it again; libomp (oneDNN's and the JIT kernels' runtime)
  // binds the workers it creates to the mask it saw when it initialised
  // (docs/AirABI.md#threads), so a libomp first used while pinned kept one
  // kernel's two threads on one CPU: rows at exactly 1.00x, at random. The
  // bench leaves placement to the kernel (a user's KMP_AFFINITY wins).
  setenv("KMP_AFFINITY", "disabled", /*overwrite=*/0);
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::exit(usage(argv[0]));
      }
      return argv[++i];
    };
    if (arg == "--sizes") {
      if (!parseSizes(value(), opt.log2Sizes))
        return usage(argv[0]);
    } else if (arg == "--quick") {
      opt.log2Sizes = {24};
      opt.reps = 3;
    } else if (arg == "--reps") {
      opt.reps = std::max(1, std::atoi(value().c_str()));
    } else if (arg == "--warmup") {
      opt.warmup = std::max(0, std::atoi(value().c_str()));
    } else if (arg == "--cpu") {
      opt.cpu = value();
    } else if (arg == "--stat") {
      opt.median = value() == "median";
    } else if (arg == "--clock") {
      opt.cpuClock = value() == "cpu";
    } else if (arg == "--python") {
      opt.python = value();
    } else if (arg == "--no-numpy") {
      opt.numpy = false;
    } else if (arg == "--no-expr") {
      opt.expr = false;
    } else if (arg == "--no-conv") {
      opt.conv = false;
    } else if (arg == "--no-matmul") {
      opt.matmul = false;
    } else if (arg == "--matmul-sizes") {
      opt.matmulSizes.clear();
      std::stringstream list(value());
      for (std::string item; std::getline(list, item, ',');)
        if (int n = std::atoi(item.c_str()); n > 0)
          opt.matmulSizes.push_back(n);
      if (opt.matmulSizes.empty())
        return usage(argv[0]);
    } else {
      return usage(argv[0]);
    }
  }
  // One core: for numpy's BLAS (unused here) and any OpenMP loaded later.
  setenv("OMP_NUM_THREADS", "1", 1);
  setenv("OPENBLAS_NUM_THREADS", "1", 1);

  std::string pin = pinCpu(opt.cpu);
  CpuTimes start = readCpuTimes();
  std::printf("unum-air-bench: single core, %s\n", pin.c_str());
  std::printf("load average at start: %s; %s of %d timed runs after %d "
              "warm-up, columns interleaved round-robin\n",
              loadAvg().c_str(), opt.median ? "median" : "best", opt.reps,
              opt.warmup);
  std::printf("unum kernels: %s\n",
              unumFma4 || unumExpDiv || unumSqDist || unumConvK3
                  ? "linked (built by unum-airc)"
                  : "not built (no unum-airc target): column (0) is n/a");

  if (opt.expr)
    for (int lg : opt.log2Sizes)
      benchExprs(opt, lg);
  if (opt.conv)
    benchConv(opt);
  if (opt.matmul && !benchMatmul(opt.matmulSizes, opt.reps, opt.median))
    gFailed = true;
  if (opt.conv && !benchConvThreads(opt.reps, opt.median))
    gFailed = true;

  std::vector<double> busy = busyFractions(start, readCpuTimes());
  std::printf("\nCPU busy during the run (this process included): %s; load "
              "average at end: %s\n",
              describeBusy(busy).c_str(), loadAvg().c_str());
  if (gFailed)
    std::printf("!!! at least one result MISMATCHED: see above; those times "
                "are marked '!' and mean nothing\n");
  return gFailed ? 1 : 0;
}
