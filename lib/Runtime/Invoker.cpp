//===- Invoker.cpp - Thread pool and HTTP invokers ------------------------===//

#include "unum/Runtime/Invoker.h"

#include "AppInternal.h"
#include "HotPath.h"
#include "PayloadInternal.h"
#include "Sockets.h"
#include "unum/Runtime/App.h"
#include "unum/Runtime/HttpAuth.h"
#include "unum/Runtime/Runtime.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string_view>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace unum::runtime;

Invoker::~Invoker() = default;

Status Invoker::invokeStaged(const std::string &) {
  return Status::error("nothing was staged");
}

/// The pool's state: the workers, the shared queue, and each worker's
/// run-next slot.
class ThreadPoolInvoker::Impl {
public:
  Impl(unsigned workers, unsigned maxDeliveries);
  ~Impl();

  Status invoke(const std::string &function, Payload &&payload);
  /// `reservation`: the caller holds a Slot of this pool, given up once
  /// the invocation runs here or is queued.
  Status invokeHere(const std::string &function, Payload &&payload,
                    bool reservation);
  void reserve();
  /// A Slot given up: wakes wait() if that left the pool idle.
  void release();
  Payload *stage();
  Status invokeStaged(const std::string &function);
  void wait();

  Dispatch dispatch;
  OnFailure onFailure;
  OnAccept onAccept;

private:
  struct Task {
    /// The function's name, copied only when the payload carries no spec
    /// of that name (an in-process continuation names its target by spec,
    /// whose App outlives the pool).
    std::string function;
    bool namedBySpec = false;
    Payload payload;
    unsigned delivery = 0;
    const std::string &name() const;
    void setName(const std::string &name);
  };
  /// FIFO of tasks: a ring over a vector that doubles when full (a
  /// std::deque allocates a block for every two tasks of this size).
  class Queue {
  public:
    bool empty() const { return count == 0; }
    /// Fills the next slot in place: one move of the payload.
    void push(const std::string &function, Payload &&payload,
              unsigned delivery);
    Task pop();

  private:
    std::vector<Task> slots;
    size_t head = 0, count = 0;
  };
  /// A worker's own state: the task it runs and its run-next slot.
  struct Worker {
    Impl *pool = nullptr;
    Task tasks[2];
    unsigned current = 0; // tasks[current] runs; the other is the slot
    bool nextFull = false;
    Task &next() { return tasks[1 - current]; }
    void clear();
  };
  /// The worker running on this thread (nullptr elsewhere).
  static thread_local Worker *self;

  void work();
  /// Runs the worker's current task and then what its run-next slot
  /// receives, until the slot stays empty; a task that crashes goes to the
  /// back of the queue. Called without the lock.
  void runChain(Worker &w);
  /// Runs a task; true if it crashed and is to be delivered again.
  bool runTask(Task &task);

  unsigned maxDeliveries;
  /// At most this many tasks run at once: the pool's threads and the
  /// callers of invokeHere() together.
  unsigned capacity;
  std::mutex mu;
  std::condition_variable ready, idle;
  Queue queue;
  unsigned running = 0;
  /// Slots held (reserve()): wait() counts them as running.
  unsigned reserved = 0;
  bool stopping = false;
  std::vector<std::thread> threads;
};

ThreadPoolInvoker::ThreadPoolInvoker(unsigned workers, unsigned maxDeliveries)
    : impl(std::make_unique<Impl>(workers, maxDeliveries)) {}

ThreadPoolInvoker::~ThreadPoolInvoker() = default;

void ThreadPoolInvoker::setDispatch(Dispatch d) {
  impl->dispatch = std::move(d);
}
const ThreadPoolInvoker::Dispatch &ThreadPoolInvoker::getDispatch() const {
  return impl->dispatch;
}
void ThreadPoolInvoker::setOnFailure(OnFailure f) {
  impl->onFailure = std::move(f);
}
void ThreadPoolInvoker::setOnAccept(OnAccept f) {
  impl->onAccept = std::move(f);
}
UNUM_HOT Status ThreadPoolInvoker::invoke(const std::string &function,
                                          Payload &&payload) {
  return impl->invoke(function, std::move(payload));
}
UNUM_HOT Payload *ThreadPoolInvoker::stage() { return impl->stage(); }
UNUM_HOT Status ThreadPoolInvoker::invokeStaged(const std::string &function) {
  return impl->invokeStaged(function);
}
Status ThreadPoolInvoker::invokeHere(const std::string &function,
                                     Payload &&payload) {
  return impl->invokeHere(function, std::move(payload), false);
}

ThreadPoolInvoker::Slot ThreadPoolInvoker::reserve() {
  impl->reserve();
  return Slot(impl.get());
}

Status ThreadPoolInvoker::invokeHere(Slot slot, const std::string &function,
                                     Payload &&payload) {
  // A Slot of another pool is released when this returns (by `slot`).
  const bool mine = slot.pool == impl.get();
  if (mine)
    slot.pool = nullptr; // given up by Impl::invokeHere
  return impl->invokeHere(function, std::move(payload), mine);
}

ThreadPoolInvoker::Slot::Slot(Slot &&other) noexcept : pool(other.pool) {
  other.pool = nullptr;
}

