//===- StateBuiltins.cpp - Wait and Fail states that read their input -----===//
//
// Errors of the state's own fields (a SecondsPath that is not a
// non-negative integer, an ErrorPath that is not a string) are
// "States.Runtime", as in Step Functions.
//
//===----------------------------------------------------------------------===//
#include "StateBuiltins.h"

#include "Paths.h"

#include "unum/Config/Timestamp.h"

#include <chrono>
#include <cmath>
#include <thread>

using namespace unum::runtime;
namespace config = unum::config;

namespace {

const char *const kRuntimeError = "States.Runtime";

/// A Wait state with Timestamp, SecondsPath or TimestampPath.
class WaitFor final : public Handler {
public:
  WaitFor(std::string key, std::string value, std::string state)
      : key(std::move(key)), value(std::move(value)), state(std::move(state)) {}

  HandlerResult call(const Value &input, Context &ctx) override {
    using namespace std::chrono;
    std::string timestamp = value;
    if (key == "SecondsPath" || key == "TimestampPath") {
      auto v = dataflow::evaluateField(value, input, ctx, state);
      if (!v)
        return HandlerResult::failure(key + ": " + v.getStatus().message(),
                                      kRuntimeError);
      if (key == "SecondsPath") {
        if (!v->isNumber() ||
            (v->isDouble() && v->getDouble() != std::floor(v->getDouble())) ||
            v->getNumber() < 0 || v->getNumber() > Context::kMaxWaitSeconds)
          return HandlerResult::failure(
              "SecondsPath '" + value +
                  "' must select a whole number of seconds from 0 to "
                  "31536000 (a year), not " +
                  toJson(*v),
              kRuntimeError);
        // Scaled like every wait (unum-run --time-scale).
        std::this_thread::sleep_for(
            duration<double>(v->getNumber() * ctx.timeScale));
        return HandlerResult::success(input);
      }
      if (!v->isString())
        return HandlerResult::failure("TimestampPath '" + value +
                                          "' must select a timestamp, not " +
                                          toJson(*v),
                                      kRuntimeError);
      timestamp = v->getString();
    }
    std::optional<config::Instant> until = config::parseTimestamp(timestamp);
    if (!until)
      return HandlerResult::failure(
          key + ": '" + timestamp +
              "' is not an RFC 3339 timestamp such as 2016-03-14T01:59:00Z",
          kRuntimeError);
    // In seconds first: a far timestamp would overflow the clock's
    // nanoseconds (and then not wait at all).
    double now =
        duration<double>(system_clock::now().time_since_epoch()).count();
    double left = double(until->seconds) - now + until->nanos * 1e-9;
    if (left > Context::kMaxWaitSeconds)
      return HandlerResult::failure(key + ": '" + timestamp +
                                        "' is more than a year away",
                                    kRuntimeError);
    // At once when it has passed; the time left is scaled like every wait.
    if (left > 0)
      std::this_thread::sleep_for(duration<double>(left * ctx.timeScale));
    return HandlerResult::success(input);
  }

private:
  std::string key, value;
  std::string state; // $$.State.Name, when not the function's name
};

/// A Fail state whose error or cause come from its input.
class FailWith final : public Handler {
public:
  FailWith(std::string error, bool errorIsPath, std::string cause,
           bool causeIsPath, std::string state)
      : error(std::move(error)), cause(std::move(cause)),
        state(std::move(state)), errorIsPath(errorIsPath),
        causeIsPath(causeIsPath) {}

  HandlerResult call(const Value &input, Context &ctx) override {
    std::string name = error, text = cause;
    for (auto [isPath, field, out] :
         {std::tuple{errorIsPath, "ErrorPath", &name},
          std::tuple{causeIsPath, "CausePath", &text}}) {
      if (!isPath)
        continue;
      auto v = dataflow::evaluateField(*out, input, ctx, state);
      if (!v)
        return HandlerResult::failure(
            std::string(field) + ": " + v.getStatus().message(), kRuntimeError);
      if (!v->isString())
        return HandlerResult::failure(std::string(field) + " '" + *out +
                                          "' must give a string, not " +
                                          toJson(*v),
                                      kRuntimeError);
      *out = v->getString();
    }
    return HandlerResult::failure(text, name);
  }

private:
  std::string error, cause;
  std::string state; // $$.State.Name, when not the function's name
  bool errorIsPath, causeIsPath;
};

} // namespace

std::shared_ptr<Handler>
unum::runtime::inputReadingBuiltin(const config::FunctionConfig &fn) {
  if (!fn.builtin || !fn.dataFlow)
    return nullptr;
  auto field = [&](const char *key) -> const config::Node * {
    return fn.dataFlow->find(key);
  };
  if (*fn.builtin == "Wait") {
    for (const char *key : {"Timestamp", "SecondsPath", "TimestampPath"})
      if (const config::Node *v = field(key))
        return std::make_shared<WaitFor>(key, v->text,
                                         std::string(dataflow::stateName(fn)));
    return nullptr;
  }
  if (*fn.builtin == "Fail" && (field("ErrorPath") || field("CausePath"))) {
    const config::Node *error = field("Error"), *errorPath = field("ErrorPath");
    const config::Node *cause = field("Cause"), *causePath = field("CausePath");
    return std::make_shared<FailWith>(errorPath ? errorPath->text
                                      : error   ? error->text
                                                : "States.Fail",
                                      errorPath != nullptr,
                                      causePath ? causePath->text
                                      : cause   ? cause->text
                                                : "",
                                      causePath != nullptr,
                                      std::string(dataflow::stateName(fn)));
  }
  return nullptr;
}
