//===- AirOps.cpp - The air dialect: types, verifiers, folders ------------===//
#include "unum/Dialect/Air/IR/AirOps.h"
#include "unum/Dialect/Air/IR/AirTypeText.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace unum::air;

#include "unum/Dialect/Air/IR/AirOpsDialect.cpp.inc"

namespace {
/// Air kernels are pure functions of their operands: always legal to inline.
struct AirInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void AirDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "unum/Dialect/Air/IR/AirOps.cpp.inc"
      >();
  registerTypes();
  addInterfaces<AirInlinerInterface>();
}

#define GET_TYPEDEF_CLASSES
#include "unum/Dialect/Air/IR/AirOpsTypes.cpp.inc"

void AirDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "unum/Dialect/Air/IR/AirOpsTypes.cpp.inc"
      >();
}

Operation *AirDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

#include "unum/Dialect/Air/IR/AirOpsInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// Type inference helpers
//===----------------------------------------------------------------------===//

bool unum::air::isPointwise(Operation *op) {
  if (isa<BroadcastOp>(op))
    return true;
  auto kernel = dyn_cast<KernelOp>(op);
  return kernel && kernel.isElementwise();
}

bool unum::air::isLoopAnchor(Operation *op) {
  auto kernel = dyn_cast<KernelOp>(op);
  return kernel && (kernel.isReduction() || isa<MatmulOp, Conv1DOp>(op));
}

bool unum::air::isSupportedDType(Type t) {
  return t.isF32() || t.isF64() || t.isInteger(32) || t.isInteger(64) ||
         t.isInteger(1);
}

std::optional<SmallVector<int64_t>>
unum::air::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align on the right: missing leading dimensions count as 1.
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x == y || y == 1)
      out[i] = x;
    else if (x == 1)
      out[i] = y;
    else if (ShapedType::isDynamic(x))
      out[i] = y; // a dynamic size must be y (or 1) for the program to be valid
    else if (ShapedType::isDynamic(y))
      out[i] = x;
    else
      return std::nullopt;
  }
  return out;
}

namespace {
Type fail(std::optional<Location> loc, const Twine &message) {
  if (loc)
    emitError(*loc) << message;
  return {};
}

bool anyGeneric(TypeRange types) {
  return llvm::any_of(types, [](Type t) { return isa<GenericType>(t); });
}

/// The operands as ranked tensors of supported dtypes, or an error.
std::optional<SmallVector<RankedTensorType>>
tensorOperands(Operation *op, TypeRange types, std::optional<Location> loc) {
  SmallVector<RankedTensorType> out;
  for (auto [i, t] : llvm::enumerate(types)) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !isSupportedDType(tensor.getElementType())) {
      fail(loc, "kernel '" + op->getName().getStringRef().drop_front(4) +
                    "': operand " + Twine(i + 1) + " has type " +
                    formatAirType(t) + "; expected an array of f32, f64, "
                    "i32, i64 or i1");
      return std::nullopt;
    }
    out.push_back(tensor);
  }
  return out;
}

/// The operands as tensors. When they are not, sets `early` to what
/// inferResultType returns at once: generic, or null after an error.
std::optional<SmallVector<RankedTensorType>>
typedOperands(Operation *op, TypeRange types, std::optional<Location> loc,
              Type &early) {
  if (anyGeneric(types)) {
    early = GenericType::get(op->getContext());
    return std::nullopt;
  }
  return tensorOperands(op, types, loc);
}

StringRef kernelName(Operation *op) {
  if (auto kernel = dyn_cast<KernelOp>(op))
    return kernel.getKernelName();
  return op->getName().getStringRef();
}

/// Checks that every operand has the same dtype (and a float one when
/// `floatOnly`); returns it.
Type commonDType(Operation *op, ArrayRef<RankedTensorType> tensors,
                 std::optional<Location> loc, bool floatOnly) {
  Type dtype = tensors.front().getElementType();
  for (RankedTensorType t : tensors.drop_front())
    if (t.getElementType() != dtype)
      return fail(loc, "kernel '" + kernelName(op) + "': dtypes " +
                           formatAirType(tensors.front()) + " and " +
                           formatAirType(t) +
                           " differ; insert a cast");
  if (floatOnly && !isa<FloatType>(dtype))
    return fail(loc, "kernel '" + kernelName(op) +
                         "' needs a floating-point operand, got " +
                         formatAirType(tensors.front()));
  return dtype;
}

