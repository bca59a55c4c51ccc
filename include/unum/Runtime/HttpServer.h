//===- HttpServer.h - A small HTTP/1.1 endpoint for POSTs -------*- C++ -*-===//
//
// The other end of HttpInvoker: what a FaaS gateway does for a function,
// small enough for local runs and tests, and hardened for a network:
//
//  * Authentication. With a shared secret every request must be signed
//    (unum/Runtime/HttpAuth.h: HMAC-SHA256 over the method, path, a
//    timestamp, a nonce and the body); an unsigned, badly signed, stale or
//    replayed request gets 401 before the handler sees it. Without a secret
//    the server listens on loopback addresses only: listen() refuses any
//    other address.
//  * Deadlines. The request line and headers must arrive within
//    `headerTimeout` of the connection's accept, the body within
//    `bodyTimeout` of the headers; a client that is slower (a slowloris, an
//    idle connection) is answered 408 and dropped. Answers are written
//    within `writeTimeout`.
//  * Concurrency. Each connection is served by a thread of its own, at most
//    `maxConnections` at once (further connections wait in the listen
//    backlog until one ends, which the deadlines bound), so a slow client
//    delays nobody else; at most `maxHandlers` handler calls run at once.
//  * Memory. A body is refused by its Content-Length (413) before any of it
//    is read when it exceeds `maxBody`, and with 503 when all connections'
//    bodies together would exceed `maxBuffered`; a chunked body is read
//    only up to `maxBody` (413 at the first chunk beyond it), and a request
//    with neither gets 411. Headers are read up to `maxHeader` bytes (431
//    beyond).
//
// POST is served, and GET when `onGet` is set (a health check: it is
// answered without authentication, so it must tell nothing about the
// functions' data); other methods get 405. A connection is kept alive
// between requests when its client asks for it (HTTP/1.1, Content-Length
// bodies), idle for at most 5 s; other answers close it. Handlers must be
// quick: they answer (202), and may leave the work itself to Reply::after,
// which runs on the connection's thread after the answer while another
// thread takes over the connection if its next request comes meanwhile.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_RUNTIME_HTTPSERVER_H
#define UNUM_RUNTIME_HTTPSERVER_H

#include "unum/Runtime/Invoker.h"
#include "unum/Runtime/Status.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace unum::runtime {

struct HttpServerOptions {
  /// The shared secret requests must be signed with; empty: none (then only
  /// loopback addresses may be listened on).
  std::string secret;
  /// A signed request's timestamp may differ from the server's clock by at
  /// most this much; its nonce is remembered that long.
  std::chrono::seconds replayWindow{300};
  /// The most nonces remembered at once (32 bytes each, plus the set's
  /// overhead); when all are within the window, new requests get 503.
  size_t maxNonces = 1 << 17;
  /// Request line and headers, from the connection's accept.
  std::chrono::milliseconds headerTimeout{10000};
  /// The body, from the end of the headers.
  std::chrono::milliseconds bodyTimeout{30000};
  /// Writing the answer.
  std::chrono::milliseconds writeTimeout{10000};
  size_t maxHeader = 16 * 1024;
  /// 6 MiB: a synchronous AWS Lambda invocation's payload limit.
  size_t maxBody = 6 * 1024 * 1024;
  /// All bodies being read or handled at once.
  size_t maxBuffered = 64 * 1024 * 1024;
  unsigned maxConnections = 64;
  unsigned maxHandlers = 4;
  /// Answers a GET of a path (no body, no signature: for health checks
  /// only); unset: GET gets 405.
  std::function<HttpResponse(const std::string &path)> onGet;
};

/// Thread safety: the handler runs on connection threads, up to maxHandlers
/// at once, and onGet on any connection thread (up to maxConnections): both
/// must be thread-safe; port(), url() and counters() may be called from any
/// thread while the server lives. Lifetime: whatever the handler and onGet
/// use must outlive the server; the destructor (one thread, after every
/// other call has returned) stops accepting, cuts the connections still
/// being read, lets the running handlers and Reply::after work finish, and
/// waits for every connection's thread to end, so no handler runs after it
/// returns. The server's
/// state is private to HttpServer.cpp (a pimpl): not copyable or movable.
class HttpServer {
public:
  /// Answers a POST of `body` to `path` ("/fn/Name").
  using Handler = std::function<HttpResponse(const std::string &path,
                                             const std::string &body)>;
  /// An answer, and work to do once it is written.
  struct Reply {
    HttpResponse response;
    /// Runs on the connection's thread once the answer is written (or
    /// could not be: it runs anyway, exactly once), outside the
    /// maxHandlers bound (the caller bounds it). Meanwhile the connection's
    /// next request is served by another thread (an epoll thread watches
    /// the connection while `after` runs and hands it over when a request
    /// arrives): no head-of-line blocking. The destructor waits for it.
    std::function<void()> after;
  };
  using ReplyHandler =
      std::function<Reply(const std::string &path, const std::string &body)>;

  /// Listens on HOST:PORT (port 0: any free port). Without a secret in
  /// `options`, a HOST that is not a loopback address is an error.
  static Result<std::unique_ptr<HttpServer>>
  listen(const std::string &host, int port, Handler handler,
         HttpServerOptions options = {});
  /// The same with a handler that may leave work to do after its answer.
  static Result<std::unique_ptr<HttpServer>>
  listen(const std::string &host, int port, ReplyHandler handler,
         HttpServerOptions options = {});
  /// Stops accepting, cuts the connections that are still being read,
  /// and waits for every connection's thread to end.
  ~HttpServer();
  HttpServer(const HttpServer &) = delete;
  HttpServer &operator=(const HttpServer &) = delete;

  int port() const;
  /// "http://HOST:PORT".
  std::string url() const;

  /// What was refused so far, by reason (for tests and logs).
  struct Counters {
    uint64_t served = 0;       // handler called
    uint64_t unauthorized = 0; // 401
    uint64_t timedOut = 0;     // 408 or dropped
    uint64_t tooLarge = 0;     // 413, 431
    uint64_t badRequest = 0;   // other 4xx
    uint64_t busy = 0;         // 503 (buffer budget, nonce store)
    /// The most bytes one request held in memory (head and body).
    uint64_t largestRequest = 0;
  };
  Counters counters() const;

  /// The listening socket, the connections' threads and the limits
  /// (defined in HttpServer.cpp).
  struct Impl;

private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace unum::runtime

#endif // UNUM_RUNTIME_HTTPSERVER_H
