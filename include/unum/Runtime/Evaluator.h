//===- Evaluator.h - The safe evaluator of the config grammar ---*- C++ -*-===//
//
// Conditionals, fan-in `Values` patterns and payload modifiers are evaluated
// over the config library's parsed AST (unum/Config/Expr.h): a tree walk over
// JSON values with bounded depth and bounded results, never a shell or an
// interpreter. All three see the instance's own fan-out levels, before its
// payload modifiers apply (modifiers then rewrite what is passed on).
//
// Semantics: numbers are 64-bit integers (overflow is an error) or doubles;
// `/` gives an integer when the division is exact and a double otherwise;
// `%` takes integers and follows the sign of the divisor; comparisons take two
// numbers, two strings, or (== and !=) any two values; `and`, `or`, `not` take
// booleans and short-circuit; `$out.f` and `$out[e]` fail on a missing member.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_RUNTIME_EVALUATOR_H
#define UNUM_RUNTIME_EVALUATOR_H

#include "unum/Config/Expr.h"
#include "unum/Config/Limits.h"
#include "unum/Runtime/Payload.h"
#include "unum/Runtime/Value.h"

#include <string>
#include <string_view>
#include <vector>

namespace unum::runtime {

/// Largest number of instances one fan-in may name.
constexpr size_t kMaxFanInInstances = limits::kMaxFanInInstances;
/// Deepest expression tree the evaluator walks: the parser's limit, so that
/// what compiles evaluates.
constexpr unsigned kMaxEvalDepth = limits::kMaxExprDepth;

/// What `$out`, `$0`..`$31`, `$size` and `$ctx` refer to.
struct EvalEnv {
  const Value *output = nullptr;                    // nullptr: $out is an error
  const std::vector<FanOutLevel> *fanout = nullptr; // innermost first
  const Value *context = nullptr;                   // nullptr: $ctx is an error
};

Result<Value> evaluate(const config::Expr &expr, const EvalEnv &env);

/// The conditional language's `matches` (ASL StringMatches): `*` matches
/// any run of characters, `\*` a star, `\\` a backslash (a backslash before
/// any other character is that character). O(|s| + |pattern|) time and
/// O(|pattern|) memory: the pattern's literal runs between stars are found
/// leftmost-first, each with a linear search.
bool globMatch(std::string_view s, std::string_view pattern);

/// A conditional must evaluate to a boolean.
Result<bool> evaluateCondition(const config::Expression &cond,
                               const EvalEnv &env);

/// A fan-in `Values` list resolved against one tail's indices. Every tail of
/// the same fan-in resolves to the same `key` (which identifies the
/// completion set) and `count`, in O(number of patterns); only the completer
/// expands the full ordered list of instance names.
struct FanInValues {
  struct Part {
    bool wildcard = false;
    int64_t value = 0; // fixed index, or the wildcard's range size
  };
  struct Pattern {
    std::string function;
    std::vector<Part> parts; // innermost first
  };
  std::vector<Pattern> patterns;
  size_t count = 0;
  std::string key; // canonical text, e.g. "A-unumIndex-*[3],B-unumIndex-1"

  /// True if `instance` is one of the named instances.
  bool contains(const std::string &instance) const;
  /// The ordered instance names (patterns in order; a pattern's wildcards
  /// vary innermost fastest).
  std::vector<std::string> expand() const;
};

Result<FanInValues> resolveFanIn(const std::vector<config::NamePattern> &values,
                                 const EvalEnv &env);

/// Applies `Pop`, `$k = e` and `$size = e` in order. Each right-hand side sees
/// the levels as modified so far. `Pop` on no level is a no-op, as in the
/// original runtime.
Result<std::vector<FanOutLevel>>
applyModifiers(const std::vector<config::Modifier> &modifiers,
               std::vector<FanOutLevel> fanout, const Value *output);

} // namespace unum::runtime

#endif // UNUM_RUNTIME_EVALUATOR_H
