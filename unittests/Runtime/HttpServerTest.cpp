//===- HttpServerTest.cpp - The hardened HTTP gateway ---------------------===//
//
// Authentication (HMAC signatures, replay window, nonces), deadlines,
// concurrent connections and the body limit of HttpServer, each against a
// server on 127.0.0.1 with short timeouts, so that every test is bounded.
//
//===----------------------------------------------------------------------===//

#include "unum/Runtime/HttpServer.h"
#include "unum/Runtime/HttpAuth.h"

#include "Digest.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <mutex>
#include <netinet/in.h>
#include <random>
#include <sys/resource.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace unum::runtime;
using Clock = std::chrono::steady_clock;

namespace {
const std::string kSecret = "0123456789abcdef-test-secret";

/// A connection to 127.0.0.1:port, closed on destruction.
struct Client {
  int fd = -1;
  explicit Client(int port) {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ~Client() {
    if (fd >= 0)
      ::close(fd);
  }
  bool send(const std::string &data) {
    size_t sent = 0;
    while (sent < data.size()) {
      ssize_t n =
          ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0)
        return false;
      sent += size_t(n);
    }
    return true;
  }
  /// Everything until the server closes (or 10 s pass).
  std::string readAll() {
    timeval tv{10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    std::string out;
    char buf[4096];
    for (;;) {
      ssize_t n = recv(fd, buf, sizeof(buf), 0);
      if (n <= 0)
        return out;
      out.append(buf, size_t(n));
    }
  }
  /// The status of the answer ("HTTP/1.1 401 ..."), or 0.
  int status() {
    std::string r = readAll();
    return r.rfind("HTTP/1.1 ", 0) == 0 ? std::atoi(r.c_str() + 9) : 0;
  }
};

std::string
request(const std::string &path, const std::string &body,
        const std::vector<std::pair<std::string, std::string>> &headers = {},
        const std::string &method = "POST") {
  std::string r = method + " " + path + " HTTP/1.1\r\nHost: test\r\n" +
                  "Content-Length: " + std::to_string(body.size()) + "\r\n";
  for (const auto &[n, v] : headers)
    r += n + ": " + v + "\r\n";
  return r + "\r\n" + body;
}

/// A server that answers 202 to every request it is handed and counts them.
struct Fixture {
  std::atomic<int> handled{0};
  std::unique_ptr<HttpServer> server;
  explicit Fixture(HttpServerOptions options = {}) {
    auto s = HttpServer::listen(
        "127.0.0.1", 0,
        [this](const std::string &path, const std::string &body) {
          ++handled;
          if (path == "/throw")
            throw std::runtime_error("handler bug");
          return HttpResponse{202, path + " " + std::to_string(body.size())};
        },
        std::move(options));
    EXPECT_TRUE(bool(s)) << s.getStatus().message();
    if (s)
      server = s.take();
  }
  std::string url(const std::string &path) const {
    return server->url() + path;
  }
};

/// Milliseconds a POST to /fn/A took; it must be accepted.
long timedPost(const Fixture &f) {
  auto t0 = Clock::now();
  auto r = httpPost(f.url("/fn/A"), "{}", "application/json", 5000);
  auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0)
          .count();
  EXPECT_TRUE(bool(r)) << r.getStatus().message();
  EXPECT_EQ(r ? r->status : 0, 202);
  return long(ms);
}

HttpServerOptions signedOptions() {
  HttpServerOptions o;
  o.secret = kSecret;
  return o;
}

/// The resident set size of this process, in KiB.
long rssKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::atol(line.c_str() + 6);
  return -1;
}
} // namespace

