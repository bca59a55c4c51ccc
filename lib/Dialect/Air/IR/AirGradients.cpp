//===- AirGradients.cpp - Each kernel's reverse-mode derivative rule ------===//
//
// GradientOpInterface, implemented once per kernel. A rule sees the kernel,
// the adjoint `g` of its result (dL/dresult) and builds the adjoint of each
// operand with ordinary air kernels, so that air-simplify and air-fuse treat
// the reverse sweep like any other code. Elementwise rules may return an
// adjoint of the result's shape for a broadcast operand: air-grad sums it
// back with adjointFor (the rule of air.broadcast).
//
// Conventions, chosen to agree with PyTorch's autograd:
// * max/min: where the operands are equal each gets half of the gradient;
//   reduce_max/reduce_min share it equally between all elements equal to
//   the extremum (torch.amax); abs has gradient 0 at 0.
// * select: no gradient through the condition; comparisons and casts to an
//   integer type pass none either.
// * pow(a, b): d/db is 0 where a == 0 and b >= 0 (instead of 0 * log 0);
//   d/da is 0 where b == 0.
//
//===----------------------------------------------------------------------===//
#include "unum/Dialect/Air/IR/AirGradient.h"
#include "unum/Dialect/Air/IR/AirTypeText.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace unum::air;

Value unum::air::scalarConstant(OpBuilder &b, Location loc, Type dtype,
                                double value) {
  auto type = RankedTensorType::get({}, dtype);
  return ConstantOp::create(
      b, loc, type,
      DenseElementsAttr::get(
          type, ArrayRef<Attribute>{b.getFloatAttr(dtype, value)}));
}

Value unum::air::broadcastLike(OpBuilder &b, Location loc, Value value,
                               Value like) {
  auto type = cast<RankedTensorType>(like.getType());
  if (value.getType() == type)
    return value;
  if (type.hasStaticShape())
    return BroadcastOp::create(b, loc, type, value);
  Value never = buildKernel<LtOp>(b, loc, like, like);
  return buildKernel<SelectOp>(b, loc, never, like, value);
}

Value unum::air::zerosLike(OpBuilder &b, Location loc, Value like) {
  if (auto tuple = dyn_cast<TupleType>(like.getType())) {
    SmallVector<Value> elements;
    for (unsigned i = 0; i < tuple.size(); ++i)
      elements.push_back(zerosLike(
          b, loc, buildKernel<GetOp>(b, loc, like, b.getI64IntegerAttr(i))));
    return buildKernel<MakeTupleOp>(b, loc, elements);
  }
  Type dtype = cast<RankedTensorType>(like.getType()).getElementType();
  return broadcastLike(b, loc, scalarConstant(b, loc, dtype, 0), like);
}

namespace {
/// `shape` for a reshape attribute: a dynamic size becomes -1; null after an
/// error when there are several.
std::optional<SmallVector<int64_t>> reshapeTarget(Location loc,
                                                  ArrayRef<int64_t> shape) {
  SmallVector<int64_t> out(shape);
  int dynamic = 0;
  for (int64_t &d : out)
    if (ShapedType::isDynamic(d)) {
      d = -1;
      ++dynamic;
    }
  if (dynamic > 1) {
    emitError(loc) << "the gradient needs a reshape to "
                   << formatAirShape(shape)
                   << ", which has more than one dynamic size";
    return std::nullopt;
  }
  return out;
}
} // namespace

Value unum::air::adjointFor(OpBuilder &b, Location loc, Value adjoint,
                            Value primal) {
  if (adjoint.getType() == primal.getType())
    return adjoint;
  auto a = cast<RankedTensorType>(adjoint.getType());
  auto p = cast<RankedTensorType>(primal.getType());
  auto joint = broadcastShapes(a.getShape(), p.getShape());
  if (joint && ArrayRef<int64_t>(*joint) == p.getShape())
    return broadcastLike(b, loc, adjoint, primal); // a smaller seed
  // The primal was broadcast to the adjoint's shape: sum over the leading
  // dimensions it lacks and over its stretched size-1 dimensions.
  int64_t lead = a.getRank() - p.getRank();
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < lead; ++i)
    axes.push_back(i);
  for (int64_t i = 0; i < p.getRank(); ++i)
    if (p.getDimSize(i) == 1 && a.getDimSize(i + lead) != 1)
      axes.push_back(i + lead);
  Value sum = axes.empty() ? adjoint
                           : buildKernel<SumOp>(b, loc, adjoint,
                                                b.getDenseI64ArrayAttr(axes));
  if (sum.getType() == p)
    return sum;
  auto shape = reshapeTarget(loc, p.getShape()); // puts back kept 1s
  if (!shape)
    return {};
  return buildKernel<ReshapeOp>(b, loc, sum, b.getDenseI64ArrayAttr(*shape));
}

