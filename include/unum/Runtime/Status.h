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

/// One word: null when ok. A value type (copies are independent); not
/// synchronised.
class [[nodiscard]] Status {
public:
  enum class Code { Ok, Error, Crash };

  Status() = default;
  Status(const Status &other)
      : failure(other.failure ? copy(*other.failure) : nullptr) {}
  Status(Status &&other) noexcept : failure(other.failure) {
    other.failure = nullptr;
  }
  Status &operator=(Status other) noexcept {
    std::swap(failure, other.failure);
    return *this;
  }
  ~Status() {
    if (failure)
      release(failure);
  }

  static Status ok() { return Status(); }
  static Status error(std::string message) {
    return Status(make(Code::Error, std::move(message)));
  }
  static Status crash(std::string message) {
    return Status(make(Code::Crash, std::move(message)));
  }
  /// A Step Functions error of a step (States.ParameterPathFailure, ...):
  /// an Error whose name Retry and Catch match like a handler's error; the
  /// message is the cause.
  static Status named(std::string name, std::string cause) {
    Status s = error(std::move(cause));
    s.failure->name = std::move(name);
    return s;
  }

  bool isOk() const { return !failure; }
  bool isCrash() const { return failure && failure->code == Code::Crash; }
  explicit operator bool() const { return isOk(); }
  Code getCode() const { return failure ? failure->code : Code::Ok; }
  const std::string &message() const;
  /// The error's name if it was made by named(), else empty.
  const std::string &errorName() const;

  /// Prefixes the message with context ("reading checkpoint X: ...").
  Status withContext(const std::string &context) const;

private:
  // Ok is a null pointer: a Status is one word, and passing, testing and
  // destroying an ok one costs no call. Failures are built out of line and
  // marked cold, so the paths that build them move out of the hot code.
  struct Failure {
    Code code;
    std::string message;
    std::string name = {}; // named(): a Step Functions error name
  };
  explicit Status(Failure *f) : failure(f) {}
  [[gnu::cold, gnu::noinline]] static Failure *make(Code code,
                                                    std::string message);
  [[gnu::cold, gnu::noinline]] static Failure *copy(const Failure &f);
  [[gnu::cold, gnu::noinline]] static void release(Failure *f);
  Failure *failure = nullptr;
};

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
