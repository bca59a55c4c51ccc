//===- jsonpath.cpp - Fuzz the JSONPath parser and evaluator --------------===//
//
// Input: a rules byte (bit 0: reference paths only, bit 1: no `$$`), a path
// (or a `States.` call), and optionally a NUL and a JSON document. The
// parser must not crash; a parsed path is selected on the document (and on
// a context object), a reference path also stored into it, and `$$` paths
// are checked against the context the runtime gives: each gives a value or
// an error, never a crash or a hang.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "../../lib/Runtime/Paths.h"
#include "unum/Config/JsonPath.h"

using namespace unum;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  config::PathRules rules;
  rules.reference = data[0] & 1;
  rules.context = !(data[0] & 2);
  auto [text, docText] = fuzz::splitAtNul(fuzz::asText(data + 1, size - 1));

  runtime::Value doc = runtime::Value::object();
  if (!docText.empty())
    if (auto v = runtime::parseJsonValue(docText, "doc"))
      doc = v.take();
  static const runtime::Value context = *runtime::parseJsonValue(
      R"({"Execution": {"Id": "s1", "Name": "s1"},
          "State": {"Name": "S", "RetryCount": 0},
          "Map": {"Item": {"Index": 1, "Value": {"a": [1, 2]}}}})");

  config::ParseError error;
  auto parsed = config::parsePathOrCall(text, rules, error);
  if (!parsed)
    return 0;
  if (parsed->call) {
    (void)config::checkContextPaths(*parsed->call,
                                    config::ContextScope::ItemSelector);
    return 0;
  }
  const config::JsonPath &path = *parsed->path;
  (void)config::checkContextPaths(path, config::ContextScope::State);
  (void)runtime::paths::select(path, {doc, &context});
  if (rules.reference)
    (void)runtime::paths::store(doc, path, runtime::Value(int64_t(1)));
  return 0;
}
