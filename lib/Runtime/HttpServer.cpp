//===- HttpServer.cpp - A small HTTP/1.1 endpoint for POSTs ---------------===//

#include "unum/Runtime/HttpServer.h"

#include "unum/Runtime/HttpAuth.h"

#include "Sockets.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <queue>
#include <set>
#include <string_view>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <unordered_set>
#include <vector>

using namespace unum::runtime;

/// Everything the server's threads share. It lives as long as the HttpServer
/// that owns it; its destructor is the server's (stop, then wait for every
/// thread).
//
// Threads: the acceptor; one thread per connection being served; and the
// watcher, an epoll loop over the connections whose thread runs a
// Reply::after. Such a thread lists its connection in `watched` before it
// runs the work (no system call, no wake-up of another thread) and takes
// it back afterwards; most work ends within microseconds, so the watcher
// puts a connection into its epoll set (a system call) only once it has
// been listed for kWatchAfter, looking every kWatchPeriod while work
// starts (it sleeps without timeout when none did for a period, and the
// next watch() wakes it). If a request comes on a connection in the set
// meanwhile, the watcher hands the connection to a parked connection
// thread (one whose work was done and whose connection was taken) or to a
// new one. Whichever of the two removes the connection's entry from
// `watched` first (under `mu`) owns the connection.
struct HttpServer::Impl {
  /// A connection and where its thread starts: `carried` bytes of its next
  /// request already read; `served` requests served so far.
  struct Handoff {
    int fd = -1;
    std::string carried;
    unsigned served = 0;
  };

  ~Impl();
  void acceptLoop();
  /// Serves the connection until it ends (closed here) or another thread
  /// takes it over.
  void serve(Handoff h);
  /// One request of the connection; `carried`: bytes of it already read
  /// (in), of the next one (out); `keepAlive`: the connection stays open;
  /// `after`: the handler's work to do after the answer.
  void serveOne(int fd, std::string &carried, bool &keepAlive,
                std::function<void()> &after);
  /// A connection thread: serves `h`, then parks for the next connection
  /// handed to it, for a while.
  void connectionThread(Handoff h);
  /// Serves `h` on a parked connection thread, else a new one. Called with
  /// a thread already counted in `threads` for it (`reserved`) or not.
  void startServing(Handoff h, bool reserved = false);
  /// The end of a connection: forgets and closes it.
  void endConnection(int fd);
  /// Runs Reply::after work.
  static void runAfter(const std::function<void()> &after);
  /// The watcher's loop (see above).
  void watchLoop();
  /// Lists the connection for the watcher: a token.
  uint64_t watch(int fd, unsigned served);
  /// The watcher's look at `watched` (under `mu`): puts the connections
  /// listed for kWatchAfter into the epoll set; whether to look again
  /// after kWatchPeriod.
  bool registerLongRuns();
  /// Takes a connection back from the watcher: false if the watcher gave
  /// it to another thread already.
  bool unwatch(uint64_t token, int fd);
  /// 0 when the request may proceed, else the status to refuse it with.
  int authenticate(const std::string &method, const std::string &path,
                   const std::string &timestamp, const std::string &nonce,
                   const std::string &signature, const std::string &body,
                   std::string &why);
  /// Reads a body of `length` bytes (`start`: those read with the head),
  /// or a chunked one (`pending`: what was read after the head), claiming
  /// its bytes of the budget in `reserved`. 0, -1 when the client went away,
  /// or the status to refuse the request with (and `why`).
  int readLength(int fd, std::string start, size_t length, std::string &body,
                 size_t &reserved, std::string &why);
  int readChunked(int fd, std::string pending, std::string &body,
                  size_t &reserved, std::string &why);
  /// Appends at most `max` more bytes of a body to `into`: 0, -1, or 408.
  int readBodyPart(int fd, std::string &into, size_t max,
                   std::chrono::steady_clock::time_point deadline,
                   std::string &why);
  /// Claims `bytes` of the body budget; false if it has not that much.
  bool reserve(size_t bytes);
  void release(size_t bytes);

  ReplyHandler handler;
  HttpServerOptions options;
  std::string host;
  int listenFd = -1;
  int portNumber = 0;
  std::thread acceptor;
  int epollFd = -1; // the watcher's
  int wakeFd = -1;  // an eventfd that wakes (or stops) the watcher
  std::thread watcher;

