//===- Invoker.h - Delivering payloads to function instances ----*- C++ -*-===//
//
// An Invoker is the platform's asynchronous invoke: it accepts a payload for
// a function and returns; the function's runtime handles it later, somewhere.
//
//  * ThreadPoolInvoker: the local platform of unum-run and the tests. A
//    bounded pool of worker threads; an invocation that crashes is delivered
//    again (like an asynchronous FaaS retry) up to a limit. The first
//    invocation a running task issues runs next on the same worker (a
//    scheduler's "run next" slot: no queue, no lock, warm caches); any
//    further ones go to the shared queue for the other workers. A caller's
//    thread may run an invocation itself (invokeHere) while a slot is free.
//  * HttpInvoker: POSTs the payload as JSON to a per-function URL (a FaaS
//    gateway); a 2xx answer means accepted.
//  * makeLambdaInvoker: AWS Lambda's asynchronous Invoke (SigV4-signed);
//    makeRemoteInvoker picks HTTP or Lambda by each function's target.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_RUNTIME_INVOKER_H
#define UNUM_RUNTIME_INVOKER_H

#include "unum/Runtime/Payload.h"
#include "unum/Runtime/Status.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace unum::runtime {

namespace detail {
struct InvokerAccess; // lib/Runtime/InvokerInternal.h
} // namespace detail

/// The platform's asynchronous invoke.
///
/// Thread safety: the runtime calls invoke() from several threads at once
/// (every worker, every fan-out); implementations must allow that.
/// Lifetime: an Invoker must outlive every Runtime and LocalRunner that
/// uses it, and every payload it accepted must be delivered or dropped by
/// the time it is destroyed.
class Invoker {
public:
  virtual ~Invoker();
  /// Hands `payload` to `function`; returns once it is accepted. The
  /// payload is consumed (moved from) by an invoker that keeps it.
  virtual Status invoke(const std::string &function, Payload &&payload) = 0;
  /// True if invoke waits for a round trip, so that issuing many
  /// invocations concurrently pays off.
  virtual bool blocking() const { return false; }
  /// True if an invocation of `function` leaves this process for a host
  /// that takes a payload carrying its outbox entry (the "Outbox" wire
  /// field, Payload.h) without journaling it: unum-serve's peers. The
  /// runtime then writes that entry itself, with the sender's checkpoint
  /// and only if its put wins (DataStore::putIfAbsentIssuing), where the
  /// store can. Default: false (the receiver journals what it accepts).
  virtual bool carriesOutboxEntries(const std::string &function) const {
    (void)function;
    return false;
  }

  /// Called when an invocation that invoke() returned Ok for is refused
  /// for good by its receiver afterwards (a 4xx other than 408 and 429): an
  /// HttpInvoker does not wait for the answer to a continuation its sender
  /// journaled (Payload.h "Outbox"), and reads it later. `why` names the
  /// function, the URL and the answer. A durable LocalRunner records the
  /// refusal as the session's failure and takes the entry out of the
  /// outbox, so that no sweep delivers it again (docs/Deploy.md).
  using OnRefusal = std::function<void(
      const std::string &function, const Payload &, const std::string &why)>;
  /// Where such refusals go; nullptr: only a line on stderr. Forwarded by
  /// an invoker that wraps others (default: ignored, for an invoker whose
  /// refusals are all in invoke()'s Status). Thread safety: may be called
  /// at any time from any thread; the callback is called from whichever
  /// thread reads the answer (a later invoke()'s, or the HTTP connection
  /// pool's own), one call at a time. Lifetime: once setOnRefusal returns,
  /// the callback it replaced is neither running nor called again; a
  /// callback's owner sets nullptr before it goes away.
  virtual void setOnRefusal(OnRefusal onRefusal) { (void)onRefusal; }

protected:
  friend struct detail::InvokerAccess;
  /// The runtime's in-place continuation (lib/Runtime/InvokerInternal.h):
  /// storage for the next payload, or nullptr (the default: build a
  /// Payload and call invoke()).
  virtual Payload *stage() { return nullptr; }
  /// Issues the payload built in stage()'s storage to `function`.
  virtual Status invokeStaged(const std::string &function);
};

