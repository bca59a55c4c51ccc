//===- air_bench_threads.h - what each OpenMP thread did in a call -*- C++
//-*-===//
//
// Per-thread evidence for the 2-thread rows of unum-air-bench
// (air_bench_threads.cpp, an OMPT tool inside the bench): each thread's
// share of the worksharing loops run since the last reset.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_UTILS_BENCH_AIR_BENCH_THREADS_H
#define UNUM_UTILS_BENCH_AIR_BENCH_THREADS_H

#include <cstdint>
#include <vector>

namespace airbench {

/// One OpenMP thread's worksharing loops since the last reset.
struct ThreadShare {
  int thread;    // its index in ThreadClocks
  int64_t loops; // loops it ran (its share of each; one per Unum call)
  double wall;   // seconds inside them, by the wall clock
};

/// libomp accepted the tool: threadShares() reports every loop.
bool threadEvidence();
void resetThreadShares();
/// The threads that ran a loop since the reset.
std::vector<ThreadShare> threadShares();
/// Seconds during which at least one thread was inside a loop since the
/// reset (the union of the shares' intervals). The shares' seconds over
/// this are how many ran side by side: 2.0 when two threads computed
/// together the whole time, 1.0 when one ran after the other.
double loopSpanSeconds();

/// Every OpenMP thread's CPU seconds (its CPU clock) and involuntary context
/// switches (/proc/self/task/TID/status) so far, indexed like
/// ThreadShare::thread; the calling thread's CPU seconds; the wall clock.
/// Costs ~10-30 us: read outside the timed calls.
struct ThreadClocks {
  double wall = 0, callerCpu = 0;
  std::vector<double> cpu;
  std::vector<long> involuntary;
};
ThreadClocks readThreadClocks();

} // namespace airbench

#endif // UNUM_UTILS_BENCH_AIR_BENCH_THREADS_H