  mutable std::mutex mu;
  // A connection ended, a handler finished, a thread ended.
  std::condition_variable changed;
  bool stopping = false;
  std::set<int> connections; // being served
  std::set<int> idle;        // kept alive, waiting for their next request
  unsigned handlersRunning = 0;
  /// Connection threads, parked ones included, and those the watcher is
  /// about to start: the destructor waits until none is left.
  unsigned threads = 0;
  /// Parked connection threads that no hand-off reserved yet, and the
  /// connections handed to parked threads.
  unsigned parked = 0;
  std::deque<Handoff> handed;
  std::condition_variable handedReady;
  /// The connections whose thread runs Reply::after work, by token, and
  /// the next token; `registered`: in the watcher's epoll set, since
  /// `since`.
  struct Watched {
    Handoff h;
    std::chrono::steady_clock::time_point since;
    bool registered = false;
  };
  std::map<uint64_t, Watched> watched;
  uint64_t lastToken = 0;
  /// A watch() since the watcher's last look; the watcher waits without
  /// timeout (a watch() must wake it); the destructor stops it.
  bool watchedSince = false, watcherAsleep = true, watcherStop = false;
  size_t buffered = 0;
  Counters stats;
  /// Nonces seen within the window, and when each may be forgotten (its
  /// timestamp plus the window: a replay after that is stale anyway).
  std::unordered_set<std::string> nonces;
  std::priority_queue<std::pair<int64_t, std::string>,
                      std::vector<std::pair<int64_t, std::string>>,
                      std::greater<>>
      nonceExpiry;
};

namespace {
using sockets::Clock;
using sockets::listsToken;
using sockets::sendAll;
using sockets::waitUntil;

const char *reason(int status) {
  switch (status) {
  case 100:
    return "Continue";
  case 200:
    return "OK";
  case 202:
    return "Accepted";
  case 400:
    return "Bad Request";
  case 401:
    return "Unauthorized";
  case 404:
    return "Not Found";
  case 405:
    return "Method Not Allowed";
  case 408:
    return "Request Timeout";
  case 411:
    return "Length Required";
  case 413:
    return "Content Too Large";
  case 431:
    return "Request Header Fields Too Large";
  case 503:
    return "Service Unavailable";
  default:
    return status < 400 ? "OK" : status < 500 ? "Client Error" : "Server Error";
  }
}

/// Writes a whole response within `deadline`: 0, or the send error.
/// `keepAlive`: the connection stays open for the client's next request.
int respond(int fd, int status, const std::string &extraHeaders,
            const std::string &body, Clock::time_point deadline,
            bool keepAlive = false) {
  return sendAll(fd,
                 "HTTP/1.1 " + std::to_string(status) + " " + reason(status) +
                     "\r\n" + extraHeaders +
                     "Content-Type: text/plain\r\nContent-Length: " +
                     std::to_string(body.size()) + "\r\nConnection: " +
                     (keepAlive ? "keep-alive" : "close") + "\r\n\r\n" + body,
                 deadline);
}

/// A kept-alive connection waits this long for its next request, and
/// serves at most kMaxRequests.
constexpr std::chrono::milliseconds kIdleTimeout{5000};
constexpr unsigned kMaxRequests = 10000;
/// A connection thread whose connection was taken over waits this long
/// for another to serve, and at most kMaxParked wait at once.
constexpr std::chrono::milliseconds kParkTimeout{5000};
constexpr unsigned kMaxParked = 8;
/// A connection whose Reply::after runs this long is watched for its next
/// request by epoll (shorter work ends before the watcher looks: no system
/// call); the watcher looks every kWatchPeriod while work starts.
constexpr std::chrono::milliseconds kWatchAfter{1};
constexpr std::chrono::milliseconds kWatchPeriod{5};

constexpr size_t kReadChunk = 16384;

enum class Read { Data, TimedOut, Closed };

/// Appends what `fd` has, at most `max` bytes, to `into`, waiting for it
/// until `deadline`. Closed: the client went away (or the server shut the
/// connection down). (Waits only when nothing is there: one system call
/// for a request that arrived, as after the idle wait.)
Read readSome(int fd, std::string &into, size_t max,
              Clock::time_point deadline) {
  char buf[kReadChunk];
  for (;;) {
    ssize_t n = recv(fd, buf, std::min(sizeof(buf), max), MSG_DONTWAIT);
    if (n > 0) {
      into.append(buf, size_t(n));
      return Read::Data;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
      return Read::Closed;
    if (!waitUntil(fd, POLLIN, deadline))
      return Clock::now() < deadline ? Read::Closed : Read::TimedOut;
  }
}

/// After an answer to a request that was not read to its end: stops
/// sending, then reads and drops what the client still sends (for at most
/// a second), so that closing with unread data does not reset the
/// connection before the client has read the answer.
void lingeringClose(int fd) {
  ::shutdown(fd, SHUT_WR);
  const Clock::time_point deadline =
      Clock::now() + std::chrono::milliseconds(1000);
  std::string scratch;
  while (readSome(fd, scratch, kReadChunk, deadline) == Read::Data)
    scratch.clear();
}

/// Whether `c` may be part of an HTTP token (RFC 9110 tchar).
bool isTokenChar(unsigned char c) {
  static const auto table = [] {
    std::array<bool, 256> t{};
    for (int c = '!'; c < 127; ++c)
      t[c] = !std::strchr("()<>@,;:\\\"/[]?={}", c);
    return t;
  }();
  return table[c];
}

bool isToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return isTokenChar(static_cast<unsigned char>(c));
  });
}

