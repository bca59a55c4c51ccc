//===- Expr.cpp - Conditionals, name patterns and payload modifiers -------===//

#include "unum/Config/Expr.h"
#include "unum/Config/Limits.h"

#include "Text.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>

using namespace unum::config;
using namespace unum::config::detail;

namespace {

constexpr size_t kMaxLength = unum::limits::kMaxExprText;
constexpr unsigned kMaxDepth = unum::limits::kMaxExprNesting;

/// The first node found below unum::limits::kMaxExprDepth levels (`level` is
/// `e`'s), or null. Recursion is bounded by the tree's height, itself
/// bounded by kMaxLength (each level takes a character).
const Expr *tooDeep(const Expr &e, unsigned level) {
  if (level > unum::limits::kMaxExprDepth)
    return &e;
  if (e.lhs)
    if (const Expr *d = tooDeep(*e.lhs, level + 1))
      return d;
  if (e.rhs)
    return tooDeep(*e.rhs, level + 1);
  return nullptr;
}
constexpr std::string_view kInfix = "-unumIndex-";

enum class Tok {
  End,
  Int,
  Float,
  String,
  True,
  False,
  Null,
  Output,
  Context,
  Index,
  Size,
  And,
  Or,
  Not,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  EqEq,
  NotEq,
  Lt,
  Le,
  Gt,
  Ge,
  Dot,
  LBracket,
  RBracket,
  LParen,
  RParen,
  Comma,
  Predicate, // is_present, is_numeric, ... (text: the name)
};

struct Token {
  Tok kind = Tok::End;
  unsigned offset = 0; // relative to the parsed text
  unsigned length = 0;
  int64_t intValue = 0;
  double floatValue = 0;
  unsigned index = 0;
  std::string text; // String: unescaped value
};

/// The fan-out index variable `$<name>` ($0..$31, no leading zeros), or
/// nullopt.
std::optional<unsigned> indexVariable(std::string_view name) {
  if (name.empty() || name.size() > 2 ||
      !std::all_of(name.begin(), name.end(),
                   [](char c) { return std::isdigit((unsigned char)c); }) ||
      (name.size() == 2 && name[0] == '0'))
    return std::nullopt;
  unsigned v = unsigned(std::stoi(std::string(name)));
  if (v >= kMaxIndexVariables)
    return std::nullopt;
  return v;
}

/// The type tests of Step Functions Choice rules; 0 for other names.
unsigned predicateArity(std::string_view name) {
  if (name == "is_present" || name == "is_null" || name == "is_numeric" ||
      name == "is_string" || name == "is_boolean" || name == "is_timestamp" ||
      name == "instant")
    return 1;
  if (name == "matches")
    return 2;
  return 0;
}

bool isIdentStart(char c) { return std::isalpha((unsigned char)c) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

/// Recursive-descent parser for conditionals and, in arithmetic mode, for the
/// integer expressions of index parts and modifiers. Nodes and errors carry
/// offsets relative to the parsed text plus `origin`.
class ExprParser {
public:
  /// `arithContext` non-null selects arithmetic mode and names the construct
  /// in the error for disallowed tokens ("an index").
  ExprParser(std::string_view text, unsigned origin, const char *arithContext,
             ParseError &error)
      : text(text), origin(origin), arithContext(arithContext), error(error) {}

  /// Parses the whole text. Returns null after setting `error`.
  ExprPtr parse();

private:
  bool fail(unsigned localOffset, std::string message) {
    if (!failed) {
      failed = true;
      error.offset = origin + localOffset;
      error.message = std::move(message);
    }
    return false;
  }
  bool lex();
  bool advance() { return !failed && lex(); }
  std::string tokenText() const {
    return std::string(text.substr(tok.offset, tok.length));
  }
  bool enter(unsigned localOffset) {
    if (++depth > kMaxDepth)
      return fail(localOffset, "expression is nested too deeply (more than " +
                                   std::to_string(kMaxDepth) + " levels)");
    return true;
  }
  void leave() { --depth; }

  ExprPtr balanced(Expr::Op op, std::vector<ExprPtr> &operands, size_t begin,
                   size_t end);
  ExprPtr parseChain(Expr::Op op, Tok separator,
                     ExprPtr (ExprParser::*operand)());
  ExprPtr parseOr();
  ExprPtr parseAnd();
  ExprPtr parseNot();
  ExprPtr parseComparison();
  ExprPtr parseAdditive();
  ExprPtr parseMultiplicative();
  ExprPtr parseUnary();
  ExprPtr parsePostfix();
  ExprPtr parsePrimary();
  /// The top of the grammar for the current mode.
  ExprPtr parseTop() { return arithContext ? parseAdditive() : parseOr(); }

  std::shared_ptr<Expr> node(Expr::Kind kind, unsigned localOffset) {
    auto e = std::make_shared<Expr>();
    e->kind = kind;
    e->offset = origin + localOffset;
    return e;
  }
  ExprPtr binary(Expr::Op op, ExprPtr lhs, ExprPtr rhs) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::Binary;
    e->op = op;
    e->offset = lhs->offset;
    e->lhs = std::move(lhs);
    e->rhs = std::move(rhs);
    return e;
  }

  std::string_view text;
  unsigned origin;
  const char *arithContext;
  ParseError &error;
  bool failed = false;
  size_t pos = 0;
  unsigned depth = 0;
  Token tok;
};

} // namespace

