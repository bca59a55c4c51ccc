//===- Expr.h - Conditionals, name patterns and payload modifiers -*- C++
//-*-===//
//
// The three small languages embedded in a Unum config, parsed once into an
// immutable AST that the dialect (attributes), the verifier and the runtime's
// evaluator all share:
//
//   conditional   $out.items[0] > 50 and $0 < $size - 1
//   name pattern  Reducer-unumIndex-*      F-unumIndex-($0-1).$1
//   modifier      Pop      $0 = $0 + 1      $size = $size - 1
//
// Spelling: the JSON format writes the output variable `$ret` and the index
// infix `-unumIndex-`; the YAML format writes `$out` and `-UnumIndex-`. Both
// are accepted everywhere. Parsed values keep their source text in canonical
// spelling (`$out`, `-unumIndex-`; same lengths, so offsets stay valid) and
// `spell()` substitutes a format's spelling back, token-exactly.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_CONFIG_EXPR_H
#define UNUM_CONFIG_EXPR_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace unum::config {

/// Fan-out index variables are $0..$31 (kMaxIndexVariables of them): one per
/// nesting level of fan-outs, as deep as the runtime's payloads go.
constexpr unsigned kMaxIndexVariables = 32;

/// Which file format's spelling to use when printing.
enum class Spelling { Canonical, Json, Yaml };

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

/// One node of an expression tree. Immutable once built.
struct Expr {
  enum class Kind {
    Int,    // intValue
    Float,  // floatValue
    String, // text (unescaped)
    Bool,   // boolValue
    Null,
    Output,    // $out / $ret: the function's return value
    Context,   // $ctx: the Step Functions context object of the state whose
               // edges these are (a Choice rule's `$$` Variable)
    Index,     // $0..$31: fan-out index at depth `index` (0 = innermost)
    Size,      // $size: innermost fan-out size
    Field,     // lhs.text
    Subscript, // lhs[rhs]
    Unary,     // op lhs       (Neg, Not)
    Binary,    // lhs op rhs
    Call,      // text(lhs[, rhs]): a type test of Step Functions Choice rules:
               // is_present, is_null, is_numeric, is_string, is_boolean,
               // is_timestamp (one argument), matches (value, 'glob*'),
               // instant (an RFC 3339 timestamp, as the instant it denotes)
  };
  enum class Op {
    None,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Not,
    Neg
  };

  Kind kind = Kind::Null;
  Op op = Op::None;
  int64_t intValue = 0;
  double floatValue = 0;
  bool boolValue = false;
  unsigned index = 0;
  std::string text;
  ExprPtr lhs, rhs;
  /// 0-based offset of the node's first character in the parsed text.
  unsigned offset = 0;
};

/// Where a parse failed: a 0-based offset into the parsed text.
struct ParseError {
  unsigned offset = 0;
  std::string message;
};

/// A conditional or the right-hand side of a modifier.
struct Expression {
  std::string text; // canonical spelling, otherwise the source text verbatim
  ExprPtr root;
};

/// One dot-separated component of a name pattern's index.
struct IndexPart {
  enum class Kind { Constant, Variable, Wildcard, Arithmetic };
  Kind kind = Kind::Constant;
  int64_t value = 0;   // Constant
  unsigned var = 0;    // Variable: $var
  ExprPtr expr;        // Arithmetic: the expression inside the parentheses
  unsigned offset = 0; // 0-based offset of the part in the pattern text
};

/// A fan-in `Values` entry: `<function>` or `<function>-unumIndex-<i>.<j>...`
/// (innermost index first).
struct NamePattern {
  std::string text; // canonical spelling
  std::string function;
  std::vector<IndexPart> parts;
};

/// A payload modifier: `Pop`, `$k = expr` or `$size = expr`.
struct Modifier {
  enum class Kind { Pop, AssignIndex, AssignSize };
  Kind kind = Kind::Pop;
  unsigned var = 0; // AssignIndex: $var
  Expression value; // Assign*: right-hand side (text is the RHS only)
  std::string text; // the whole modifier, canonical spelling
};

/// Parsers. On failure they return std::nullopt and fill `error`.
std::optional<Expression> parseConditional(std::string_view text,
                                           ParseError &error);
std::optional<NamePattern> parseNamePattern(std::string_view text,
                                            ParseError &error);
std::optional<Modifier> parseModifier(std::string_view text, ParseError &error);

/// The text in the given format's spelling.
std::string spell(const Expression &expr, Spelling spelling);
std::string spell(const NamePattern &pattern, Spelling spelling);
std::string spell(const Modifier &modifier, Spelling spelling);

/// Equality and ordering are by canonical text.
inline bool operator==(const Expression &a, const Expression &b) {
  return a.text == b.text;
}
inline bool operator==(const NamePattern &a, const NamePattern &b) {
  return a.text == b.text;
}
inline bool operator==(const Modifier &a, const Modifier &b) {
  return a.text == b.text;
}

/// True if the expression reads the function's output ($out / $ret).
bool readsOutput(const Expr &expr);
/// True if the expression reads the context object ($ctx).
bool readsContext(const Expr &expr);

/// Fan-in consistency. Every tail of a fan-in evaluates its `Values` list with
/// its own fan-out index; tails at different indices name the same instances
/// when their lists differ only by a constant shift of the same index
/// variable (ExCamera: `[vpxenc-$0, xcdec-($0-1)]` from vpxenc equals
/// `[vpxenc-($0+1), xcdec-$0]` from xcdec one index lower). Returns true if the
/// two lists denote the same instances, in the same order, for some shift.
bool sameInstancesUpToShift(const std::vector<NamePattern> &a,
                            const std::vector<NamePattern> &b);

/// A key that is equal for two lists when sameInstancesUpToShift holds of
/// them (so lists can be grouped by hashing; the groups are then confirmed
/// with sameInstancesUpToShift, which also refuses shifts that overflow).
std::string instancesKey(const std::vector<NamePattern> &patterns);

} // namespace unum::config

#endif // UNUM_CONFIG_EXPR_H