bool allDigits(const std::string &s, size_t maxDigits) {
  return !s.empty() && s.size() <= maxDigits &&
         std::all_of(s.begin(), s.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

bool isLoopback(const sockaddr *addr) {
  if (addr->sa_family == AF_INET) {
    uint32_t a =
        ntohl(reinterpret_cast<const sockaddr_in *>(addr)->sin_addr.s_addr);
    return (a >> 24) == 127;
  }
  if (addr->sa_family == AF_INET6) {
    const in6_addr &a = reinterpret_cast<const sockaddr_in6 *>(addr)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&a))
      return true;
    return IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127;
  }
  return false;
}

/// A parsed request head.
struct Head {
  std::string method, path, version;
  std::vector<std::pair<std::string, std::string>> fields; // lower-case names
  /// The values of field `name` (lower case).
  std::vector<std::string> all(const char *name) const {
    std::vector<std::string> out;
    for (const auto &[n, v] : fields)
      if (n == name)
        out.push_back(v);
    return out;
  }
  /// The first value of field `name` (lower case), or "".
  const std::string &get(std::string_view name) const {
    static const std::string none;
    for (const auto &[n, v] : fields)
      if (n == name)
        return v;
    return none;
  }
  bool has(const char *name) const {
    return std::any_of(fields.begin(), fields.end(),
                       [&](const auto &f) { return f.first == name; });
  }
};

/// Parses "METHOD SP /path SP HTTP/1.x" and the header fields of `text`
/// (the head without its final blank line). Returns "" or what is wrong.
/// (Every request pays for it: views, no copies but the parts kept.)
std::string parseHead(std::string_view text, Head &head) {
  size_t lineEnd = text.find("\r\n");
  std::string_view line = text.substr(0, lineEnd);
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos ||
      line.find(' ', sp2 + 1) != std::string_view::npos)
    return "malformed request line";
  std::string_view method = line.substr(0, sp1);
  std::string_view path = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (!isToken(method))
    return "malformed request method";
  if (path.empty() || path[0] != '/' ||
      std::any_of(path.begin(), path.end(),
                  [](unsigned char c) { return c <= ' ' || c >= 127; }))
    return "malformed request target";
  if (version != "HTTP/1.1" && version != "HTTP/1.0")
    return "unsupported HTTP version";
  head.method = method;
  head.path = path;
  head.version = version;
  head.fields.reserve(8);
  size_t at = lineEnd;
  while (at != std::string_view::npos && at < text.size()) {
    at += 2;
    size_t end = text.find("\r\n", at);
    std::string_view field = text.substr(
        at, end == std::string_view::npos ? std::string_view::npos : end - at);
    at = end;
    if (field.empty())
      continue;
    size_t colon = field.find(':');
    if (colon == std::string_view::npos || !isToken(field.substr(0, colon)))
      return "malformed header field";
    std::string name(field.substr(0, colon));
    for (char &c : name) // a token: ASCII
      if (c >= 'A' && c <= 'Z')
        c = char(c - 'A' + 'a');
    size_t v = field.find_first_not_of(" \t", colon + 1);
    size_t e = field.find_last_not_of(" \t");
    std::string_view value = v == std::string_view::npos
                                 ? std::string_view()
                                 : field.substr(v, e + 1 - v);
    if (std::any_of(value.begin(), value.end(), [](unsigned char c) {
          return (c < ' ' && c != '\t') || c == 127;
        }))
      return "malformed header field";
    head.fields.emplace_back(std::move(name), std::string(value));
  }
  return "";
}
} // namespace

Result<std::unique_ptr<HttpServer>>
HttpServer::listen(const std::string &host, int port, Handler handler,
                   HttpServerOptions options) {
  return listen(
      host, port,
      ReplyHandler([handler = std::move(handler)](const std::string &path,
                                                  const std::string &body) {
        return Reply{handler(path, body), nullptr};
      }),
      std::move(options));
}

