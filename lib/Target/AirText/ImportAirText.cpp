//===- ImportAirText.cpp - The AIR notation to the air dialect ------------===//
//
//   function expr(%a: f32[N], %b, %c: f32[]) {   # untyped %b: generic
//       %0 = kernel(mul, %b, %c)
//       %1 = kernel(sum, %0, axes=[0])
//       %2 = call helper(%1, 2.5)
//       ret %2
//   }
//
// The file is read into a small AST first so that calls may name functions
// defined later; functions are then built callees first, so a typed caller
// sees its callees' result types and every type error is found here, at the
// kernel that causes it.
//
//===----------------------------------------------------------------------===//
#include "unum/Dialect/Air/IR/AirOps.h"
#include "unum/Dialect/Air/IR/AirTypeText.h"
#include "unum/Target/AirText/AirText.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace unum;
using namespace unum::air;

namespace {
//===----------------------------------------------------------------------===//
// AST
//===----------------------------------------------------------------------===//

struct Arg {
  enum class Kind { Value, Number, Name, List, Named } kind;
  size_t pos = 0;
  std::string text;           // value or attribute name, number text
  std::vector<int64_t> list;  // List, or a Named list
  std::unique_ptr<Arg> named; // Named: the value after '='
  bool isFloat = false;       // Number written with '.', 'e' or inf/nan
};

struct Stmt {
  size_t pos = 0;
  std::vector<std::string> defs; // names defined (empty for ret)
  bool isRet = false, isCall = false;
  std::string callee; // kernel name or function name
  size_t calleePos = 0;
  std::vector<Arg> args;
  // `grad(f, wrt=[..])(args)` / `value_and_grad(...)(args)`: isCall is set
  // too (the callee is a function).
  bool isGrad = false, withValue = false;
  std::vector<int64_t> wrt = {0};
  size_t wrtPos = 0;
};

struct Param {
  std::string name;
  size_t pos = 0;
  Type type; // GenericType when omitted
};

struct Function {
  std::string name;
  size_t pos = 0;
  std::vector<Param> params;
  std::vector<Stmt> body;
  size_t closePos = 0;
};

//===----------------------------------------------------------------------===//
// Lexing and parsing into the AST
//===----------------------------------------------------------------------===//

class Parser {
public:
  Parser(StringRef text, StringRef file, MLIRContext *ctx)
      : text(text), file(file), ctx(ctx) {}

  bool parseFile(std::vector<Function> &out) {
    while (true) {
      skip();
      if (pos >= text.size())
        return true;
      Function f;
      if (!parseFunction(f))
        return false;
      out.push_back(std::move(f));
    }
  }

  Location loc(size_t at) const {
    // Line starts are found once; a lookup is a binary search.
    if (lineStarts.empty()) {
      lineStarts.push_back(0);
      for (size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n')
          lineStarts.push_back(i + 1);
    }
    at = std::min(at, text.size());
    auto next = std::upper_bound(lineStarts.begin(), lineStarts.end(), at);
    size_t line = next - lineStarts.begin();
    return FileLineColLoc::get(ctx, file, line, at - *(next - 1) + 1);
  }

  bool error(size_t at, const Twine &message) {
    emitError(loc(at)) << message;
    return false;
  }

private:
  /// Skips blanks and comments (`#` or `//` to the end of the line).
  void skip() {
    while (pos < text.size()) {
      char c = text[pos];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++pos;
      } else if (c == '#' || text.substr(pos).starts_with("//")) {
        while (pos < text.size() && text[pos] != '\n')
          ++pos;
      } else {
        break;
      }
    }
  }

  bool consume(StringRef token) {
    skip();
    if (!text.substr(pos).starts_with(token))
      return false;
    pos += token.size();
    return true;
  }

  bool expect(StringRef token, StringRef what) {
    if (consume(token))
      return true;
    return error(pos, "expected '" + token + "' " + what + found());
  }

  std::string found() {
    skip();
    if (pos >= text.size())
      return ", found the end of the file";
    size_t end = pos;
    while (end < text.size() && !llvm::isSpace(text[end]) && end - pos < 12)
      ++end;
    return ", found '" + text.slice(pos, end).str() + "'";
  }

  static bool isIdentChar(char c) { return llvm::isAlnum(c) || c == '_'; }

