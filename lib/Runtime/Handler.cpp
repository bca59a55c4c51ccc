//===- Handler.cpp - In-process and builtin handlers ----------------------===//

#include "unum/Runtime/Handler.h"
#include "HotPath.h"
#include "StateBuiltins.h"

#include "unum/Config/Limits.h"

#include <charconv>

#include <algorithm>
#include <chrono>
#include <regex>
#include <thread>

using namespace unum::runtime;
namespace config = unum::config;

Handler::~Handler() = default;

namespace {
class FunctionHandler final : public Handler {
public:
  explicit FunctionHandler(HandlerFn fn) : fn(std::move(fn)) {}
  UNUM_HOT HandlerResult call(const Value &input, Context &ctx) override {
    return fn(input, ctx);
  }

private:
  HandlerFn fn;
};

class PassThrough final : public Handler {
public:
  HandlerResult call(const Value &input, Context &) override {
    return HandlerResult::success(input);
  }
};

/// A Pass state with a Result: its output is the Result, whatever the input.
class Constant final : public Handler {
public:
  explicit Constant(Value result) : result(std::move(result)) {}
  HandlerResult call(const Value &, Context &) override {
    return HandlerResult::success(result);
  }

private:
  Value result;
};

/// A Wait state with Seconds: delays, then passes the input on.
class Delay final : public Handler {
public:
  explicit Delay(int64_t seconds) : seconds(seconds) {}
  HandlerResult call(const Value &input, Context &ctx) override {
    std::this_thread::sleep_for(
        std::chrono::duration<double>(double(seconds) * ctx.timeScale));
    return HandlerResult::success(input);
  }

private:
  int64_t seconds;
};

/// A Fail state: ends the branch with its Error and Cause.
class Fail final : public Handler {
public:
  Fail(std::string error, std::string cause)
      : error(std::move(error)), cause(std::move(cause)) {}
  HandlerResult call(const Value &, Context &) override {
    return HandlerResult::failure(cause, error);
  }

private:
  std::string error, cause;
};

/// The built-in behaviour of a `"Builtin"` function, or null when its
/// DataFlow asks for more than this runtime implements (JSONPath fields).
std::shared_ptr<Handler> builtinFor(const config::FunctionConfig &config) {
  std::vector<std::string> fields;
  if (config.dataFlow)
    for (const config::Node::Member &m : config.dataFlow->members)
      // These only feed the context object ($$.State.Name, $$.Execution).
      if (m.key != "StateName" && m.key != "ExecutionContext")
        fields.push_back(m.key);
  auto only = [&](std::initializer_list<const char *> allowed) {
    for (const std::string &f : fields)
      if (std::find(allowed.begin(), allowed.end(), f) == allowed.end())
        return false;
    return true;
  };
  auto field = [&](const char *key) -> const config::Node * {
    return config.dataFlow ? config.dataFlow->find(key) : nullptr;
  };
  const std::string &kind = *config.builtin;
  // InputPath, Parameters, ResultPath and OutputPath are applied around
  // every function by the runtime's DataFlow; the built-in is the middle.
  const std::initializer_list<const char *> paths = {
      "InputPath", "Parameters", "ResultPath", "OutputPath"};
  if (kind == "Succeed" && only(paths))
    return std::make_shared<PassThrough>();
  if (kind == "Pass" && only(paths) && !field("Result"))
    return std::make_shared<PassThrough>();
  if (kind == "Pass" &&
      only({"Result", "InputPath", "Parameters", "ResultPath", "OutputPath"}))
    return std::make_shared<Constant>(valueOf(*field("Result")));
  if (kind == "Wait" && only({"Seconds", "InputPath", "OutputPath"}) &&
      field("Seconds") && field("Seconds")->isInteger()) {
    // The config decoder bounds Seconds to 0..kMaxWaitSeconds; parsed
    // without exceptions all the same.
    const std::string &text = field("Seconds")->text;
    int64_t seconds = -1;
    auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (ec != std::errc() || end != text.data() + text.size() || seconds < 0 ||
        seconds > unum::limits::kMaxWaitSeconds)
      return nullptr;
    return std::make_shared<Delay>(seconds);
  }
  if (kind == "Fail" && only({"Error", "Cause"})) {
    const config::Node *error = field("Error");
    const config::Node *cause = field("Cause");
    return std::make_shared<Fail>(error ? error->text : "States.Fail",
                                  cause ? cause->text : "");
  }
  return nullptr;
}
} // namespace

std::shared_ptr<Handler> unum::runtime::makeFunctionHandler(HandlerFn fn) {
  return std::make_shared<FunctionHandler>(std::move(fn));
}

std::shared_ptr<Handler>
unum::runtime::builtinHandler(const config::FunctionConfig &config) {
  if (auto handler = inputReadingBuiltin(config))
    return handler;
  if (config.builtin)
    return builtinFor(config);
  static const std::regex helper("Unum(Sink)?(Map|Parallel)[0-9]+");
  if (std::regex_match(config.name, helper))
    return std::make_shared<PassThrough>();
  return nullptr;
}