Result<std::unique_ptr<HttpServer>>
HttpServer::listen(const std::string &host, int port, ReplyHandler handler,
                   HttpServerOptions options) {
  addrinfo hints{}, *addrs = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &addrs))
    return Status::error("cannot listen on " + host + ":" + service + ": " +
                         gai_strerror(rc));
  // Checked before binding anything: such an address is never open.
  for (addrinfo *a = addrs; a && options.secret.empty(); a = a->ai_next)
    if (!isLoopback(a->ai_addr)) {
      freeaddrinfo(addrs);
      return Status::error(
          "refusing to listen on " + host + ":" + service +
          " without a shared secret: it is not a loopback address, so "
          "anyone who can reach it could invoke the functions and read "
          "their sessions' data");
    }
  auto server = std::make_unique<Impl>();
  std::string lastError = "no address";
  for (addrinfo *a = addrs; a && server->listenFd < 0; a = a->ai_next) {
    int fd =
        socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0)
      continue;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
      server->listenFd = fd;
      break;
    }
    lastError = std::strerror(errno);
    ::close(fd);
  }
  freeaddrinfo(addrs);
  if (server->listenFd < 0)
    return Status::error("cannot listen on " + host + ":" + service + ": " +
                         lastError);
  server->epollFd = epoll_create1(EPOLL_CLOEXEC);
  server->wakeFd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event wake{};
  wake.events = EPOLLIN;
  wake.data.u64 = 0; // no connection's token
  if (server->epollFd < 0 || server->wakeFd < 0 ||
      epoll_ctl(server->epollFd, EPOLL_CTL_ADD, server->wakeFd, &wake) != 0)
    return Status::error("cannot listen on " + host + ":" + service +
                         ": epoll: " + std::strerror(errno));
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  getsockname(server->listenFd, reinterpret_cast<sockaddr *>(&addr), &len);
  if (options.maxConnections == 0)
    options.maxConnections = 1;
  if (options.maxHandlers == 0)
    options.maxHandlers = 1;
  server->portNumber =
      ntohs(addr.ss_family == AF_INET6
                ? reinterpret_cast<sockaddr_in6 *>(&addr)->sin6_port
                : reinterpret_cast<sockaddr_in *>(&addr)->sin_port);
  server->host = host;
  server->handler = std::move(handler);
  server->options = std::move(options);
  Impl *s = server.get();
  server->watcher = std::thread([s] { s->watchLoop(); });
  server->acceptor = std::thread([s] { s->acceptLoop(); });
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(server)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}

HttpServer::~HttpServer() = default; // Impl's destructor stops and joins

int HttpServer::port() const { return impl->portNumber; }

HttpServer::Impl::~Impl() {
  {
    std::lock_guard<std::mutex> lock(mu);
    stopping = true;
    // Wakes the connections still reading (and the watcher for those it
    // watches); a handler or Reply::after that runs finishes.
    for (int fd : connections)
      ::shutdown(fd, SHUT_RD);
  }
  changed.notify_all();
  handedReady.notify_all(); // parked threads end
  // Wakes the blocked accept() with an error.
  if (listenFd >= 0)
    ::shutdown(listenFd, SHUT_RDWR);
  if (acceptor.joinable())
    acceptor.join();
  {
    std::unique_lock<std::mutex> lock(mu);
    changed.wait(lock, [&] { return threads == 0; });
  }
  // No connection is watched now: no thread is left to have registered one.
  if (watcher.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu);
      watcherStop = true;
    }
    uint64_t one = 1;
    (void)!::write(wakeFd, &one, sizeof(one));
    watcher.join();
  }
  for (int fd : {listenFd, epollFd, wakeFd})
    if (fd >= 0)
      ::close(fd);
}

std::string HttpServer::url() const {
  const std::string &host = impl->host;
  bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" +
         std::to_string(impl->portNumber);
}

HttpServer::Counters HttpServer::counters() const {
  std::lock_guard<std::mutex> lock(impl->mu);
  return impl->stats;
}

void HttpServer::Impl::acceptLoop() {
  for (;;) {
    {
      // At the bound, new connections wait in the listen backlog.
      // An idle kept-alive connection is closed to make room.
      std::unique_lock<std::mutex> lock(mu);
      changed.wait(lock, [&] {
        if (connections.size() >= options.maxConnections && !idle.empty()) {
          ::shutdown(*idle.begin(), SHUT_RDWR); // its thread closes it
          idle.erase(idle.begin());
        }
        return stopping || connections.size() < options.maxConnections;
      });
      if (stopping)
        return;
    }
    int fd = accept4(listenFd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
          errno == ENOMEM) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        continue;
      }
      return; // shut down
    }
    // An answer is one write, waited for by the client: no Nagle delay.
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    sockets::setRecvSlice(fd); // the idle wait is a recvBy
    {
      std::lock_guard<std::mutex> lock(mu);
      if (stopping) {
        ::close(fd);
        return;
      }
      connections.insert(fd);
    }
    startServing(Handoff{fd, "", 0});
  }
}