  bool identifier(std::string &out) {
    skip();
    size_t start = pos;
    if (pos < text.size() && (llvm::isAlpha(text[pos]) || text[pos] == '_'))
      while (pos < text.size() && isIdentChar(text[pos]))
        ++pos;
    out = text.slice(start, pos).str();
    return !out.empty();
  }

  bool valueName(std::string &out) {
    skip();
    if (pos >= text.size() || text[pos] != '%')
      return false;
    size_t start = ++pos;
    while (pos < text.size() && isIdentChar(text[pos]))
      ++pos;
    out = text.slice(start, pos).str();
    if (out.empty())
      return error(start, "expected a value name after '%'");
    return true;
  }

  /// True if a number starts here: a digit, or '.' and a digit, or inf/nan,
  /// after an optional sign. (An identifier such as `e1` is not a number.)
  bool atNumber() {
    skip();
    size_t p = pos;
    if (p < text.size() && (text[p] == '-' || text[p] == '+'))
      ++p;
    StringRef rest = text.substr(p);
    return (!rest.empty() && llvm::isDigit(rest[0])) ||
           (rest.size() > 1 && rest[0] == '.' && llvm::isDigit(rest[1])) ||
           rest.starts_with("inf") || rest.starts_with("nan");
  }

  /// A number, or false with nothing consumed if none starts here. A
  /// malformed one (`1e`, `1.2.3`) is an error: then false with pos moved,
  /// and callers must stop (parseArg checks atNumber() first for that).
  bool number(Arg &arg) {
    if (!atNumber())
      return false;
    size_t start = pos;
    if (pos < text.size() && (text[pos] == '-' || text[pos] == '+'))
      ++pos;
    if (text.substr(pos).starts_with("inf") ||
        text.substr(pos).starts_with("nan")) {
      pos += 3;
      arg.isFloat = true;
    } else {
      size_t digits = pos;
      while (pos < text.size() &&
             (llvm::isDigit(text[pos]) || text[pos] == '.' ||
              text[pos] == 'e' || text[pos] == 'E' ||
              ((text[pos] == '-' || text[pos] == '+') &&
               (text[pos - 1] == 'e' || text[pos - 1] == 'E')))) {
        if (!llvm::isDigit(text[pos]))
          arg.isFloat = true;
        ++pos;
      }
      if (pos == digits) {
        pos = start;
        return false;
      }
    }
    arg.kind = Arg::Kind::Number;
    arg.pos = start;
    arg.text = text.slice(start, pos).str();
    // getAsDouble reads "1e+" as 1: an exponent needs a digit.
    StringRef lit(arg.text);
    size_t exp = lit.find_insensitive('e');
    bool exponentOk = exp == StringRef::npos ||
                      lit.drop_front(exp + 1).ltrim("+-").find_if(
                          [](char c) { return llvm::isDigit(c); }) == 0;
    double ignored;
    if (!exponentOk || lit.getAsDouble(ignored))
      return error(start, "malformed number '" + arg.text + "'");
    return true;
  }

  bool intList(std::vector<int64_t> &out) {
    // '[' already consumed.
    if (consume("]"))
      return true;
    while (true) {
      Arg n;
      if (!number(n) || n.isFloat)
        return error(pos, "expected an integer in the list" + found());
      int64_t v;
      if (StringRef(n.text).getAsInteger(10, v))
        return error(n.pos, "integer '" + n.text + "' is out of range");
      out.push_back(v);
      if (consume("]"))
        return true;
      if (!expect(",", "between list entries"))
        return false;
    }
  }

  bool parseArg(Arg &arg) {
    skip();
    arg.pos = pos;
    if (pos < text.size() && text[pos] == '%') {
      arg.kind = Arg::Kind::Value;
      return valueName(arg.text);
    }
    if (consume("[")) {
      arg.kind = Arg::Kind::List;
      return intList(arg.list);
    }
    if (atNumber())
      return number(arg);
    if (identifier(arg.text)) {
      if (consume("=")) {
        arg.kind = Arg::Kind::Named;
        arg.named = std::make_unique<Arg>();
        if (!parseArg(*arg.named))
          return false;
        if (arg.named->kind == Arg::Kind::Value ||
            arg.named->kind == Arg::Kind::Named)
          return error(arg.named->pos,
                       "'" + arg.text + "=' takes a number, a list or a dtype");
        return true;
      }
      arg.kind = Arg::Kind::Name;
      return true;
    }
    return error(pos, "expected an operand (%name or a number), a list or "
                      "name=value" +
                          found());
  }

