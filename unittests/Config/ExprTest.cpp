//===- ExprTest.cpp - Conditionals, name patterns, modifiers --------------===//

#include "unum/Config/Expr.h"
#include "unum/Config/Limits.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace unum::config;

namespace {

const char *opName(Expr::Op op) {
  switch (op) {
  case Expr::Op::Add:
    return "+";
  case Expr::Op::Sub:
    return "-";
  case Expr::Op::Mul:
    return "*";
  case Expr::Op::Div:
    return "/";
  case Expr::Op::Mod:
    return "%";
  case Expr::Op::Eq:
    return "==";
  case Expr::Op::Ne:
    return "!=";
  case Expr::Op::Lt:
    return "<";
  case Expr::Op::Le:
    return "<=";
  case Expr::Op::Gt:
    return ">";
  case Expr::Op::Ge:
    return ">=";
  case Expr::Op::And:
    return "and";
  case Expr::Op::Or:
    return "or";
  case Expr::Op::Not:
    return "not";
  case Expr::Op::Neg:
    return "neg";
  case Expr::Op::None:
    return "?";
  }
  return "?";
}

/// The tree as an S-expression, to check structure and precedence.
std::string show(const Expr &e) {
  std::ostringstream out;
  switch (e.kind) {
  case Expr::Kind::Int:
    out << e.intValue;
    break;
  case Expr::Kind::Float:
    out << e.floatValue;
    break;
  case Expr::Kind::String:
    out << "'" << e.text << "'";
    break;
  case Expr::Kind::Bool:
    out << (e.boolValue ? "true" : "false");
    break;
  case Expr::Kind::Null:
    out << "null";
    break;
  case Expr::Kind::Output:
    out << "$out";
    break;
  case Expr::Kind::Context:
    out << "$ctx";
    break;
  case Expr::Kind::Index:
    out << "$" << e.index;
    break;
  case Expr::Kind::Size:
    out << "$size";
    break;
  case Expr::Kind::Field:
    out << "(. " << show(*e.lhs) << " " << e.text << ")";
    break;
  case Expr::Kind::Subscript:
    out << "([] " << show(*e.lhs) << " " << show(*e.rhs) << ")";
    break;
  case Expr::Kind::Unary:
    out << "(" << opName(e.op) << " " << show(*e.lhs) << ")";
    break;
  case Expr::Kind::Binary:
    out << "(" << opName(e.op) << " " << show(*e.lhs) << " " << show(*e.rhs)
        << ")";
    break;
  case Expr::Kind::Call:
    out << "(" << e.text << " " << show(*e.lhs);
    if (e.rhs)
      out << " " << show(*e.rhs);
    out << ")";
    break;
  }
  return out.str();
}

Expression parseOk(std::string_view text) {
  ParseError error;
  std::optional<Expression> expr = parseConditional(text, error);
  EXPECT_TRUE(expr.has_value())
      << "'" << text << "': " << error.offset << ": " << error.message;
  return expr ? *expr : Expression();
}

std::string showParsed(std::string_view text) {
  Expression expr = parseOk(text);
  return expr.root ? show(*expr.root) : "<error>";
}

//===----------------------------------------------------------------------===//
// Conditionals
//===----------------------------------------------------------------------===//

struct ShowCase {
  const char *text;
  const char *tree;
};

class ConditionalTreeTest : public ::testing::TestWithParam<ShowCase> {};

TEST_P(ConditionalTreeTest, Parses) {
  EXPECT_EQ(showParsed(GetParam().text), GetParam().tree) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Precedence, ConditionalTreeTest,
    ::testing::Values(
        ShowCase{"1 + 2 * 3", "(+ 1 (* 2 3))"},
        ShowCase{"(1 + 2) * 3", "(* (+ 1 2) 3)"},
        ShowCase{"1 - 2 - 3", "(- (- 1 2) 3)"},
        ShowCase{"8 / 4 % 3 * 2", "(* (% (/ 8 4) 3) 2)"},
        ShowCase{"-$0 * 2", "(* (neg $0) 2)"},
        ShowCase{"- -1", "(neg (neg 1))"},
        ShowCase{"-$out.x", "(neg (. $out x))"},
        ShowCase{"$0 < $size - 1", "(< $0 (- $size 1))"},
        ShowCase{"$0<$size-1 and $0>0", "(and (< $0 (- $size 1)) (> $0 0))"},
        ShowCase{"not $0 == 1", "(not (== $0 1))"},
        ShowCase{"!$0 == 1", "(not (== $0 1))"},
        ShowCase{"not not true", "(not (not true))"},
        ShowCase{"not $0 == 1 and $1 < 2", "(and (not (== $0 1)) (< $1 2))"},
        ShowCase{"$0 == 1 or $1 == 2 and $2 == 3",
                 "(or (== $0 1) (and (== $1 2) (== $2 3)))"},
        ShowCase{"$0 == 1 || $1 == 2 && $2 == 3",
                 "(or (== $0 1) (and (== $1 2) (== $2 3)))"},
        ShowCase{"true or false or null", "(or (or true false) null)"},
        ShowCase{"(true or false) and null", "(and (or true false) null)"},
        ShowCase{"$0 % 2 == 0", "(== (% $0 2) 0)"},
        ShowCase{"$9 != $0", "(!= $9 $0)"}, ShowCase{"$1 <= 1", "(<= $1 1)"},
        ShowCase{"1.5 >= 2", "(>= 1.5 2)"},
        ShowCase{"$size > 3", "(> $size 3)"}, ShowCase{"(((1)))", "1"},
        ShowCase{"\t$0\n<\r\n1 ", "(< $0 1)"},
        ShowCase{"$out.items[0] > 50 and $0 < $size - 1",
                 "(and (> ([] (. $out items) 0) 50) (< $0 (- $size 1)))"},
        ShowCase{"$out['a'].b.c[$0 + 1]",
                 "([] (. (. ([] $out 'a') b) c) (+ $0 1))"},
        ShowCase{"$out.not.and_1", "(. (. $out not) and_1)"},
        ShowCase{"$ret == 'hello'", "(== $out 'hello')"},
        ShowCase{"\"a\\\"b\" == 'it\\'s'", "(== 'a\"b' 'it's')"},
        ShowCase{"'\\u00e9\\n\\t\\\\\\/'", "'\xC3\xA9\n\t\\/'"},
        ShowCase{"'\\ud83d\\ude00'", "'\xF0\x9F\x98\x80'"},
        ShowCase{"$out == null", "(== $out null)"}));

TEST(ConditionalTest, NodeValuesAndOffsets) {
  Expression e = parseOk("$0 < $out.x");
  ASSERT_TRUE(e.root);
  EXPECT_EQ(e.root->kind, Expr::Kind::Binary);
  EXPECT_EQ(e.root->op, Expr::Op::Lt);
  EXPECT_EQ(e.root->offset, 0u);
  EXPECT_EQ(e.root->lhs->kind, Expr::Kind::Index);
  EXPECT_EQ(e.root->lhs->index, 0u);
  EXPECT_EQ(e.root->rhs->kind, Expr::Kind::Field);
  EXPECT_EQ(e.root->rhs->text, "x");
  EXPECT_EQ(e.root->rhs->offset, 5u);
  EXPECT_EQ(e.root->rhs->lhs->kind, Expr::Kind::Output);
  EXPECT_EQ(e.root->rhs->lhs->offset, 5u);

  Expression n = parseOk("  (12 + 2.25) == 'x' or not false");
  ASSERT_TRUE(n.root);
  const Expr &eq = *n.root->lhs;
  const Expr &sum = *eq.lhs;
  EXPECT_EQ(sum.offset, 3u);
  EXPECT_EQ(sum.lhs->kind, Expr::Kind::Int);
  EXPECT_EQ(sum.lhs->intValue, 12);
  EXPECT_EQ(sum.rhs->kind, Expr::Kind::Float);
  EXPECT_DOUBLE_EQ(sum.rhs->floatValue, 2.25);
  EXPECT_EQ(sum.rhs->offset, 8u);
  EXPECT_EQ(eq.rhs->kind, Expr::Kind::String);
  EXPECT_EQ(eq.rhs->offset, 17u);
  const Expr &notFalse = *n.root->rhs;
  EXPECT_EQ(notFalse.kind, Expr::Kind::Unary);
  EXPECT_EQ(notFalse.op, Expr::Op::Not);
  EXPECT_EQ(notFalse.offset, 24u);
  EXPECT_EQ(notFalse.lhs->kind, Expr::Kind::Bool);
  EXPECT_FALSE(notFalse.lhs->boolValue);
}

TEST(ConditionalTest, AllIndexVariables) {
  // One per fan-out level the runtime's payloads carry: $0..$31.
  for (unsigned k = 0; k < kMaxIndexVariables; ++k) {
    Expression e = parseOk("$" + std::to_string(k));
    ASSERT_TRUE(e.root);
    EXPECT_EQ(e.root->kind, Expr::Kind::Index);
    EXPECT_EQ(e.root->index, k);
  }
}

TEST(ConditionalTest, NumbersWithExponents) {
  Expression e = parseOk("$out.x == 2.5e-3");
  ASSERT_EQ(e.root->rhs->kind, Expr::Kind::Float);
  EXPECT_DOUBLE_EQ(e.root->rhs->floatValue, 0.0025);
  e = parseOk("1E3");
  ASSERT_EQ(e.root->kind, Expr::Kind::Float);
  EXPECT_DOUBLE_EQ(e.root->floatValue, 1000.0);
  e = parseOk("instant($out.t) < instant('2020-01-01T00:00:00Z')");
  EXPECT_EQ(e.root->lhs->kind, Expr::Kind::Call);
}

TEST(ConditionalTest, TextIsVerbatimWithCanonicalOutput) {
  Expression e = parseOk("$ret == 'bye'");
  EXPECT_EQ(e.text, "$out == 'bye'");
  EXPECT_EQ(parseOk("  $0<$size-1 ").text, "  $0<$size-1 ");
}

TEST(ConditionalTest, SpellingIsTokenExact) {
  // String literals that look like variables are never rewritten.
  Expression e = parseOk("$ret.a == '$ret' and $out[\"$out\"] != $ret");
  EXPECT_EQ(e.text, "$out.a == '$ret' and $out[\"$out\"] != $out");
  EXPECT_EQ(spell(e, Spelling::Json),
            "$ret.a == '$ret' and $ret[\"$out\"] != $ret");
  EXPECT_EQ(spell(e, Spelling::Yaml), e.text);
  EXPECT_EQ(spell(e, Spelling::Canonical), e.text);

  // Spelled text parses back to the same canonical expression.
  ParseError error;
  auto again = parseConditional(spell(e, Spelling::Json), error);
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, e);
  EXPECT_EQ(show(*again->root), show(*e.root));