std::optional<SmallVector<int64_t>>
broadcastAll(Operation *op, ArrayRef<RankedTensorType> tensors,
             std::optional<Location> loc) {
  SmallVector<int64_t> shape(tensors.front().getShape());
  for (RankedTensorType t : tensors.drop_front()) {
    auto next = broadcastShapes(shape, t.getShape());
    if (!next) {
      fail(loc, "kernel '" + kernelName(op) + "': shapes " +
                    formatAirShape(shape) + " and " +
                    formatAirShape(t.getShape()) + " do not broadcast");
      return std::nullopt;
    }
    shape = std::move(*next);
  }
  return shape;
}
} // namespace

Type unum::air::inferElementwiseType(Operation *op, TypeRange operandTypes,
                                     std::optional<Location> loc) {
  MLIRContext *ctx = op->getContext();
  if (anyGeneric(operandTypes))
    return GenericType::get(ctx);
  auto tensors = tensorOperands(op, operandTypes, loc);
  if (!tensors)
    return {};
  bool comparison = op->hasTrait<::unum::air::OpTrait::Comparison>();
  Type dtype = commonDType(op, *tensors, loc, op->hasTrait<::unum::air::OpTrait::FloatOnly>());
  if (!dtype)
    return {};
  if (!comparison && dtype.isInteger(1))
    return fail(loc, "kernel '" + kernelName(op) +
                         "' is arithmetic; i1 operands need a cast");
  auto shape = broadcastAll(op, *tensors, loc);
  if (!shape)
    return {};
  return RankedTensorType::get(*shape,
                               comparison ? IntegerType::get(ctx, 1) : dtype);
}

Type SelectOp::inferResultType(TypeRange types, std::optional<Location> loc) {
  Type early;
  auto tensors = typedOperands(*this, types, loc, early);
  if (!tensors)
    return early;
  if (!(*tensors)[0].getElementType().isInteger(1))
    return fail(loc, "kernel 'select': the condition must be i1, got " +
                         formatAirType((*tensors)[0]));
  Type dtype = commonDType(*this, ArrayRef(*tensors).drop_front(), loc, false);
  if (!dtype)
    return {};
  auto shape = broadcastAll(*this, *tensors, loc);
  if (!shape)
    return {};
  return RankedTensorType::get(*shape, dtype);
}

Type CastOp::inferResultType(TypeRange types, std::optional<Location> loc) {
  if (!isSupportedDType(getDtype()))
    return fail(loc, "kernel 'cast': unsupported dtype " +
                         formatAirType(getDtype()));
  Type early;
  auto tensors = typedOperands(*this, types, loc, early);
  if (!tensors)
    return early;
  return (*tensors)[0].clone(getDtype());
}

namespace {
/// Result type of a reduction over `axes` (all when absent).
Type inferReduction(Operation *op, TypeRange types,
                    std::optional<ArrayRef<int64_t>> axes,
                    std::optional<Location> loc) {
  Type early;
  auto tensors = typedOperands(op, types, loc, early);
  if (!tensors)
    return early;
  RankedTensorType in = (*tensors)[0];
  if (!commonDType(op, *tensors, loc, op->hasTrait<::unum::air::OpTrait::FloatOnly>()))
    return {};
  int64_t rank = in.getRank();
  SmallVector<bool> reduced(rank, !axes.has_value());
  if (axes) {
    for (int64_t axis : *axes) {
      if (axis < 0 || axis >= rank)
        return fail(loc, "kernel '" + kernelName(op) + "': axis " +
                             Twine(axis) + " is out of range for " +
                             formatAirType(in));
      if (reduced[axis])
        return fail(loc, "kernel '" + kernelName(op) + "': axis " +
                             Twine(axis) + " is listed twice");
      reduced[axis] = true;
    }
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i)
    if (!reduced[i])
      shape.push_back(in.getDimSize(i));
  return RankedTensorType::get(shape, in.getElementType());
}
} // namespace