ThreadPoolInvoker::Slot &
ThreadPoolInvoker::Slot::operator=(Slot &&other) noexcept {
  if (this != &other) {
    if (pool)
      pool->release();
    pool = other.pool;
    other.pool = nullptr;
  }
  return *this;
}

ThreadPoolInvoker::Slot::~Slot() {
  if (pool)
    pool->release();
}
void ThreadPoolInvoker::wait() { impl->wait(); }

ThreadPoolInvoker::Impl::Impl(unsigned workers, unsigned maxDeliveries)
    : maxDeliveries(maxDeliveries ? maxDeliveries : 1),
      capacity(workers ? workers : 1) {
  if (workers == 0)
    workers = 1;
  for (unsigned i = 0; i < workers; ++i)
    threads.emplace_back([this] { work(); });
}

ThreadPoolInvoker::Impl::~Impl() {
  {
    std::lock_guard<std::mutex> lock(mu);
    stopping = true;
  }
  ready.notify_all();
  for (std::thread &t : threads)
    t.join();
}

const std::string &ThreadPoolInvoker::Impl::Task::name() const {
  return namedBySpec ? detail::hints(payload).target->plan.name : function;
}

void ThreadPoolInvoker::Impl::Task::setName(const std::string &name) {
  const detail::FunctionNode *target = detail::hints(payload).target;
  namedBySpec =
      target && (&target->plan.name == &name || target->plan.name == name);
  if (!namedBySpec)
    function = name;
}

thread_local ThreadPoolInvoker::Impl::Worker *ThreadPoolInvoker::Impl::self =
    nullptr;

UNUM_HOT Status ThreadPoolInvoker::Impl::invoke(const std::string &function,
                                                Payload &&payload) {
  if (UNUM_UNLIKELY(onAccept))
    onAccept(function, payload);
  if (Worker *w = self; w && w->pool == this && !w->nextFull) {
    // Issued by a task of ours: it runs next here (the worker is busy
    // until then, so wait() and shutdown both see it).
    Task &t = w->next();
    t.payload = std::move(payload);
    t.setName(function);
    t.delivery = 0;
    w->nextFull = true;
    return Status::ok();
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    if (stopping)
      return Status::error("invoker is shutting down");
    queue.push(function, std::move(payload), 0);
  }
  ready.notify_one();
  return Status::ok();
}

UNUM_HOT Payload *ThreadPoolInvoker::Impl::stage() {
  Worker *w = self;
  if (!w || w->pool != this || w->nextFull)
    return nullptr;
  // The slot holds the task that ran before: reset it, but for the names
  // and the value, which the caller always sets (InvokerInternal.h).
  Payload &p = w->next().payload;
  p.source = Payload::Source::Http;
  p.fanout.clear();
  if (!p.fanInSet.empty())
    p.fanInSet.clear();
  detail::PayloadAccess::clearHints(p);
  return &p;
}

UNUM_HOT Status
ThreadPoolInvoker::Impl::invokeStaged(const std::string &function) {
  Worker *w = self;
  Task &t = w->next();
  if (UNUM_UNLIKELY(onAccept))
    onAccept(function, t.payload);
  t.setName(function);
  t.delivery = 0;
  w->nextFull = true;
  return Status::ok();
}

void ThreadPoolInvoker::Impl::Queue::push(const std::string &function,
                                          Payload &&payload,
                                          unsigned delivery) {
  if (count == slots.size()) {
    std::vector<Task> grown(std::max<size_t>(16, 2 * slots.size()));
    for (size_t i = 0; i < count; ++i)
      grown[i] = std::move(slots[(head + i) % slots.size()]);
    slots = std::move(grown);
    head = 0;
  }
  Task &slot = slots[(head + count) % slots.size()];
  slot.payload = std::move(payload);
  slot.setName(function);
  slot.delivery = delivery;
  ++count;
}

// Out of line, like pop(): the worker loop's code stays small.
[[gnu::noinline]] void ThreadPoolInvoker::Impl::Worker::clear() {
  tasks[0] = Task();
  tasks[1] = Task();
}

[[gnu::noinline]] ThreadPoolInvoker::Impl::Task
ThreadPoolInvoker::Impl::Queue::pop() {
  Task task = std::move(slots[head]);
  head = (head + 1) % slots.size();
  --count;
  return task;
}

void ThreadPoolInvoker::Impl::wait() {
  std::unique_lock<std::mutex> lock(mu);
  idle.wait(lock,
            [&] { return queue.empty() && running == 0 && reserved == 0; });
}

void ThreadPoolInvoker::Impl::reserve() {
  std::lock_guard<std::mutex> lock(mu);
  ++reserved;
}

void ThreadPoolInvoker::Impl::release() {
  std::lock_guard<std::mutex> lock(mu);
  if (--reserved == 0 && queue.empty() && running == 0)
    idle.notify_all();
}

UNUM_HOT bool ThreadPoolInvoker::Impl::runTask(Task &task) {
  Status s = dispatch ? dispatch(task.name(), task.payload)
                      : Status::error("no dispatch function");
  bool redeliver = s.isCrash() && task.delivery + 1 < maxDeliveries;
  if (!s.isOk() && !redeliver && onFailure)
    onFailure(task.name(), task.payload, s);
  return redeliver;
}