namespace {
/// Shorthands for the rules: kernels at one location.
struct Emit {
  OpBuilder &b;
  Location loc;

  template <typename OpT, typename... Args> Value k(Args &&...args) {
    return buildKernel<OpT>(b, loc, std::forward<Args>(args)...);
  }
  Value add(Value x, Value y) { return k<AddOp>(x, y); }
  Value sub(Value x, Value y) { return k<SubOp>(x, y); }
  Value mul(Value x, Value y) { return k<MulOp>(x, y); }
  Value div(Value x, Value y) { return k<DivOp>(x, y); }
  Value neg(Value x) { return k<NegOp>(x); }
  Value select(Value c, Value x, Value y) { return k<SelectOp>(c, x, y); }
  /// A scalar in `like`'s dtype.
  Value c(Value like, double v) {
    return scalarConstant(b, loc, getElementTypeOrSelf(like.getType()), v);
  }
};

bool isFloat(Value v) {
  return isa<FloatType>(getElementTypeOrSelf(v.getType()));
}

/// `g`, a reduction's adjoint, reshaped so that it broadcasts (numpy) to the
/// reduced operand of type `x`: a 1 at each reduced axis, unless the
/// reduced axes are all leading ones.
Value keepReducedDims(Emit &e, Value g, RankedTensorType x,
                      std::optional<ArrayRef<int64_t>> axes) {
  int64_t rank = x.getRank();
  SmallVector<bool> reduced(rank, !axes.has_value());
  if (axes)
    for (int64_t a : *axes)
      reduced[a] = true;
  int64_t lead = 0;
  while (lead < rank && reduced[lead])
    ++lead;
  if (llvm::none_of(ArrayRef(reduced).drop_front(lead),
                    [](bool r) { return r; }))
    return g;
  SmallVector<int64_t> shape;
  for (int64_t i = lead; i < rank; ++i)
    shape.push_back(reduced[i] ? 1 : x.getDimSize(i));
  auto target = reshapeTarget(e.loc, shape);
  if (!target)
    return {};
  return e.k<ReshapeOp>(g, e.b.getDenseI64ArrayAttr(*target));
}

/// The adjoint of a reduction's operand `x` when each element's share of
/// the result's adjoint `g` is `weight` (x's shape, or null for 1):
/// broadcast(g) * weight.
LogicalResult reductionGradient(Emit &e, Value x, Value g,
                                std::optional<ArrayRef<int64_t>> axes,
                                Value weight, SmallVectorImpl<Value> &out) {
  Value wide = keepReducedDims(e, g, cast<RankedTensorType>(x.getType()), axes);
  if (!wide)
    return failure();
  out.push_back(weight ? e.mul(weight, wide)
                       : broadcastLike(e.b, e.loc, wide, x));
  return success();
}
} // namespace

#define AIR_GRADIENT(OP)                                                       \
  LogicalResult OP::buildGradient(OpBuilder &b, Value g,                       \
                                  SmallVectorImpl<Value> &d)

//===----------------------------------------------------------------------===//
// Elementwise arithmetic
//===----------------------------------------------------------------------===//

AIR_GRADIENT(AddOp) {
  d.append({g, g});
  return success();
}

AIR_GRADIENT(SubOp) {
  Emit e{b, getLoc()};
  d.append({g, e.neg(g)});
  return success();
}

AIR_GRADIENT(MulOp) {
  Emit e{b, getLoc()};
  d.append({e.mul(g, getRhs()), e.mul(g, getLhs())});
  return success();
}

AIR_GRADIENT(DivOp) {
  // d(a/b) = g/b, -g*a/b^2 = -(g/b) * (a/b)
  Emit e{b, getLoc()};
  Value t = e.div(g, getRhs());
  d.append({t, e.neg(e.mul(t, getResult()))});
  return success();
}

AIR_GRADIENT(NegOp) {
  Emit e{b, getLoc()};
  d.push_back(e.neg(g));
  return success();
}

namespace {
/// max/min: the share of the gradient going to the lhs: 1 where it wins
/// (`wins` is lhs > rhs for max, lhs < rhs for min), 1/2 on a tie, else 0;
/// the rhs gets the rest.
template <typename WinsOp>
void extremumGradient(Emit &e, Value lhs, Value rhs, Value g,
                      SmallVectorImpl<Value> &d) {
  Value share = e.select(e.k<WinsOp>(lhs, rhs), e.c(g, 1),
                         e.select(e.k<EqOp>(lhs, rhs), e.c(g, 0.5), e.c(g, 0)));
  Value left = e.mul(g, share);
  d.append({left, e.sub(g, left)});
}
} // namespace