  Expression plain = parseOk("$0 == 1");
  EXPECT_EQ(spell(plain, Spelling::Json), "$0 == 1");
}

TEST(ConditionalTest, ReadsOutput) {
  EXPECT_FALSE(readsOutput(*parseOk("$0 < $size - 1").root));
  EXPECT_TRUE(readsOutput(*parseOk("$0 < 1 or $out.x").root));
  EXPECT_TRUE(readsOutput(*parseOk("$ret == 'a'").root));
  EXPECT_TRUE(readsOutput(*parseOk("-$out[0]").root));
  EXPECT_FALSE(readsOutput(*parseOk("'$out' == '$ret'").root));
}

struct ErrorCase {
  const char *text;
  unsigned offset;
  const char *message; // substring
};

void expectError(std::optional<Expression> (*parse)(std::string_view,
                                                    ParseError &),
                 const ErrorCase &c) {
  ParseError error;
  EXPECT_FALSE(parse(c.text, error).has_value()) << c.text;
  EXPECT_EQ(error.offset, c.offset) << c.text << ": " << error.message;
  EXPECT_NE(error.message.find(c.message), std::string::npos)
      << c.text << ": " << error.message;
}

class ConditionalErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ConditionalErrorTest, ReportsOffset) {
  expectError(parseConditional, GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Errors, ConditionalErrorTest,
    ::testing::Values(
        ErrorCase{"$x > 1", 0,
                  "unknown variable '$x'; expected $out, $ret, $ctx, $0..$31 "
                  "or $size"},
        ErrorCase{"$0 < $32", 5, "unknown variable '$32'"},
        ErrorCase{"$0 < $01", 5, "unknown variable '$01'"},
        ErrorCase{"$ > 1", 0, "unknown variable '$'"},
        ErrorCase{"($0 + 1", 7, "expected ')'"},
        ErrorCase{"(1 + 2]", 6, "expected ')'"},
        ErrorCase{"$0 + ", 5, "expected an expression"},
        ErrorCase{"", 0, "expected an expression"},
        ErrorCase{"   ", 3, "expected an expression"},
        ErrorCase{"not", 3, "expected an expression"},
        ErrorCase{"$0 and", 6, "expected an expression"},
        ErrorCase{"$0 1", 3, "trailing characters after expression"},
        ErrorCase{"$0 == 1 'x'", 8, "trailing characters after expression"},
        ErrorCase{"1 )", 2, "unmatched ')'"},
        ErrorCase{"1 ]", 2, "unmatched ']'"},
        ErrorCase{"$0 = 1", 3, "use '==' to compare"},
        ErrorCase{"$0 & 1", 3, "use '&&' or 'and'"},
        ErrorCase{"$0 | 1", 3, "use '||' or 'or'"},
        ErrorCase{"$0 == 'abc", 6, "unterminated string literal"},
        ErrorCase{"\"abc\\\"", 0, "unterminated string literal"},
        ErrorCase{"'a\\q'", 2, "unknown escape sequence '\\q'"},
        ErrorCase{"'\\u12'", 1, "4 hexadecimal digits"},
        ErrorCase{"'\\ud800'", 1, "unpaired surrogate"},
        ErrorCase{"$0.a", 2, "field access is only allowed on $out"},
        ErrorCase{"1.x", 1, "field access is only allowed on $out"},
        ErrorCase{"$0[1]", 2, "subscripts are only allowed on $out"},
        ErrorCase{"($0)[1]", 4, "subscripts are only allowed on $out"},
        ErrorCase{"$out.", 5, "expected a field name after '.'"},
        ErrorCase{"$out. x", 5, "expected a field name after '.'"},
        ErrorCase{"$out[1", 6, "expected ']'"},
        ErrorCase{"$out[]", 5, "unexpected ']'; expected an expression"},
        ErrorCase{"foo == 1", 0, "unknown identifier 'foo'"},
        ErrorCase{"True", 0, "unknown identifier 'True'"},
        ErrorCase{"99999999999999999999", 0, "integer is too large"},
        ErrorCase{"1 # 2", 2, "unexpected character '#'"},
        ErrorCase{"$0 * * 2", 5, "unexpected '*'; expected an expression"},
        ErrorCase{"+1", 0, "unexpected '+'; expected an expression"},
        ErrorCase{"1 < 2 < 3", 6, "comparisons cannot be chained"},
        ErrorCase{"1 == 2 != 3", 7, "comparisons cannot be chained"},
        ErrorCase{"$0 == not 1", 6, "unexpected 'not'"}));

TEST(ConditionalTest, LengthLimit) {
  std::string text = "$0 == 1";
  text.resize(4096, ' ');
  parseOk(text);
  text += ' ';
  expectError(parseConditional,
              {text.c_str(), 4096, "expression is longer than 4096"});
}

TEST(ConditionalTest, DepthLimit) {
  auto nested = [](const std::string &open, const std::string &inner,
                   const std::string &close, int n) {
    std::string s;
    for (int i = 0; i < n; ++i)
      s += open;
    s += inner;
    for (int i = 0; i < n; ++i)
      s += close;
    return s;
  };
  parseOk(nested("(", "1", ")", 64));
  parseOk(nested("-", "1", "", 64));
  parseOk(nested("not ", "true", "", 64));
  parseOk(nested("$out[", "0", "]", 64));

  const char *tooDeep = "nested too deeply";
  std::string parens = nested("(", "1", ")", 65);
  expectError(parseConditional, {parens.c_str(), 64, tooDeep});
  std::string negs = nested("-", "1", "", 65);
  expectError(parseConditional, {negs.c_str(), 64, tooDeep});
  std::string nots = nested("not ", "true", "", 65);
  expectError(parseConditional, {nots.c_str(), 256, tooDeep});
  std::string subscripts = nested("$out[", "0", "]", 65);
  expectError(parseConditional, {subscripts.c_str(), 324, tooDeep});
  // Mixed nesting counts every level.
  std::string mixed = nested("(!-", "1", ")", 22);
  expectError(parseConditional, {mixed.c_str(), 64, tooDeep});
  // Deep input fails cleanly instead of overflowing the stack.
  std::string huge(4000, '(');
  expectError(parseConditional, {huge.c_str(), 64, tooDeep});
}

/// The levels of `e`'s tree.
unsigned height(const Expr &e) {
  return 1 + std::max(e.lhs ? height(*e.lhs) : 0, e.rhs ? height(*e.rhs) : 0);
}

TEST(ConditionalTest, LogicalChainsAreBalanced) {
  // `or` and `and` chains group as balanced trees: an ASL Or of hundreds of
  // rules is a few levels deep, and the evaluator (limit kMaxExprDepth)
  // runs what the parser accepts.
  std::string text = "$out.a == 0";
  for (int i = 1; i < 150; ++i)
    text += " or $out.a == " + std::to_string(i);
  Expression e = parseOk(text);
  ASSERT_TRUE(e.root);
  EXPECT_EQ(e.root->op, Expr::Op::Or);
  EXPECT_LE(height(*e.root), 12u);
  std::string conj = "true";
  for (int i = 1; i < 400; ++i)
    conj += " and true";
  EXPECT_LE(height(*parseOk(conj).root), 12u);
}

TEST(ConditionalTest, ArithmeticChainsAreBoundedLikeTheEvaluator) {
  // A left-deep chain of kMaxExprDepth operands is kMaxExprDepth levels;
  // one more is refused here, at compile time, not by the evaluator later.
  std::string text = "1";
  for (unsigned i = 1; i < unum::limits::kMaxExprDepth; ++i)
    text += "+1";
  EXPECT_EQ(height(*parseOk(text).root), unum::limits::kMaxExprDepth);
  text += "+1";
  expectError(parseConditional, {text.c_str(), 0, "nested too deeply"});
  std::string fields = "$out";
  for (unsigned i = 0; i < 200; ++i)
    fields += ".a";
  expectError(parseConditional, {fields.c_str(), 0, "nested too deeply"});
}

//===----------------------------------------------------------------------===//
// Name patterns
//===----------------------------------------------------------------------===//

NamePattern patternOk(std::string_view text) {
  ParseError error;
  std::optional<NamePattern> pattern = parseNamePattern(text, error);
  EXPECT_TRUE(pattern.has_value())
      << "'" << text << "': " << error.offset << ": " << error.message;
  return pattern ? *pattern : NamePattern();
}

TEST(NamePatternTest, FunctionOnly) {
  NamePattern p = patternOk("my_Fn-2");
  EXPECT_EQ(p.function, "my_Fn-2");
  EXPECT_TRUE(p.parts.empty());
  EXPECT_EQ(p.text, "my_Fn-2");
  EXPECT_EQ(spell(p, Spelling::Yaml), "my_Fn-2");
  // Only the first letter of the infix is case-insensitive: this is a name.
  NamePattern q = patternOk("F-unumindex-1");
  EXPECT_EQ(q.function, "F-unumindex-1");
  EXPECT_TRUE(q.parts.empty());
}

TEST(NamePatternTest, Parts) {
  NamePattern p = patternOk("F1-unumIndex-*");
  EXPECT_EQ(p.function, "F1");
  ASSERT_EQ(p.parts.size(), 1u);
  EXPECT_EQ(p.parts[0].kind, IndexPart::Kind::Wildcard);
  EXPECT_EQ(p.parts[0].offset, 13u);

  NamePattern q = patternOk("xcdec-unumIndex-($0-1).$1.*.17");
  EXPECT_EQ(q.function, "xcdec");
  ASSERT_EQ(q.parts.size(), 4u);
  EXPECT_EQ(q.parts[0].kind, IndexPart::Kind::Arithmetic);
  EXPECT_EQ(q.parts[0].offset, 16u);
  ASSERT_TRUE(q.parts[0].expr);
  EXPECT_EQ(show(*q.parts[0].expr), "(- $0 1)");
  // Offsets inside the parentheses are relative to the pattern text.
  EXPECT_EQ(q.parts[0].expr->offset, 17u);
  EXPECT_EQ(q.parts[0].expr->rhs->offset, 20u);
  EXPECT_EQ(q.parts[1].kind, IndexPart::Kind::Variable);
  EXPECT_EQ(q.parts[1].var, 1u);
  EXPECT_EQ(q.parts[1].offset, 23u);
  EXPECT_EQ(q.parts[2].kind, IndexPart::Kind::Wildcard);
  EXPECT_EQ(q.parts[3].kind, IndexPart::Kind::Constant);
  EXPECT_EQ(q.parts[3].value, 17);
  EXPECT_EQ(q.parts[3].offset, 28u);

  NamePattern r = patternOk("G-unumIndex-( -$0 + 2 * ($size % 3) / 1 )");
  ASSERT_EQ(r.parts.size(), 1u);
  EXPECT_EQ(show(*r.parts[0].expr), "(+ (neg $0) (/ (* 2 (% $size 3)) 1))");
}

TEST(NamePatternTest, Spelling) {
  NamePattern p = patternOk("rebase-UnumIndex-($0+1)");
  EXPECT_EQ(p.text, "rebase-unumIndex-($0+1)");
  EXPECT_EQ(p.function, "rebase");
  EXPECT_EQ(spell(p, Spelling::Json), "rebase-unumIndex-($0+1)");
  EXPECT_EQ(spell(p, Spelling::Canonical), "rebase-unumIndex-($0+1)");
  EXPECT_EQ(spell(p, Spelling::Yaml), "rebase-UnumIndex-($0+1)");
  EXPECT_EQ(p, patternOk("rebase-unumIndex-($0+1)"));
  EXPECT_EQ(patternOk(spell(p, Spelling::Yaml)), p);
}

TEST(NamePatternTest, SplitsAtTheFirstInfix) {
  ParseError error;
  EXPECT_FALSE(parseNamePattern("A-unumIndex-B-unumIndex-0", error));
  EXPECT_EQ(error.offset, 12u);
}

class NamePatternErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(NamePatternErrorTest, ReportsOffset) {
  const ErrorCase &c = GetParam();
  ParseError error;
  EXPECT_FALSE(parseNamePattern(c.text, error).has_value()) << c.text;
  EXPECT_EQ(error.offset, c.offset) << c.text << ": " << error.message;
  EXPECT_NE(error.message.find(c.message), std::string::npos)
      << c.text << ": " << error.message;
}

INSTANTIATE_TEST_SUITE_P(
    Errors, NamePatternErrorTest,
    ::testing::Values(
        ErrorCase{"", 0, "expected a function name"},
        ErrorCase{"-unumIndex-1", 0, "expected a function name"},
        ErrorCase{"F G", 1, "unexpected ' ' in function name"},
        ErrorCase{"F.1", 1, "unexpected '.' in function name"},
        ErrorCase{"F-unumIndex-", 12, "expected an index"},
        ErrorCase{"F-unumIndex-1.", 14, "expected an index"},
        ErrorCase{"F-unumIndex-1..2", 14, "expected an index"},
        ErrorCase{"F-unumIndex- 1", 12, "expected an index"},
        ErrorCase{"F-unumIndex-1x", 13, "unexpected 'x' after index"},
        ErrorCase{"F-unumIndex-**", 13, "unexpected '*' after index"},
        ErrorCase{"F-unumIndex-$x", 12, "unknown variable '$x'"},
        ErrorCase{"F-unumIndex-$32", 12, "unknown variable '$32'"},
        ErrorCase{"F-unumIndex-$size", 12, "'$size' is not an index"},
        ErrorCase{"F-unumIndex-99999999999999999999", 12, "too large"},
        ErrorCase{"F-unumIndex-($0", 15, "expected ')'"},
        ErrorCase{"F-unumIndex-()", 13, "expected an expression"},
        ErrorCase{"F-unumIndex-($0 $1)", 16, "trailing characters"},
        ErrorCase{"F-unumIndex-($out)", 13,
                  "only arithmetic on $0..$31, $size and integers is allowed "
                  "in an index"},
        ErrorCase{"F-unumIndex-($0 == 1)", 16, "only arithmetic"},
        ErrorCase{"F-unumIndex-(1.5)", 13, "only arithmetic"},
        ErrorCase{"F-unumIndex-('a')", 13, "only arithmetic"},
        ErrorCase{"F-unumIndex-($0 and 1)", 16, "only arithmetic"},
        ErrorCase{"F-unumIndex-(not 1)", 13, "only arithmetic"},
        ErrorCase{"F-unumIndex-($x)", 13,
                  "unknown variable '$x'; expected "
                  "$0..$31 or $size"}));

TEST(NamePatternTest, LengthAndDepthLimits) {
  std::string longName(5000, 'a');
  ParseError error;
  EXPECT_FALSE(parseNamePattern(longName, error));
  EXPECT_EQ(error.offset, 4096u);

  std::string deep =
      "F-unumIndex-" + std::string(66, '(') + "1" + std::string(66, ')');
  EXPECT_FALSE(parseNamePattern(deep, error));
  EXPECT_NE(error.message.find("nested too deeply"), std::string::npos);
  EXPECT_EQ(error.offset, 12u + 65u);
}

//===----------------------------------------------------------------------===//
// Modifiers
//===----------------------------------------------------------------------===//

Modifier modifierOk(std::string_view text) {
  ParseError error;
  std::optional<Modifier> modifier = parseModifier(text, error);
  EXPECT_TRUE(modifier.has_value())
      << "'" << text << "': " << error.offset << ": " << error.message;
  return modifier ? *modifier : Modifier();
}

TEST(ModifierTest, Pop) {
  Modifier m = modifierOk("Pop");
  EXPECT_EQ(m.kind, Modifier::Kind::Pop);
  EXPECT_EQ(m.text, "Pop");
  EXPECT_FALSE(m.value.root);
  EXPECT_EQ(spell(m, Spelling::Json), "Pop");
  EXPECT_EQ(spell(m, Spelling::Yaml), "Pop");
}

TEST(ModifierTest, AssignIndex) {
  Modifier m = modifierOk("$0=$0+1");
  EXPECT_EQ(m.kind, Modifier::Kind::AssignIndex);
  EXPECT_EQ(m.var, 0u);
  EXPECT_EQ(m.text, "$0=$0+1");
  EXPECT_EQ(m.value.text, "$0+1");
  ASSERT_TRUE(m.value.root);
  EXPECT_EQ(show(*m.value.root), "(+ $0 1)");
  // Offsets in the value are relative to the value's text.
  EXPECT_EQ(m.value.root->rhs->offset, 3u);
  EXPECT_EQ(spell(m, Spelling::Json), "$0=$0+1");
  EXPECT_EQ(spell(m, Spelling::Yaml), "$0=$0+1");

  Modifier spaced = modifierOk("$3 = ($3 - 1) % $size ");
  EXPECT_EQ(spaced.var, 3u);
  EXPECT_EQ(spaced.text, "$3 = ($3 - 1) % $size ");
  EXPECT_EQ(spaced.value.text, "($3 - 1) % $size");
  EXPECT_EQ(show(*spaced.value.root), "(% (- $3 1) $size)");
  EXPECT_FALSE(spaced == m);
}

TEST(ModifierTest, AssignSize) {
  Modifier m = modifierOk("$size = $size - 1");
  EXPECT_EQ(m.kind, Modifier::Kind::AssignSize);
  EXPECT_EQ(m.value.text, "$size - 1");
  EXPECT_EQ(show(*m.value.root), "(- $size 1)");
}

class ModifierErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ModifierErrorTest, ReportsOffset) {
  const ErrorCase &c = GetParam();
  ParseError error;
  EXPECT_FALSE(parseModifier(c.text, error).has_value()) << c.text;
  EXPECT_EQ(error.offset, c.offset) << c.text << ": " << error.message;
  EXPECT_NE(error.message.find(c.message), std::string::npos)
      << c.text << ": " << error.message;
}