UNUM_HOT void ThreadPoolInvoker::Impl::runChain(Worker &w) {
  for (;;) {
    Task &task = w.tasks[w.current];
    if (runTask(task)) {
      ++task.delivery;
      // It may have checkpointed before dying.
      detail::hints(task.payload).fresh = false;
      detail::hints(task.payload).noCheckpoint = false;
      // To the back: the crashed invocation's children run meanwhile, as
      // they would while a FaaS platform waits to retry.
      std::lock_guard<std::mutex> relock(mu);
      queue.push(task.name(), std::move(task.payload), task.delivery);
      ready.notify_one();
    }
    if (!w.nextFull)
      break;
    w.current = 1 - w.current; // the run-next slot becomes the task
    w.nextFull = false;
  }
  w.clear(); // finished payloads are freed outside the lock
}

UNUM_HOT void ThreadPoolInvoker::Impl::work() {
  Worker w;
  w.pool = this;
  self = &w;
  // One lock round per task from the queue: the lock taken to finish a
  // task is the one that picks the next.
  std::unique_lock<std::mutex> lock(mu);
  for (;;) {
    // A slot that invokeHere() holds is not this thread's to fill.
    ready.wait(lock, [&] {
      return stopping || (!queue.empty() && running < capacity);
    });
    if (queue.empty()) {
      self = nullptr;
      return; // stopping
    }
    w.tasks[w.current] = queue.pop();
    ++running;
    lock.unlock();
    runChain(w);
    lock.lock();
    --running;
    if (queue.empty() && running == 0)
      idle.notify_all();
  }
}

Status ThreadPoolInvoker::Impl::invokeHere(const std::string &function,
                                           Payload &&payload,
                                           bool reservation) {
  bool here;
  {
    std::lock_guard<std::mutex> lock(mu);
    // Queued work goes first, and a worker's thread (a task that issues)
    // keeps to its run-next slot.
    here = !self && !stopping && running < capacity && queue.empty();
    running += here;
    // Running now: the reservation goes under the same lock.
    if (here && reservation)
      --reserved;
  }
  if (!here) {
    Status s = invoke(function, std::move(payload));
    if (reservation)
      release(); // once queued (or in a worker's run-next slot)
    return s;
  }
  if (UNUM_UNLIKELY(onAccept))
    onAccept(function, payload);
  // This thread is one of the pool's workers until the chain ends: what
  // the task issues first runs next here, and wait() counts it meanwhile.
  Worker w;
  w.pool = this;
  self = &w;
  w.tasks[w.current].payload = std::move(payload);
  w.tasks[w.current].setName(function);
  runChain(w);
  self = nullptr;
  std::lock_guard<std::mutex> lock(mu);
  --running;
  if (!queue.empty())
    ready.notify_one(); // a slot for the queue's next task
  else if (running == 0)
    idle.notify_all();
  return Status::ok();
}

namespace {
using sockets::Clock;
using sockets::listsToken;
using sockets::waitUntil;

struct Socket {
  int fd = -1;
  ~Socket() {
    if (fd >= 0)
      ::close(fd);
  }
};

/// Connects `fd` to `addr` by `deadline`.
bool connectBy(int fd, const addrinfo &addr, Clock::time_point deadline,
               std::string &error) {
  int flags = fcntl(fd, F_GETFL, 0);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  if (connect(fd, addr.ai_addr, addr.ai_addrlen) != 0) {
    if (errno != EINPROGRESS) {
      error = std::strerror(errno);
      return false;
    }
    if (!waitUntil(fd, POLLOUT, deadline)) {
      error = "timed out";
      return false;
    }
    int soError = 0;
    socklen_t len = sizeof(soError);
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len);
    if (soError != 0) {
      error = std::strerror(soError);
      return false;
    }
  }
  fcntl(fd, F_SETFL, flags);
  // A request is one write and its answer is waited for: no Nagle delay.
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  sockets::setRecvSlice(fd); // the answer is waited for by recvBy
  return true;
}
} // namespace

std::string HttpResponse::header(const std::string &lowerName) const {
  for (const auto &[name, value] : headers)
    if (name == lowerName)
      return value;
  return "";
}

Result<HttpResponse> unum::runtime::httpPost(const std::string &url,
                                             const std::string &body,
                                             const std::string &contentType,
                                             int timeoutMs,
                                             const std::string &secret) {
  return httpRequest("POST", url, body, {{"Content-Type", contentType}},
                     timeoutMs, secret, kMaxHttpResponse);
}

/// Where the late refusals of an HttpInvoker's journaled continuations go
/// (setOnRefusal). Each answer still to be read shares it, so that one read
/// after the invoker is gone finds no callback.
struct unum::runtime::detail::RefusalSink {
  std::mutex mu;
  Invoker::OnRefusal call;
  /// The invoker's: names the URL in a report (while `call` is set).
  std::function<std::string(const std::string &)> urlFor;
};