  bool parseArgs(std::vector<Arg> &args) {
    // '(' already consumed.
    if (consume(")"))
      return true;
    while (true) {
      Arg a;
      if (!parseArg(a))
        return false;
      args.push_back(std::move(a));
      if (consume(")"))
        return true;
      if (!expect(",", "between arguments"))
        return false;
    }
  }

  bool parseStmt(Stmt &s) {
    skip();
    s.pos = pos;
    std::string word;
    size_t wordPos = pos;
    if (identifier(word)) {
      if (word != "ret" && word != "return")
        return error(wordPos,
                     "expected '%name = ...' or 'ret', found '" + word + "'");
      s.isRet = true;
      while (true) {
        Arg a;
        if (!parseArg(a))
          return false;
        if (a.kind != Arg::Kind::Value && a.kind != Arg::Kind::Number)
          return error(a.pos, "'ret' returns values");
        s.args.push_back(std::move(a));
        if (!consume(","))
          return true;
      }
    }
    while (true) {
      std::string name;
      if (!valueName(name))
        return error(pos, "expected a statement" + found());
      s.defs.push_back(name);
      if (!consume(","))
        break;
    }
    if (!expect("=", "after the defined value"))
      return false;
    skip();
    size_t opPos = pos;
    if (!identifier(word))
      return error(pos, "expected 'kernel(...)' or 'call f(...)'" + found());
    if (word == "kernel") {
      if (!expect("(", "after 'kernel'"))
        return false;
      skip();
      s.calleePos = pos;
      if (!identifier(s.callee))
        return error(pos, "expected the kernel's name" + found());
      if (consume(")"))
        return true;
      if (!expect(",", "after the kernel's name"))
        return false;
      return parseArgs(s.args);
    }
    if ((word == "grad" || word == "value_and_grad") && peekGradTarget())
      return parseGrad(s, word == "value_and_grad");
    if (word == "call") {
      skip();
      s.calleePos = pos;
      if (!identifier(s.callee))
        return error(pos, "expected the called function's name" + found());
    } else {
      s.callee = word; // `%x = f(%a)` also calls f
      s.calleePos = opPos;
    }
    s.isCall = true;
    if (!expect("(", "after the function name"))
      return false;
    return parseArgs(s.args);
  }

  /// After `grad`: `(` and a function name (not a value) follow.
  bool peekGradTarget() {
    size_t save = pos;
    bool yes = consume("(");
    skip();
    yes = yes && pos < text.size() &&
          (llvm::isAlpha(text[pos]) || text[pos] == '_');
    pos = save;
    return yes;
  }

  /// `grad(f)(args)`, `grad(f, wrt=[0, 2])(args)`, `wrt=1` for one.
  bool parseGrad(Stmt &s, bool withValue) {
    s.isCall = s.isGrad = true;
    s.withValue = withValue;
    consume("("); // peekGradTarget saw it
    skip();
    s.calleePos = pos;
    if (!identifier(s.callee))
      return error(pos, "expected the function to differentiate" + found());
    s.wrtPos = s.calleePos;
    if (consume(",")) {
      skip();
      size_t at = pos;
      std::string key;
      if (!identifier(key) || key != "wrt" || !consume("="))
        return error(at, "expected 'wrt=[...]'" + found());
      skip();
      s.wrtPos = pos;
      s.wrt.clear();
      Arg n;
      if (consume("[")) {
        if (!intList(s.wrt))
          return false;
      } else if (number(n) && !n.isFloat) {
        int64_t v;
        if (StringRef(n.text).getAsInteger(10, v))
          return error(n.pos, "integer '" + n.text + "' is out of range");
        s.wrt.push_back(v);
      } else {
        return error(s.wrtPos,
                     "'wrt' takes a parameter index or a list" + found());
      }
      if (s.wrt.empty())
        return error(s.wrtPos, "'wrt' needs at least one parameter");
    }
    if (!expect(")", "after the differentiated function") ||
        !expect("(", "before the arguments"))
      return false;
    return parseArgs(s.args);
  }

