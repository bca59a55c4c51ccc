//===- dataflow.cpp - Fuzz data flow and the intrinsic functions ----------===//
//
// Input: a selector byte, then
//  * even: a field value as a `.$` key takes it (a path, a context path or a
//    `States.` intrinsic call), a NUL, and a JSON input: evaluated as the
//    runtime evaluates Parameters' fields;
//  * odd: a JSON object {"Config": <unum config with "DataFlow">, "Input":
//    <effective input>, "Result": <user code's result>}: the config is
//    decoded into an App, and DataFlow applies InputPath/Parameters, then
//    ResultSelector/ResultPath/OutputPath, then every Map edge's
//    ItemsPath/ItemSelector.
// Each step gives a value or an error, never a crash or a hang.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "../../lib/Runtime/Paths.h"
#include "unum/Runtime/App.h"
#include "unum/Runtime/Runtime.h"

using namespace unum;
using namespace unum::runtime;

static void fuzzConfig(std::string_view text) {
  auto doc = parseJsonValue(text, "fuzz");
  if (!doc || !doc->isObject())
    return;
  const Value *config = doc->find("Config");
  if (!config)
    return;
  auto app = App::fromJson({toJson(*config)});
  if (!app || app->functions().empty())
    return;
  const FunctionSpec &fn = app->functions().begin()->second;
  static const Value empty = Value::object();
  const Value *input = doc->find("Input");
  const Value *result = doc->find("Result");
  Context ctx;
  ctx.function = fn.config.name;
  ctx.instance = fn.config.name;
  ctx.session = "fuzz-session";
  ctx.fanout.resize(1);
  ctx.fanout[0].index = 1;
  ctx.fanout[0].size = 3;
  DataFlow flow;
  auto in = flow.input(fn, input ? *input : empty, ctx);
  if (!in)
    return;
  auto out =
      flow.output(fn, input ? *input : empty, result ? *result : *in, ctx);
  if (!out)
    return;
  for (const config::Edge &edge : fn.config.next)
    if (edge.kind == config::EdgeKind::Map)
      (void)flow.items(fn, edge, *out, ctx);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::string_view text = fuzz::asText(data + 1, size - 1);
  if (data[0] & 1)
    return fuzzConfig(text), 0;
  auto [field, inputText] = fuzz::splitAtNul(text);
  Value input = Value::object();
  if (!inputText.empty())
    if (auto v = parseJsonValue(inputText, "input"))
      input = v.take();
  Context ctx;
  ctx.function = "F";
  ctx.instance = "F-unumIndex-1";
  ctx.session = "fuzz-session";
  (void)dataflow::evaluateField(std::string(field), input, ctx);
  return 0;
}