INSTANTIATE_TEST_SUITE_P(
    Errors, ModifierErrorTest,
    ::testing::Values(
        ErrorCase{"", 0, "expected 'Pop', '$k = <expression>'"},
        ErrorCase{"pop", 0, "expected 'Pop'"},
        ErrorCase{"Popx", 0, "expected 'Pop'"},
        ErrorCase{"Pop 1", 3, "unexpected characters after 'Pop'"},
        ErrorCase{"$0", 2, "expected '=' after '$0'"},
        ErrorCase{"$0 == 1", 3, "expected '=' after '$0'"},
        ErrorCase{"$0 = ", 5, "expected an expression after '='"},
        ErrorCase{"$x = 1", 0, "unknown variable '$x'"},
        ErrorCase{"$out = 1", 0, "only $0..$31 and $size can be assigned"},
        ErrorCase{"$0 = $out", 5,
                  "only arithmetic on $0..$31, $size and integers is allowed "
                  "in a payload modifier"},
        ErrorCase{"$0 = 'a'", 5, "only arithmetic"},
        ErrorCase{"$0 = $0 < 1", 8, "only arithmetic"},
        ErrorCase{"$0 = (1", 7, "expected ')'"},
        ErrorCase{"$1=$1+", 6, "expected an expression"}));