AIR_GRADIENT(MaxOp) {
  Emit e{b, getLoc()};
  extremumGradient<GtOp>(e, getLhs(), getRhs(), g, d);
  return success();
}

AIR_GRADIENT(MinOp) {
  Emit e{b, getLoc()};
  extremumGradient<LtOp>(e, getLhs(), getRhs(), g, d);
  return success();
}

AIR_GRADIENT(PowOp) {
  // d/da = b * a^(b-1) (0 where b == 0); d/db = a^b * log(a) (0 where
  // a == 0 and b >= 0).
  Emit e{b, getLoc()};
  Value x = getLhs(), p = getRhs(), zero = e.c(g, 0);
  Value da = e.mul(g, e.mul(p, e.k<PowOp>(x, e.sub(p, e.c(g, 1)))));
  da = e.select(e.k<EqOp>(p, zero), zero, da);
  Value db = e.mul(g, e.mul(getResult(), e.k<LogOp>(x)));
  db = e.select(e.k<EqOp>(x, zero), e.select(e.k<GeOp>(p, zero), zero, db), db);
  d.append({da, db});
  return success();
}

//===----------------------------------------------------------------------===//
// Comparisons, select and cast
//===----------------------------------------------------------------------===//

#define AIR_NO_GRADIENT(OP)                                                    \
  AIR_GRADIENT(OP) {                                                           \
    d.append(getOperation()->getNumOperands(), Value());                       \
    return success();                                                          \
  }
AIR_NO_GRADIENT(EqOp)
AIR_NO_GRADIENT(NeOp)
AIR_NO_GRADIENT(LtOp)
AIR_NO_GRADIENT(LeOp)
AIR_NO_GRADIENT(GtOp)
AIR_NO_GRADIENT(GeOp)
#undef AIR_NO_GRADIENT

AIR_GRADIENT(SelectOp) {
  Emit e{b, getLoc()};
  Value zero = e.c(g, 0);
  d.append(
      {Value(), e.select(getCond(), g, zero), e.select(getCond(), zero, g)});
  return success();
}

AIR_GRADIENT(CastOp) {
  // Only a float operand has a gradient (a cast to an integer type has no
  // float result, so no adjoint reaches it).
  Emit e{b, getLoc()};
  if (!isFloat(getOperand())) {
    d.push_back(Value());
    return success();
  }
  Type from = getElementTypeOrSelf(getOperand().getType());
  d.push_back(e.k<CastOp>(g, TypeAttr::get(from)));
  return success();
}

//===----------------------------------------------------------------------===//
// Transcendental functions
//===----------------------------------------------------------------------===//

AIR_GRADIENT(AbsOp) {
  Emit e{b, getLoc()};
  Value x = getOperand(), zero = e.c(g, 0);
  Value sign = e.select(e.k<GtOp>(x, zero), e.c(g, 1),
                        e.select(e.k<LtOp>(x, zero), e.c(g, -1), zero));
  d.push_back(e.mul(g, sign));
  return success();
}

AIR_GRADIENT(ExpOp) {
  Emit e{b, getLoc()};
  d.push_back(e.mul(g, getResult()));
  return success();
}

AIR_GRADIENT(LogOp) {
  Emit e{b, getLoc()};
  d.push_back(e.div(g, getOperand()));
  return success();
}

AIR_GRADIENT(SqrtOp) {
  Emit e{b, getLoc()};
  d.push_back(e.div(g, e.mul(getResult(), e.c(g, 2))));
  return success();
}

AIR_GRADIENT(TanhOp) {
  Emit e{b, getLoc()};
  Value y = getResult();
  d.push_back(e.mul(g, e.sub(e.c(g, 1), e.mul(y, y))));
  return success();
}

