//===- AirTypeText.cpp - Types in the AIR notation ------------------------===//
#include "unum/Dialect/Air/IR/AirTypeText.h"
#include "unum/Dialect/Air/IR/AirOps.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

std::string unum::air::formatAirShape(ArrayRef<int64_t> shape) {
  std::string out = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      out += ", ";
    out += ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
  }
  return out + "]";
}

static std::string dtypeName(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isF64())
    return "f64";
  if (t.isInteger(1))
    return "i1";
  if (auto i = dyn_cast<IntegerType>(t))
    return "i" + std::to_string(i.getWidth());
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string unum::air::formatAirType(Type type) {
  if (isa<GenericType>(type))
    return "generic";
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return dtypeName(tensor.getElementType()) +
           formatAirShape(tensor.getShape());
  if (auto tuple = dyn_cast<TupleType>(type)) {
    std::string out = "(";
    for (auto [i, t] : llvm::enumerate(tuple.getTypes()))
      out += (i ? ", " : "") + formatAirType(t);
    return out + ")";
  }
  return dtypeName(type);
}

Type unum::air::parseAirDType(StringRef name, MLIRContext *ctx) {
  if (name == "f32")
    return Float32Type::get(ctx);
  if (name == "f64")
    return Float64Type::get(ctx);
  if (name == "i32")
    return IntegerType::get(ctx, 32);
  if (name == "i64")
    return IntegerType::get(ctx, 64);
  if (name == "i1" || name == "bool")
    return IntegerType::get(ctx, 1);
  return {};
}

Type unum::air::parseAirType(StringRef text, MLIRContext *ctx,
                             size_t &consumed, std::string &error) {
  size_t pos = 0;
  auto skipSpace = [&] {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t'))
      ++pos;
  };
  auto failAt = [&](size_t at, std::string message) -> Type {
    consumed = at;
    error = std::move(message);
    return {};
  };
  skipSpace();
  if (pos < text.size() && text[pos] == '?') {
    consumed = pos + 1;
    return GenericType::get(ctx);
  }
  size_t start = pos;
  while (pos < text.size() && llvm::isAlnum(text[pos]))
    ++pos;
  StringRef name = text.slice(start, pos);
  Type dtype = parseAirDType(name, ctx);
  if (!dtype)
    return failAt(start, name.empty()
                             ? "expected a type such as f32[N]"
                             : "unknown dtype '" + name.str() +
                                   "' (expected f32, f64, i32, i64 or i1)");
  skipSpace();
  if (pos >= text.size() || text[pos] != '[')
    return failAt(pos, "expected '[' after the dtype (write " + name.str() +
                           "[] for a scalar)");
  ++pos;
  SmallVector<int64_t> shape;
  skipSpace();
  if (pos < text.size() && text[pos] == ']') {
    consumed = pos + 1;
    return RankedTensorType::get(shape, dtype);
  }
  while (true) {
    skipSpace();
    size_t dimStart = pos;
    if (pos < text.size() && text[pos] == '?') {
      ++pos;
      shape.push_back(ShapedType::kDynamic);
    } else if (pos < text.size() && llvm::isDigit(text[pos])) {
      while (pos < text.size() && llvm::isDigit(text[pos]))
        ++pos;
      int64_t size;
      if (text.slice(dimStart, pos).getAsInteger(10, size) || size > (1ll << 40))
        return failAt(dimStart, "dimension is too large");
      shape.push_back(size);
    } else if (pos < text.size() &&
               (llvm::isAlpha(text[pos]) || text[pos] == '_')) {
      // A named size: unknown until specialisation.
      while (pos < text.size() && (llvm::isAlnum(text[pos]) || text[pos] == '_'))
        ++pos;
      shape.push_back(ShapedType::kDynamic);
    } else {
      return failAt(dimStart, "expected a dimension (a size, a name or ?)");
    }
    skipSpace();
    if (pos < text.size() && text[pos] == ',') {
      ++pos;
      continue;
    }
    if (pos < text.size() && text[pos] == ']') {
      consumed = pos + 1;
      return RankedTensorType::get(shape, dtype);
    }
    return failAt(pos, "expected ',' or ']' in the shape");
  }
}