  bool parseFunction(Function &f) {
    skip();
    f.pos = pos;
    std::string word;
    if (!identifier(word) || (word != "function" && word != "def"))
      return error(f.pos, "expected 'function'" + found());
    skip();
    size_t namePos = pos;
    if (!identifier(f.name))
      return error(namePos, "expected the function's name" + found());
    f.pos = namePos;
    if (!expect("(", "after the function name"))
      return false;
    if (!consume(")")) {
      while (true) {
        Param p;
        skip();
        p.pos = pos;
        if (!valueName(p.name))
          return error(pos, "expected a parameter (%name)" + found());
        p.type = GenericType::get(ctx);
        if (consume(":")) {
          skip();
          size_t consumed = 0;
          std::string message;
          p.type = parseAirType(text.substr(pos), ctx, consumed, message);
          if (!p.type)
            return error(pos + consumed, message);
          pos += consumed;
        }
        f.params.push_back(std::move(p));
        if (consume(")"))
          break;
        if (!expect(",", "between parameters"))
          return false;
      }
    }
    if (!expect("{", "to open the function body"))
      return false;
    while (true) {
      skip();
      if (pos >= text.size())
        return error(f.pos, "function '" + f.name + "' has no closing '}'");
      if (text[pos] == '}') {
        f.closePos = pos++;
        break;
      }
      Stmt s;
      if (!parseStmt(s))
        return false;
      f.body.push_back(std::move(s));
    }
    if (f.body.empty() || !f.body.back().isRet)
      return error(f.closePos, "function '" + f.name + "' must end with 'ret'");
    return true;
  }

  StringRef text, file;
  MLIRContext *ctx;
  size_t pos = 0;
  mutable std::vector<size_t> lineStarts;
};

//===----------------------------------------------------------------------===//
// Building the air dialect
//===----------------------------------------------------------------------===//

class IRGen {
public:
  IRGen(Parser &parser, MLIRContext *ctx, ModuleOp module)
      : parser(parser), ctx(ctx), module(module), b(ctx) {}

  bool build(std::vector<Function> &functions) {
    for (Function &f : functions) {
      if (byName.count(f.name))
        return parser.error(f.pos,
                            "function '" + f.name + "' is defined twice");
      byName[f.name] = &f;
    }
    for (Function &f : functions)
      if (!buildFunction(f))
        return false;
    // Keep the file's order in the module.
    for (Function &f : functions)
      built[f.name]->moveBefore(module.getBody(), module.getBody()->end());
    return true;
  }

private:
  /// Builds `f` after the functions it calls (so their result types are
  /// known); a call cycle is an error.
  bool buildFunction(Function &f) {
    if (built.count(f.name))
      return true;
    if (!inProgress.insert(f.name).second)
      return parser.error(f.pos, "function '" + f.name +
                                     "' is recursive; recursion is not "
                                     "supported");
    for (Stmt &s : f.body)
      if (s.isCall) {
        auto it = byName.find(s.callee);
        if (it == byName.end())
          return parser.error(s.calleePos,
                              "call to undefined function '" + s.callee + "'");
        if (!buildFunction(*it->second))
          return false;
      }
    inProgress.erase(f.name);

    SmallVector<Type> paramTypes;
    for (Param &p : f.params)
      paramTypes.push_back(p.type);
    b.setInsertionPointToEnd(module.getBody());
    auto func = func::FuncOp::create(b, parser.loc(f.pos), f.name,
                                     b.getFunctionType(paramTypes, {}));
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToStart(entry);
    values.clear();
    for (auto [p, arg] : llvm::zip(f.params, entry->getArguments())) {
      if (!values.try_emplace(p.name, arg).second)
        return parser.error(p.pos,
                            "parameter '%" + p.name + "' is declared twice");
      arg.setLoc(parser.loc(p.pos));
      // Kept for the generated C header's parameter names.
      func.setArgAttr(arg.getArgNumber(), "air.name", b.getStringAttr(p.name));
    }
    for (Stmt &s : f.body) {
      bool ok = s.isRet ? buildReturn(s, func)
                        : (s.isCall ? buildCall(s) : buildKernel(s));
      if (!ok)
        return false;
    }
    built[f.name] = func;
    return true;
  }

  Value lookup(const Arg &a, Type peer) {
    if (a.kind == Arg::Kind::Value) {
      auto it = values.find(a.text);
      if (it == values.end()) {
        parser.error(a.pos, "use of undefined value '%" + a.text + "'");
        return {};
      }
      return it->second;
    }
    return literal(a, peer);
  }