//===----------------------------------------------------------------------===//
// sameInstancesUpToShift
//===----------------------------------------------------------------------===//

std::vector<NamePattern> patterns(std::initializer_list<const char *> texts) {
  std::vector<NamePattern> out;
  for (const char *text : texts)
    out.push_back(patternOk(text));
  return out;
}

TEST(SameInstancesTest, ExCameraPairs) {
  // handwritten/excamera: reencode's fan-in as written by vpxenc and xcdec.
  EXPECT_TRUE(sameInstancesUpToShift(
      patterns({"vpxenc-unumIndex-$0", "xcdec-unumIndex-($0-1)"}),
      patterns({"vpxenc-unumIndex-($0+1)", "xcdec-unumIndex-$0"})));
  // rebase's fan-in as written by rebase and reencode.
  EXPECT_TRUE(sameInstancesUpToShift(
      patterns({"rebase-unumIndex-$0", "reencode-unumIndex-($0+1)"}),
      patterns({"rebase-unumIndex-($0-1)", "reencode-unumIndex-$0"})));
  // Symmetric.
  EXPECT_TRUE(sameInstancesUpToShift(
      patterns({"vpxenc-unumIndex-($0+1)", "xcdec-unumIndex-$0"}),
      patterns({"vpxenc-unumIndex-$0", "xcdec-unumIndex-($0-1)"})));
  // The two spellings of the infix are the same pattern.
  EXPECT_TRUE(sameInstancesUpToShift(
      patterns({"vpxenc-UnumIndex-$0", "xcdec-UnumIndex-($0-1)"}),
      patterns({"vpxenc-unumIndex-($0+1)", "xcdec-unumIndex-$0"})));
}