bool ExprParser::lex() {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                               text[pos] == '\n' || text[pos] == '\r'))
    ++pos;
  tok = Token();
  tok.offset = pos;
  if (pos >= text.size()) {
    tok.kind = Tok::End;
    return true;
  }
  size_t start = pos;
  char c = text[pos];
  auto next = [&](size_t i) {
    return pos + i < text.size() ? text[pos + i] : 0;
  };
  auto op = [&](Tok kind, unsigned length) {
    tok.kind = kind;
    pos += length;
  };

  if (std::isdigit((unsigned char)c)) {
    auto digits = [&] {
      while (pos < text.size() && std::isdigit((unsigned char)text[pos]))
        ++pos;
    };
    digits();
    bool fraction = pos + 1 < text.size() && text[pos] == '.' &&
                    std::isdigit((unsigned char)text[pos + 1]);
    if (fraction) {
      ++pos;
      digits();
    }
    // An exponent: 1e3, 2.5E-7 (as JSON writes numbers).
    size_t e = pos;
    if (e < text.size() && (text[e] == 'e' || text[e] == 'E')) {
      ++e;
      if (e < text.size() && (text[e] == '+' || text[e] == '-'))
        ++e;
      if (e < text.size() && std::isdigit((unsigned char)text[e])) {
        pos = e;
        digits();
        fraction = true;
      }
    }
    if (fraction) {
      tok.kind = Tok::Float;
      auto [end, ec] = std::from_chars(text.data() + start, text.data() + pos,
                                       tok.floatValue);
      if (ec != std::errc())
        return fail(start, "number is out of range");
    } else {
      tok.kind = Tok::Int;
      auto [end, ec] =
          std::from_chars(text.data() + start, text.data() + pos, tok.intValue);
      if (ec != std::errc())
        return fail(start, "integer is too large");
    }
  } else if (c == '$') {
    ++pos;
    while (pos < text.size() && isIdentChar(text[pos]))
      ++pos;
    std::string_view name = text.substr(start + 1, pos - start - 1);
    if (name == "out" || name == "ret") {
      tok.kind = Tok::Output;
    } else if (name == "ctx" && !arithContext) {
      tok.kind = Tok::Context;
    } else if (name == "size") {
      tok.kind = Tok::Size;
    } else if (auto var = indexVariable(name)) {
      tok.kind = Tok::Index;
      tok.index = *var;
    } else {
      return fail(start, "unknown variable '$" + std::string(name) +
                             (arithContext ? "'; expected $0..$31 or $size"
                                           : "'; expected $out, $ret, $ctx, "
                                             "$0..$31 or $size"));
    }
  } else if (isIdentStart(c)) {
    while (pos < text.size() && isIdentChar(text[pos]))
      ++pos;
    std::string_view word = text.substr(start, pos - start);
    if (word == "true")
      tok.kind = Tok::True;
    else if (word == "false")
      tok.kind = Tok::False;
    else if (word == "null")
      tok.kind = Tok::Null;
    else if (word == "and")
      tok.kind = Tok::And;
    else if (word == "or")
      tok.kind = Tok::Or;
    else if (word == "not")
      tok.kind = Tok::Not;
    else if (!arithContext && predicateArity(word)) {
      tok.kind = Tok::Predicate;
      tok.text = std::string(word);
    } else
      return fail(start, "unknown identifier '" + std::string(word) + "'");
  } else if (c == '"' || c == '\'') {
    ++pos;
    tok.kind = Tok::String;
    while (true) {
      if (pos >= text.size())
        return fail(start, "unterminated string literal");
      char d = text[pos];
      if (d == c) {
        ++pos;
        break;
      }
      if (d != '\\') {
        tok.text += d;
        ++pos;
        continue;
      }
      if (pos + 1 >= text.size())
        return fail(start, "unterminated string literal");
      char e = text[pos + 1];
      switch (e) {
      case '\\':
      case '\'':
      case '"':
      case '/':
        tok.text += e;
        break;
      case 'n':
        tok.text += '\n';
        break;
      case 't':
        tok.text += '\t';
        break;
      case 'r':
        tok.text += '\r';
        break;
      case 'u': {
        // \uXXXX, with UTF-16 surrogate pairs as in JSON.
        auto hex4 = [&](size_t at, uint32_t &v) {
          if (at + 4 > text.size())
            return false;
          auto [end, ec] =
              std::from_chars(text.data() + at, text.data() + at + 4, v, 16);
          return ec == std::errc() && end == text.data() + at + 4;
        };
        uint32_t cp;
        if (!hex4(pos + 2, cp))
          return fail(pos, "expected 4 hexadecimal digits after '\\u'");
        size_t length = 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t low;
          if (text.substr(pos + 6, 2) != "\\u" || !hex4(pos + 8, low) ||
              low < 0xDC00 || low > 0xDFFF)
            return fail(pos, "unpaired surrogate in '\\u' escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          length = 12;
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return fail(pos, "unpaired surrogate in '\\u' escape");
        }
        appendUtf8(tok.text, cp);
        pos += length;
        continue;
      }
      default:
        return fail(pos,
                    "unknown escape sequence '\\" + std::string(1, e) + "'");
      }
      pos += 2;
    }
  } else if (c == '=' && next(1) == '=') {
    op(Tok::EqEq, 2);
  } else if (c == '!' && next(1) == '=') {
    op(Tok::NotEq, 2);
  } else if (c == '<' && next(1) == '=') {
    op(Tok::Le, 2);
  } else if (c == '>' && next(1) == '=') {
    op(Tok::Ge, 2);
  } else if (c == '&' && next(1) == '&') {
    op(Tok::And, 2);
  } else if (c == '|' && next(1) == '|') {
    op(Tok::Or, 2);
  } else {
    switch (c) {
    case '<':
      op(Tok::Lt, 1);
      break;
    case '>':
      op(Tok::Gt, 1);
      break;
    case '!':
      op(Tok::Not, 1);
      break;
    case '+':
      op(Tok::Plus, 1);
      break;
    case '-':
      op(Tok::Minus, 1);
      break;
    case '*':
      op(Tok::Star, 1);
      break;
    case '/':
      op(Tok::Slash, 1);
      break;
    case '%':
      op(Tok::Percent, 1);
      break;
    case '.':
      op(Tok::Dot, 1);
      break;
    case '[':
      op(Tok::LBracket, 1);
      break;
    case ']':
      op(Tok::RBracket, 1);
      break;
    case '(':
      op(Tok::LParen, 1);
      break;
    case ')':
      op(Tok::RParen, 1);
      break;
    case ',':
      op(Tok::Comma, 1);
      break;
    case '=':
      return fail(start, "unexpected '='; use '==' to compare");
    case '&':
      return fail(start, "unexpected '&'; use '&&' or 'and'");
    case '|':
      return fail(start, "unexpected '|'; use '||' or 'or'");
    default:
      return fail(start, "unexpected character " + describeChar(text, start));
    }
  }
  tok.length = pos - start;

  if (arithContext) {
    switch (tok.kind) {
    case Tok::Int:
    case Tok::Index:
    case Tok::Size:
    case Tok::Plus:
    case Tok::Minus:
    case Tok::Star:
    case Tok::Slash:
    case Tok::Percent:
    case Tok::LParen:
    case Tok::RParen:
      break;
    default:
      return fail(start, std::string("only arithmetic on $0..$31, $size and "
                                     "integers is allowed in ") +
                             arithContext);
    }
  }
  return true;
}