AIR_GRADIENT(SigmoidOp) {
  Emit e{b, getLoc()};
  Value y = getResult();
  d.push_back(e.mul(g, e.mul(e.sub(e.c(g, 1), y), y)));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

AIR_GRADIENT(SumOp) {
  Emit e{b, getLoc()};
  return reductionGradient(e, getOperand(), g, getAxes(), Value(), d);
}

AIR_GRADIENT(MeanOp) {
  // g / n, n the number of elements reduced into each result element.
  Emit e{b, getLoc()};
  Value x = getOperand();
  auto type = cast<RankedTensorType>(x.getType());
  std::optional<ArrayRef<int64_t>> axes = getAxes();
  double count = 1;
  bool known = true;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (!axes || llvm::is_contained(*axes, i)) {
      known &= !type.isDynamicDim(i);
      count *= type.isDynamicDim(i) ? 1 : type.getDimSize(i);
    }
  Value n = known ? e.c(g, count)
                  : e.k<SumOp>(broadcastLike(b, getLoc(), e.c(g, 1), x),
                               getAxesAttr());
  return reductionGradient(e, x, e.div(g, n), axes, Value(), d);
}

namespace {
/// reduce_max/reduce_min: the gradient is shared equally by the elements
/// equal to the extremum.
LogicalResult chooserGradient(Emit &e, Operation *op, Value g,
                              DenseI64ArrayAttr axesAttr,
                              SmallVectorImpl<Value> &d) {
  Value x = op->getOperand(0), y = op->getResult(0);
  auto type = cast<RankedTensorType>(x.getType());
  std::optional<ArrayRef<int64_t>> axes;
  if (axesAttr)
    axes = axesAttr.asArrayRef();
  Value wideY = keepReducedDims(e, y, type, axes);
  if (!wideY)
    return failure();
  Value mask =
      e.k<CastOp>(e.k<EqOp>(x, wideY), TypeAttr::get(type.getElementType()));
  Value ties = e.k<SumOp>(mask, axesAttr);
  return reductionGradient(e, x, e.div(g, ties), axes, mask, d);
}
} // namespace

AIR_GRADIENT(ReduceMaxOp) {
  Emit e{b, getLoc()};
  return chooserGradient(e, *this, g, getAxesAttr(), d);
}

AIR_GRADIENT(ReduceMinOp) {
  Emit e{b, getLoc()};
  return chooserGradient(e, *this, g, getAxesAttr(), d);
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

AIR_GRADIENT(MatmulOp) {
  // C = A B: dA = g B^T, dB = A^T g.
  Emit e{b, getLoc()};
  DenseI64ArrayAttr swap = b.getDenseI64ArrayAttr({1, 0});
  d.append({e.k<MatmulOp>(g, e.k<TransposeOp>(getRhs(), swap)),
            e.k<MatmulOp>(e.k<TransposeOp>(getLhs(), swap), g)});
  return success();
}

AIR_GRADIENT(Conv1DOp) {
  Emit e{b, getLoc()};
  d.append(
      {e.k<Conv1DInputGradOp>(g, getFilter(), getInput(), getStrideAttr()),
       e.k<Conv1DFilterGradOp>(getInput(), g, getFilter(), getStrideAttr())});
  return success();
}

AIR_GRADIENT(Conv1DInputGradOp) {
  return emitError("second derivatives of conv1d are not supported");
}

AIR_GRADIENT(Conv1DFilterGradOp) {
  return emitError("second derivatives of conv1d are not supported");
}

//===----------------------------------------------------------------------===//
// Layout and tuples
//===----------------------------------------------------------------------===//

AIR_GRADIENT(ReshapeOp) {
  Emit e{b, getLoc()};
  auto shape = reshapeTarget(
      getLoc(), cast<RankedTensorType>(getOperand().getType()).getShape());
  if (!shape)
    return failure();
  d.push_back(e.k<ReshapeOp>(g, b.getDenseI64ArrayAttr(*shape)));
  return success();
}

AIR_GRADIENT(TransposeOp) {
  Emit e{b, getLoc()};
  ArrayRef<int64_t> perm = getPerm();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  d.push_back(e.k<TransposeOp>(g, b.getDenseI64ArrayAttr(inverse)));
  return success();
}

AIR_GRADIENT(BroadcastOp) {
  Value adjoint = adjointFor(b, getLoc(), g, getOperand());
  d.push_back(adjoint);
  return success(adjoint != nullptr);
}

AIR_GRADIENT(MakeTupleOp) {
  Emit e{b, getLoc()};
  for (unsigned i = 0; i < getElements().size(); ++i)
    d.push_back(e.k<GetOp>(g, b.getI64IntegerAttr(i)));
  return success();
}

AIR_GRADIENT(GetOp) {
  // A tuple adjoint: g at `index`, zeros elsewhere.
  Emit e{b, getLoc()};
  auto tuple = cast<TupleType>(getTuple().getType());
  SmallVector<Value> elements;
  for (unsigned i = 0; i < tuple.size(); ++i)
    elements.push_back(
        i == getIndex()
            ? g
            : zerosLike(b, getLoc(),
                        e.k<GetOp>(getTuple(), b.getI64IntegerAttr(i))));
  d.push_back(e.k<MakeTupleOp>(elements));
  return success();
}