TEST(SameInstancesTest, ConstantsAndOrder) {
  auto bc = patterns({"B-unumIndex-0", "C-unumIndex-1"});
  EXPECT_TRUE(sameInstancesUpToShift(bc, bc));
  EXPECT_FALSE(
      sameInstancesUpToShift(bc, patterns({"C-unumIndex-1", "B-unumIndex-0"})));
  EXPECT_FALSE(
      sameInstancesUpToShift(bc, patterns({"B-unumIndex-0", "C-unumIndex-2"})));
  EXPECT_FALSE(sameInstancesUpToShift(bc, patterns({"B-unumIndex-0"})));
  EXPECT_TRUE(sameInstancesUpToShift({}, {}));
  EXPECT_TRUE(sameInstancesUpToShift(patterns({"A"}), patterns({"A"})));
  EXPECT_FALSE(sameInstancesUpToShift(patterns({"A"}), patterns({"B"})));
  EXPECT_FALSE(
      sameInstancesUpToShift(patterns({"A"}), patterns({"A-unumIndex-0"})));
}

TEST(SameInstancesTest, Wildcards) {
  EXPECT_TRUE(sameInstancesUpToShift(patterns({"F-unumIndex-*"}),
                                     patterns({"F-unumIndex-*"})));
  EXPECT_FALSE(sameInstancesUpToShift(patterns({"F-unumIndex-*"}),
                                      patterns({"F-unumIndex-0"})));
  EXPECT_FALSE(sameInstancesUpToShift(patterns({"F-unumIndex-*"}),
                                      patterns({"F-unumIndex-$0"})));
}