ExprPtr ExprParser::parse() {
  if (text.size() > kMaxLength) {
    fail(kMaxLength, "expression is longer than " + std::to_string(kMaxLength) +
                         " characters");
    return nullptr;
  }
  if (!advance())
    return nullptr;
  if (tok.kind == Tok::End) {
    fail(tok.offset, "expected an expression");
    return nullptr;
  }
  ExprPtr e = parseTop();
  if (!e)
    return nullptr;
  if (tok.kind != Tok::End) {
    if (tok.kind == Tok::RParen)
      fail(tok.offset, "unmatched ')'");
    else if (tok.kind == Tok::RBracket)
      fail(tok.offset, "unmatched ']'");
    else
      fail(tok.offset, "trailing characters after expression");
    return nullptr;
  }
  // The evaluator recurses once per level: the same bound here, at compile
  // time. (Parentheses and `not` are bounded while parsing; chains of
  // arithmetic, fields and subscripts are built iteratively and measured
  // here.)
  if (const Expr *deep = tooDeep(*e, 1)) {
    fail(deep->offset - origin,
         "expression is nested too deeply (more than " +
             std::to_string(unum::limits::kMaxExprDepth) + " levels)");
    return nullptr;
  }
  return e;
}

/// `a or b or c ...` (and `and`): `or` and `and` are associative and
/// evaluated left to right with short circuit in any grouping, so a chain is
/// grouped as a balanced tree: an ASL `Or` of 150 rules is 8 levels deep,
/// not 150 (see kMaxExprDepth).
ExprPtr ExprParser::balanced(Expr::Op op, std::vector<ExprPtr> &operands,
                             size_t begin, size_t end) {
  if (end - begin == 1)
    return operands[begin];
  size_t mid = begin + (end - begin + 1) / 2;
  return binary(op, balanced(op, operands, begin, mid),
                balanced(op, operands, mid, end));
}

ExprPtr ExprParser::parseChain(Expr::Op op, Tok separator,
                               ExprPtr (ExprParser::*operand)()) {
  std::vector<ExprPtr> operands;
  do {
    if (!operands.empty() && !advance())
      return nullptr;
    ExprPtr e = (this->*operand)();
    if (!e)
      return nullptr;
    operands.push_back(std::move(e));
  } while (tok.kind == separator);
  return balanced(op, operands, 0, operands.size());
}