  /// A number operand: a constant in `peer`'s dtype when that is known,
  /// otherwise a weak literal that air-infer types later.
  Value literal(const Arg &a, Type peer) {
    Location loc = parser.loc(a.pos);
    double value;
    StringRef(a.text).getAsDouble(value);
    auto peerTensor = dyn_cast_if_present<RankedTensorType>(peer);
    if (!peerTensor) {
      // A weak literal is a double until air-infer gives it a dtype: an
      // integer that a double does not hold exactly would silently change.
      int64_t exact;
      StringRef digits(a.text);
      digits.consume_front("+");
      bool inexact = !a.isFloat && (digits.getAsInteger(10, exact) ||
                                    double(exact) >= 0x1p63 ||
                                    int64_t(double(exact)) != exact);
      if (inexact) {
        parser.error(a.pos,
                     "integer " + a.text +
                         " meets no operand of a "
                         "known dtype and is not exact as a weak literal "
                         "(beyond 2^53): give the kernel a typed operand");
        return {};
      }
      return LiteralOp::create(b, loc, GenericType::get(ctx),
                               b.getF64FloatAttr(value));
    }
    Type dtype = peerTensor.getElementType();
    auto type = RankedTensorType::get({}, dtype);
    Attribute element;
    if (isa<FloatType>(dtype)) {
      element = b.getFloatAttr(dtype, value);
    } else {
      // Integers are read from their text, never through a double (which
      // rounds past 2^53 and has no int64 for 1e30).
      int64_t exact;
      StringRef digits(a.text);
      digits.consume_front("+");
      if (a.isFloat) {
        parser.error(a.pos, "number " + a.text +
                                " is not an integer, but "
                                "it meets an " +
                                formatAirType(peer) + " operand");
        return {};
      }
      unsigned width = dtype.getIntOrFloatBitWidth();
      bool fits = !digits.getAsInteger(10, exact) &&
                  (width == 1 ? (exact == 0 || exact == 1)
                              : width >= 64 || llvm::isIntN(width, exact));
      if (!fits) {
        parser.error(a.pos, "integer " + a.text + " is out of range for " +
                                "the " + formatAirType(peer) +
                                " operand it "
                                "meets");
        return {};
      }
      element = b.getIntegerAttr(dtype, exact);
    }
    return ConstantOp::create(b, loc, type,
                              DenseElementsAttr::get(type, element));
  }

  /// Resolves positional operands: values first, then numbers typed after
  /// the first value operand from `firstPeer` on (select's condition, an
  /// i1, gives its branches no dtype).
  bool operands(const std::vector<const Arg *> &args,
                SmallVectorImpl<Value> &out, size_t firstPeer = 0) {
    Type peer;
    for (auto [i, a] : llvm::enumerate(args))
      if (a->kind == Arg::Kind::Value) {
        Value v = lookup(*a, {});
        if (!v)
          return false;
        if (!peer && i >= firstPeer && isa<RankedTensorType>(v.getType()))
          peer = v.getType();
      }
    for (const Arg *a : args) {
      Value v = lookup(*a, peer);
      if (!v)
        return false;
      out.push_back(v);
    }
    return true;
  }

  bool define(const Stmt &s, ValueRange results) {
    if (s.defs.size() != results.size())
      return parser.error(s.pos, "statement defines " + Twine(s.defs.size()) +
                                     " values but '" + s.callee + "' gives " +
                                     Twine(results.size()));
    for (auto [name, v] : llvm::zip(s.defs, results))
      if (!values.try_emplace(name, v).second)
        return parser.error(s.pos, "value '%" + name + "' is defined twice");
    return true;
  }