namespace {
/// A journaled continuation's POST whose answer is still to be read: what
/// a refusal needs of its payload (moved out of it: no copy on the hot
/// path).
struct PendingAnswer {
  std::shared_ptr<detail::RefusalSink> sink;
  std::string function, session;
  std::vector<FanOutLevel> fanout;
  uint64_t outboxId = 0;
  Clock::time_point deadline; // the request's
};

/// Reports the answer to a journaled continuation's POST that was not a
/// 2xx: `status` 0 when none came (`text` says why). A refusal for good
/// (a 4xx other than 408 Request Timeout and 429 Too Many Requests: a
/// wrong URL, a host that does not know the payload's fields, a payload
/// too large, a bad signature) goes to the invoker's OnRefusal; anything
/// else is left to the receiver's sweep, which delivers the entry from the
/// store.
void reportAnswer(PendingAnswer &p, int status, std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  std::lock_guard<std::mutex> lock(p.sink->mu);
  std::string why = "invoking " + p.function;
  if (p.sink->urlFor)
    why += " at " + p.sink->urlFor(p.function);
  why += ": ";
  why += status ? "HTTP " + std::to_string(status) +
                      (text.empty() ? "" : ": " + text)
                : text;
  const bool refused =
      status >= 400 && status < 500 && status != 408 && status != 429;
  if (!refused) {
    std::fprintf(stderr,
                 "unum: %s (a journaled continuation: its receiver's host "
                 "delivers it from the store)\n",
                 why.c_str());
    return;
  }
  if (!p.sink->call) {
    std::fprintf(stderr,
                 "unum: %s (a journaled continuation, refused; nothing "
                 "records the refusal: its entry stays in the store)\n",
                 why.c_str());
    return;
  }
  why += " (a continuation its sender journaled, refused after the sender's "
         "step; it is not delivered again)";
  std::fprintf(stderr, "unum: %s\n", why.c_str());
  Payload payload;
  payload.session = std::move(p.session);
  payload.fanout = std::move(p.fanout);
  detail::hints(payload).outboxId = p.outboxId;
  p.sink->call(p.function, payload, why);
}

bool settle(int fd, const std::string &server, Clock::time_point deadline,
            PendingAnswer &pending);

/// Idle keep-alive connections to HTTP servers, by "host:port": a request
/// takes one (or opens a new one) and gives it back after a complete
/// answer that lets it stay open. Bounded per server; a connection idle for
/// longer than kMaxIdle is closed rather than used (servers close theirs
/// after a few seconds: HttpServer after 5 s).
///
/// A connection given back with its answer still to be read (a journaled
/// continuation's POST) is settled by its next taker, or by the pool's own
/// thread once it has been idle kSettleAfter with its answer there: so a
/// refusal is seen within milliseconds even when no request follows.
class ConnectionPool {
public:
  static ConnectionPool &get() {
    static ConnectionPool *pool = new ConnectionPool(); // outlives exit
    return *pool;
  }

  /// A connection given back, and the request whose answer is still to be
  /// read on it, if any (see give).
  struct Taken {
    int fd = -1;
    std::unique_ptr<PendingAnswer> pending;
  };

  /// An open connection to `key` (fd -1: none).
  Taken take(const std::string &key) {
    std::vector<Idle> stale;
    Taken out;
    int &fd = out.fd;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = idle.find(key);
      if (it == idle.end())
        return out;
      const Clock::time_point now = Clock::now();
      auto &list = it->second;
      while (!list.empty() && fd < 0) {
        Idle c = std::move(list.back());
        list.pop_back();
        if (c.pending)
          --pendingCount;
        if (now - c.since > kMaxIdle) {
          stale.push_back(std::move(c));
          continue;
        }
        // Readable while idle: the server closed it (or sent something
        // unasked for, such as a 408 at its idle time-out): not usable.
        // Not looked at when given back just now (no server times out a
        // connection that soon): a system call less per request in a row;
        // a connection closed meanwhile fails the request before its
        // answer starts, which sends it again on a new one.
        // (One whose answer is pending is readable: its answer is read
        // by the taker.)
        pollfd p{c.fd, POLLIN, 0};
        if (!c.pending && now - c.since >= kFreshIdle && poll(&p, 1, 0) != 0) {
          stale.push_back(std::move(c));
        } else {
          fd = c.fd;
          out.pending = std::move(c.pending);
        }
      }
      // The older ones, beyond the freshest, went stale first.
      while (!list.empty() && now - list.front().since > kMaxIdle) {
        if (list.front().pending)
          --pendingCount;
        stale.push_back(std::move(list.front()));
        list.erase(list.begin());
      }
    }
    for (Idle &s : stale)
      drop(key, s);
    return out;
  }