ExprPtr ExprParser::parseOr() {
  return parseChain(Expr::Op::Or, Tok::Or, &ExprParser::parseAnd);
}

ExprPtr ExprParser::parseAnd() {
  return parseChain(Expr::Op::And, Tok::And, &ExprParser::parseNot);
}

ExprPtr ExprParser::parseNot() {
  if (tok.kind != Tok::Not)
    return parseComparison();
  unsigned offset = tok.offset;
  if (!enter(offset) || !advance())
    return nullptr;
  ExprPtr operand = parseNot();
  leave();
  if (!operand)
    return nullptr;
  auto e = node(Expr::Kind::Unary, offset);
  e->op = Expr::Op::Not;
  e->lhs = operand;
  return e;
}

static std::optional<Expr::Op> comparisonOp(Tok kind) {
  switch (kind) {
  case Tok::EqEq:
    return Expr::Op::Eq;
  case Tok::NotEq:
    return Expr::Op::Ne;
  case Tok::Lt:
    return Expr::Op::Lt;
  case Tok::Le:
    return Expr::Op::Le;
  case Tok::Gt:
    return Expr::Op::Gt;
  case Tok::Ge:
    return Expr::Op::Ge;
  default:
    return std::nullopt;
  }
}

ExprPtr ExprParser::parseComparison() {
  ExprPtr lhs = parseAdditive();
  if (!lhs)
    return nullptr;
  std::optional<Expr::Op> op = comparisonOp(tok.kind);
  if (!op)
    return lhs;
  if (!advance())
    return nullptr;
  ExprPtr rhs = parseAdditive();
  if (!rhs)
    return nullptr;
  if (comparisonOp(tok.kind)) {
    fail(tok.offset, "comparisons cannot be chained; use 'and' or parentheses");
    return nullptr;
  }
  return binary(*op, lhs, rhs);
}

ExprPtr ExprParser::parseAdditive() {
  ExprPtr lhs = parseMultiplicative();
  while (lhs && (tok.kind == Tok::Plus || tok.kind == Tok::Minus)) {
    Expr::Op op = tok.kind == Tok::Plus ? Expr::Op::Add : Expr::Op::Sub;
    if (!advance())
      return nullptr;
    ExprPtr rhs = parseMultiplicative();
    if (!rhs)
      return nullptr;
    lhs = binary(op, lhs, rhs);
  }
  return lhs;
}

ExprPtr ExprParser::parseMultiplicative() {
  ExprPtr lhs = parseUnary();
  while (lhs && (tok.kind == Tok::Star || tok.kind == Tok::Slash ||
                 tok.kind == Tok::Percent)) {
    Expr::Op op = tok.kind == Tok::Star    ? Expr::Op::Mul
                  : tok.kind == Tok::Slash ? Expr::Op::Div
                                           : Expr::Op::Mod;
    if (!advance())
      return nullptr;
    ExprPtr rhs = parseUnary();
    if (!rhs)
      return nullptr;
    lhs = binary(op, lhs, rhs);
  }
  return lhs;
}

ExprPtr ExprParser::parseUnary() {
  if (tok.kind != Tok::Minus)
    return parsePostfix();
  unsigned offset = tok.offset;
  if (!enter(offset) || !advance())
    return nullptr;
  ExprPtr operand = parseUnary();
  leave();
  if (!operand)
    return nullptr;
  auto e = node(Expr::Kind::Unary, offset);
  e->op = Expr::Op::Neg;
  e->lhs = operand;
  return e;
}

ExprPtr ExprParser::parsePostfix() {
  ExprPtr base = parsePrimary();
  while (base && (tok.kind == Tok::Dot || tok.kind == Tok::LBracket)) {
    bool onOutput =
        base->kind == Expr::Kind::Output || base->kind == Expr::Kind::Context ||
        base->kind == Expr::Kind::Field || base->kind == Expr::Kind::Subscript;
    if (tok.kind == Tok::Dot) {
      if (!onOutput) {
        fail(tok.offset, "field access is only allowed on $out and $ctx");
        return nullptr;
      }
      // The field name follows the '.' directly; it may be any identifier,
      // keywords included.
      size_t start = pos;
      if (pos >= text.size() || !isIdentStart(text[pos])) {
        fail(pos, "expected a field name after '.'");
        return nullptr;
      }
      while (pos < text.size() && isIdentChar(text[pos]))
        ++pos;
      auto e = std::make_shared<Expr>();
      e->kind = Expr::Kind::Field;
      e->offset = base->offset;
      e->text = std::string(text.substr(start, pos - start));
      e->lhs = base;
      base = e;
      if (!advance())
        return nullptr;
      continue;
    }
    if (!onOutput) {
      fail(tok.offset, "subscripts are only allowed on $out and $ctx");
      return nullptr;
    }
    unsigned open = tok.offset;
    if (!enter(open) || !advance())
      return nullptr;
    ExprPtr index = parseOr();
    if (!index)
      return nullptr;
    if (tok.kind != Tok::RBracket) {
      fail(tok.offset, "expected ']'");
      return nullptr;
    }
    leave();
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::Subscript;
    e->offset = base->offset;
    e->lhs = base;
    e->rhs = index;
    base = e;
    if (!advance())
      return nullptr;
  }
  return base;
}