TEST(SameInstancesTest, ShiftsMustBeConsistentPerVariable) {
  EXPECT_FALSE(sameInstancesUpToShift(
      patterns({"A-unumIndex-$0", "B-unumIndex-$0"}),
      patterns({"A-unumIndex-($0+1)", "B-unumIndex-$0"})));
  EXPECT_FALSE(sameInstancesUpToShift(patterns({"A-unumIndex-$0"}),
                                      patterns({"A-unumIndex-$1"})));
  // Each variable has its own shift.
  EXPECT_TRUE(sameInstancesUpToShift(
      patterns({"A-unumIndex-$0.$1", "B-unumIndex-($0+2).$1"}),
      patterns({"A-unumIndex-($0+1).($1-2)", "B-unumIndex-($0+3).($1-2)"})));
  // "c + $k" and a parenthesised variable are var-plus-offset forms too.
  EXPECT_TRUE(sameInstancesUpToShift(patterns({"A-unumIndex-(1+$0)"}),
                                     patterns({"A-unumIndex-$0"})));
  EXPECT_TRUE(sameInstancesUpToShift(
      patterns({"A-unumIndex-($0)", "B-unumIndex-$0"}),
      patterns({"A-unumIndex-$0", "B-unumIndex-($0 - 0)"})));
}