#define AIR_REDUCTION_INFER(OP)                                                \
  Type OP::inferResultType(TypeRange types, std::optional<Location> loc) {     \
    return inferReduction(*this, types, getAxes(), loc);                       \
  }
AIR_REDUCTION_INFER(SumOp)
AIR_REDUCTION_INFER(ReduceMaxOp)
AIR_REDUCTION_INFER(ReduceMinOp)
AIR_REDUCTION_INFER(MeanOp)
#undef AIR_REDUCTION_INFER

namespace {
bool dimsConflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}
} // namespace

namespace {
/// What matmul and conv1d check alike: ranks, one dtype, and the dimension
/// they contract over agreeing. Returns the dtype, or null after an error.
Type checkContraction(Operation *op, RankedTensorType a, RankedTensorType b,
                      std::optional<Location> loc, int64_t rankA,
                      int64_t rankB, StringRef expected, unsigned dimA,
                      unsigned dimB, StringRef dimName) {
  if (a.getRank() != rankA || b.getRank() != rankB)
    return fail(loc, "kernel '" + kernelName(op) + "' needs " + expected +
                         ", got " + formatAirType(a) + " and " +
                         formatAirType(b));
  Type dtype = commonDType(op, {a, b}, loc, false);
  if (dtype && dimsConflict(a.getDimSize(dimA), b.getDimSize(dimB)))
    return fail(loc, "kernel '" + kernelName(op) + "': " + dimName + " of " +
                         formatAirType(a) + " and " + formatAirType(b) +
                         " differ");
  return dtype;
}
} // namespace

Type MatmulOp::inferResultType(TypeRange types, std::optional<Location> loc) {
  Type early;
  auto tensors = typedOperands(*this, types, loc, early);
  if (!tensors)
    return early;
  RankedTensorType a = (*tensors)[0], b = (*tensors)[1];
  Type dtype = checkContraction(*this, a, b, loc, 2, 2, "two matrices", 1, 0,
                                "inner dimensions");
  if (!dtype)
    return {};
  return RankedTensorType::get({a.getDimSize(0), b.getDimSize(1)}, dtype);
}

Type Conv1DOp::inferResultType(TypeRange types, std::optional<Location> loc) {
  if (getStride() < 1)
    return fail(loc, "kernel 'conv1d': stride must be at least 1");
  Type early;
  auto tensors = typedOperands(*this, types, loc, early);
  if (!tensors)
    return early;
  RankedTensorType x = (*tensors)[0], w = (*tensors)[1];
  Type dtype = checkContraction(
      *this, x, w, loc, 2, 3,
      "an input [L, C_in] and a filter [K, C_in, C_out]", 1, 1,
      "input channels");
  if (!dtype)
    return {};
  int64_t length = x.getDimSize(0), taps = w.getDimSize(0);
  int64_t outLength = ShapedType::kDynamic;
  if (!ShapedType::isDynamic(length) && !ShapedType::isDynamic(taps)) {
    if (length < taps)
      return fail(loc, "kernel 'conv1d': the input is shorter (" +
                           Twine(length) + ") than the filter (" +
                           Twine(taps) + ")");
    outLength = (length - taps) / getStride() + 1;
  }
  return RankedTensorType::get({outLength, w.getDimSize(2)}, dtype);
}

namespace {
/// The adjoints of conv1d: the result has the type of operand `like`.
Type inferConvGrad(Operation *op, TypeRange types, std::optional<Location> loc,
                   unsigned like) {
  Type early;
  auto tensors = typedOperands(op, types, loc, early);
  if (!tensors)
    return early;
  if (!commonDType(op, *tensors, loc, /*floatOnly=*/true))
    return {};
  return (*tensors)[like];
}
} // namespace

Type Conv1DInputGradOp::inferResultType(TypeRange types,
                                        std::optional<Location> loc) {
  return inferConvGrad(*this, types, loc, 2);
}