/// The local platform: a pool of worker threads that run the dispatch
/// function per invocation, delivering a crashed one again.
///
/// Thread safety: invoke(), invokeHere(), reserve() and wait() may be called
/// from any thread, workers included. The setters are not synchronised: call
/// them before the first invoke() (getDispatch() too, or only while nothing
/// runs). Lifetime: the destructor lets the workers run every queued invocation
/// (and what those issue), then joins them; whatever the dispatch function
/// uses (a Runtime) must outlive the pool. (LocalRunner owns one and gets
/// the order right.) Not copyable or movable.
class ThreadPoolInvoker final : public Invoker {
  /// The workers, the queue and the run-next slots (lib/Runtime/Invoker.cpp).
  class Impl;

public:
  /// Runs one invocation; a Crash status asks for another delivery.
  using Dispatch =
      std::function<Status(const std::string &function, const Payload &)>;
  /// Called when an invocation failed for good (an error, or crashes on
  /// every delivery).
  using OnFailure = std::function<void(const std::string &function,
                                       const Payload &, const Status &)>;
  /// Called with each invocation the pool accepts (invoke, and the
  /// runtime's in-place continuations; not its own redeliveries), before it
  /// can run: a durable runner journals it (LocalRunner).
  using OnAccept = std::function<void(const std::string &function, Payload &)>;

  ThreadPoolInvoker(unsigned workers, unsigned maxDeliveries = 3);
  ~ThreadPoolInvoker() override;
  ThreadPoolInvoker(const ThreadPoolInvoker &) = delete;
  ThreadPoolInvoker &operator=(const ThreadPoolInvoker &) = delete;

  void setDispatch(Dispatch d);
  const Dispatch &getDispatch() const;
  void setOnFailure(OnFailure f);
  void setOnAccept(OnAccept f);

  Status invoke(const std::string &function, Payload &&payload) override;
  /// invoke(), but run on the calling thread when a slot is free (fewer
  /// than `workers` invocations run, here and on the pool's threads
  /// together, and none is queued): the thread is one of the pool's
  /// workers until it returns (what the invocation issues first runs next
  /// here; wait() counts it; a crash goes to the queue). Else queued, as
  /// invoke() does. A function host's connection thread calls it after its
  /// 202 (no hand-off to a worker).
  Status invokeHere(const std::string &function, Payload &&payload);

  /// A reservation: wait() counts it as a running invocation until it is
  /// used (invokeHere(Slot, ...)) or destroyed, so that a host may answer
  /// 202 for work it runs later without wait() seeing an idle pool in
  /// between. It takes none of the `workers` threads. Thread safety: a
  /// Slot may be moved to, used or destroyed on any thread (one thread at a
  /// time per Slot). Lifetime: used or destroyed before the pool's
  /// destructor starts. Movable, not copyable; a default or moved-from
  /// Slot reserves nothing.
  class Slot {
  public:
    Slot() = default;
    Slot(Slot &&other) noexcept;
    Slot &operator=(Slot &&other) noexcept;
    ~Slot();
    Slot(const Slot &) = delete;
    Slot &operator=(const Slot &) = delete;
    explicit operator bool() const { return pool != nullptr; }

  private:
    friend class ThreadPoolInvoker;
    explicit Slot(ThreadPoolInvoker::Impl *pool) : pool(pool) {}
    ThreadPoolInvoker::Impl *pool = nullptr;
  };
  /// Reserves a Slot (see there).
  Slot reserve();
  /// invokeHere() that releases `slot` only once the invocation runs here
  /// or is queued: wait() never sees a gap between the two.
  Status invokeHere(Slot slot, const std::string &function, Payload &&payload);

  /// Blocks until no invocation is queued or running, and no Slot is held.
  void wait();

private:
  Payload *stage() override;
  Status invokeStaged(const std::string &function) override;

  std::unique_ptr<Impl> impl;
};

namespace detail {
struct RefusalSink; // lib/Runtime/Invoker.cpp
} // namespace detail

/// POSTs each payload to its function's URL. Thread safety: invoke() may
/// be called from several threads at once (each POST takes its own
/// connection from httpRequest's keep-alive pool); `urlFor` must allow that.
/// A payload its sender journaled (hints.issuedMs) is sent without waiting
/// for its answer: a later request on the same connection, or the pool's
/// own thread within ~20 ms, reads it; a refusal for good goes to
/// setOnRefusal's callback (and stderr), any other failure only to stderr
/// (the entry stays in the store for its receiver's sweep). Lifetime: the
/// destructor detaches the callback; answers still unread then go to
/// stderr only. Not copyable.
class HttpInvoker final : public Invoker {
public:
  /// `urlFor` maps a function name to its endpoint
  /// ("http://127.0.0.1:8080/fn/Name"); only plain http is supported. Each
  /// POST must be answered within `timeoutMs`. With a `secret`, every
  /// request is signed with it (unum/Runtime/HttpAuth.h).
  explicit HttpInvoker(std::function<std::string(const std::string &)> urlFor,
                       int timeoutMs = 30000, std::string secret = "");
  ~HttpInvoker() override;
  HttpInvoker(const HttpInvoker &) = delete;
  HttpInvoker &operator=(const HttpInvoker &) = delete;

