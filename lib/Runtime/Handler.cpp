//===- Handler.cpp - In-process and builtin handlers ----------------------===//

#include "unum/Runtime/Handler.h"

#include <regex>

using namespace unum::runtime;
namespace config = unum::config;

Handler::~Handler() = default;

namespace {
class FunctionHandler final : public Handler {
public:
  explicit FunctionHandler(HandlerFn fn) : fn(std::move(fn)) {}
  HandlerResult call(const Value &input, Context &ctx) override {
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
} // namespace

std::shared_ptr<Handler> unum::runtime::makeFunctionHandler(HandlerFn fn) {
  return std::make_shared<FunctionHandler>(std::move(fn));
}

std::shared_ptr<Handler>
unum::runtime::builtinHandler(const config::FunctionConfig &config) {
  if (config.builtin)
    return nullptr; // Pass/Wait/Succeed/Fail: not implemented yet
  static const std::regex helper("Unum(Sink)?(Map|Parallel)[0-9]+");
  if (std::regex_match(config.name, helper))
    return std::make_shared<PassThrough>();
  return nullptr;
}