Type Conv1DFilterGradOp::inferResultType(TypeRange types,
                                         std::optional<Location> loc) {
  return inferConvGrad(*this, types, loc, 2);
}

Type ReshapeOp::inferResultType(TypeRange types, std::optional<Location> loc) {
  ArrayRef<int64_t> shape = getShape();
  int inferred = -1;
  int64_t known = 1;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == -1) {
      if (inferred >= 0)
        return fail(loc, "kernel 'reshape': only one dimension may be -1");
      inferred = i;
    } else if (d < 0) {
      return fail(loc, "kernel 'reshape': negative dimension " + Twine(d));
    } else {
      known *= d;
    }
  }
  Type early;
  auto tensors = typedOperands(*this, types, loc, early);
  if (!tensors)
    return early;
  RankedTensorType in = (*tensors)[0];
  SmallVector<int64_t> out(shape);
  if (!in.hasStaticShape()) {
    if (inferred >= 0)
      out[inferred] = ShapedType::kDynamic;
    return RankedTensorType::get(out, in.getElementType());
  }
  int64_t count = in.getNumElements();
  if (inferred >= 0) {
    if (known == 0 || count % known != 0)
      return fail(loc, "kernel 'reshape': cannot view " + formatAirType(in) +
                           " as " + formatAirShape(shape));
    out[inferred] = count / known;
  } else if (known != count) {
    return fail(loc, "kernel 'reshape': " + formatAirType(in) + " has " +
                         Twine(count) + " elements, " + formatAirShape(shape) +
                         " has " + Twine(known));
  }
  return RankedTensorType::get(out, in.getElementType());
}

Type TransposeOp::inferResultType(TypeRange types,
                                  std::optional<Location> loc) {
  Type early;
  auto tensors = typedOperands(*this, types, loc, early);
  if (!tensors)
    return early;
  RankedTensorType in = (*tensors)[0];
  ArrayRef<int64_t> perm = getPerm();
  SmallVector<bool> seen(in.getRank(), false);
  if ((int64_t)perm.size() != in.getRank())
    return fail(loc, "kernel 'transpose': the permutation has " +
                         Twine(perm.size()) + " entries for " +
                         formatAirType(in));
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return fail(loc, "kernel 'transpose': " + formatAirShape(perm) +
                           " is not a permutation of the axes");
    seen[p] = true;
    shape.push_back(in.getDimSize(p));
  }
  return RankedTensorType::get(shape, in.getElementType());
}

Type BroadcastOp::inferResultType(TypeRange types,
                                  std::optional<Location> loc) {
  Type target = getResult().getType();
  if (anyGeneric(types) || isa<GenericType>(target))
    return target;
  auto tensors = tensorOperands(*this, types, loc);
  auto out = dyn_cast<RankedTensorType>(target);
  if (!tensors || !out)
    return tensors ? fail(loc, "kernel 'broadcast' needs a tensor result")
                   : Type();
  RankedTensorType in = (*tensors)[0];
  auto shape = broadcastShapes(in.getShape(), out.getShape());
  if (in.getElementType() != out.getElementType() || !shape ||
      ArrayRef<int64_t>(*shape) != out.getShape())
    return fail(loc, "kernel 'broadcast': cannot broadcast " +
                         formatAirType(in) + " to " + formatAirType(out));
  return target;
}

Type MakeTupleOp::inferResultType(TypeRange types, std::optional<Location>) {
  return TupleType::get(getContext(), types);
}