  Status invoke(const std::string &function, Payload &&payload) override;
  bool blocking() const override { return true; }
  void setOnRefusal(OnRefusal onRefusal) override;

private:
  std::function<std::string(const std::string &)> urlFor;
  int timeoutMs;
  std::string secret;
  std::shared_ptr<detail::RefusalSink> refusals;
};

/// AWS Lambda's Invoke API, asynchronous (InvocationType Event: a 202 means
/// Lambda queued the event; its own retries and dead-letter settings apply,
/// see docs/Deploy.md). `arnFor` maps a function name to its target:
/// "arn:aws:lambda:REGION:ACCOUNT:function:NAME[:QUALIFIER]". Requests are
/// SigV4-signed with AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
/// AWS_SESSION_TOKEN; the endpoint is https://lambda.REGION.amazonaws.com
/// unless AWS_ENDPOINT_URL_LAMBDA (or AWS_ENDPOINT_URL) names another. A
/// throttled (429) or failing (5xx) Invoke, or one that never reached Lambda,
/// is a Crash status (deliver again); any other refusal is an error.
Result<std::unique_ptr<Invoker>>
makeLambdaInvoker(std::function<std::string(const std::string &)> arnFor,
                  int timeoutMs = 30000);

/// The invoker for functions deployed elsewhere, chosen per target by its
/// scheme: "http://..." goes to an HttpInvoker (with `secret`),
/// "arn:aws:lambda:..." to the Lambda invoker (credentials are read at its
/// first use). Any other target is an error when invoked.
std::unique_ptr<Invoker>
makeRemoteInvoker(std::function<std::string(const std::string &)> targetFor,
                  int timeoutMs = 30000, std::string secret = "");

class App;

/// Where each function of an application is served: NAME -> URL entries,
/// and a "*" template for the others in which {function} stands for the
/// name (unum-run --url-map, unum-serve --peer). Not synchronised: fill it,
/// then read it (urlFor) from any number of threads.
class FunctionUrls {
public:
  /// Adds NAME -> target (an http:// URL or an arn:aws:lambda: ARN, the
  /// targets makeRemoteInvoker routes; NAME "*": the template). `where`
  /// names the source in errors.
  Status add(const std::string &name, const std::string &url,
             const std::string &where);
  /// Adds "NAME=URL".
  Status addEntry(const std::string &entry, const std::string &where);
  /// Adds a JSON file's object of NAME -> URL.
  Status addFile(const std::string &path);
  /// An error for the first NAME that is not a function of `app`.
  Status check(const App &app, const std::string &where) const;
  /// The function's URL; "" if there is none.
  std::string urlFor(const std::string &function) const;
  bool hasTemplate() const { return !fallback.empty(); }

private:
  std::map<std::string, std::string> urls;
  std::string fallback;
};

struct HttpResponse {
  int status = 0;
  std::string body;
  /// The answer's header fields, names in lower case (httpRequest).
  std::vector<std::pair<std::string, std::string>> headers = {};
  /// The value of field `lowerName`; "" if absent.
  std::string header(const std::string &lowerName) const;
};

/// A minimal HTTP/1.1 request over a plain TCP socket, kept alive for the
/// next request to the same server (a process-wide pool, bounded per server):
/// METHOD to an http:// URL with `headers` and `body` (a Content-Length is
/// sent for a POST, or any non-empty body), the whole exchange within
/// `timeoutMs`. With a `secret` the request is signed (HttpAuth.h). An
/// answer larger than `maxResponse` bytes is an error.
Result<HttpResponse>
httpRequest(const std::string &method, const std::string &url,
            const std::string &body,
            const std::vector<std::pair<std::string, std::string>> &headers,
            int timeoutMs, const std::string &secret = "",
            size_t maxResponse = 1 << 20);

/// A minimal HTTP/1.1 POST over a plain TCP socket (kept alive): the
/// whole exchange (connect, send, the answer) within `timeoutMs`. With a
/// `secret` the request is signed (HttpAuth.h). An answer larger than
/// kMaxHttpResponse is an error.
Result<HttpResponse> httpPost(const std::string &url, const std::string &body,
                              const std::string &contentType, int timeoutMs,
                              const std::string &secret = "");

/// The largest answer httpPost reads (a gateway answers with a status and a
/// short message).
constexpr size_t kMaxHttpResponse = 1 << 20;

} // namespace unum::runtime

#endif // UNUM_RUNTIME_INVOKER_H