TEST(SameInstancesTest, OtherArithmeticIsStructural) {
  EXPECT_TRUE(sameInstancesUpToShift(patterns({"A-unumIndex-($0*2)"}),
                                     patterns({"A-unumIndex-($0 * 2)"})));
  EXPECT_FALSE(sameInstancesUpToShift(patterns({"A-unumIndex-($0*2)"}),
                                      patterns({"A-unumIndex-($0*3)"})));
  EXPECT_FALSE(sameInstancesUpToShift(patterns({"A-unumIndex-(1+1)"}),
                                      patterns({"A-unumIndex-2"})));
  // A structurally equal expression of $0 pins $0's shift to zero.
  EXPECT_FALSE(sameInstancesUpToShift(
      patterns({"A-unumIndex-($0*2)", "B-unumIndex-$0"}),
      patterns({"A-unumIndex-($0*2)", "B-unumIndex-($0+1)"})));
  EXPECT_TRUE(sameInstancesUpToShift(
      patterns({"A-unumIndex-($0*2)", "B-unumIndex-$1"}),
      patterns({"A-unumIndex-($0*2)", "B-unumIndex-($1+1)"})));
}

} // namespace

//===----------------------------------------------------------------------===//
// Predicates (the type tests of Step Functions Choice rules)
//===----------------------------------------------------------------------===//