Type GetOp::inferResultType(TypeRange types, std::optional<Location> loc) {
  if (isa<GenericType>(types[0]))
    return types[0];
  auto tuple = dyn_cast<TupleType>(types[0]);
  if (!tuple)
    return fail(loc, "kernel 'get' needs a tuple, got " +
                         formatAirType(types[0]));
  int64_t index = getIndex();
  if (index < 0 || index >= (int64_t)tuple.size())
    return fail(loc, "kernel 'get': index " + Twine(index) +
                         " is out of range for a tuple of " +
                         Twine(tuple.size()));
  return tuple.getType(index);
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

namespace {
/// A result type agrees with the inferred one when it is generic or equal up
/// to dynamic sizes.
bool agrees(Type actual, Type inferred) {
  if (actual == inferred || isa<GenericType>(actual))
    return true;
  auto a = dyn_cast<RankedTensorType>(actual);
  auto b = dyn_cast<RankedTensorType>(inferred);
  if (!a || !b || a.getElementType() != b.getElementType() ||
      a.getRank() != b.getRank())
    return false;
  for (auto [x, y] : llvm::zip(a.getShape(), b.getShape()))
    if (dimsConflict(x, y))
      return false;
  return true;
}
} // namespace

LogicalResult unum::air::detail::verifyKernel(Operation *op) {
  auto kernel = cast<KernelOp>(op);
  Type inferred =
      kernel.inferResultType(op->getOperandTypes(), op->getLoc());
  if (!inferred)
    return failure();
  Type actual = op->getResult(0).getType();
  if (!agrees(actual, inferred))
    return op->emitOpError() << "result type " << actual
                             << " does not match the inferred " << inferred;
  return success();
}

LogicalResult ConstantOp::verify() {
  if (getValue().getType() != getType())
    return emitOpError("value type ")
           << getValue().getType() << " differs from the result type "
           << getType();
  if (!isSupportedDType(getType().getElementType()))
    return emitOpError("unsupported dtype ") << getType().getElementType();
  return success();
}

LogicalResult FusedOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("has ") << getInputs().size() << " inputs but "
                               << body.getNumArguments()
                               << " block arguments";
  for (auto [input, arg] : llvm::zip(getInputs(), body.getArguments()))
    if (input.getType() != arg.getType())
      return emitOpError("block argument type ")
             << arg.getType() << " differs from its input " << input.getType();
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yields ") << yield.getValues().getTypes()
                                  << " but returns " << getResultTypes();
  return success();
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee =
      symbolTable.lookupNearestSymbolFrom<func::FuncOp>(*this, getCalleeAttr());
  if (!callee)
    return emitOpError("calls '") << getCallee() << "', which is not a function";
  FunctionType type = callee.getFunctionType();
  if (type.getNumInputs() != getNumOperands())
    return emitOpError("passes ") << getNumOperands() << " arguments to '"
                                  << getCallee() << "', which takes "
                                  << type.getNumInputs();
  if (type.getNumResults() != getNumResults())
    return emitOpError("expects ") << getNumResults() << " results from '"
                                   << getCallee() << "', which returns "
                                   << type.getNumResults();
  auto compatible = [](Type a, Type b) {
    return a == b || isa<GenericType>(a) || isa<GenericType>(b);
  };
  for (auto [i, arg, param] : llvm::enumerate(getOperandTypes(), type.getInputs()))
    if (!compatible(arg, param))
      return emitOpError("argument ") << i + 1 << " has type " << arg
                                      << ", but '" << getCallee()
                                      << "' takes " << param;
  for (auto [i, res, ret] : llvm::enumerate(getResultTypes(), type.getResults()))
    if (!compatible(res, ret))
      return emitOpError("result ") << i + 1 << " has type " << res
                                    << ", but '" << getCallee()
                                    << "' returns " << ret;
  return success();
}