  /// Gives back a connection whose last answer was read (`pending` null)
  /// or is still to be read by its next taker (or the pool's thread).
  void give(const std::string &key, int fd,
            std::unique_ptr<PendingAnswer> pending = nullptr) {
    {
      std::lock_guard<std::mutex> lock(mu);
      auto &list = idle[key];
      if (list.size() < kMaxIdlePerServer) {
        if (pending) {
          ++pendingCount;
          if (!settler.joinable())
            settler = std::thread([this] { settleLoop(); });
          else if (settlerParked)
            wake.notify_one(); // (not per request: it ticks while busy)
        }
        list.push_back({fd, Clock::now(), std::move(pending)});
        return;
      }
    }
    Idle c{fd, Clock::now(), std::move(pending)};
    if (c.pending && settle(fd, key, c.pending->deadline, *c.pending))
      c.pending.reset(); // its answer read: closed below
    drop(key, c);
  }

private:
  static constexpr size_t kMaxIdlePerServer = 32;
  static constexpr std::chrono::milliseconds kMaxIdle{2000};
  static constexpr std::chrono::milliseconds kFreshIdle{200};
  /// How long a connection whose answer is pending waits for a taker
  /// before the pool's thread reads that answer itself (a tick's period).
  static constexpr std::chrono::milliseconds kSettleAfter{20};
  struct Idle {
    int fd;
    Clock::time_point since;
    std::unique_ptr<PendingAnswer> pending;
  };

  /// Closes a connection taken out of the pool; an answer it still owed is
  /// reported as missing.
  static void drop(const std::string &key, Idle &c,
                   const char *why = "the connection went stale") {
    if (c.pending)
      reportAnswer(*c.pending, 0, "no answer from " + key + " (" + why + ")");
    ::close(c.fd);
  }

  /// The pool's thread: every kSettleAfter, reads the answers that
  /// arrived on connections idle that long, and gives up on those past
  /// their request's deadline; parked once none was pending for kMaxIdle.
  void settleLoop() {
    std::unique_lock<std::mutex> lock(mu);
    Clock::time_point lastPending = Clock::now();
    for (;;) {
      if (pendingCount == 0 && Clock::now() - lastPending > kMaxIdle) {
        settlerParked = true;
        wake.wait(lock, [this] { return pendingCount > 0; });
        settlerParked = false;
      }
      wake.wait_for(lock, kSettleAfter);
      const Clock::time_point now = Clock::now();
      if (pendingCount)
        lastPending = now;
      std::vector<std::pair<std::string, Idle>> ready;
      for (auto &[key, list] : idle)
        for (auto it = list.begin(); it != list.end();) {
          pollfd p{it->fd, POLLIN, 0};
          if (it->pending && now - it->since >= kSettleAfter &&
              (now >= it->pending->deadline || poll(&p, 1, 0) != 0)) {
            ready.emplace_back(key, std::move(*it));
            it = list.erase(it);
            --pendingCount;
          } else {
            ++it;
          }
        }
      if (ready.empty())
        continue;
      lock.unlock();
      for (auto &[key, c] : ready) {
        // Its answer is there (or it never comes): no wait beyond a slice.
        if (now < c.pending->deadline &&
            settle(c.fd, key, std::min(c.pending->deadline, now + kMaxIdle),
                   *c.pending)) {
          give(key, c.fd);
        } else {
          if (now < c.pending->deadline)
            c.pending.reset(); // settle reported it
          drop(key, c, "its request timed out");
        }
      }
      ready.clear();
      lock.lock();
    }
  }

  std::mutex mu;
  std::condition_variable wake; // the settler: pendingCount became > 0
  std::map<std::string, std::vector<Idle>> idle;
  size_t pendingCount = 0; // idle connections whose answer is pending
  std::thread settler;     // started with the first pending answer
  bool settlerParked = false;
};

/// Decodes a chunked body from `in` (what followed the head) into `out`:
/// 1 complete (`used`: the bytes it took), 0 more needed, -1 malformed.
int decodeChunked(const std::string &in, std::string &out, size_t &used) {
  out.clear();
  size_t at = 0;
  for (;;) {
    size_t eol = in.find("\r\n", at);
    if (eol == std::string::npos)
      return in.size() - at > 1024 ? -1 : 0;
    std::string hex = in.substr(at, std::min(eol, in.find(';', at)) - at);
    char *end = nullptr;
    unsigned long long size = std::strtoull(hex.c_str(), &end, 16);
    if (hex.empty() || *end || hex.size() > 8)
      return -1;
    at = eol + 2;
    if (size == 0) {
      // Trailer fields, up to the blank line.
      for (;;) {
        size_t next = in.find("\r\n", at);
        if (next == std::string::npos)
          return 0;
        bool blank = next == at;
        at = next + 2;
        if (blank) {
          used = at;
          return 1;
        }
      }
    }
    if (in.size() < at + size + 2)
      return 0;
    if (in.compare(at + size, 2, "\r\n") != 0)
      return -1;
    out.append(in, at, size);
    at += size + 2;
  }
}

/// An answer being read: the head once complete, and how its body ends.
struct Answer {
  std::string data;       // everything read so far
  size_t bodyAt = 0;      // where the final answer's body starts
  bool headDone = false;  // the final (non-1xx) head was parsed
  long long length = -1;  // Content-Length, or -1
  bool chunked = false;   // Transfer-Encoding: chunked
  bool keepAlive = false; // the server keeps the connection open
  HttpResponse out;