void HttpServer::Impl::startServing(Handoff h, bool reserved) {
  {
    std::lock_guard<std::mutex> lock(mu);
    if (parked) {
      --parked;
      threads -= reserved;
      handed.push_back(std::move(h));
      handedReady.notify_one();
      return;
    }
    threads += !reserved;
  }
  try {
    std::thread([this, h]() mutable {
      connectionThread(std::move(h));
    }).detach();
  } catch (const std::system_error &) {
    // No thread to be had (a resource limit): drop this connection and
    // let the running ones finish first.
    endConnection(h.fd);
    {
      std::lock_guard<std::mutex> lock(mu);
      if (--threads == 0 && stopping)
        changed.notify_all();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void HttpServer::Impl::connectionThread(Handoff h) {
  for (;;) {
    serve(std::move(h));
    std::unique_lock<std::mutex> lock(mu);
    if (stopping || parked >= kMaxParked)
      break;
    ++parked;
    // A hand-off decrements `parked` for the thread that takes it.
    handedReady.wait_for(lock, kParkTimeout,
                         [&] { return stopping || !handed.empty(); });
    if (handed.empty()) {
      --parked; // timed out, or stopping: nobody reserved this thread
      break;
    }
    h = std::move(handed.front());
    handed.pop_front();
  }
  // The last touch of the server: the destructor may run once the lock
  // is released.
  std::lock_guard<std::mutex> lock(mu);
  if (--threads == 0 && stopping)
    changed.notify_all();
}

void HttpServer::Impl::endConnection(int fd) {
  {
    // Only the acceptor at the bound and the destructor wait for a
    // connection to end.
    std::lock_guard<std::mutex> lock(mu);
    if (stopping || connections.size() >= options.maxConnections)
      changed.notify_all();
    connections.erase(fd);
  }
  ::close(fd);
}

void HttpServer::Impl::runAfter(const std::function<void()> &after) {
  try {
    after();
  } catch (...) {
    // The handler's own failure to report; the connection is not its.
  }
}

uint64_t HttpServer::Impl::watch(int fd, unsigned served) {
  uint64_t token;
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu);
    token = ++lastToken;
    watched.emplace(token, Watched{Handoff{fd, "", served}, Clock::now()});
    watchedSince = true;
    wake = watcherAsleep;
    watcherAsleep = false;
  }
  if (wake) {
    uint64_t one = 1;
    (void)!::write(wakeFd, &one, sizeof(one));
  }
  return token;
}

bool HttpServer::Impl::unwatch(uint64_t token, int fd) {
  bool registered;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = watched.find(token);
    if (it == watched.end())
      return false; // the watcher took it
    registered = it->second.registered;
    watched.erase(it);
  }
  if (registered)
    epoll_ctl(epollFd, EPOLL_CTL_DEL, fd, nullptr);
  return true;
}

bool HttpServer::Impl::registerLongRuns() {
  const Clock::time_point now = Clock::now();
  bool waiting = false; // listed, not registered yet
  for (auto &[token, w] : watched) {
    if (w.registered)
      continue;
    if (now - w.since < kWatchAfter) {
      waiting = true;
      continue;
    }
    // Under `mu`: its thread cannot take it back (and skip the removal
    // from the set) in between. A request that came already is reported
    // at once.
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
    ev.data.u64 = token;
    w.registered = epoll_ctl(epollFd, EPOLL_CTL_ADD, w.h.fd, &ev) == 0;
    waiting = waiting || !w.registered; // tried again at the next look
  }
  const bool again = waiting || watchedSince;
  watchedSince = false;
  watcherAsleep = !again;
  return again;
}

void HttpServer::Impl::watchLoop() {
  epoll_event events[16];
  for (bool periodic = false;;) {
    int n = epoll_wait(epollFd, events, 16,
                       periodic ? int(kWatchPeriod.count()) : -1);
    if (n < 0 && errno != EINTR)
      return; // cannot happen with a valid epoll fd
    for (int i = 0; i < n; ++i) {
      const uint64_t token = events[i].data.u64;
      if (token == 0) {
        uint64_t count;
        (void)!::read(wakeFd, &count, sizeof(count));
        std::lock_guard<std::mutex> lock(mu);
        if (watcherStop)
          return; // the destructor: every connection thread has ended
        continue; // a watch() while asleep
      }
      Handoff h;
      {
        std::lock_guard<std::mutex> lock(mu);
        auto it = watched.find(token);
        if (it == watched.end())
          continue; // taken back by its thread meanwhile
        h = std::move(it->second.h);
        watched.erase(it);
        ++stats.handedOver;
        // Counted before the connection's thread can see it gone (and
        // end): the destructor waits for this hand-off too.
        ++threads;
      }
      // Unregistered before another thread may register it again.
      epoll_ctl(epollFd, EPOLL_CTL_DEL, h.fd, nullptr);
      startServing(std::move(h), /*reserved=*/true);
    }
    std::lock_guard<std::mutex> lock(mu);
    periodic = registerLongRuns();
  }
}

bool HttpServer::Impl::reserve(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu);
  if (bytes > options.maxBuffered - std::min(buffered, options.maxBuffered))
    return false;
  buffered += bytes;
  return true;
}

void HttpServer::Impl::release(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu);
  buffered -= bytes;
}

int HttpServer::Impl::authenticate(const std::string &method,
                                   const std::string &path,
                                   const std::string &timestamp,
                                   const std::string &nonce,
                                   const std::string &signature,
                                   const std::string &body, std::string &why) {
  std::string expected =
      httpauth::signature(options.secret, method, path, timestamp, nonce, body);
  if (!httpauth::constantTimeEqual(expected, signature)) {
    why = "the request's signature does not match";
    return 401;
  }
  int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  std::lock_guard<std::mutex> lock(mu);
  while (!nonceExpiry.empty() && nonceExpiry.top().first < now) {
    nonces.erase(nonceExpiry.top().second);
    nonceExpiry.pop();
  }
  if (nonces.count(nonce)) {
    why = "a replayed request (its nonce was seen before)";
    return 401;
  }
  if (nonces.size() >= options.maxNonces) {
    why = "too many signed requests within the replay window";
    return 503;
  }
  nonces.insert(nonce);
  nonceExpiry.emplace(std::stoll(timestamp) + options.replayWindow.count(),
                      nonce);
  return 0;
}

