//===- Progress.cpp - unum-run's progress line ----------------------------===//
#include "Progress.h"

#include <cstdio>
#include <unistd.h>

using namespace unum::run;
using namespace unum::runtime;

Progress::Progress(const App &app) {
  for (const auto &entry : app.functions())
    for (const config::Edge &edge : entry.second.config.next)
      if (edge.kind == config::EdgeKind::FanIn)
        fanInTargets.insert(edge.target);
}

Progress::~Progress() {
  {
    std::lock_guard<std::mutex> lock(mu);
    stopping = true;
  }
  cv.notify_all();
  if (drawer.joinable())
    drawer.join();
}

void Progress::observe(LocalRunner &runner) {
  ThreadPoolInvoker &pool = runner.invoker();
  ThreadPoolInvoker::Dispatch inner = pool.getDispatch();
  pool.setDispatch([this, inner](const std::string &fn, const Payload &p) {
    started.fetch_add(1, std::memory_order_relaxed);
    // A fan-in target runs once its completion set is full.
    if (fanInTargets.count(fn))
      fanIns.fetch_add(1, std::memory_order_relaxed);
    Status s = inner(fn, p);
    finished.fetch_add(1, std::memory_order_relaxed);
    return s;
  });
}

std::string Progress::line() const {
  double secs = std::chrono::duration<double>(Clock::now() - begin).count();
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "%.1f s: %llu invocations started, %llu finished, %llu "
                "fan-ins completed",
                secs, (unsigned long long)started.load(),
                (unsigned long long)finished.load(),
                (unsigned long long)fanIns.load());
  return buf;
}

bool Progress::stderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

void Progress::draw(std::ostream &os, std::chrono::milliseconds delay,
                    std::chrono::milliseconds interval) {
  drawer = std::thread([this, &os, delay, interval] {
    std::unique_lock<std::mutex> lock(mu);
    if (cv.wait_for(lock, delay, [this] { return stopping; }))
      return;
    while (true) {
      // \r and "erase to end of line": the line is redrawn in place.
      os << "\r[unum-run] " << line() << "\x1b[K" << std::flush;
      if (cv.wait_for(lock, interval, [this] { return stopping; }))
        break;
    }
    os << "\r[unum-run] " << line() << "\x1b[K\n" << std::flush;
  });
}
