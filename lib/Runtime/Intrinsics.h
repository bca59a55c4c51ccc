//===- Intrinsics.h - Step Functions intrinsic functions --------*- C++ -*-===//
//
// Internal to the runtime library: the evaluator of the intrinsic function
// calls (`States.Format('{} is {}', $.a, $.b)`) that a Parameters,
// ResultSelector or ItemSelector key ending in `.$` may hold. DataFlow.cpp
// calls it and supplies the JSONPath arguments' values; everything else
// (the call syntax, argument checks, the functions, their limits) is here.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_RUNTIME_INTRINSICS_H
#define UNUM_LIB_RUNTIME_INTRINSICS_H

#include "unum/Config/JsonPath.h"
#include "unum/Config/Limits.h"
#include "unum/Runtime/Status.h"
#include "unum/Runtime/Value.h"

#include <functional>
#include <string>
#include <string_view>

namespace unum::runtime::intrinsics {

/// Calls nested deeper than this are refused (Step Functions allows 10); the
/// parser in unum/Config/JsonPath.h enforces it at compile and run time.
constexpr unsigned kMaxNesting = config::kMaxIntrinsicNesting;
/// The limits of the functions' arguments and results (unum/Config/Limits.h).
constexpr size_t kMaxText = limits::kMaxIntrinsicText;
constexpr size_t kMaxCodecInput = limits::kMaxCodecInput;
constexpr size_t kMaxRange = limits::kMaxArrayRange;

/// Gives a JSONPath argument's value: `$...` from the template's input,
/// `$$...` from the context object.
using PathResolver = std::function<Result<Value>(const config::JsonPath &path)>;

/// Whether a `.$` value is written as an intrinsic function call.
inline bool isCall(std::string_view text) {
  return config::isIntrinsicCall(text);
}

/// Evaluates a parsed call (unum/Config/JsonPath.h). Errors name the
/// intrinsic and the argument ("States.ArrayPartition: argument 2 (chunk
/// size) must be a positive integer, not 0").
Result<Value> evaluate(const config::Call &call, const PathResolver &resolve);

/// Parses and evaluates the call `text`. Errors name the intrinsic and the
/// argument ("States.ArrayPartition: argument 2 (chunk size) must be a
/// positive integer, not 0"), or the character a syntax error is at.
Result<Value> evaluate(std::string_view text, const PathResolver &resolve);

/// Base64 with the standard alphabet and padding.
std::string base64Encode(std::string_view bytes);
/// The bytes of standard Base64 (padding optional); an error names the
/// first offending character.
Result<std::string> base64Decode(std::string_view text);

} // namespace unum::runtime::intrinsics

#endif // UNUM_LIB_RUNTIME_INTRINSICS_H