int HttpServer::Impl::readBodyPart(
    int fd, std::string &into, size_t max,
    std::chrono::steady_clock::time_point deadline, std::string &why) {
  Read r = readSome(fd, into, max, deadline);
  if (r == Read::TimedOut)
    why = "body not received within " +
          std::to_string(options.bodyTimeout.count()) + " ms";
  return r == Read::Data ? 0 : r == Read::Closed ? -1 : 408;
}

int HttpServer::Impl::readLength(int fd, std::string start, size_t length,
                                 std::string &body, size_t &reserved,
                                 std::string &why) {
  if (!reserve(length)) {
    why = "too many request bodies being read; retry";
    return 503;
  }
  reserved = length;
  body = std::move(start);
  body.reserve(length);
  const Clock::time_point deadline = Clock::now() + options.bodyTimeout;
  while (body.size() < length)
    if (int s = readBodyPart(fd, body, length - body.size(), deadline, why))
      return s;
  return 0;
}

int HttpServer::Impl::readChunked(int fd, std::string pending,
                                  std::string &body, size_t &reserved,
                                  std::string &why) {
  const Clock::time_point deadline = Clock::now() + options.bodyTimeout;
  // More bytes into `pending`; 0, or what to answer.
  auto more = [&] {
    return readBodyPart(fd, pending, kReadChunk, deadline, why);
  };
  // The next line (without its CRLF), at most 1 KiB.
  auto line = [&](std::string &out) -> int {
    size_t eol;
    while ((eol = pending.find("\r\n")) == std::string::npos) {
      if (pending.size() > 1024) {
        why = "malformed chunked body";
        return 400;
      }
      if (int s = more())
        return s;
    }
    out = pending.substr(0, eol);
    pending.erase(0, eol + 2);
    return 0;
  };
  for (;;) {
    std::string sizeLine;
    if (int s = line(sizeLine))
      return s;
    std::string hex = sizeLine.substr(0, sizeLine.find(';'));
    while (!hex.empty() && (hex.back() == ' ' || hex.back() == '\t'))
      hex.pop_back();
    if (hex.empty() || hex.size() > 8 ||
        !std::all_of(hex.begin(), hex.end(),
                     [](unsigned char c) { return std::isxdigit(c); })) {
      why = "malformed chunk size";
      return 400;
    }
    size_t size = std::stoul(hex, nullptr, 16);
    if (size == 0)
      break;
    // Stops at the limit: the rest of the body is never read.
    if (size > options.maxBody - body.size()) {
      why = "chunked body larger than the limit of " +
            std::to_string(options.maxBody);
      return 413;
    }
    if (!reserve(size)) {
      why = "too many request bodies being read; retry";
      return 503;
    }
    reserved += size;
    for (size_t left = size; left > 0;) {
      if (pending.empty())
        if (int s = more())
          return s;
      size_t take = std::min(left, pending.size());
      body.append(pending, 0, take);
      pending.erase(0, take);
      left -= take;
    }
    while (pending.size() < 2)
      if (int s = more())
        return s;
    if (pending.compare(0, 2, "\r\n") != 0) {
      why = "malformed chunked body";
      return 400;
    }
    pending.erase(0, 2);
  }
  // Trailer fields, dropped, up to the blank line.
  for (size_t trailer = 0;;) {
    std::string field;
    if (int s = line(field))
      return s;
    if (field.empty())
      return 0;
    if ((trailer += field.size()) > options.maxHeader) {
      why = "chunked body trailer larger than " +
            std::to_string(options.maxHeader) + " bytes";
      return 431;
    }
  }
}