  /// Parses what `data` holds: true once the whole answer is there
  /// (`complete`), or when it is malformed (`error` set).
  bool parse(bool eof, std::string &error) {
    while (!headDone) {
      size_t end = data.find("\r\n\r\n", bodyAt);
      if (end == std::string::npos)
        return eof ? (error = "malformed HTTP response", true) : false;
      // Views into `data`: every answer pays for this (a 202 per step).
      std::string_view head =
          std::string_view(data).substr(bodyAt, end - bodyAt);
      if (head.compare(0, 5, "HTTP/") != 0 ||
          head.find(' ') == std::string_view::npos) {
        error = "malformed HTTP response";
        return true;
      }
      int status = std::atoi(head.data() + head.find(' ') + 1);
      bodyAt = end + 4;
      if (status >= 100 && status < 200)
        continue; // an interim answer (100 Continue)
      out.status = status;
      out.headers.clear();
      out.headers.reserve(8);
      const std::string *length = nullptr, *coding = nullptr, *conn = nullptr;
      for (size_t at = head.find("\r\n"); at != std::string_view::npos;) {
        size_t eol = head.find("\r\n", at + 2);
        std::string_view field = head.substr(
            at + 2, eol == std::string_view::npos ? std::string_view::npos
                                                  : eol - at - 2);
        at = eol;
        size_t colon = field.find(':');
        if (colon == std::string_view::npos)
          continue;
        std::string name(field.substr(0, colon));
        for (char &c : name)
          if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
        size_t v = field.find_first_not_of(" \t", colon + 1);
        size_t e = field.find_last_not_of(" \t");
        out.headers.emplace_back(std::move(name),
                                 v == std::string_view::npos
                                     ? std::string()
                                     : std::string(field.substr(v, e + 1 - v)));
      }
      // The first of each, as HttpResponse::header (after the loop: the
      // vector may move its strings while it grows).
      for (const auto &[name, value] : out.headers) {
        const std::string **slot = name == "content-length"      ? &length
                                   : name == "transfer-encoding" ? &coding
                                   : name == "connection"        ? &conn
                                                                 : nullptr;
        if (slot && !*slot)
          *slot = &value;
      }
      static const std::string none;
      chunked = listsToken(coding ? *coding : none, "chunked");
      if (length && !length->empty() && !chunked) {
        char *endp = nullptr;
        long long n = std::strtoll(length->c_str(), &endp, 10);
        if (*endp || n < 0) {
          error = "malformed Content-Length in the HTTP response";
          return true;
        }
        this->length = n;
      }
      if (status == 204 || status == 304)
        this->length = 0;
      bool http11 = head.compare(0, 8, "HTTP/1.1") == 0;
      const std::string &connection = conn ? *conn : none;
      keepAlive = (http11 ? !listsToken(connection, "close")
                          : listsToken(connection, "keep-alive")) &&
                  (chunked || this->length >= 0);
      headDone = true;
    }
    if (chunked) {
      size_t used = 0;
      int r = decodeChunked(data.substr(bodyAt), out.body, used);
      if (r < 0 || (r == 0 && eof)) {
        error = "malformed chunked HTTP response";
        return true;
      }
      if (r > 0 && bodyAt + used != data.size())
        keepAlive = false; // bytes beyond the answer: not ours to keep
      return r > 0;
    }
    if (length >= 0) {
      if (data.size() - bodyAt < size_t(length))
        return eof ? (error = "HTTP response cut short", true) : false;
      if (data.size() - bodyAt > size_t(length))
        keepAlive = false;
      out.body = data.substr(bodyAt, size_t(length));
      return true;
    }
    if (!eof)
      return false; // the body ends with the connection
    out.body = data.substr(bodyAt);
    return true;
  }
};

/// Reads the answer to the request just sent on `fd`, by `deadline`: 0
/// when it is complete (or `error` says what is wrong with it); 1 when the
/// server had closed the connection before it (`reused`: it waited in the
/// pool, so the request may go again on a new one); -1 with `error` (timed
/// out, too large, a receive error).
int readAnswer(int fd, Clock::time_point deadline, size_t maxResponse,
               bool reused, Answer &answer, std::string &error) {
  char buf[16384];
  for (bool done = false; !done;) {
    ssize_t n = sockets::recvBy(fd, buf, sizeof(buf), deadline);
    if (n == -2) {
      error = "timed out waiting for a response";
      return -1;
    }
    if (n <= 0 && reused && answer.data.empty())
      return 1; // closed by the server while idle
    if (n < 0 && !(errno == ECONNRESET && !answer.data.empty())) {
      error = std::string("recv: ") + std::strerror(errno);
      return -1;
    }
    if (n > 0) {
      if (answer.data.size() + size_t(n) > maxResponse) {
        error =
            "response larger than " + std::to_string(maxResponse) + " bytes";
        return -1;
      }
      answer.data.append(buf, size_t(n));
    }
    done = answer.parse(n <= 0, error);
  }
  return 0;
}