ExprPtr ExprParser::parsePrimary() {
  std::shared_ptr<Expr> e;
  switch (tok.kind) {
  case Tok::Int:
    e = node(Expr::Kind::Int, tok.offset);
    e->intValue = tok.intValue;
    break;
  case Tok::Float:
    e = node(Expr::Kind::Float, tok.offset);
    e->floatValue = tok.floatValue;
    break;
  case Tok::String:
    e = node(Expr::Kind::String, tok.offset);
    e->text = tok.text;
    break;
  case Tok::True:
  case Tok::False:
    e = node(Expr::Kind::Bool, tok.offset);
    e->boolValue = tok.kind == Tok::True;
    break;
  case Tok::Null:
    e = node(Expr::Kind::Null, tok.offset);
    break;
  case Tok::Output:
    e = node(Expr::Kind::Output, tok.offset);
    break;
  case Tok::Context:
    e = node(Expr::Kind::Context, tok.offset);
    break;
  case Tok::Index:
    e = node(Expr::Kind::Index, tok.offset);
    e->index = tok.index;
    break;
  case Tok::Size:
    e = node(Expr::Kind::Size, tok.offset);
    break;
  case Tok::Predicate: {
    // name '(' expr (',' string)? ')'
    e = node(Expr::Kind::Call, tok.offset);
    e->text = tok.text;
    unsigned arity = predicateArity(tok.text);
    if (!enter(tok.offset) || !advance())
      return nullptr;
    if (tok.kind != Tok::LParen) {
      fail(tok.offset, "expected '(' after '" + e->text + "'");
      return nullptr;
    }
    if (!advance())
      return nullptr;
    unsigned argOffset = tok.offset;
    e->lhs = parseOr();
    if (!e->lhs)
      return nullptr;
    bool access = e->lhs->kind == Expr::Kind::Output ||
                  e->lhs->kind == Expr::Kind::Context ||
                  e->lhs->kind == Expr::Kind::Field ||
                  e->lhs->kind == Expr::Kind::Subscript;
    if (e->text == "is_present" && !access) {
      fail(argOffset, "is_present takes a part of $out, such as $out.field");
      return nullptr;
    }
    if (arity == 2) {
      if (tok.kind != Tok::Comma) {
        fail(tok.offset, "expected ',' and a pattern string");
        return nullptr;
      }
      if (!advance())
        return nullptr;
      if (tok.kind != Tok::String) {
        fail(tok.offset, "the pattern of matches must be a string literal");
        return nullptr;
      }
      e->rhs = parsePrimary();
      if (!e->rhs)
        return nullptr;
    }
    if (tok.kind != Tok::RParen) {
      fail(tok.offset, "expected ')'");
      return nullptr;
    }
    leave();
    break;
  }
  case Tok::LParen: {
    if (!enter(tok.offset) || !advance())
      return nullptr;
    ExprPtr inner = parseTop();
    if (!inner)
      return nullptr;
    if (tok.kind != Tok::RParen) {
      fail(tok.offset, "expected ')'");
      return nullptr;
    }
    leave();
    if (!advance())
      return nullptr;
    return inner;
  }
  case Tok::End:
    fail(tok.offset, "expected an expression");
    return nullptr;
  default:
    fail(tok.offset,
         "unexpected '" + tokenText() + "'; expected an expression");
    return nullptr;
  }
  if (!advance())
    return nullptr;
  return e;
}

//===----------------------------------------------------------------------===//
// Public parsers
//===----------------------------------------------------------------------===//

static void collectOutputs(const Expr &e, std::vector<unsigned> &offsets) {
  if (e.kind == Expr::Kind::Output)
    offsets.push_back(e.offset);
  if (e.lhs)
    collectOutputs(*e.lhs, offsets);
  if (e.rhs)
    collectOutputs(*e.rhs, offsets);
}

/// Rewrites the output-variable tokens of `text` (found through the tree, so
/// string literals are never touched) to `spelling` ("$out" or "$ret").
static std::string respellOutputs(const std::string &text, const Expr *root,
                                  std::string_view spelling) {
  std::string out = text;
  if (!root)
    return out;
  std::vector<unsigned> offsets;
  collectOutputs(*root, offsets);
  for (unsigned offset : offsets)
    if (offset + 4 <= out.size() && out[offset] == '$')
      out.replace(offset, 4, spelling);
  return out;
}

std::optional<Expression> unum::config::parseConditional(std::string_view text,
                                                         ParseError &error) {
  ExprPtr root = ExprParser(text, 0, nullptr, error).parse();
  if (!root)
    return std::nullopt;
  Expression result;
  result.root = root;
  result.text = respellOutputs(std::string(text), root.get(), "$out");
  return result;
}