LogicalResult GradOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee =
      symbolTable.lookupNearestSymbolFrom<func::FuncOp>(*this, getCalleeAttr());
  if (!callee)
    return emitOpError("differentiates '")
           << getCallee() << "', which is not a function";
  FunctionType type = callee.getFunctionType();
  if (type.getNumInputs() != getNumOperands())
    return emitOpError("passes ")
           << getNumOperands() << " arguments to '" << getCallee()
           << "', which takes " << type.getNumInputs();
  if (type.getNumResults() != 1)
    return emitOpError("differentiates '")
           << getCallee() << "', which returns " << type.getNumResults()
           << " values; a gradient needs one scalar";
  Type value = type.getResult(0);
  auto scalar = dyn_cast<RankedTensorType>(value);
  if (!isa<GenericType>(value) && !(scalar && scalar.getRank() == 0 &&
                                    isa<FloatType>(scalar.getElementType())))
    return emitOpError("differentiates '")
           << getCallee() << "', which returns " << formatAirType(value)
           << "; a gradient needs a floating-point scalar (f32[] or f64[])";
  ArrayRef<int64_t> wrt = getWrt();
  if (wrt.empty())
    return emitOpError("needs at least one parameter in 'wrt'");
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t i : wrt) {
    if (i < 0 || i >= (int64_t)type.getNumInputs())
      return emitOpError("'wrt' entry ")
             << i << " is out of range: '" << getCallee() << "' has "
             << type.getNumInputs() << " parameters";
    if (!seen.insert(i).second)
      return emitOpError("'wrt' lists parameter ") << i << " twice";
  }
  unsigned expected = wrt.size() + (getWithValue() ? 1 : 0);
  if (getNumResults() != expected)
    return emitOpError("has ")
           << getNumResults() << " results, expected " << expected;
  auto compatible = [](Type a, Type b) {
    return a == b || isa<GenericType>(a) || isa<GenericType>(b);
  };
  unsigned r = 0;
  if (getWithValue() && !compatible(getResult(r++).getType(), value))
    return emitOpError("value result has type ")
           << getResult(0).getType() << ", but '" << getCallee() << "' returns "
           << value;
  for (int64_t i : wrt) {
    Type arg = getOperand(i).getType();
    if (!compatible(arg, type.getInput(i)))
      return emitOpError("argument ")
             << i + 1 << " has type " << arg << ", but '" << getCallee()
             << "' takes " << type.getInput(i);
    if (!compatible(getResult(r).getType(), arg))
      return emitOpError("gradient ")
             << r << " has type " << getResult(r).getType()
             << ", expected its argument's " << arg;
    ++r;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

namespace {
/// Constants larger than this are not folded (they would bloat the IR).
constexpr int64_t kMaxFoldedElements = 1 << 16;

/// True when `attr` is a splat constant equal to `value`.
bool isSplatOf(Attribute attr, double value) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  Type t = splat.getElementType();
  if (isa<FloatType>(t)) {
    // Bitwise: -0.0 is not +0.0 (x + 0.0 is not x for x = -0.0).
    double v = splat.getSplatValue<APFloat>().convertToDouble();
    return v == value && std::signbit(v) == std::signbit(value);
  }
  if (t.isInteger(1))
    return false;
  return splat.getSplatValue<APInt>().getSExtValue() == (int64_t)value;
}

/// Folds an elementwise op over constant operands (numpy broadcasting
/// included) with `f` on floats and `g` on integers; null when it cannot.
template <typename FloatFn, typename IntFn>
Attribute foldElementwise(Operation *op, ArrayRef<Attribute> operands,
                          FloatFn f, IntFn g) {
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType || !resultType.hasStaticShape() ||
      resultType.getNumElements() > kMaxFoldedElements)
    return {};
  SmallVector<DenseElementsAttr> inputs;
  for (Attribute a : operands) {
    auto dense = dyn_cast_if_present<DenseElementsAttr>(a);
    if (!dense)
      return {};
    inputs.push_back(dense);
  }
  ArrayRef<int64_t> shape = resultType.getShape();
  int64_t count = resultType.getNumElements();
  // Row-major index of result element `linear` in an operand of shape `s`.
  auto operandIndex = [&](ArrayRef<int64_t> s, int64_t linear) {
    int64_t index = 0, stride = 1;
    for (int64_t d = shape.size() - 1, od = s.size() - 1; od >= 0; --d, --od) {
      int64_t coord = linear % shape[d];
      linear /= shape[d];
      index += (s[od] == 1 ? 0 : coord) * stride;
      stride *= s[od];
    }
    return index;
  };
  // Values of type T (APFloat or APInt) combined by `fn`, which may refuse.
  auto fold = [&](auto tag, auto fn) -> Attribute {
    using T = decltype(tag);
    SmallVector<SmallVector<T>> values;
    for (DenseElementsAttr in : inputs)
      values.emplace_back(in.getValues<T>());
    SmallVector<T> out;
    for (int64_t i = 0; i < count; ++i) {
      SmallVector<T> args;
      for (auto [in, vals] : llvm::zip(inputs, values))
        args.push_back(vals[operandIndex(in.getType().getShape(), i)]);
      std::optional<T> r = fn(args);
      if (!r)
        return {};
      out.push_back(*r);
    }
    return DenseElementsAttr::get(resultType, out);
  };
  Type dtype = inputs[0].getElementType();
  if (isa<FloatType>(dtype))
    return fold(APFloat(0.0), [&](ArrayRef<APFloat> a) -> std::optional<APFloat> {
      return f(a);
    });
  if (dtype.isInteger(1))
    return {};
  return fold(APInt(), g);
}