  /// `grad(f, wrt)(args)`: an air.grad; what can be checked before
  /// air-grad (indices, dtypes, the result) is checked here, located.
  bool buildGrad(const Stmt &s, func::FuncOp callee, ValueRange ins,
                 const std::vector<const Arg *> &args) {
    FunctionType type = callee.getFunctionType();
    llvm::SmallDenseSet<int64_t> seen;
    for (int64_t i : s.wrt) {
      if (i < 0 || i >= (int64_t)type.getNumInputs())
        return parser.error(s.wrtPos,
                            "'wrt' entry " + Twine(i) + " is out of range: '" +
                                s.callee + "' has " +
                                Twine(type.getNumInputs()) + " parameters");
      if (!seen.insert(i).second)
        return parser.error(s.wrtPos,
                            "'wrt' lists parameter " + Twine(i) + " twice");
      Type t = ins[i].getType();
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (tensor && !isa<FloatType>(tensor.getElementType()))
        return parser.error(args[i]->pos,
                            "cannot differentiate '" + s.callee +
                                "' with respect to parameter " + Twine(i) +
                                ": it is " + formatAirType(t) +
                                "; only floating-point arrays have gradients");
    }
    if (type.getNumResults() != 1)
      return parser.error(s.calleePos, "cannot differentiate '" + s.callee +
                                           "': it returns " +
                                           Twine(type.getNumResults()) +
                                           " values, a gradient needs one "
                                           "scalar");
    Type value = type.getResult(0);
    auto scalar = dyn_cast<RankedTensorType>(value);
    if (!isa<GenericType>(value) && (!scalar || scalar.getRank() != 0 ||
                                     !isa<FloatType>(scalar.getElementType())))
      return parser.error(s.calleePos,
                          "cannot differentiate '" + s.callee +
                              "': it returns " + formatAirType(value) +
                              "; a gradient needs a floating-point scalar");
    SmallVector<Type> results;
    if (s.withValue)
      results.push_back(value);
    for (int64_t i : s.wrt)
      results.push_back(ins[i].getType()); // a gradient has its argument's type
    auto grad = GradOp::create(b, parser.loc(s.pos), results, s.callee, ins,
                               s.wrt, s.withValue);
    return define(s, grad.getResults());
  }

  bool buildCall(const Stmt &s) {
    func::FuncOp callee = built[s.callee];
    std::vector<const Arg *> args;
    for (const Arg &a : s.args) {
      if (a.kind != Arg::Kind::Value && a.kind != Arg::Kind::Number)
        return parser.error(a.pos, "a call takes values");
      args.push_back(&a);
    }
    SmallVector<Value> ins;
    if (!operands(args, ins))
      return false;
    FunctionType type = callee.getFunctionType();
    if (ins.size() != type.getNumInputs())
      return parser.error(
          s.pos, "'" + s.callee + "' takes " + Twine(type.getNumInputs()) +
                     " arguments, " + Twine(ins.size()) + " given");
    // A typed callee fixes the argument types; a generic one is specialised
    // later by air-monomorphize, so its results stay generic.
    bool generic = llvm::any_of(type.getInputs(), llvm::IsaPred<GenericType>);
    for (auto [i, v, expected] : llvm::enumerate(ins, type.getInputs())) {
      if (isa<GenericType>(expected) || isa<GenericType>(v.getType()) ||
          isa_and_present<LiteralOp>(v.getDefiningOp()))
        continue;
      if (v.getType() != expected)
        return parser.error(args[i]->pos,
                            "argument " + Twine(i + 1) + " of '" + s.callee +
                                "' has type " + formatAirType(v.getType()) +
                                ", expected " + formatAirType(expected));
    }
    if (s.isGrad)
      return buildGrad(s, callee, ins, args);
    SmallVector<Type> results;
    for (Type t : type.getResults())
      results.push_back(generic ? GenericType::get(ctx) : t);
    auto call = CallOp::create(b, parser.loc(s.pos), results, s.callee, ins,
                               ArrayAttr(), ArrayAttr());
    return define(s, call.getResults());
  }

  bool buildReturn(const Stmt &s, func::FuncOp func) {
    std::vector<const Arg *> args;
    for (const Arg &a : s.args)
      args.push_back(&a);
    SmallVector<Value> results;
    if (!operands(args, results))
      return false;
    func::ReturnOp::create(b, parser.loc(s.pos), results);
    func.setFunctionType(b.getFunctionType(func.getArgumentTypes(),
                                           ValueRange(results).getTypes()));
    return true;
  }

