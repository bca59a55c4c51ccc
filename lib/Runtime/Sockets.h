//===- Sockets.h - Socket I/O with deadlines --------------------*- C++ -*-===//
//
// Internal to the runtime library: what HttpServer.cpp and the HTTP invoker
// (Invoker.cpp) share. Every wait has a deadline; nothing blocks for good.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_RUNTIME_SOCKETS_H
#define UNUM_LIB_RUNTIME_SOCKETS_H

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/time.h>

namespace unum::runtime::sockets {

using Clock = std::chrono::steady_clock;

/// Waits until `fd` is ready for `events` (or hung up: the next call says
/// so); false once `deadline` passed or on a poll error.
inline bool waitUntil(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - Clock::now())
                    .count();
    if (left <= 0)
      return false;
    pollfd p{fd, events, 0};
    int r = poll(&p, 1, int(std::min<long long>(left + 1, INT_MAX)));
    if (r < 0 && errno != EINTR)
      return false;
    if (r > 0)
      return true;
  }
}

/// Sockets opened by HttpServer and the HTTP invoker get a receive time-out
/// (SO_RCVTIMEO) of kRecvSlice (setRecvSlice): a blocking recv on them
/// waits at most that long, so recvBy waits for data with one system call
/// (recv) instead of two (poll, then recv) while its deadline is at least
/// that far.
constexpr std::chrono::milliseconds kRecvSlice{1000};

inline void setRecvSlice(int fd) {
  timeval tv{kRecvSlice.count() / 1000, (kRecvSlice.count() % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/// Receives what `fd` (a socket with setRecvSlice) has, at most `size`
/// bytes, waiting for it until `deadline`: the byte count, 0 when the peer
/// closed (or the socket was shut down), -1 on an error (errno), -2 once
/// the deadline passed.
inline ssize_t recvBy(int fd, char *buf, size_t size,
                      Clock::time_point deadline) {
  for (;;) {
    const bool block = deadline - Clock::now() >= kRecvSlice;
    ssize_t n = recv(fd, buf, size, block ? 0 : MSG_DONTWAIT);
    if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
      return n;
    if (!block && errno != EINTR && !waitUntil(fd, POLLIN, deadline))
      return -2;
  }
}

/// Sends all of `data` by `deadline`: 0, ETIMEDOUT, or the send error.
/// (Waits only when the socket's buffer is full: one system call for a
/// short message.)
inline int sendAll(int fd, const std::string &data,
                   Clock::time_point deadline) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = send(fd, data.data() + sent, data.size() - sent,
                     MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += size_t(n);
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
      return n < 0 ? errno : EPIPE;
    if (!waitUntil(fd, POLLOUT, deadline))
      return ETIMEDOUT;
  }
  return 0;
}

/// Whether a comma-separated HTTP header value lists `token` (lower case),
/// ignoring case: listsToken("Keep-Alive, TE", "keep-alive").
inline bool listsToken(const std::string &value, const char *token) {
  std::string v;
  for (char c : value)
    v += char(std::tolower(static_cast<unsigned char>(c)));
  size_t n = std::strlen(token);
  for (size_t at = 0; (at = v.find(token, at)) != std::string::npos; at += n)
    if ((at == 0 || v[at - 1] == ',' || v[at - 1] == ' ') &&
        (at + n == v.size() || v[at + n] == ',' || v[at + n] == ' '))
      return true;
  return false;
}

} // namespace unum::runtime::sockets

#endif // UNUM_LIB_RUNTIME_SOCKETS_H