static bool isFunctionNameChar(char c) {
  return std::isalnum((unsigned char)c) || c == '_' || c == '-';
}

/// Position of the index infix, either spelling, or npos.
static size_t findInfix(std::string_view text) {
  size_t lower = text.find("-unumIndex-");
  size_t upper = text.find("-UnumIndex-");
  return std::min(lower, upper);
}

std::optional<NamePattern> unum::config::parseNamePattern(std::string_view text,
                                                          ParseError &error) {
  auto fail = [&](size_t offset, std::string message) {
    error.offset = offset;
    error.message = std::move(message);
    return std::nullopt;
  };
  if (text.size() > kMaxLength)
    return fail(kMaxLength, "pattern is longer than " +
                                std::to_string(kMaxLength) + " characters");
  size_t infix = findInfix(text);
  size_t fnEnd = std::min(infix, text.size());
  if (fnEnd == 0)
    return fail(0, "expected a function name");
  for (size_t i = 0; i < fnEnd; ++i)
    if (!isFunctionNameChar(text[i]))
      return fail(i, "unexpected " + describeChar(text, i) +
                         " in function name; expected letters, digits, '_' "
                         "or '-'");

  NamePattern pattern;
  pattern.function = std::string(text.substr(0, fnEnd));
  pattern.text = pattern.function;
  if (infix == std::string_view::npos)
    return pattern;
  pattern.text += kInfix;
  pattern.text += text.substr(infix + kInfix.size());

  size_t p = infix + kInfix.size();
  const char *expectedPart =
      "expected an index: an integer, $0..$31, '*' or a parenthesised "
      "expression";
  while (true) {
    IndexPart part;
    part.offset = p;
    if (p >= text.size())
      return fail(p, expectedPart);
    char c = text[p];
    if (std::isdigit((unsigned char)c)) {
      size_t start = p;
      while (p < text.size() && std::isdigit((unsigned char)text[p]))
        ++p;
      auto [end, ec] =
          std::from_chars(text.data() + start, text.data() + p, part.value);
      if (ec != std::errc())
        return fail(start, "index is too large");
      part.kind = IndexPart::Kind::Constant;
    } else if (c == '$') {
      size_t start = p++;
      while (p < text.size() && isIdentChar(text[p]))
        ++p;
      std::string_view name = text.substr(start + 1, p - start - 1);
      auto var = indexVariable(name);
      if (!var) {
        if (name == "size")
          return fail(start, "'$size' is not an index; use it in parentheses, "
                             "e.g. ($size-1)");
        return fail(start, "unknown variable '$" + std::string(name) +
                               "'; expected $0..$31");
      }
      part.kind = IndexPart::Kind::Variable;
      part.var = *var;
    } else if (c == '*') {
      ++p;
      part.kind = IndexPart::Kind::Wildcard;
    } else if (c == '(') {
      // Arithmetic has no strings, so counting parentheses finds the end.
      size_t close = p + 1;
      for (unsigned open = 1; close < text.size(); ++close) {
        if (text[close] == '(')
          ++open;
        else if (text[close] == ')' && --open == 0)
          break;
      }
      if (close >= text.size())
        return fail(text.size(), "expected ')'");
      std::string_view inner = text.substr(p + 1, close - p - 1);
      part.expr = ExprParser(inner, p + 1, "an index", error).parse();
      if (!part.expr)
        return std::nullopt;
      part.kind = IndexPart::Kind::Arithmetic;
      p = close + 1;
    } else {
      return fail(p, expectedPart);
    }
    pattern.parts.push_back(std::move(part));
    if (p >= text.size())
      return pattern;
    if (text[p] != '.')
      return fail(p, "unexpected " + describeChar(text, p) +
                         " after index; expected '.' or the end");
    ++p;
  }
}