TEST(PredicateTest, ParsesCallsWithArguments) {
  ParseError error;
  auto e =
      parseConditional("is_present($ret.a) and matches($out.b, 'x-*')", error);
  ASSERT_TRUE(e) << error.message;
  ASSERT_EQ(e->root->kind, Expr::Kind::Binary);
  const Expr &present = *e->root->lhs;
  EXPECT_EQ(present.kind, Expr::Kind::Call);
  EXPECT_EQ(present.text, "is_present");
  EXPECT_EQ(present.lhs->kind, Expr::Kind::Field);
  EXPECT_EQ(present.rhs, nullptr);
  const Expr &match = *e->root->rhs;
  EXPECT_EQ(match.kind, Expr::Kind::Call);
  EXPECT_EQ(match.text, "matches");
  EXPECT_EQ(match.rhs->kind, Expr::Kind::String);
  EXPECT_EQ(match.rhs->text, "x-*");
  // $ret inside a call is respelled like anywhere else.
  EXPECT_EQ(spell(*e, Spelling::Json),
            "is_present($ret.a) and matches($ret.b, 'x-*')");
}

TEST(PredicateTest, RejectsBadCalls) {
  struct Case {
    const char *text;
    unsigned offset;
    const char *message;
  } cases[] = {
      {"is_present(1)", 11, "is_present takes a part of $out"},
      {"matches($out, 1)", 14, "the pattern of matches must be a string"},
      {"matches($out)", 12, "expected ','"},
      {"is_string $out", 10, "expected '(' after 'is_string'"},
      {"is_numeric($out", 15, "expected ')'"},
      {"size($out)", 0, "unknown identifier 'size'"},
  };
  for (const Case &c : cases) {
    ParseError error;
    EXPECT_FALSE(parseConditional(c.text, error)) << c.text;
    EXPECT_EQ(error.offset, c.offset) << c.text;
    EXPECT_NE(error.message.find(c.message), std::string::npos)
        << c.text << ": " << error.message;
  }
}

TEST(PredicateTest, NotAllowedInIndexArithmetic) {
  ParseError error;
  EXPECT_FALSE(parseNamePattern("F-unumIndex-(is_null($0))", error));
  EXPECT_FALSE(parseModifier("$0 = is_null($0)", error));
}