/// Reads the answer a connection from the pool still owes (its request
/// went with a PendingAnswer): whether the connection stays usable. An
/// answer other than 2xx is reported (reportAnswer).
bool settle(int fd, const std::string &server, Clock::time_point deadline,
            PendingAnswer &pending) {
  Answer answer;
  std::string error;
  int r = readAnswer(fd, deadline, kMaxHttpResponse, false, answer, error);
  if (r != 0 || !error.empty()) {
    reportAnswer(pending, 0,
                 "the answer from " + server + ": " +
                     (error.empty() ? std::string("none") : error));
    return false;
  }
  if (answer.out.status < 200 || answer.out.status >= 300)
    reportAnswer(pending, answer.out.status, answer.out.body);
  if (!answer.keepAlive)
    return false;
  // Still open? The next request may be sent without waiting for its
  // answer, so a connection its server closed meanwhile (it exited after
  // answering) must not take it: nothing would notice the loss. (A close
  // between this look and the send is not seen either: the request is then
  // one whose sender was killed after its put, see docs/Deploy.md.)
  char c;
  ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

/// httpRequest; with a `deferred` answer, once the request is sent on a
/// kept-alive connection its answer is left for the connection's next user
/// (or the pool's thread) to read (settle), `deferred` goes with it, and
/// the result has status 0. (On an error `deferred` is left as it was.)
Result<HttpResponse>
exchange(const std::string &method, const std::string &url,
         const std::string &body,
         const std::vector<std::pair<std::string, std::string>> &headers,
         int timeoutMs, const std::string &secret, size_t maxResponse,
         std::unique_ptr<PendingAnswer> &deferred) {
  const Clock::time_point deadline =
      Clock::now() + std::chrono::milliseconds(timeoutMs);
  const std::string scheme = "http://";
  if (url.compare(0, scheme.size(), scheme) != 0)
    return Status::error("'" + url + "': only http:// URLs are supported");
  std::string rest = url.substr(scheme.size());
  size_t slash = rest.find('/');
  std::string hostPort = rest.substr(0, slash);
  std::string path = slash == std::string::npos ? "/" : rest.substr(slash);
  size_t colon = hostPort.rfind(':');
  std::string host = hostPort.substr(0, colon);
  std::string port =
      colon == std::string::npos ? "80" : hostPort.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2); // [::1]

  // Appended in place (one allocation): every continuation's POST.
  std::string req;
  req.reserve(160 + url.size() + body.size());
  auto field = [&req](const std::string &name, const std::string &value) {
    req.append(name).append(": ").append(value).append("\r\n");
  };
  req.append(method).append(" ").append(path).append(" HTTP/1.1\r\n");
  field("Host", hostPort);
  for (const auto &[name, value] : headers)
    field(name, value);
  if (method == "POST" || !body.empty())
    field("Content-Length", std::to_string(body.size()));
  req.append("Connection: keep-alive\r\n");
  if (!secret.empty())
    for (const auto &[name, value] :
         httpauth::signRequest(secret, method, path, body))
      field(name, value);
  req.append("\r\n").append(body);

  ConnectionPool &pool = ConnectionPool::get();
  for (bool fromPool = true;; fromPool = false) {
    // A kept-alive connection first; one the server closed meanwhile (its
    // answer never started) is dropped and the request sent on a new one.
    Socket sock;
    while (fromPool && sock.fd < 0) {
      ConnectionPool::Taken c = pool.take(hostPort);
      if (c.fd < 0)
        break;
      sock.fd = c.fd;
      if (c.pending && !settle(c.fd, hostPort, deadline, *c.pending)) {
        ::close(sock.fd);
        sock.fd = -1;
      }
    }
    const bool reused = sock.fd >= 0;
    if (!reused) {
      addrinfo hints{}, *addrs = nullptr;
      hints.ai_family = AF_UNSPEC;
      hints.ai_socktype = SOCK_STREAM;
      if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &addrs))
        return Status::error("'" + url + "': " + gai_strerror(rc));
      std::string lastError = "no address";
      for (addrinfo *a = addrs; a; a = a->ai_next) {
        int fd =
            socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0)
          continue;
        if (connectBy(fd, *a, deadline, lastError)) {
          sock.fd = fd;
          break;
        }
        ::close(fd);
      }
      freeaddrinfo(addrs);
      if (sock.fd < 0)
        return Status::error("cannot connect to '" + url + "': " + lastError);
    }
    // A server that refuses a request early (401, 413) may close before
    // reading all of it: its answer is what matters then.
    int err = sockets::sendAll(sock.fd, req, deadline);
    if (err == ETIMEDOUT)
      return Status::error("'" + url + "': timed out sending");
    if (err && reused)
      continue;
    if (err && err != EPIPE && err != ECONNRESET)
      return Status::error("'" + url + "': send: " + std::strerror(err));
    if (deferred && !err) {
      deferred->deadline = deadline;
      pool.give(hostPort, sock.fd, std::move(deferred));
      sock.fd = -1;
      return HttpResponse{0, ""};
    }
    Answer answer;
    std::string error;
    int r = readAnswer(sock.fd, deadline, maxResponse, reused, answer, error);
    if (r == 1)
      continue;
    if (!error.empty())
      return Status::error("'" + url + "': " + error);
    if (answer.keepAlive) {
      pool.give(hostPort, sock.fd);
      sock.fd = -1;
    }
    return std::move(answer.out);
  }
}
} // namespace

Result<HttpResponse> unum::runtime::httpRequest(
    const std::string &method, const std::string &url, const std::string &body,
    const std::vector<std::pair<std::string, std::string>> &headers,
    int timeoutMs, const std::string &secret, size_t maxResponse) {
  std::unique_ptr<PendingAnswer> waited;
  return exchange(method, url, body, headers, timeoutMs, secret, maxResponse,
                  waited);
}