// RFC 4231's test vectors for HMAC-SHA256.
TEST(HttpAuth, HmacSha256Vectors) {
  using digest::hex;
  EXPECT_EQ(hex(httpauth::hmacSha256(std::string(20, '\x0b'), "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(hex(httpauth::hmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // A key longer than the block is hashed first (test case 6).
  EXPECT_EQ(hex(httpauth::hmacSha256(
                std::string(131, '\xaa'),
                "Test Using Larger Than Block-Size Key - Hash Key First")),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  EXPECT_TRUE(httpauth::constantTimeEqual("abc", "abc"));
  EXPECT_FALSE(httpauth::constantTimeEqual("abc", "abd"));
  EXPECT_FALSE(httpauth::constantTimeEqual("abc", "abcd"));
}

TEST(HttpAuth, SecretFromFileOrEnvironment) {
  char dir[] = "/tmp/unum-secret-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  std::string file = std::string(dir) + "/key";
  std::ofstream(file) << kSecret << "\n";
  auto s = httpauth::loadSecret(file);
  ASSERT_TRUE(bool(s)) << s.getStatus().message();
  EXPECT_EQ(*s, kSecret); // the trailing newline is dropped
  std::ofstream(file) << "short\n";
  s = httpauth::loadSecret(file);
  ASSERT_FALSE(bool(s));
  EXPECT_NE(s.getStatus().message().find("at least 16"), std::string::npos)
      << s.getStatus().message();
  EXPECT_FALSE(bool(httpauth::loadSecret(std::string(dir) + "/missing")));
  ::unlink(file.c_str());
  ::rmdir(dir);

  ::unsetenv(httpauth::kSecretEnv);
  s = httpauth::loadSecret("");
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(*s, "");
  ::setenv(httpauth::kSecretEnv, kSecret.c_str(), 1);
  s = httpauth::loadSecret("");
  ::unsetenv(httpauth::kSecretEnv);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(*s, kSecret);
}

TEST(HttpServer, BeyondLoopbackNeedsASecret) {
  auto s = HttpServer::listen("0.0.0.0", 0, [](auto &, auto &) {
    return HttpResponse{202, ""};
  });
  ASSERT_FALSE(bool(s));
  EXPECT_NE(s.getStatus().message().find("without a shared secret"),
            std::string::npos)
      << s.getStatus().message();
  // Loopback addresses are fine without one.
  EXPECT_TRUE(bool(HttpServer::listen("127.0.0.1", 0, [](auto &, auto &) {
    return HttpResponse{202, ""};
  })));
}

TEST(HttpServer, SignedRequestsOnly) {
  Fixture f(signedOptions());
  // The invoker's signature is accepted.
  auto ok = httpPost(f.url("/fn/A"), "{}", "application/json", 5000, kSecret);
  ASSERT_TRUE(bool(ok)) << ok.getStatus().message();
  EXPECT_EQ(ok->status, 202) << ok->body;

  // Unsigned.
  auto unsigned_ = httpPost(f.url("/fn/A"), "{}", "application/json", 5000);
  ASSERT_TRUE(bool(unsigned_));
  EXPECT_EQ(unsigned_->status, 401);
  EXPECT_NE(unsigned_->body.find("not signed"), std::string::npos);
  // Signed with another secret.
  auto wrong = httpPost(f.url("/fn/A"), "{}", "application/json", 5000,
                        "another-secret-of-some-length");
  ASSERT_TRUE(bool(wrong));
  EXPECT_EQ(wrong->status, 401);
  EXPECT_NE(wrong->body.find("does not match"), std::string::npos);

  // A signature is bound to the method, path, timestamp, nonce and body.
  auto headers = httpauth::signRequest(kSecret, "POST", "/fn/A", "{\"a\":1}");
  {
    Client c(f.server->port());
    c.send(request("/fn/A", "{\"a\":2}", headers)); // another body
    EXPECT_EQ(c.status(), 401);
  }
  {
    Client c(f.server->port());
    c.send(request("/fn/B", "{\"a\":1}", headers)); // another path
    EXPECT_EQ(c.status(), 401);
  }
  {
    Client c(f.server->port());
    c.send(request("/fn/A", "{\"a\":1}", headers)); // as signed
    EXPECT_EQ(c.status(), 202);
  }
  {
    Client c(f.server->port());
    c.send(request("/fn/A", "{\"a\":1}", headers)); // replayed
    std::string r = c.readAll();
    EXPECT_EQ(r.rfind("HTTP/1.1 401", 0), 0u) << r;
    EXPECT_NE(r.find("replayed"), std::string::npos) << r;
  }
  // A timestamp outside the window, correctly signed, is refused.
  std::string old =
      std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count() -
                     301);
  std::string nonce = "0123456789abcdef0123";
  {
    Client c(f.server->port());
    c.send(request(
        "/fn/A", "{}",
        {{"X-Unum-Timestamp", old},
         {"X-Unum-Nonce", nonce},
         {"X-Unum-Signature",
          httpauth::signature(kSecret, "POST", "/fn/A", old, nonce, "{}")}}));
    std::string r = c.readAll();
    EXPECT_EQ(r.rfind("HTTP/1.1 401", 0), 0u) << r;
    EXPECT_NE(r.find("within 300 seconds"), std::string::npos) << r;
  }
  EXPECT_EQ(f.handled, 2);
  EXPECT_EQ(f.server->counters().unauthorized, 6u);
}

TEST(HttpServer, NoncesAreBounded) {
  HttpServerOptions o = signedOptions();
  o.maxNonces = 2;
  Fixture f(o);
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(
        httpPost(f.url("/fn/A"), "{}", "text/plain", 5000, kSecret)->status,
        202);
  // The store is full of nonces that are still within the window.
  auto r = httpPost(f.url("/fn/A"), "{}", "text/plain", 5000, kSecret);
  EXPECT_EQ(r->status, 503) << r->body;
}

TEST(HttpServer, BadRequestsGet4xx) {
  HttpServerOptions o;
  o.maxHeader = 1024;
  Fixture f(o);
  struct Case {
    std::string raw;
    int status;
  } cases[] = {
      {"GET /fn/A HTTP/1.1\r\nHost: x\r\n\r\n", 405},
      {"POST /fn/A HTTP/1.1\r\nHost: x\r\n\r\n", 411},
      {"POST /fn/A HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 400},
      {"POST /fn/A HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
       "Content-Length: 5\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
       400},
      {"POST /fn/A HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
       "5\r\nhelloXX0\r\n\r\n",
       400},
      {"POST /fn/A HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
       "zz\r\n",
       400},
      {"POST /fn/A HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
      {"POST /fn/A HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
       400},
      {"POST /fn/A HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n",
       400},
      {"POST /fn/A HTTP/1.1\r\nno colon here\r\n\r\n", 400},
      {"POST fn/A HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 400},
      {"POST /fn/A HTTP/9\r\nContent-Length: 0\r\n\r\n", 400},
      {"\x16\x03\x01\x02\x01\x01\xfc\x03\x03\r\n\r\n", 400},
      {"POST /fn/A HTTP/1.1\r\nX: " + std::string(2000, 'a') + "\r\n\r\n", 431},
      {"POST /throw HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 500},
  };
  for (const Case &c : cases) {
    Client client(f.server->port());
    client.send(c.raw);
    EXPECT_EQ(client.status(), c.status) << c.raw;
  }
  // Random bytes: never a crash, and the server still answers.
  std::mt19937 rng(7);
  for (int i = 0; i < 50; ++i) {
    std::string junk(size_t(rng() % 300), '\0');
    for (char &ch : junk)
      ch = char(rng());
    if (i % 2)
      junk = "POST /fn/A HTTP/1.1\r\n" + junk + "\r\n\r\n";
    Client client(f.server->port());
    client.send(junk);
    ::shutdown(client.fd, SHUT_WR);
    int status = client.status();
    EXPECT_TRUE(status == 0 || (status >= 400 && status < 500) || status == 202)
        << status;
  }
  auto ok = httpPost(f.url("/fn/A"), "xyz", "text/plain", 5000);
  ASSERT_TRUE(bool(ok));
  EXPECT_EQ(ok->status, 202);
  EXPECT_EQ(ok->body, "/fn/A 3");
}

// One slowloris client (a byte of header now and then) and five idle
// connections delay nobody: a normal request is answered at once, and
// the slow ones are cut at the header deadline.
TEST(HttpServer, SlowAndIdleClientsDelayNobody) {
  HttpServerOptions o;
  o.headerTimeout = std::chrono::milliseconds(1500);
  Fixture f(o);
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 5; ++i)
    idle.push_back(std::make_unique<Client>(f.server->port()));
  Client slow(f.server->port());
  std::atomic<bool> done{false};
  std::thread dribble([&] {
    std::string head = "POST /fn/A HTTP/1.1\r\nContent-Length: 0\r\n";
    for (size_t i = 0; i < head.size() && !done; ++i) {
      if (!slow.send(head.substr(i, 1)))
        return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (int i = 0; i < 3; ++i)
    EXPECT_LT(timedPost(f), 500) << "a request waited behind slow clients";
  // The slowloris is answered 408 at its deadline, however it dribbles.
  auto t0 = Clock::now();
  std::string r = slow.readAll();
  done = true;
  dribble.join();
  auto waited =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0)
          .count();
  EXPECT_EQ(r.rfind("HTTP/1.1 408", 0), 0u) << r;
  EXPECT_LT(waited, 3000);
  // The idle ones are dropped.
  for (auto &c : idle)
    EXPECT_EQ(c->readAll(), "");
  EXPECT_GE(f.server->counters().timedOut, 6u);
}

// More connections than maxConnections: the extra one waits in the backlog
// until the deadline frees a slot, then is served.
TEST(HttpServer, ConnectionBoundWaitsForADeadline) {
  HttpServerOptions o;
  o.maxConnections = 2;
  o.headerTimeout = std::chrono::milliseconds(700);
  Fixture f(o);
  Client a(f.server->port()), b(f.server->port());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_LT(timedPost(f), 2000);
}

TEST(HttpServer, BodyDeadline) {
  HttpServerOptions o;
  o.bodyTimeout = std::chrono::milliseconds(500);
  Fixture f(o);
  Client c(f.server->port());
  c.send("POST /fn/A HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc");
  std::string r = c.readAll();
  EXPECT_EQ(r.rfind("HTTP/1.1 408", 0), 0u) << r;
  EXPECT_EQ(f.handled, 0);
}

// A 63 MB body is refused by its Content-Length before any of it is read:
// the server's memory does not grow by the body (it would by ~73x its size
// once parsed as JSON).
TEST(HttpServer, OversizedBodyRefusedWithoutReadingIt) {
  Fixture f;
  long before = rssKiB();
  const size_t big = 63u << 20;
  {
    Client c(f.server->port());
    c.send("POST /fn/A HTTP/1.1\r\nContent-Length: " + std::to_string(big) +
           "\r\n\r\n[1,1,1,1");
    std::string r = c.readAll();
    EXPECT_EQ(r.rfind("HTTP/1.1 413", 0), 0u) << r;
  }
  {
    // A client that sends it all anyway: refused all the same.
    std::string body(big, '1');
    body.front() = '[';
    auto r = httpPost(f.url("/fn/A"), body, "application/json", 10000);
    ASSERT_TRUE(bool(r)) << r.getStatus().message();
    EXPECT_EQ(r->status, 413);
  }
  long grown = rssKiB() - before;
  // The client's own 63 MB string is freed; what is left is noise.
  EXPECT_LT(grown, 16 * 1024) << "RSS grew by " << grown << " KiB";
  EXPECT_EQ(f.handled, 0);
  EXPECT_EQ(f.server->counters().tooLarge, 2u);
  // At most the header buffer's worth of it was ever held.
  EXPECT_LE(f.server->counters().largestRequest, 64u * 1024);

  // Bodies in flight share a budget: beyond it, 503 (retry later).
  HttpServerOptions o;
  o.maxBody = 1000;
  o.maxBuffered = 1500;
  Fixture g(o);
  Client holder(g.server->port());
  holder.send("POST /fn/A HTTP/1.1\r\nContent-Length: 1000\r\n\r\nabc");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto r = httpPost(g.url("/fn/A"), std::string(600, 'x'), "text/plain", 5000);
  ASSERT_TRUE(bool(r));
  EXPECT_EQ(r->status, 503);
  r = httpPost(g.url("/fn/A"), std::string(400, 'x'), "text/plain", 5000);
  EXPECT_EQ(r->status, 202);
}

// The server's destructor does not wait for clients that never finish.
TEST(HttpServer, ShutdownCutsOpenConnections) {
  auto f = std::make_unique<Fixture>();
  Client idle(f->server->port());
  Client half(f->server->port());
  half.send("POST /fn/A HTTP/1.1\r\nContent-Length: 100\r\n\r\nab");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto t0 = Clock::now();
  f.reset();
  EXPECT_LT(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0)
          .count(),
      2000);
}

// Chunked bodies are read up to the limit, and no further.
TEST(HttpServer, ChunkedBodies) {
  HttpServerOptions o;
  o.maxBody = 1000;
  Fixture f(o);
  {
    Client c(f.server->port());
    c.send("POST /fn/A HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
           "5;ext=1\r\nhello\r\n3\r\nabc\r\n0\r\nTrailer: x\r\n\r\n");
    std::string r = c.readAll();
    EXPECT_EQ(r.rfind("HTTP/1.1 202", 0), 0u) << r;
    EXPECT_NE(r.find("/fn/A 8"), std::string::npos) << r;
  }
  {
    // 600 + 600 bytes: refused at the second chunk, before it is read.
    Client c(f.server->port());
    std::string chunk = "258\r\n" + std::string(600, 'x') + "\r\n";
    c.send("POST /fn/A HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk +
           "258\r\n");
    std::string r = c.readAll();
    EXPECT_EQ(r.rfind("HTTP/1.1 413", 0), 0u) << r;
  }
  {
    // One huge chunk is refused by its size line alone.
    Client c(f.server->port());
    c.send("POST /fn/A HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
           "3F00000\r\n[1,1,1");
    std::string r = c.readAll();
    EXPECT_EQ(r.rfind("HTTP/1.1 413", 0), 0u) << r;
  }
  EXPECT_LE(f.server->counters().largestRequest, 1000u + 64 * 1024);
  EXPECT_EQ(f.handled, 1);
  // A signed chunked request: the signature covers the decoded body.
  Fixture g(signedOptions());
  std::string body = "{\"a\": 1}";
  std::string raw = "POST /fn/A HTTP/1.1\r\nTransfer-Encoding: chunked\r\n";
  for (const auto &[n, v] :
       httpauth::signRequest(kSecret, "POST", "/fn/A", body))
    raw += n + ": " + v + "\r\n";
  raw += "\r\n4\r\n{\"a\"\r\n4\r\n: 1}\r\n0\r\n\r\n";
  Client c(g.server->port());
  c.send(raw);
  EXPECT_EQ(c.status(), 202);
}

// A health check: GET answered by onGet, unsigned even on a server that
// requires signatures; a GET with a body, or any other method, is refused.
TEST(HttpServer, GetForHealthChecks) {
  HttpServerOptions o = signedOptions();
  o.onGet = [](const std::string &path) {
    return path == "/healthz" ? HttpResponse{200, "ok"}
                              : HttpResponse{404, "no"};
  };
  Fixture f(o);
  {
    Client c(f.server->port());
    ASSERT_TRUE(c.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    std::string r = c.readAll();
    EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r;
    EXPECT_NE(r.find("\r\n\r\nok"), std::string::npos) << r;
  }
  Client other(f.server->port());
  ASSERT_TRUE(other.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_EQ(other.status(), 404);
  Client withBody(f.server->port());
  ASSERT_TRUE(withBody.send(request("/healthz", "x", {}, "GET")));
  EXPECT_EQ(withBody.status(), 400);
  Client put(f.server->port());
  ASSERT_TRUE(put.send(request("/healthz", "", {}, "PUT")));
  std::string r = put.readAll();
  EXPECT_EQ(r.rfind("HTTP/1.1 405", 0), 0u) << r;
  EXPECT_NE(r.find("Allow: GET, POST\r\n"), std::string::npos) << r;
  // POST still needs its signature.
  Client post(f.server->port());
  ASSERT_TRUE(post.send(request("/fn/A", "{}")));
  EXPECT_EQ(post.status(), 401);
  EXPECT_EQ(f.handled.load(), 0);
}

/// Reads one answer (head and Content-Length body) from `c`, leaving the
/// connection open. Bytes of the next answer read with it (two pipelined
/// answers can arrive in one segment: the server sets TCP_NODELAY) are kept
/// in `rest` for the next call.
static std::string readOne(Client &c, std::string &rest) {
  timeval tv{10, 0};
  setsockopt(c.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  std::string out = std::move(rest);
  rest.clear();
  char buf[4096];
  for (;;) {
    size_t end = out.find("\r\n\r\n");
    if (end != std::string::npos) {
      size_t cl = out.find("Content-Length: ");
      size_t length = cl == std::string::npos || cl > end
                          ? 0
                          : std::atoi(&out[cl + 16]);
      if (out.size() >= end + 4 + length) {
        rest = out.substr(end + 4 + length);
        out.resize(end + 4 + length);
        return out;
      }
    }
    ssize_t n = recv(c.fd, buf, sizeof(buf), 0);
    if (n <= 0)
      return out;
    out.append(buf, size_t(n));
  }
}

// A client that asks for it keeps its connection for further requests
// (also when it sends the next one early); one that does not ask gets
// Connection: close, as before.
TEST(HttpServer, KeepAlive) {
  Fixture f;
  Client c(f.server->port());
  std::vector<std::pair<std::string, std::string>> keep = {
      {"Connection", "keep-alive"}};
  ASSERT_TRUE(c.send(request("/fn/A", "{}", keep)));
  std::string rest;
  std::string first = readOne(c, rest);
  EXPECT_EQ(first.rfind("HTTP/1.1 202", 0), 0u) << first;
  EXPECT_NE(first.find("Connection: keep-alive\r\n"), std::string::npos);
  // Two requests in one send: the second's bytes came with the first.
  ASSERT_TRUE(
      c.send(request("/fn/B", "{1}", keep) + request("/fn/C", "{22}", keep)));
  std::string second = readOne(c, rest);
  EXPECT_NE(second.find("/fn/B 3"), std::string::npos) << second;
  std::string third = readOne(c, rest);
  EXPECT_TRUE(rest.empty()) << rest;
  EXPECT_NE(third.find("/fn/C 4"), std::string::npos) << third;
  ASSERT_TRUE(c.send(request("/fn/D", "")));
  std::string last = c.readAll(); // the server closes after it
  EXPECT_NE(last.find("Connection: close\r\n"), std::string::npos) << last;
  EXPECT_NE(last.find("/fn/D 0"), std::string::npos) << last;
  EXPECT_EQ(f.handled.load(), 4);
}

// At the connection limit, an idle kept-alive connection is closed to make
// room for a new client.
TEST(HttpServer, IdleConnectionsMakeRoom) {
  HttpServerOptions o;
  o.maxConnections = 1;
  Fixture f(o);
  Client idle(f.server->port());
  ASSERT_TRUE(idle.send(request("/fn/A", "", {{"Connection", "keep-alive"}})));
  std::string rest;
  EXPECT_NE(readOne(idle, rest).find("202"), std::string::npos);
  auto t0 = Clock::now();
  Client next(f.server->port());
  ASSERT_TRUE(next.send(request("/fn/B", "")));
  EXPECT_EQ(next.status(), 202);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(3)); // not the 5 s idle
  EXPECT_TRUE(idle.readAll().empty()); // closed, nothing more said
}

// httpPost keeps connections alive, and a kept one whose server went away
// (a host restarted on the same port) is replaced without failing the
// request.
TEST(HttpServer, ClientReusesConnectionsAcrossARestart) {
  auto f = std::make_unique<Fixture>();
  int port = f->server->port();
  std::string url = f->url("/fn/A");
  for (int i = 0; i < 3; ++i) {
    auto r = httpPost(url, "{}", "application/json", 5000);
    ASSERT_TRUE(bool(r)) << r.getStatus().message();
    EXPECT_EQ(r->status, 202);
    EXPECT_EQ(r->body, "/fn/A 2");
  }
  f.reset();
  auto gone = httpPost(url, "{}", "application/json", 5000);
  EXPECT_FALSE(bool(gone));
  auto again = HttpServer::listen("127.0.0.1", port,
                                  [](const std::string &, const std::string &) {
                                    return HttpResponse{202, "again"};
                                  });
  ASSERT_TRUE(bool(again)) << again.getStatus().message();
  auto r = httpPost(url, "{}", "application/json", 5000);
  ASSERT_TRUE(bool(r)) << r.getStatus().message();
  EXPECT_EQ(r->body, "again");
}

// An answer with a chunked body on a connection the server keeps open: the
// client reads up to its end, not up to a close that never comes.
TEST(HttpServer, ClientReadsChunkedAnswers) {
  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(lfd, reinterpret_cast<sockaddr *>(&a), sizeof(a)), 0);
  ASSERT_EQ(listen(lfd, 4), 0);
  socklen_t len = sizeof(a);
  getsockname(lfd, reinterpret_cast<sockaddr *>(&a), &len);
  std::atomic<int> served{-1};
  std::thread server([lfd, &served] {
    int fd = accept(lfd, nullptr, nullptr);
    served = fd;
    char buf[4096];
    std::string req;
    while (req.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = recv(fd, buf, sizeof(buf), 0);
      if (n <= 0)
        break;
      req.append(buf, size_t(n));
    }
    std::string answer = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                         "5\r\nhello\r\n6;x=y\r\n world\r\n0\r\nT: 1\r\n\r\n";
    (void)!::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
    // Keeps the connection open until the test ends it.
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    while (recv(fd, buf, sizeof(buf), 0) > 0) {
    }
    ::close(fd);
  });
  auto t0 = Clock::now();
  auto r = httpRequest(
      "GET", "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port)) + "/x", "",
      {}, 4000);
  ASSERT_TRUE(bool(r)) << r.getStatus().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "hello world");
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  if (served >= 0)
    ::shutdown(served, SHUT_RDWR);
  server.join();
  ::close(lfd);
}

namespace {
/// A server whose POST /block answers 202 and leaves work (Reply::after)
/// that ends only once a POST /release was answered (or 30 s passed: the
/// test then fails, it does not hang).
struct BlockingFixture {
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  int afterRuns = 0, afterReleased = 0;
  std::unique_ptr<HttpServer> server;
  BlockingFixture() {
    auto s = HttpServer::listen(
        "127.0.0.1", 0,
        HttpServer::ReplyHandler([this](
                                     const std::string &path,
                                     const std::string &) -> HttpServer::Reply {
          if (path == "/release") {
            std::lock_guard<std::mutex> lock(mu);
            released = true;
            cv.notify_all();
            return {{202, "released"}, nullptr};
          }
          return {{202, "blocked"}, [this] {
                    std::unique_lock<std::mutex> lock(mu);
                    afterReleased += cv.wait_for(lock, std::chrono::seconds(30),
                                                 [&] { return released; });
                    ++afterRuns;
                    cv.notify_all();
                  }};
        }));
    EXPECT_TRUE(bool(s)) << s.getStatus().message();
    if (s)
      server = s.take();
  }
  /// Waits (30 s at most) until `n` after-works ended.
  int waitForRuns(int n) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_for(lock, std::chrono::seconds(30), [&] { return afterRuns >= n; });
    return afterRuns;
  }
};
} // namespace

// A kept-alive connection's next request is served while the work its
// previous request left (Reply::after) still runs on the connection's
// thread: the work here ends only once the next request was answered, so
// head-of-line blocking would never answer it (10 s read timeout, then the
// test fails). Also with the next request sent with the first (pipelined),
// and the connection serves on afterwards.
TEST(HttpServer, AfterWorkDoesNotBlockTheConnection) {
  BlockingFixture f;
  Client c(f.server->port());
  std::vector<std::pair<std::string, std::string>> keep = {
      {"Connection", "keep-alive"}};
  std::string rest;
  ASSERT_TRUE(c.send(request("/block", "{}", keep)));
  EXPECT_NE(readOne(c, rest).find("blocked"), std::string::npos);
  ASSERT_TRUE(c.send(request("/release", "{}", keep)));
  EXPECT_NE(readOne(c, rest).find("released"), std::string::npos);
  EXPECT_EQ(f.waitForRuns(1), 1);
  {
    std::lock_guard<std::mutex> lock(f.mu);
    EXPECT_EQ(f.afterReleased, 1);
    f.released = false;
  }
  ASSERT_TRUE(
      c.send(request("/block", "{}", keep) + request("/release", "{}", keep)));
  EXPECT_NE(readOne(c, rest).find("blocked"), std::string::npos);
  EXPECT_NE(readOne(c, rest).find("released"), std::string::npos);
  EXPECT_EQ(f.waitForRuns(2), 2);
  ASSERT_TRUE(c.send(request("/release", "{}")));
  std::string last = c.readAll();
  EXPECT_NE(last.find("released"), std::string::npos) << last;
  EXPECT_NE(last.find("Connection: close\r\n"), std::string::npos) << last;
  std::lock_guard<std::mutex> lock(f.mu);
  EXPECT_EQ(f.afterReleased, 2);
}

// Reply::after runs once also when the connection closes after the answer
// or the client went away, and the server's destructor waits for it.
TEST(HttpServer, AfterWorkRunsOnceAndShutdownWaitsForIt) {
  auto f = std::make_unique<BlockingFixture>();
  {
    Client c(f->server->port());
    ASSERT_TRUE(c.send(request("/block", "{}"))); // Connection: close
    EXPECT_EQ(c.status(), 202);
    Client gone(f->server->port());
    ASSERT_TRUE(
        gone.send(request("/block", "{}", {{"Connection", "keep-alive"}})));
    std::string rest;
    EXPECT_NE(readOne(gone, rest).find("blocked"), std::string::npos);
  } // both closed by the client
  int runsAtShutdown = -1;
  std::thread stopper([&] {
    f->server.reset();
    std::lock_guard<std::mutex> lock(f->mu);
    runsAtShutdown = f->afterRuns;
  });
  {
    std::lock_guard<std::mutex> lock(f->mu);
    f->released = true;
    f->cv.notify_all();
  }
  stopper.join();
  EXPECT_EQ(runsAtShutdown, 2);
  EXPECT_EQ(f->afterReleased, 2);
}
