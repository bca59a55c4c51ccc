//===- Invoker.h - Delivering payloads to function instances ----*- C++ -*-===//
//
// An Invoker is the platform's asynchronous invoke: it accepts a payload for
// a function and returns; the function's runtime handles it later, somewhere.
//
//  * ThreadPoolInvoker: the local platform of unum-run and the tests. A
//    bounded pool of worker threads; an invocation that crashes is delivered
//    again (like an asynchronous FaaS retry) up to a limit.
//  * HttpInvoker: POSTs the payload as JSON to a per-function URL (a FaaS
//    gateway); a 2xx answer means accepted.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_RUNTIME_INVOKER_H
#define UNUM_RUNTIME_INVOKER_H

#include "unum/Runtime/Payload.h"
#include "unum/Runtime/Status.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace unum::runtime {

class Invoker {
public:
  virtual ~Invoker();
  /// Hands `payload` to `function`; returns once it is accepted.
  virtual Status invoke(const std::string &function, Payload payload) = 0;
  /// True if invoke waits for a round trip, so that issuing many
  /// invocations concurrently pays off.
  virtual bool blocking() const { return false; }
};

class ThreadPoolInvoker final : public Invoker {
public:
  /// Runs one invocation; a Crash status asks for another delivery.
  using Dispatch =
      std::function<Status(const std::string &function, const Payload &)>;
  /// Called when an invocation failed for good (an error, or crashes on
  /// every delivery).
  using OnFailure = std::function<void(const std::string &function,
                                       const Payload &, const Status &)>;

  ThreadPoolInvoker(unsigned workers, unsigned maxDeliveries = 3);
  ~ThreadPoolInvoker() override;

  void setDispatch(Dispatch d) { dispatch = std::move(d); }
  void setOnFailure(OnFailure f) { onFailure = std::move(f); }

  Status invoke(const std::string &function, Payload payload) override;

  /// Blocks until no invocation is queued or running.
  void wait();

private:
  struct Task {
    std::string function;
    Payload payload;
    unsigned delivery = 0;
  };
  void work();

  Dispatch dispatch;
  OnFailure onFailure;
  unsigned maxDeliveries;
  std::mutex mu;
  std::condition_variable ready, idle;
  std::deque<Task> queue;
  unsigned running = 0;
  bool stopping = false;
  std::vector<std::thread> threads;
};

class HttpInvoker final : public Invoker {
public:
  /// `urlFor` maps a function name to its endpoint
  /// ("http://127.0.0.1:8080/fn/Name"); only plain http is supported.
  explicit HttpInvoker(std::function<std::string(const std::string &)> urlFor,
                       int timeoutMs = 30000)
      : urlFor(std::move(urlFor)), timeoutMs(timeoutMs) {}

  Status invoke(const std::string &function, Payload payload) override;
  bool blocking() const override { return true; }

private:
  std::function<std::string(const std::string &)> urlFor;
  int timeoutMs;
};

struct HttpResponse {
  int status = 0;
  std::string body;
};

/// A minimal HTTP/1.1 POST over a plain TCP socket (Connection: close).
Result<HttpResponse> httpPost(const std::string &url, const std::string &body,
                              const std::string &contentType, int timeoutMs);

} // namespace unum::runtime

#endif // UNUM_RUNTIME_INVOKER_H