// A connection serves requests one after the other while its client asks
// for that (Connection: keep-alive, HTTP/1.1, a Content-Length body) and
// nothing went wrong; between requests it is idle (the acceptor may close it
// to make room: see acceptLoop), for at most kIdleTimeout. While this thread
// runs a Reply::after, the watcher serves the connection's next request by
// another thread (see Impl).
void HttpServer::Impl::serve(Handoff h) {
  const int fd = h.fd;
  std::string carried = std::move(h.carried); // bytes of the next request
  for (unsigned served = h.served + 1;; ++served) {
    bool keepAlive = false;
    std::function<void()> after;
    serveOne(fd, carried, keepAlive, after);
    keepAlive = keepAlive && served < kMaxRequests;
    if (after) {
      if (!keepAlive) {
        endConnection(fd);
        return runAfter(after);
      }
      // The next request is here already (pipelined), or the connection
      // cannot be watched: another thread serves it at once.
      uint64_t token = carried.empty() ? watch(fd, served) : 0;
      if (!token) {
        {
          std::lock_guard<std::mutex> lock(mu);
          ++stats.handedOver;
        }
        startServing(Handoff{fd, std::move(carried), served});
        return runAfter(after);
      }
      runAfter(after);
      if (!unwatch(token, fd))
        return; // served by another thread now
    }
    if (!keepAlive) {
      endConnection(fd);
      return;
    }
    if (carried.empty()) {
      bool gone;
      {
        std::lock_guard<std::mutex> lock(mu);
        gone = stopping;
        if (!gone)
          idle.insert(fd);
        if (!gone && connections.size() >= options.maxConnections)
          changed.notify_all(); // the acceptor at the bound may take it
      }
      if (!gone) {
        // The wait and the read of the next request's first bytes in one
        // system call.
        char buf[kReadChunk];
        ssize_t n =
            sockets::recvBy(fd, buf, sizeof(buf), Clock::now() + kIdleTimeout);
        if (n > 0)
          carried.assign(buf, size_t(n));
        std::lock_guard<std::mutex> lock(mu);
        gone = !idle.erase(fd) || n <= 0 || stopping;
      }
      if (gone) { // closed to make room, timed out, or shutting down
        endConnection(fd);
        return;
      }
    }
  }
}

