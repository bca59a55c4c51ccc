//===- Progress.h - unum-run's progress line --------------------*- C++ -*-===//
//
// While a long run goes on, unum-run redraws one status line on a terminal's
// stderr: invocations started and finished, fan-ins completed, time elapsed.
// Counted by wrapping the worker pool's dispatch, so the runtime knows
// nothing of it.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_RUN_PROGRESS_H
#define UNUM_RUN_PROGRESS_H

#include "unum/Runtime/App.h"
#include "unum/Runtime/Runtime.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <unordered_set>

namespace unum::run {

class Progress {
public:
  using Clock = std::chrono::steady_clock;

  /// `app`'s fan-in targets are what "fan-ins completed" counts.
  explicit Progress(const runtime::App &app);
  ~Progress(); // stops the drawing thread, ends the line

  /// Counts the invocations `runner`'s workers dispatch from now on (call
  /// before the run starts): wraps the pool's dispatch, which stays
  /// LocalRunner's.
  void observe(runtime::LocalRunner &runner);

  /// Redraws the line on `os` every `interval` (the first after `delay`, so
  /// a short run prints nothing) until destroyed.
  void draw(std::ostream &os, std::chrono::milliseconds delay,
            std::chrono::milliseconds interval);

  /// "12.3 s: 4000 invocations started, 3990 finished, 2 fan-ins completed".
  std::string line() const;

  /// True if stderr is a terminal (progress is never drawn otherwise).
  static bool stderrIsTerminal();

private:
  std::unordered_set<std::string> fanInTargets;
  std::atomic<uint64_t> started{0}, finished{0}, fanIns{0};
  Clock::time_point begin = Clock::now();
  std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;
  std::thread drawer;
};

} // namespace unum::run

#endif // UNUM_RUN_PROGRESS_H
