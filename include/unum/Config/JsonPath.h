//===- JsonPath.h - JSONPath, reference paths, intrinsic calls --*- C++ -*-===//
//
// The path languages of Amazon States Language, parsed once into an AST that
// the ASL importer checks (located errors inside the string) and the runtime
// evaluates (DataFlow.cpp, Intrinsics.cpp). One grammar, one set of limits:
// what `unumc` accepts the runtime can evaluate.
//
//   path       := root segment*
//   root       := '$' | '$$' (the context object) | '@' (in filters)
//   segment    := '.' name | '.' '*' | '..' name | '..' '*' | '..' bracket
//               | bracket
//   bracket    := '[' selector (',' selector)* ']'     (a union if several)
//   selector   := index | slice | '*' | quoted | '?(' filter ')'
//   index      := '-'? digits           slice := index? ':' index? (':'
//   index?)? quoted     := "'" chars "'" | '"' chars '"'   (backslash escapes
//   the quote
//                                                  and itself)
//   filter     := or;  or := and ('||' and)*;  and := not ('&&' not)*
//   not        := '!' not | '(' filter ')' | operand (cmp operand)?
//   cmp        := '==' | '!=' | '<' | '<=' | '>' | '>='
//   operand    := '@' segment* | '$' segment* | number | quoted | true
//               | false | null
//
// A reference path (ResultPath, Choice Variable, Wait/Fail paths) has only
// `.name`, `['name']` and `[index]` segments and selects one value.
//
//   call       := 'States.' Name '(' [arg (',' arg)*] ')'
//   arg        := call | "'" string "'" | number | true | false | null | path
//
// In a call's string literal `\'`, `\{`, `\}` and `\\` are the escapes; an
// unescaped `{}` is a States.Format placeholder.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_CONFIG_JSONPATH_H
#define UNUM_CONFIG_JSONPATH_H

#include "unum/Config/Expr.h"
#include "unum/Config/Limits.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace unum::config {

/// Limits: the same numbers at compile time and at run time (Limits.h).
using limits::kMaxIntrinsicNesting;
using limits::kMaxPathMatches;
using limits::kMaxPathNesting;
using limits::kMaxPathText;

/// A JSON scalar written in a filter or an intrinsic call.
struct Literal {
  enum class Kind { Null, Bool, Int, Double, String };
  Kind kind = Kind::Null;
  bool boolValue = false;
  int64_t intValue = 0;
  double doubleValue = 0;
  std::string text; // String: unescaped
  /// States.Format: offsets in `text` of unescaped `{}` placeholders.
  std::vector<size_t> holes;
};

struct Filter;
using FilterPtr = std::shared_ptr<const Filter>;

/// One selector of a bracket (or a dot segment).
struct Selector {
  enum class Kind { Member, Index, Wildcard, Slice, Filter };
  Kind kind = Kind::Member;
  std::string name;                  // Member
  int64_t index = 0;                 // Index (negative: from the end)
  std::optional<int64_t> start, end; // Slice
  int64_t step = 1;                  // Slice (never 0)
  FilterPtr filter;                  // Filter
};

/// `.name`, `[...]`, or either after `..`.
struct Segment {
  bool descendant = false;         // reached through '..'
  std::vector<Selector> selectors; // several: a union
  unsigned offset = 0;             // where the segment starts in the text
};

struct JsonPath {
  enum class Root { Input, Context, Current }; // $, $$, @
  Root root = Root::Input;
  std::vector<Segment> segments;
  std::string text;

  /// Only `.name`, `['name']` and `[index >= 0]`: selects at most one value.
  bool isReference() const;
  /// Selects at most one value (a reference path, negative indices allowed);
  /// otherwise the result is the array of what it selects.
  bool isDefinite() const;
};

/// A filter expression `?(...)`.
struct Filter {
  enum class Kind { Path, Literal, Not, And, Or, Compare };
  enum class Op { Eq, Ne, Lt, Le, Gt, Ge };
  Kind kind = Kind::Literal;
  Op op = Op::Eq;
  JsonPath path;         // Path
  config::Literal value; // Literal
  FilterPtr lhs, rhs;    // Not: lhs; And/Or/Compare: lhs, rhs
};

/// The intrinsic functions of Step Functions.
enum class Intrinsic {
  Format,
  StringToJson,
  JsonToString,
  Array,
  ArrayPartition,
  ArrayContains,
  ArrayRange,
  ArrayGetItem,
  ArrayLength,
  ArrayUnique,
  Base64Encode,
  Base64Decode,
  Hash,
  JsonMerge,
  MathRandom,
  MathAdd,
  StringSplit,
  UUID,
};

constexpr size_t kVariadic = ~size_t(0);

struct IntrinsicSignature {
  const char *name; // without "States."
  Intrinsic fn;
  size_t min, max;
  /// What each argument is, for messages; the last one repeats.
  std::vector<const char *> roles;
};

/// Every intrinsic function; nullptr for an unknown name.
const std::vector<IntrinsicSignature> &intrinsicSignatures();
const IntrinsicSignature *findIntrinsic(std::string_view name);
/// "takes 2 arguments (array, chunk size)".
std::string intrinsicArity(const IntrinsicSignature &sig);

struct Call;
using CallPtr = std::shared_ptr<const Call>;

struct CallArg {
  enum class Kind { Literal, Path, Call };
  Kind kind = Kind::Literal;
  config::Literal value; // Literal
  JsonPath path;         // Path
  CallPtr call;          // Call
  unsigned offset = 0;
};

struct Call {
  const IntrinsicSignature *sig = nullptr;
  std::vector<CallArg> args;
  unsigned offset = 0;
};

/// What a path field may hold.
struct PathRules {
  bool reference = false; // a reference path only
  bool context = true;    // `$$...` allowed
};

/// The value of a payload template key ending in `.$`, or of a path field
/// that also takes an intrinsic call (Fail ErrorPath/CausePath).
struct PathOrCall {
  std::optional<JsonPath> path;
  CallPtr call;
  std::string text;
};

/// Whether a `.$` value is written as an intrinsic function call.
inline bool isIntrinsicCall(std::string_view text) {
  return text.rfind("States.", 0) == 0;
}

/// Parsers. On failure they return std::nullopt and fill `error` with the
/// offset of the offending character in `text`.
std::optional<JsonPath> parseJsonPath(std::string_view text, PathRules rules,
                                      ParseError &error);
CallPtr parseIntrinsicCall(std::string_view text, ParseError &error);
/// A path (under `rules`) or, when it starts with `States.`, a call.
std::optional<PathOrCall> parsePathOrCall(std::string_view text,
                                          PathRules rules, ParseError &error);

/// Where a context path is read, for what the context object holds there.
/// In a Choice rule it is read after the state's checkpoint, on every
/// delivery: only the fields that cannot change are there (not
/// $$.State.EnteredTime).
enum class ContextScope { State, ItemSelector, Choice };

/// The context object fields the runtime gives (for messages).
extern const char *const kContextFields;

/// Checks every `$$` path in `path` (filters included) against the context
/// object the runtime builds: nullopt when it can give them all, otherwise
/// the reason, e.g. "'$$.Execution.StartTime' is not available in this
/// runtime (it has ...)". The importer refuses what this refuses.
std::optional<ParseError> checkContextPaths(const JsonPath &path,
                                            ContextScope scope);
std::optional<ParseError> checkContextPaths(const Call &call,
                                            ContextScope scope);

} // namespace unum::config

#endif // UNUM_CONFIG_JSONPATH_H