Status HttpInvoker::invoke(const std::string &function, Payload &&payload) {
  std::string url = urlFor(function);
  // A continuation its sender journaled with its checkpoint (the payload
  // carries its outbox entry) is durable before the POST: its answer is
  // read by the connection's next request, or by the pool's thread, so
  // this thread does not wait for it. A refusal for good goes to the
  // OnRefusal callback (a durable runner fails the session and takes the
  // entry out of the outbox); any other failure leaves the entry in the
  // store, which the receiver's host delivers (after the grace, as for a
  // sender killed after its put). Other invocations are durable only once
  // accepted: their answer is waited for.
  std::string body = detail::payloadJson(payload);
  std::unique_ptr<PendingAnswer> deferred;
  if (detail::hints(payload).issuedMs != 0) {
    deferred = std::make_unique<PendingAnswer>();
    deferred->sink = refusals;
    deferred->function = function;
    deferred->session = std::move(payload.session);
    deferred->fanout = std::move(payload.fanout);
    deferred->outboxId = detail::hints(payload).outboxId;
  }
  auto r = exchange("POST", url, body, {{"Content-Type", "application/json"}},
                    timeoutMs, secret, kMaxHttpResponse, deferred);
  if (deferred) { // not sent: the caller may deliver it again
    payload.session = std::move(deferred->session);
    payload.fanout = std::move(deferred->fanout);
  }
  if (!r)
    return Status::crash(r.getStatus().message());
  if (r->status == 0)
    return Status::ok(); // sent, its answer left to the connection's next use
  // A busy gateway (503) or one that throttles (429) is retried, as a
  // platform retries an invocation it could not hand over.
  if (r->status == 503 || r->status == 429)
    return Status::crash("invoking " + function + " at " + url + ": HTTP " +
                         std::to_string(r->status) +
                         (r->body.empty() ? "" : ": " + r->body));
  if (r->status < 200 || r->status >= 300)
    return Status::error("invoking " + function + " at " + url + ": HTTP " +
                         std::to_string(r->status) +
                         (r->body.empty() ? "" : ": " + r->body));
  return Status::ok();
}

HttpInvoker::HttpInvoker(std::function<std::string(const std::string &)> urlFor,
                         int timeoutMs, std::string secret)
    : urlFor(std::move(urlFor)), timeoutMs(timeoutMs),
      secret(std::move(secret)),
      refusals(std::make_shared<detail::RefusalSink>()) {
  refusals->urlFor = this->urlFor;
}

HttpInvoker::~HttpInvoker() {
  std::lock_guard<std::mutex> lock(refusals->mu);
  refusals->call = nullptr;
  refusals->urlFor = nullptr; // may refer to what goes with the invoker
}

void HttpInvoker::setOnRefusal(OnRefusal onRefusal) {
  std::lock_guard<std::mutex> lock(refusals->mu);
  refusals->call = std::move(onRefusal);
}

Status FunctionUrls::add(const std::string &name, const std::string &url,
                         const std::string &where) {
  // The targets makeRemoteInvoker routes: a host, or an AWS Lambda function.
  if (url.rfind("http://", 0) != 0 && url.rfind("arn:aws:lambda:", 0) != 0)
    return Status::error(where + ": '" + name +
                         "': expected an http:// URL or an arn:aws:lambda: "
                         "ARN, got '" +
                         url + "'");
  if (name == "*")
    fallback = url;
  else
    urls[name] = url;
  return Status::ok();
}

Status FunctionUrls::addEntry(const std::string &entry,
                              const std::string &where) {
  size_t eq = entry.find('=');
  if (eq == std::string::npos || eq == 0)
    return Status::error(where + ": expected NAME=URL, got '" + entry + "'");
  return add(entry.substr(0, eq), entry.substr(eq + 1), where);
}

Status FunctionUrls::addFile(const std::string &path) {
  auto text = readFileOrStdin(path);
  if (!text)
    return text.getStatus();
  auto v = parseJsonValue(*text, path);
  if (!v)
    return v.getStatus();
  if (!v->isObject())
    return Status::error(path + ": expected an object of function name -> "
                                "URL");
  for (const Value::Member &m : v->getObject()) {
    if (!m.second.isString())
      return Status::error(path + ": '" + m.first +
                           "': expected an http:// URL or an arn:aws:lambda: "
                           "ARN");
    if (Status s = add(m.first, m.second.getString(), path); !s)
      return s;
  }
  return Status::ok();
}

Status FunctionUrls::check(const App &app, const std::string &where) const {
  for (const auto &entry : urls)
    if (!app.find(entry.first))
      return Status::error(where + ": '" + entry.first +
                           "' is not a function of the application");
  return Status::ok();
}

std::string FunctionUrls::urlFor(const std::string &function) const {
  auto it = urls.find(function);
  if (it != urls.end())
    return it->second;
  std::string url = fallback;
  const std::string slot = "{function}";
  for (size_t at; (at = url.find(slot)) != std::string::npos;)
    url.replace(at, slot.size(), function);
  return url;
}
