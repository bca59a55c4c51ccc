//===- HttpServer.h - A minimal HTTP/1.1 endpoint for POSTs -----*- C++ -*-===//
//
// The other end of HttpInvoker: what a FaaS gateway does for a function,
// small enough for local runs and tests. One thread accepts connections and
// answers each request (Connection: close) with the handler's response, so
// handlers must be quick (queue the work, then answer 202). Only POST with a
// Content-Length body is served; anything else gets 405 or 400.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_RUNTIME_HTTPSERVER_H
#define UNUM_RUNTIME_HTTPSERVER_H

#include "unum/Runtime/Invoker.h"
#include "unum/Runtime/Status.h"

#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace unum::runtime {

class HttpServer {
public:
  /// Answers a POST of `body` to `path` ("/fn/Name").
  using Handler = std::function<HttpResponse(const std::string &path,
                                             const std::string &body)>;

  /// Listens on HOST:PORT (port 0: any free port).
  static Result<std::unique_ptr<HttpServer>> listen(const std::string &host,
                                                    int port, Handler handler);
  ~HttpServer();

  int port() const { return portNumber; }
  /// "http://HOST:PORT".
  std::string url() const;

private:
  HttpServer() = default;
  void acceptLoop();
  void serve(int fd);

  Handler handler;
  std::string host;
  int listenFd = -1;
  int portNumber = 0;
  std::thread acceptor;
};

} // namespace unum::runtime

#endif // UNUM_RUNTIME_HTTPSERVER_H