void HttpServer::Impl::serveOne(int fd, std::string &carried, bool &keepAlive,
                                std::function<void()> &after) {
  const Clock::time_point start = Clock::now();
  auto refuse = [&](int status, const std::string &message,
                    uint64_t Counters::*counter) {
    {
      std::lock_guard<std::mutex> lock(mu);
      ++(stats.*counter);
    }
    std::string extra = status == 405 ? (options.onGet ? "Allow: GET, POST\r\n"
                                                       : "Allow: POST\r\n")
                        : status == 503 ? "Retry-After: 1\r\n"
                                        : "";
    respond(fd, status, extra, message + "\n",
            Clock::now() + options.writeTimeout);
    lingeringClose(fd);
  };

  auto noteHeld = [&](size_t bytes) {
    std::lock_guard<std::mutex> lock(mu);
    stats.largestRequest = std::max<uint64_t>(stats.largestRequest, bytes);
  };

  // The request line and headers, within headerTimeout of the accept (or
  // of the first byte on a kept-alive connection).
  std::string req = std::move(carried);
  carried.clear();
  size_t headEnd = std::string::npos;
  const Clock::time_point headerDeadline = start + options.headerTimeout;
  for (size_t scanned = 0;;) {
    headEnd = req.find("\r\n\r\n", scanned);
    if (headEnd != std::string::npos)
      break;
    scanned = req.size() < 3 ? 0 : req.size() - 3;
    if (req.size() > options.maxHeader)
      return refuse(431,
                    "request header larger than " +
                        std::to_string(options.maxHeader) + " bytes",
                    &Counters::tooLarge);
    Read r = readSome(fd, req, kReadChunk, headerDeadline);
    if (r == Read::Closed)
      return; // the client went away, or the server shuts down
    if (r == Read::TimedOut && req.empty()) {
      std::lock_guard<std::mutex> lock(mu);
      ++stats.timedOut; // an idle connection: nothing to answer
      return;
    }
    if (r == Read::TimedOut)
      return refuse(408,
                    "request header not received within " +
                        std::to_string(options.headerTimeout.count()) + " ms",
                    &Counters::timedOut);
  }
  noteHeld(req.size());
  if (headEnd > options.maxHeader)
    return refuse(431,
                  "request header larger than " +
                      std::to_string(options.maxHeader) + " bytes",
                  &Counters::tooLarge);

  Head head;
  if (std::string bad =
          parseHead(std::string_view(req).substr(0, headEnd + 2), head);
      !bad.empty())
    return refuse(400, bad, &Counters::badRequest);
  if (head.method == "GET" && options.onGet) {
    // A health check: no body is read, nothing is signed.
    if (head.has("transfer-encoding") ||
        (head.has("content-length") && head.get("content-length") != "0"))
      return refuse(400, "a GET has no body", &Counters::badRequest);
    HttpResponse resp;
    try {
      resp = options.onGet(head.path);
    } catch (...) {
      resp = HttpResponse{500, "the handler failed"};
    }
    respond(fd, resp.status, "", resp.body,
            Clock::now() + options.writeTimeout);
    return;
  }
  if (head.method != "POST")
    return refuse(405,
                  options.onGet ? "only GET and POST are served"
                                : "only POST is served",
                  &Counters::badRequest);
  // The body's length: a Content-Length, or chunked (read up to the limit).
  std::vector<std::string> lengths = head.all("content-length");
  const std::string &coding = head.get("transfer-encoding");
  const bool chunked = !coding.empty();
  if (chunked && (strcasecmp(coding.c_str(), "chunked") != 0 ||
                  head.all("transfer-encoding").size() != 1))
    return refuse(400, "only Transfer-Encoding: chunked is accepted",
                  &Counters::badRequest);
  if (chunked && !lengths.empty())
    return refuse(400, "both Content-Length and Transfer-Encoding",
                  &Counters::badRequest);
  if (!chunked && lengths.empty())
    return refuse(411, "a POST needs a Content-Length or chunked body",
                  &Counters::badRequest);
  for (const std::string &l : lengths)
    if (l != lengths[0] || !allDigits(l, 18))
      return refuse(400, "malformed Content-Length", &Counters::badRequest);
  const size_t length = chunked ? 0 : size_t(std::stoull(lengths[0]));
  if (length > options.maxBody)
    return refuse(413,
                  "body of " + std::to_string(length) +
                      " bytes larger than the limit of " +
                      std::to_string(options.maxBody),
                  &Counters::tooLarge);

  // What can be checked of the signature without the body, before reading
  // it: an unsigned or stale request costs no body.
  const std::string &timestamp = head.get("x-unum-timestamp");
  const std::string &nonce = head.get("x-unum-nonce");
  const std::string &signature = head.get("x-unum-signature");
  if (!options.secret.empty()) {
    if (signature.empty() || timestamp.empty() || nonce.empty())
      return refuse(401,
                    "the request is not signed (X-Unum-Timestamp, "
                    "X-Unum-Nonce and X-Unum-Signature are required)",
                    &Counters::unauthorized);
    int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
    int64_t window = options.replayWindow.count();
    if (!allDigits(timestamp, 12) ||
        std::abs(std::stoll(timestamp) - now) > window)
      return refuse(401,
                    "X-Unum-Timestamp is not within " + std::to_string(window) +
                        " seconds of the server's clock",
                    &Counters::unauthorized);
    if (nonce.size() < 16 || nonce.size() > 64 ||
        !std::all_of(nonce.begin(), nonce.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '-' ||
                 c == '_';
        }))
      return refuse(401, "malformed X-Unum-Nonce", &Counters::unauthorized);
  }

  if (strcasecmp(head.get("expect").c_str(), "100-continue") == 0 &&
      req.size() == headEnd + 4)
    sendAll(fd, "HTTP/1.1 100 Continue\r\n\r\n",
            Clock::now() + options.writeTimeout);

  // The body, within bodyTimeout of the head, never more than the limit.
  struct Reservation {
    Impl *server;
    size_t bytes = 0;
    ~Reservation() { server->release(bytes); }
  } reservation{this};
  std::string body;
  std::string why;
  int status = chunked ? readChunked(fd, req.substr(headEnd + 4), body,
                                     reservation.bytes, why)
                       : readLength(fd, req.substr(headEnd + 4, length), length,
                                    body, reservation.bytes, why);
  // What followed the body: the start of the client's next request.
  std::string next = chunked || req.size() <= headEnd + 4 + length
                         ? std::string()
                         : req.substr(headEnd + 4 + length);
  req.clear();
  req.shrink_to_fit();
  if (status < 0)
    return; // the client went away
  if (status)
    return refuse(status, why,
                  status == 408   ? &Counters::timedOut
                  : status == 413 ? &Counters::tooLarge
                  : status == 503 ? &Counters::busy
                                  : &Counters::badRequest);

  noteHeld(body.size());
  if (!options.secret.empty())
    if (int refused = authenticate(head.method, head.path, timestamp, nonce,
                                   signature, body, why))
      return refuse(refused, why,
                    refused == 401 ? &Counters::unauthorized : &Counters::busy);

  {
    std::unique_lock<std::mutex> lock(mu);
    changed.wait(lock, [&] {
      return stopping || handlersRunning < options.maxHandlers;
    });
    if (stopping) {
      lock.unlock();
      return refuse(503, "the server is shutting down", &Counters::busy);
    }
    ++handlersRunning;
    ++stats.served;
  }
  HttpResponse resp;
  try {
    Reply reply = handler(head.path, body);
    resp = std::move(reply.response);
    after = std::move(reply.after);
  } catch (...) {
    resp = HttpResponse{500, "the handler failed"};
  }
  {
    // Requests wait for a handler only while all are busy.
    std::lock_guard<std::mutex> lock(mu);
    if (handlersRunning-- >= options.maxHandlers)
      changed.notify_all();
  }
  // Kept alive only when the client asked for it: an HTTP/1.1 client that
  // reads up to the end of the connection gets the close it expects.
  bool again = head.version == "HTTP/1.1" && !chunked &&
               listsToken(head.get("connection"), "keep-alive");
  {
    std::lock_guard<std::mutex> lock(mu);
    again = again && !stopping;
  }
  if (respond(fd, resp.status, "", resp.body,
              Clock::now() + options.writeTimeout, again) == 0 &&
      again) {
    keepAlive = true;
    carried = std::move(next);
  }
}