/// True when `v` (whose constant value, if any, is `attr`) is the splat
/// `value`, or a broadcast of one.
bool isSplatValue(Value v, Attribute attr, double value) {
  if (isSplatOf(attr, value))
    return true;
  auto broadcast = v.getDefiningOp<BroadcastOp>();
  Attribute inner;
  return broadcast &&
         matchPattern(broadcast.getOperand(), m_Constant(&inner)) &&
         isSplatOf(inner, value);
}

/// `x op c` (and `c op x` when op commutes) folds to `x` when c is the splat
/// `identity`, or a broadcast of it, and x already has the result's type (a
/// broadcast would change it).
OpFoldResult foldRightIdentity(Operation *op, ArrayRef<Attribute> operands,
                               double identity) {
  Type type = op->getResult(0).getType();
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (isSplatValue(rhs, operands[1], identity) && lhs.getType() == type)
    return lhs;
  if (op->hasTrait<mlir::OpTrait::IsCommutative>() &&
      isSplatValue(lhs, operands[0], identity) && rhs.getType() == type)
    return rhs;
  return {};
}
} // namespace

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  // The identity of IEEE addition is -0.0 (-0.0 + 0.0 is +0.0); on integers
  // -0.0 means 0.
  if (OpFoldResult r = foldRightIdentity(*this, adaptor.getOperands(), -0.0))
    return r;
  return foldElementwise(
      *this, adaptor.getOperands(),
      [](ArrayRef<APFloat> a) { return a[0] + a[1]; },
      [](ArrayRef<APInt> a) -> std::optional<APInt> { return a[0] + a[1]; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldRightIdentity(*this, adaptor.getOperands(), 0))
    return r;
  return foldElementwise(
      *this, adaptor.getOperands(),
      [](ArrayRef<APFloat> a) { return a[0] - a[1]; },
      [](ArrayRef<APInt> a) -> std::optional<APInt> { return a[0] - a[1]; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldRightIdentity(*this, adaptor.getOperands(), 1))
    return r;
  return foldElementwise(
      *this, adaptor.getOperands(),
      [](ArrayRef<APFloat> a) { return a[0] * a[1]; },
      [](ArrayRef<APInt> a) -> std::optional<APInt> { return a[0] * a[1]; });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldRightIdentity(*this, adaptor.getOperands(), 1))
    return r;
  return foldElementwise(
      *this, adaptor.getOperands(),
      [](ArrayRef<APFloat> a) { return a[0] / a[1]; },
      [](ArrayRef<APInt> a) -> std::optional<APInt> {
        // Leave division by zero and INT_MIN / -1 to run time.
        if (a[1].isZero() || (a[0].isMinSignedValue() && a[1].isAllOnes()))
          return std::nullopt;
        return a[0].sdiv(a[1]);
      });
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getOperand().getDefiningOp<NegOp>())
    return inner.getOperand();
  return foldElementwise(
      *this, adaptor.getOperands(), [](ArrayRef<APFloat> a) { return -a[0]; },
      [](ArrayRef<APInt> a) -> std::optional<APInt> { return -a[0]; });
}

OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return {};
}

OpFoldResult GetOp::fold(FoldAdaptor) {
  if (auto make = getTuple().getDefiningOp<MakeTupleOp>())
    return make.getElements()[getIndex()];
  return {};
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

#define GET_OP_CLASSES
#include "unum/Dialect/Air/IR/AirOps.cpp.inc"