std::optional<Modifier> unum::config::parseModifier(std::string_view text,
                                                    ParseError &error) {
  auto fail = [&](size_t offset, std::string message) {
    error.offset = offset;
    error.message = std::move(message);
    return std::nullopt;
  };
  if (text.size() > kMaxLength)
    return fail(kMaxLength, "modifier is longer than " +
                                std::to_string(kMaxLength) + " characters");
  auto isSpace = [&](size_t i) {
    return text[i] == ' ' || text[i] == '\t' || text[i] == '\n' ||
           text[i] == '\r';
  };
  size_t p = 0;
  while (p < text.size() && isSpace(p))
    ++p;
  size_t end = text.size();
  while (end > p && isSpace(end - 1))
    --end;

  Modifier modifier;
  modifier.text = std::string(text);
  const char *expected = "expected 'Pop', '$k = <expression>' or '$size = "
                         "<expression>'";
  if (text.compare(p, 3, "Pop") == 0 &&
      (p + 3 == text.size() || !isIdentChar(text[p + 3]))) {
    if (p + 3 != end)
      return fail(p + 3, "unexpected characters after 'Pop'");
    modifier.kind = Modifier::Kind::Pop;
    return modifier;
  }
  if (p >= end || text[p] != '$')
    return fail(p, expected);
  size_t start = p++;
  while (p < text.size() && isIdentChar(text[p]))
    ++p;
  std::string_view name = text.substr(start + 1, p - start - 1);
  if (name == "size") {
    modifier.kind = Modifier::Kind::AssignSize;
  } else if (auto var = indexVariable(name)) {
    modifier.kind = Modifier::Kind::AssignIndex;
    modifier.var = *var;
  } else if (name == "out" || name == "ret") {
    return fail(start, "only $0..$31 and $size can be assigned");
  } else {
    return fail(start, "unknown variable '$" + std::string(name) +
                           "'; expected $0..$31 or $size");
  }
  while (p < text.size() && isSpace(p))
    ++p;
  if (p >= text.size() || text[p] != '=' ||
      (p + 1 < text.size() && text[p + 1] == '='))
    return fail(p, "expected '=' after '$" + std::string(name) + "'");
  ++p;
  while (p < text.size() && isSpace(p))
    ++p;
  if (p >= end)
    return fail(p, "expected an expression after '='");
  std::string_view rhs = text.substr(p, end - p);
  ExprPtr root = ExprParser(rhs, 0, "a payload modifier", error).parse();
  if (!root) {
    error.offset += p;
    return std::nullopt;
  }
  modifier.value.text = std::string(rhs);
  modifier.value.root = root;
  return modifier;
}

//===----------------------------------------------------------------------===//
// Spelling, queries
//===----------------------------------------------------------------------===//

std::string unum::config::spell(const Expression &expr, Spelling spelling) {
  if (spelling != Spelling::Json)
    return expr.text;
  return respellOutputs(expr.text, expr.root.get(), "$ret");
}

std::string unum::config::spell(const NamePattern &pattern, Spelling spelling) {
  if (spelling != Spelling::Yaml ||
      pattern.text.size() == pattern.function.size())
    return pattern.text;
  std::string out = pattern.text;
  out[pattern.function.size() + 1] = 'U';
  return out;
}

std::string unum::config::spell(const Modifier &modifier, Spelling) {
  // Modifiers are arithmetic on indices only: nothing is format-specific.
  return modifier.text;
}

bool unum::config::readsContext(const Expr &expr) {
  if (expr.kind == Expr::Kind::Context)
    return true;
  return (expr.lhs && readsContext(*expr.lhs)) ||
         (expr.rhs && readsContext(*expr.rhs));
}

bool unum::config::readsOutput(const Expr &expr) {
  if (expr.kind == Expr::Kind::Output)
    return true;
  return (expr.lhs && readsOutput(*expr.lhs)) ||
         (expr.rhs && readsOutput(*expr.rhs));
}

//===----------------------------------------------------------------------===//
// sameInstancesUpToShift
//===----------------------------------------------------------------------===//

static bool sameTree(const Expr &a, const Expr &b) {
  if (a.kind != b.kind || a.op != b.op || a.intValue != b.intValue ||
      a.boolValue != b.boolValue || a.index != b.index || a.text != b.text)
    return false;
  // Bitwise compare floats so that NaN literals (impossible today) agree.
  if (std::memcmp(&a.floatValue, &b.floatValue, sizeof(double)) != 0)
    return false;
  if (bool(a.lhs) != bool(b.lhs) || bool(a.rhs) != bool(b.rhs))
    return false;
  return (!a.lhs || sameTree(*a.lhs, *b.lhs)) &&
         (!a.rhs || sameTree(*a.rhs, *b.rhs));
}

static void collectIndexVars(const Expr &e, std::vector<unsigned> &vars) {
  if (e.kind == Expr::Kind::Index)
    vars.push_back(e.index);
  if (e.lhs)
    collectIndexVars(*e.lhs, vars);
  if (e.rhs)
    collectIndexVars(*e.rhs, vars);
}

namespace {
/// An index part seen as "var k plus a constant offset", if it has that form.
struct VarOffset {
  unsigned var;
  int64_t offset;
};
} // namespace

static std::optional<VarOffset> asVarOffset(const IndexPart &part) {
  if (part.kind == IndexPart::Kind::Variable)
    return VarOffset{part.var, 0};
  if (part.kind != IndexPart::Kind::Arithmetic || !part.expr)
    return std::nullopt;
  const Expr &e = *part.expr;
  if (e.kind == Expr::Kind::Index)
    return VarOffset{e.index, 0};
  if (e.kind != Expr::Kind::Binary ||
      (e.op != Expr::Op::Add && e.op != Expr::Op::Sub))
    return std::nullopt;
  const Expr &l = *e.lhs, &r = *e.rhs;
  if (l.kind == Expr::Kind::Index && r.kind == Expr::Kind::Int) {
    if (e.op == Expr::Op::Add)
      return VarOffset{l.index, r.intValue};
    if (r.intValue == INT64_MIN)
      return std::nullopt;
    return VarOffset{l.index, -r.intValue};
  }
  if (e.op == Expr::Op::Add && l.kind == Expr::Kind::Int &&
      r.kind == Expr::Kind::Index)
    return VarOffset{r.index, l.intValue};
  return std::nullopt;
}

