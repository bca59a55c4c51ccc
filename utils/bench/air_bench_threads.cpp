//===- air_bench_threads.cpp - what each OpenMP thread did in a call ------===//
//
// An OMPT tool (OpenMP 5's tool interface, which libomp calls if the
// program defines `ompt_start_tool`): at the start and the end of every
// worksharing loop each thread reads its own CPU time
// (CLOCK_THREAD_CPUTIME_ID), the wall clock and its involuntary context
// switches (getrusage RUSAGE_THREAD), and adds the differences to its slot.
// The bench resets the slots before a timed 2-thread call and reads them
// after: whether both threads ran their shares, and whether each was on a
// CPU while it did (CPU time = wall time) or waited for one (another thread
// or process had it). A Unum kernel forks once per call and runs one
// worksharing loop, so a slot holds one thread's share of the call.
//
// Cost: three system calls at each end of a loop per thread (~1 us per call
// on this VM's 2 CPUs), inside the timed 2-thread calls only.
//
//===----------------------------------------------------------------------===//
#include "air_bench_threads.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <pthread.h>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>

namespace {
using airbench::ThreadShare;

constexpr int kSlots = 16;

/// One thread's sums since the last reset.
struct Slot {
  std::atomic<int64_t> loops{0}, wallNs{0};
  // Set once when the thread starts (ompt_callback_thread_begin).
  std::atomic<bool> known{false};
  clockid_t cpuClock{};
  pid_t tid = 0;
};
Slot slots[kSlots];
std::atomic<int> nextSlot{0};
/// The union of the threads' loop intervals: threads inside a loop now,
/// when the current interval began, and the closed intervals' total.
std::atomic<int> inLoop{0};
std::atomic<int64_t> unionBegin{0}, unionNs{0};
/// libomp accepted the tool.
std::atomic<bool> active{false};

int64_t nanos(clockid_t clock) {
  timespec t;
  clock_gettime(clock, &t);
  return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

/// A thread's involuntary context switches so far (its /proc status).
long involuntarySwitches(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/status");
  std::string line;
  const std::string key = "nonvoluntary_ctxt_switches:";
  while (std::getline(in, line))
    if (line.compare(0, key.size(), key) == 0)
      return std::atol(line.c_str() + key.size());
  return 0;
}
} // namespace

#ifdef UNUM_OMPT_HEADER
#include UNUM_OMPT_HEADER

namespace {
thread_local int mySlot = -1;
thread_local int64_t beginWall = 0;
thread_local int depth = 0;

bool isLoop(ompt_work_t type) {
  return type == ompt_work_loop || type == ompt_work_loop_static ||
         type == ompt_work_loop_dynamic || type == ompt_work_loop_guided ||
         type == ompt_work_loop_other;
}

void onThreadBegin(ompt_thread_t, ompt_data_t *) {
  mySlot = nextSlot.fetch_add(1);
  if (mySlot >= kSlots)
    return;
  Slot &s = slots[mySlot];
  pthread_getcpuclockid(pthread_self(), &s.cpuClock);
  s.tid = (pid_t)syscall(SYS_gettid);
  s.known.store(true, std::memory_order_release);
}

/// Only the wall clock (vDSO, ~70 ns) inside the timed call; the threads'
/// CPU clocks are read by the caller before and after it.
void onWork(ompt_work_t type, ompt_scope_endpoint_t endpoint, ompt_data_t *,
            ompt_data_t *, uint64_t, const void *) {
  if (!isLoop(type))
    return;
  if (endpoint == ompt_scope_begin) {
    if (depth++ == 0) {
      beginWall = nanos(CLOCK_MONOTONIC);
      if (inLoop.fetch_add(1) == 0)
        unionBegin.store(beginWall);
    }
    return;
  }
  if (endpoint != ompt_scope_end || depth == 0 || --depth != 0)
    return;
  int64_t wall = nanos(CLOCK_MONOTONIC);
  if (inLoop.fetch_sub(1) == 1)
    unionNs.fetch_add(wall - unionBegin.load());
  if (mySlot < 0 || mySlot >= kSlots)
    return;
  Slot &s = slots[mySlot];
  s.wallNs.fetch_add(wall - beginWall, std::memory_order_relaxed);
  s.loops.fetch_add(1, std::memory_order_release);
}

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t *) {
  auto set = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set)
    return 0;
  // ompt_set_always: every loop and thread reports; anything less would
  // leave rounds without evidence.
  active = set(ompt_callback_thread_begin, (ompt_callback_t)&onThreadBegin) ==
               ompt_set_always &&
           set(ompt_callback_work, (ompt_callback_t)&onWork) == ompt_set_always;
  return 1; // keep the tool (finalize is then called at exit)
}

void finalize(ompt_data_t *) {}

ompt_start_tool_result_t tool = {&initialize, &finalize, {0}};
} // namespace

// libomp looks this symbol up in the program when it starts
// (utils/bench/CMakeLists.txt exports it from the executable).
extern "C" __attribute__((visibility("default"))) ompt_start_tool_result_t *
ompt_start_tool(unsigned int, const char *) {
  return &tool;
}
#endif // UNUM_OMPT_HEADER (without it: no tool, the columns print n/a)

namespace airbench {

bool threadEvidence() { return active; }

void resetThreadShares() {
  unionNs.store(0);
  for (Slot &s : slots) {
    s.loops.store(0, std::memory_order_relaxed);
    s.wallNs.store(0, std::memory_order_relaxed);
  }
}

double loopSpanSeconds() { return 1e-9 * unionNs.load(); }

std::vector<ThreadShare> threadShares() {
  std::vector<ThreadShare> out;
  int n = std::min(nextSlot.load(), kSlots);
  for (int i = 0; i < n; ++i) {
    Slot &s = slots[i];
    int64_t loops = s.loops.load(std::memory_order_acquire);
    if (loops == 0)
      continue;
    out.push_back({i, loops, 1e-9 * s.wallNs.load(std::memory_order_relaxed)});
  }
  return out;
}

ThreadClocks readThreadClocks() {
  ThreadClocks c;
  c.wall = 1e-9 * nanos(CLOCK_MONOTONIC);
  int n = std::min(nextSlot.load(), kSlots);
  for (int i = 0; i < n; ++i) {
    Slot &s = slots[i];
    double cpu = 0;
    long involuntary = 0;
    if (s.known.load(std::memory_order_acquire)) {
      cpu = 1e-9 * nanos(s.cpuClock);
      involuntary = involuntarySwitches(s.tid);
    }
    c.cpu.push_back(cpu);
    c.involuntary.push_back(involuntary);
  }
  c.callerCpu = 1e-9 * nanos(CLOCK_THREAD_CPUTIME_ID);
  return c;
}

} // namespace airbench