  /// Maps a `name=value` argument (or a bare dtype for cast) to the op's
  /// attribute.
  bool attribute(const Stmt &s, const Arg &a, OperationName opName,
                 NamedAttrList &attrs) {
    std::string name = a.text;
    const Arg *value = a.named.get();
    if (a.kind == Arg::Kind::Name) { // `kernel(cast, %x, f64)`
      name = "dtype";
      value = &a;
    }
    if (name == "axis")
      name = "axes";
    ArrayRef<StringAttr> known =
        opName.getRegisteredInfo()->getAttributeNames();
    if (!llvm::any_of(known, [&](StringAttr k) { return k == name; }))
      return parser.error(a.pos,
                          "kernel '" + s.callee + "' takes no '" + name + "'");
    if (name == "dtype") {
      Type dtype = value->kind == Arg::Kind::Name
                       ? parseAirDType(value->text, ctx)
                       : Type();
      if (!dtype)
        return parser.error(value->pos, "expected a dtype (f32, f64, i32, "
                                        "i64 or i1)");
      attrs.set(name, TypeAttr::get(dtype));
      return true;
    }
    if (name == "axes" || name == "shape" || name == "perm") {
      std::vector<int64_t> list = value->list;
      if (value->kind == Arg::Kind::Number) {
        int64_t v;
        if (value->isFloat || StringRef(value->text).getAsInteger(10, v))
          return parser.error(value->pos, "'" + name + "' takes integers");
        list = {v};
      } else if (value->kind != Arg::Kind::List) {
        return parser.error(value->pos, "'" + name + "' takes a list");
      }
      attrs.set(name, b.getDenseI64ArrayAttr(list));
      return true;
    }
    int64_t v; // stride, index
    if (value->kind != Arg::Kind::Number || value->isFloat ||
        StringRef(value->text).getAsInteger(10, v))
      return parser.error(value->pos, "'" + name + "' takes an integer");
    attrs.set(name, b.getI64IntegerAttr(v));
    return true;
  }

  bool buildKernel(const Stmt &s) {
    std::vector<const Arg *> positional;
    std::vector<const Arg *> named;
    for (const Arg &a : s.args) {
      if (a.kind == Arg::Kind::Value || a.kind == Arg::Kind::Number)
        positional.push_back(&a);
      else
        named.push_back(&a);
    }
    std::string mnemonic = s.callee;
    // `max`/`min` with one array operand reduce; with two they compare.
    if ((mnemonic == "max" || mnemonic == "min") && positional.size() == 1)
      mnemonic = "reduce_" + mnemonic;
    NamedAttrList attrs;
    // `kernel(get, %t, 1)`: the index is written like an operand.
    if (s.callee == "get" && positional.size() == 2 &&
        positional[1]->kind == Arg::Kind::Number) {
      int64_t index;
      if (positional[1]->isFloat ||
          StringRef(positional[1]->text).getAsInteger(10, index))
        return parser.error(positional[1]->pos, "'get' takes an integer index");
      attrs.set("index", b.getI64IntegerAttr(index));
      positional.pop_back();
    }
    std::optional<RegisteredOperationName> opName =
        RegisteredOperationName::lookup("air." + mnemonic, ctx);
    if (!opName || !opName->hasInterface<KernelOp>() ||
        mnemonic == "broadcast" || StringRef(mnemonic).ends_with("_grad"))
      return parser.error(s.calleePos, "unknown kernel '" + s.callee + "'");
    for (const Arg *a : named)
      if (!attribute(s, *a, *opName, attrs))
        return false;
    SmallVector<Value> ins;
    if (!operands(positional, ins, mnemonic == "select" ? 1 : 0))
      return false;
    Location loc = parser.loc(s.calleePos);
    OperationState state(loc, *opName);
    state.addOperands(ins);
    state.addAttributes(attrs);
    state.addTypes(GenericType::get(ctx));
    Operation *op = b.create(state);
    // The op's own invariants (its operand count) first: type inference
    // assumes them (a kernel without operands has no dtype to infer).
    if (failed(verify(op)))
      return false;
    Type type = cast<KernelOp>(op).inferResultType(op->getOperandTypes(), loc);
    if (!type)
      return false;
    op->getResult(0).setType(type);
    if (failed(verify(op)))
      return false;
    return define(s, op->getResults());
  }

  Parser &parser;
  MLIRContext *ctx;
  ModuleOp module;
  OpBuilder b;
  llvm::StringMap<Function *> byName;
  llvm::StringMap<func::FuncOp> built;
  llvm::StringSet<> inProgress;
  llvm::StringMap<Value> values;
};
} // namespace

OwningOpRef<ModuleOp> unum::importAirText(StringRef text, StringRef file,
                                          MLIRContext *ctx) {
  ctx->loadDialect<AirDialect, func::FuncDialect>();
  Parser parser(text, file, ctx);
  std::vector<Function> functions;
  if (!parser.parseFile(functions))
    return {};
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(FileLineColLoc::get(ctx, file, 1, 1));
  IRGen builder(parser, ctx, *module);
  if (!builder.build(functions))
    return {};
  if (failed(verify(*module)))
    return {};
  return module;
}
