//===- HttpServer.cpp - A minimal HTTP/1.1 endpoint for POSTs -------------===//

#include "unum/Runtime/HttpServer.h"

#include <cerrno>
#include <cstring>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace unum::runtime;

namespace {
constexpr int kReadTimeoutMs = 10000;
constexpr size_t kMaxHeader = 64 * 1024;
constexpr size_t kMaxBody = 64 * 1024 * 1024;

const char *reason(int status) {
  switch (status) {
  case 200:
    return "OK";
  case 202:
    return "Accepted";
  case 400:
    return "Bad Request";
  case 404:
    return "Not Found";
  case 405:
    return "Method Not Allowed";
  case 413:
    return "Payload Too Large";
  default:
    return status < 400 ? "OK" : status < 500 ? "Client Error" : "Server Error";
  }
}

void answer(int fd, int status, const std::string &body) {
  std::string resp =
      "HTTP/1.1 " + std::to_string(status) + " " + reason(status) +
      "\r\nContent-Type: text/plain\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  size_t sent = 0;
  while (sent < resp.size()) {
    ssize_t n = send(fd, resp.data() + sent, resp.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    sent += size_t(n);
  }
}

/// The value of header `name` (case-insensitive) in `head`, or "".
std::string header(const std::string &head, const char *name) {
  size_t len = std::strlen(name);
  for (size_t at = head.find("\r\n"); at != std::string::npos;
       at = head.find("\r\n", at + 2)) {
    size_t line = at + 2;
    if (head.size() > line + len && head[line + len] == ':' &&
        strncasecmp(head.c_str() + line, name, len) == 0) {
      size_t v = head.find_first_not_of(' ', line + len + 1);
      size_t end = head.find("\r\n", line);
      return v < end ? head.substr(v, end - v) : "";
    }
  }
  return "";
}
} // namespace

Result<std::unique_ptr<HttpServer>>
HttpServer::listen(const std::string &host, int port, Handler handler) {
  addrinfo hints{}, *addrs = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &addrs))
    return Status::error("cannot listen on " + host + ":" + service + ": " +
                         gai_strerror(rc));
  std::unique_ptr<HttpServer> server(new HttpServer());
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
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  getsockname(server->listenFd, reinterpret_cast<sockaddr *>(&addr), &len);
  server->portNumber =
      ntohs(addr.ss_family == AF_INET6
                ? reinterpret_cast<sockaddr_in6 *>(&addr)->sin6_port
                : reinterpret_cast<sockaddr_in *>(&addr)->sin_port);
  server->host = host;
  server->handler = std::move(handler);
  HttpServer *s = server.get();
  server->acceptor = std::thread([s] { s->acceptLoop(); });
  return server;
}

HttpServer::~HttpServer() {
  // Wakes the blocked accept() with an error.
  ::shutdown(listenFd, SHUT_RDWR);
  if (acceptor.joinable())
    acceptor.join();
  ::close(listenFd);
}

std::string HttpServer::url() const {
  bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" +
         std::to_string(portNumber);
}

void HttpServer::acceptLoop() {
  for (;;) {
    int fd = accept4(listenFd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      return; // shut down
    }
    serve(fd);
    ::close(fd);
  }
}

void HttpServer::serve(int fd) {
  std::string req;
  size_t headEnd = std::string::npos, length = 0;
  char buf[16384];
  for (;;) {
    if (headEnd != std::string::npos && req.size() >= headEnd + 4 + length)
      break;
    pollfd p{fd, POLLIN, 0};
    int r;
    while ((r = poll(&p, 1, kReadTimeoutMs)) < 0 && errno == EINTR) {
    }
    if (r <= 0)
      return; // a client that sends nothing is dropped
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    req.append(buf, size_t(n));
    if (headEnd == std::string::npos) {
      headEnd = req.find("\r\n\r\n");
      if (headEnd == std::string::npos) {
        if (req.size() > kMaxHeader)
          return answer(fd, 400, "request header too large");
        continue;
      }
      std::string cl = header(req.substr(0, headEnd + 2), "Content-Length");
      char *end = nullptr;
      unsigned long long v = std::strtoull(cl.c_str(), &end, 10);
      if (cl.empty() || *end)
        return answer(fd, 400, "a POST needs a Content-Length");
      if (v > kMaxBody)
        return answer(fd, 413, "body larger than " + std::to_string(kMaxBody));
      length = size_t(v);
    }
  }
  // "POST /fn/Name HTTP/1.1"
  size_t sp1 = req.find(' ');
  size_t sp2 = sp1 == std::string::npos ? sp1 : req.find(' ', sp1 + 1);
  if (sp2 == std::string::npos || sp2 > headEnd)
    return answer(fd, 400, "malformed request line");
  if (req.compare(0, sp1, "POST") != 0)
    return answer(fd, 405, "only POST is served");
  HttpResponse resp = handler(req.substr(sp1 + 1, sp2 - sp1 - 1),
                              req.substr(headEnd + 4, length));
  answer(fd, resp.status, resp.body);
}
