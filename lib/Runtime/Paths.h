//===- Paths.h - Evaluating JSONPath on values ------------------*- C++ -*-===//
//
// Internal to the runtime library: evaluates the paths that
// unum/Config/JsonPath.h parses (the same AST the ASL importer checked) on
// runtime values. DataFlow.cpp and Intrinsics.cpp use it.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_RUNTIME_PATHS_H
#define UNUM_LIB_RUNTIME_PATHS_H

#include "unum/Config/FunctionConfig.h"
#include "unum/Config/JsonPath.h"
#include "unum/Runtime/Status.h"
#include "unum/Runtime/Value.h"

namespace unum::runtime::paths {

/// Where a path's roots point: `$` at `input`, `$$` at `context` (nullptr:
/// a `$$` path is an error).
struct Roots {
  const Value &input;
  const Value *context = nullptr;
};

/// What `path` selects. A definite path (a reference path, negative indices
/// allowed) gives its value, and an error when it selects nothing; any other
/// path gives the array of the values it selects, in document order (empty
/// when it selects nothing). Errors quote the path.
Result<Value> select(const config::JsonPath &path, const Roots &roots);

/// `target` with `value` stored where the reference path `path` points, as
/// ResultPath does: missing members are created (with objects on the way),
/// existing ones replaced; an array index must exist. An error when the
/// path runs into a value that is not an object (or array, for an index).
Result<Value> store(Value target, const config::JsonPath &path, Value value);

/// The value of a literal written in a filter or an intrinsic call.
Value literalValue(const config::Literal &literal);

/// Parses `text` (a path under `rules`); errors say where.
Result<config::JsonPath> parse(const std::string &text,
                               config::PathRules rules);

} // namespace unum::runtime::paths

namespace unum::runtime {
struct Context;
namespace dataflow {
/// The value of a path field that takes a path, a context path or an
/// intrinsic call (a `.$` template value, Fail's ErrorPath and CausePath),
/// evaluated on `input` (DataFlow.cpp), in the ASL state `stateName`
/// (empty: the function's name).
Result<Value> evaluateField(const std::string &text, const Value &input,
                            const Context &ctx,
                            std::string_view stateName = {});
/// A function's ASL state name for $$.State.Name ("StateName"), or empty
/// when it is the function's own.
std::string_view stateName(const config::FunctionConfig &config);
/// The context object (`$$`) of an instance running the ASL state
/// `stateName` (empty: the function's name), without the Map item;
/// $$.State.EnteredTime only when `entered` (reading it fixes it: a store
/// write the first time, StateEntry.h).
Result<Value> contextObject(const Context &ctx, std::string_view stateName,
                            bool entered);
} // namespace dataflow
} // namespace unum::runtime

#endif // UNUM_LIB_RUNTIME_PATHS_H