bool unum::config::sameInstancesUpToShift(const std::vector<NamePattern> &a,
                                          const std::vector<NamePattern> &b) {
  if (a.size() != b.size())
    return false;
  // shift[k]: offset in a minus offset in b for variable k, once known.
  std::map<unsigned, int64_t> shift;
  auto constrain = [&](unsigned var, int64_t delta) {
    auto [it, inserted] = shift.emplace(var, delta);
    return inserted || it->second == delta;
  };
  for (size_t i = 0; i < a.size(); ++i) {
    const NamePattern &pa = a[i], &pb = b[i];
    if (pa.function != pb.function || pa.parts.size() != pb.parts.size())
      return false;
    for (size_t j = 0; j < pa.parts.size(); ++j) {
      const IndexPart &x = pa.parts[j], &y = pb.parts[j];
      std::optional<VarOffset> vx = asVarOffset(x), vy = asVarOffset(y);
      if (vx || vy) {
        int64_t delta;
        if (!vx || !vy || vx->var != vy->var ||
            __builtin_sub_overflow(vx->offset, vy->offset, &delta) ||
            !constrain(vx->var, delta))
          return false;
        continue;
      }
      if (x.kind != y.kind)
        return false;
      switch (x.kind) {
      case IndexPart::Kind::Constant:
        if (x.value != y.value)
          return false;
        break;
      case IndexPart::Kind::Wildcard:
        break;
      case IndexPart::Kind::Variable: // handled as VarOffset above
        break;
      case IndexPart::Kind::Arithmetic: {
        if (!x.expr || !y.expr || !sameTree(*x.expr, *y.expr))
          return false;
        // Equal trees name the same instance only if their variables are not
        // shifted.
        std::vector<unsigned> vars;
        collectIndexVars(*x.expr, vars);
        for (unsigned var : vars)
          if (!constrain(var, 0))
            return false;
        break;
      }
      }
    }
  }
  return true;
}

/// `e`'s structure, as sameTree compares it.
static void appendTree(std::string &out, const Expr &e) {
  out += '(';
  out += std::to_string(int(e.kind)) + ',' + std::to_string(int(e.op)) + ',' +
         std::to_string(e.intValue) + ',' + std::to_string(e.boolValue) + ',' +
         std::to_string(e.index) + ',';
  char bits[sizeof(double)];
  std::memcpy(bits, &e.floatValue, sizeof(double));
  for (char c : bits)
    out += std::to_string((unsigned char)c) + '.';
  out += std::to_string(e.text.size()) + ':' + e.text;
  if (e.lhs)
    appendTree(out, *e.lhs);
  out += '|';
  if (e.rhs)
    appendTree(out, *e.rhs);
  out += ')';
}

std::string unum::config::instancesKey(const std::vector<NamePattern> &list) {
  // A variable in arithmetic other than "var plus offset" has its shift
  // pinned to 0; every other variable's offsets are written relative to its
  // first one in the list, so a shifted list has the same key.
  std::vector<bool> pinned(kMaxIndexVariables + 1);
  for (const NamePattern &p : list)
    for (const IndexPart &part : p.parts)
      if (part.kind == IndexPart::Kind::Arithmetic && part.expr &&
          !asVarOffset(part)) {
        std::vector<unsigned> vars;
        collectIndexVars(*part.expr, vars);
        for (unsigned v : vars)
          pinned[std::min(v, kMaxIndexVariables)] = true;
      }
  std::map<unsigned, int64_t> base;
  std::string key;
  for (const NamePattern &p : list) {
    key += std::to_string(p.function.size()) + ':' + p.function;
    for (const IndexPart &part : p.parts) {
      key += '/';
      if (std::optional<VarOffset> vo = asVarOffset(part)) {
        // Relative offsets are exact in 128 bits.
        __int128 offset = vo->offset;
        if (!pinned[std::min(vo->var, kMaxIndexVariables)])
          offset -= base.try_emplace(vo->var, vo->offset).first->second;
        bool negative = offset < 0;
        unsigned __int128 magnitude =
            negative ? -(unsigned __int128)offset : (unsigned __int128)offset;
        std::string digits;
        do {
          digits.insert(digits.begin(), char('0' + unsigned(magnitude % 10)));
          magnitude /= 10;
        } while (magnitude);
        key += '$' + std::to_string(vo->var) + (negative ? '-' : '+') + digits;
        continue;
      }
      switch (part.kind) {
      case IndexPart::Kind::Constant:
        key += std::to_string(part.value);
        break;
      case IndexPart::Kind::Wildcard:
        key += '*';
        break;
      case IndexPart::Kind::Variable: // a VarOffset, above
        break;
      case IndexPart::Kind::Arithmetic:
        if (part.expr)
          appendTree(key, *part.expr);
        break;
      }
    }
    key += ';';
  }
  return key;
}
