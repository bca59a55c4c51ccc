//===- Status.h - Errors as return values -----------------------*- C++ -*-===//
//
// The runtime reports failures as values, never by throwing across library
// boundaries. A Status is either ok, an error with a message, or a crash: an
// injected (or real) process death at a step boundary that the platform
// answers by delivering the same payload again.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_RUNTIME_STATUS_H
#define UNUM_RUNTIME_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace unum::runtime {

class [[nodiscard]] Status {
public:
  enum class Code { Ok, Error, Crash };

  Status() = default;
  static Status ok() { return Status(); }
  static Status error(std::string message) {
    return Status(Code::Error, std::move(message));
  }
  static Status crash(std::string message) {
    return Status(Code::Crash, std::move(message));
  }

  bool isOk() const { return code == Code::Ok; }
  bool isCrash() const { return code == Code::Crash; }
  explicit operator bool() const { return isOk(); }
  Code getCode() const { return code; }
  const std::string &message() const { return msg; }

  /// Prefixes the message with context ("reading checkpoint X: ...").
  Status withContext(const std::string &context) const {
    if (isOk())
      return *this;
    return Status(code, context + ": " + msg);
  }

private:
  Status(Code code, std::string msg) : code(code), msg(std::move(msg)) {}
  Code code = Code::Ok;
  std::string msg;
};

/// A value or a failed Status.
template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : value(std::move(value)) {}
  Result(Status status) : status(std::move(status)) {
    assert(!this->status.isOk() && "a Result needs a value or an error");
  }

  bool isOk() const { return value.has_value(); }
  explicit operator bool() const { return isOk(); }
  const Status &getStatus() const { return status; }
  T &operator*() { return *value; }
  const T &operator*() const { return *value; }
  T *operator->() { return &*value; }
  const T *operator->() const { return &*value; }
  T take() { return std::move(*value); }

private:
  std::optional<T> value;
  Status status;
};

} // namespace unum::runtime

#endif // UNUM_RUNTIME_STATUS_H
