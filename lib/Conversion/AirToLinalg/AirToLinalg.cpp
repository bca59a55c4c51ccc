//===- AirToLinalg.cpp - convert-air-to-linalg ----------------------------===//
//
// Types do not change (air values are builtin tensors), so the lowering
// rewrites each function in place, op by op, instead of using the dialect
// conversion framework: an air op is replaced by linalg/tensor/arith ops
// producing the same tensor type.
//
// A group (an air.fused body, or one kernel on its own) is emitted in two
// steps: collect() walks from the group's result to its leaves (values
// defined outside the group), recording each leaf with the indexing map that
// reads it; emit() then builds the linalg.generic with those leaves as
// inputs and computes the scalar inside the body, memoised per (value, map).
//
//===----------------------------------------------------------------------===//
#include "unum/Conversion/AirToLinalg/AirToLinalg.h"
#include "AbiEntry.h"
#include "unum/Conversion/Passes.h"
#include "unum/Dialect/Air/IR/AirOps.h"
#include "unum/Dialect/Air/IR/AirTypeText.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

namespace unum {
#define GEN_PASS_DEF_CONVERTAIRTOLINALG
#include "unum/Conversion/Passes.h.inc"
} // namespace unum

using namespace mlir;
using namespace unum::air;

namespace {
Type dtypeOf(Value v) { return cast<RankedTensorType>(v.getType()).getElementType(); }

//===----------------------------------------------------------------------===//
// Scalar bodies
//===----------------------------------------------------------------------===//

/// The scalar computation of elementwise kernel `op` on `args`.
Value emitScalar(OpBuilder &b, Location loc, Operation *op, ValueRange args,
                 Type resultType) {
  Type t = args[0].getType();
  bool f = isa<FloatType>(t);
  auto cmp = [&](arith::CmpFPredicate fp, arith::CmpIPredicate ip) -> Value {
    if (f)
      return arith::CmpFOp::create(b, loc, fp, args[0], args[1]);
    return arith::CmpIOp::create(b, loc, ip, args[0], args[1]);
  };
  // Transcendentals on f32 that MLIR cannot approximate to 1 ulp run in f64
  // (libm), then round once.
  auto viaF64 = [&](auto build) -> Value {
    if (!t.isF32())
      return build(args[0]);
    Value wide = arith::ExtFOp::create(b, loc, b.getF64Type(), args[0]);
    return arith::TruncFOp::create(b, loc, t, build(wide));
  };
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](AddOp) -> Value {
        return f ? Value(arith::AddFOp::create(b, loc, args[0], args[1]))
                 : Value(arith::AddIOp::create(b, loc, args[0], args[1]));
      })
      .Case([&](SubOp) -> Value {
        return f ? Value(arith::SubFOp::create(b, loc, args[0], args[1]))
                 : Value(arith::SubIOp::create(b, loc, args[0], args[1]));
      })
      .Case([&](MulOp) -> Value {
        return f ? Value(arith::MulFOp::create(b, loc, args[0], args[1]))
                 : Value(arith::MulIOp::create(b, loc, args[0], args[1]));
      })
      .Case([&](DivOp) -> Value {
        return f ? Value(arith::DivFOp::create(b, loc, args[0], args[1]))
                 : Value(arith::DivSIOp::create(b, loc, args[0], args[1]));
      })
      .Case([&](MaxOp) -> Value {
        return f ? Value(arith::MaximumFOp::create(b, loc, args[0], args[1]))
                 : Value(arith::MaxSIOp::create(b, loc, args[0], args[1]));
      })
      .Case([&](MinOp) -> Value {
        return f ? Value(arith::MinimumFOp::create(b, loc, args[0], args[1]))
                 : Value(arith::MinSIOp::create(b, loc, args[0], args[1]));
      })
      .Case([&](PowOp) -> Value {
        return math::PowFOp::create(b, loc, args[0], args[1]);
      })
      .Case([&](NegOp) -> Value {
        if (f)
          return arith::NegFOp::create(b, loc, args[0]);
        Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 0));
        return arith::SubIOp::create(b, loc, zero, args[0]);
      })
      .Case([&](AbsOp) -> Value {
        return f ? Value(math::AbsFOp::create(b, loc, args[0]))
                 : Value(math::AbsIOp::create(b, loc, args[0]));
      })
      .Case([&](ExpOp) -> Value { return math::ExpOp::create(b, loc, args[0]); })
      .Case([&](LogOp) -> Value { return math::LogOp::create(b, loc, args[0]); })
      .Case([&](SqrtOp) -> Value {
        return math::SqrtOp::create(b, loc, args[0]);
      })
      .Case([&](TanhOp) -> Value {
        return viaF64([&](Value x) -> Value {
          return math::TanhOp::create(b, loc, x);
        });
      })
      .Case([&](SigmoidOp) -> Value {
        return viaF64([&](Value x) -> Value {
          Type xt = x.getType();
          Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(xt, 1));
          Value e = math::ExpOp::create(
              b, loc, arith::NegFOp::create(b, loc, x));
          return arith::DivFOp::create(
              b, loc, one, arith::AddFOp::create(b, loc, one, e));
        });
      })
      .Case([&](EqOp) {
        return cmp(arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq);
      })
      .Case([&](NeOp) {
        return cmp(arith::CmpFPredicate::UNE, arith::CmpIPredicate::ne);
      })
      .Case([&](LtOp) {
        return cmp(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt);
      })
      .Case([&](LeOp) {
        return cmp(arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle);
      })
      .Case([&](GtOp) {
        return cmp(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt);
      })
      .Case([&](GeOp) {
        return cmp(arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge);
      })
      .Case([&](SelectOp) -> Value {
        return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
      })
      .Case([&](CastOp) -> Value {
        Type to = resultType;
        if (t == to)
          return args[0];
        if (to.isInteger(1)) {
          Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
          return f ? Value(arith::CmpFOp::create(
                         b, loc, arith::CmpFPredicate::UNE, args[0], zero))
                   : Value(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                                 args[0], zero));
        }
        bool fromBool = t.isInteger(1);
        if (f && isa<FloatType>(to))
          return to.getIntOrFloatBitWidth() > t.getIntOrFloatBitWidth()
                     ? Value(arith::ExtFOp::create(b, loc, to, args[0]))
                     : Value(arith::TruncFOp::create(b, loc, to, args[0]));
        if (f)
          return arith::FPToSIOp::create(b, loc, to, args[0]);
        if (isa<FloatType>(to))
          return fromBool ? Value(arith::UIToFPOp::create(b, loc, to, args[0]))
                          : Value(arith::SIToFPOp::create(b, loc, to, args[0]));
        if (to.getIntOrFloatBitWidth() > t.getIntOrFloatBitWidth())
          return fromBool ? Value(arith::ExtUIOp::create(b, loc, to, args[0]))
                          : Value(arith::ExtSIOp::create(b, loc, to, args[0]));
        return arith::TruncIOp::create(b, loc, to, args[0]);
      })
      .Default([](Operation *) { return Value(); });
}

/// The identity of a reduction (and the initial value of its accumulator).
TypedAttr reductionIdentity(OpBuilder &b, Operation *op, Type t) {
  bool f = isa<FloatType>(t);
  if (isa<SumOp, MeanOp>(op))
    return b.getZeroAttr(t);
  bool max = isa<ReduceMaxOp>(op);
  if (f)
    return b.getFloatAttr(
        t, APFloat::getInf(cast<FloatType>(t).getFloatSemantics(), max));
  unsigned w = t.getIntOrFloatBitWidth();
  return b.getIntegerAttr(t, max ? APInt::getSignedMinValue(w)
                                 : APInt::getSignedMaxValue(w));
}

Value combine(OpBuilder &b, Location loc, Operation *op, Value acc, Value x) {
  bool f = isa<FloatType>(x.getType());
  // Reductions are Associative: let LLVM vectorise them.
  auto reassoc = arith::FastMathFlagsAttr::get(b.getContext(),
                                               arith::FastMathFlags::reassoc);
  if (isa<SumOp, MeanOp>(op))
    return f ? Value(arith::AddFOp::create(b, loc, acc, x, reassoc))
             : Value(arith::AddIOp::create(b, loc, acc, x));
  if (isa<ReduceMaxOp>(op))
    return f ? Value(arith::MaximumFOp::create(b, loc, acc, x, reassoc))
             : Value(arith::MaxSIOp::create(b, loc, acc, x));
  return f ? Value(arith::MinimumFOp::create(b, loc, acc, x, reassoc))
           : Value(arith::MinSIOp::create(b, loc, acc, x));
}

//===----------------------------------------------------------------------===//
// Groups
//===----------------------------------------------------------------------===//

/// The map reading `from` (shape `fromShape`) where the consumer reads
/// `toShape` with `map` (numpy alignment; a stretched dimension reads 0).
AffineMap broadcastMap(AffineMap map, ArrayRef<int64_t> fromShape,
                       ArrayRef<int64_t> toShape) {
  SmallVector<AffineExpr> exprs;
  size_t offset = toShape.size() - fromShape.size();
  for (size_t j = 0; j < fromShape.size(); ++j) {
    bool stretched = fromShape[j] == 1 && toShape[j + offset] != 1;
    exprs.push_back(stretched ? getAffineConstantExpr(0, map.getContext())
                              : map.getResult(j + offset));
  }
  return AffineMap::get(map.getNumDims(), 0, exprs, map.getContext());
}

/// The map reading the source of a reshape that only inserts or removes
/// dimensions of static size 1 (`f32[R] -> f32[R, 1]`), where the consumer
/// reads its result with `map`; none for any other reshape.
std::optional<AffineMap> unitReshapeMap(AffineMap map, ArrayRef<int64_t> from,
                                        ArrayRef<int64_t> to) {
  auto kept = [](ArrayRef<int64_t> shape) {
    SmallVector<unsigned> dims;
    for (auto [i, s] : llvm::enumerate(shape))
      if (s != 1)
        dims.push_back(i);
    return dims;
  };
  SmallVector<unsigned> keptFrom = kept(from), keptTo = kept(to);
  if (keptFrom.size() != keptTo.size())
    return std::nullopt;
  for (auto [f, t] : llvm::zip(keptFrom, keptTo))
    if (from[f] != to[t])
      return std::nullopt; // sizes differ, or a static size against a `?`
  SmallVector<AffineExpr> exprs(from.size(),
                                getAffineConstantExpr(0, map.getContext()));
  for (auto [f, t] : llvm::zip(keptFrom, keptTo))
    exprs[f] = map.getResult(t);
  return AffineMap::get(map.getNumDims(), 0, exprs, map.getContext());
}

class GroupEmitter {
public:
  GroupEmitter(OpBuilder &b, Location loc, llvm::DenseSet<Operation *> members,
               llvm::DenseMap<Value, Value> outer)
      : b(b), loc(loc), members(std::move(members)), outer(std::move(outer)) {}

  /// One generic computing `root` (a pointwise value of the group) over its
  /// whole shape.
  Value pointwise(Value root) {
    auto type = cast<RankedTensorType>(root.getType());
    AffineMap id = b.getMultiDimIdentityMap(type.getRank());
    leaves.clear();
    collect(root, id);
    Value init = emptyLike(type, id);
    SmallVector<utils::IteratorType> iters(type.getRank(),
                                           utils::IteratorType::parallel);
    return generic(init, id, iters, [&](OpBuilder &nb, Location l, Value) {
      return compute(nb, l, root, id);
    });
  }

  /// A reduction with its prologue inside the loop; mean divides after.
  Value reduction(Operation *op) {
    Value input = op->getOperand(0);
    auto in = cast<RankedTensorType>(input.getType());
    auto outType = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = in.getRank();
    SmallVector<bool> reduced(rank, true);
    if (auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes")) {
      reduced.assign(rank, false);
      for (int64_t a : axes.asArrayRef())
        reduced[a] = true;
    }
    // Over no axis (`axes=[]`) every kind of reduction is the identity.
    if (llvm::none_of(reduced, [](bool r) { return r; }))
      return pointwise(input);
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iters;
    for (int64_t d = 0; d < rank; ++d) {
      iters.push_back(reduced[d] ? utils::IteratorType::reduction
                                 : utils::IteratorType::parallel);
      if (!reduced[d])
        outExprs.push_back(b.getAffineDimExpr(d));
    }
    AffineMap id = b.getMultiDimIdentityMap(rank);
    AffineMap outMap = AffineMap::get(rank, 0, outExprs, b.getContext());
    leaves.clear();
    collect(input, id);
    // A dimension no leaf reads (the sum of a stretched scalar, as gradients
    // make) still needs its size: an unread input of the operand's static
    // shape gives the loop its bounds.
    bool unread = false;
    for (int64_t d = 0; d < rank; ++d)
      unread |= !leafFor(d).first;
    if (unread && in.hasStaticShape()) {
      Value bounds =
          tensor::EmptyOp::create(b, loc, in.getShape(), in.getElementType());
      leafIndex[{bounds, id}] = leaves.size();
      leaves.push_back({bounds, id});
    }
    Type t = in.getElementType();
    // f32 sums accumulate in f64: a long f32 sum, vectorised or not, loses
    // digits once the total dwarfs the terms (2^25 terms: ~1e-3 relative).
    bool widen = t.isF32() && isa<SumOp, MeanOp>(op);
    Type accType = widen ? b.getF64Type() : t;
    auto accTensor = outType.clone(accType);
    Value empty = emptyLike(accTensor, outMap);
    Value identity =
        arith::ConstantOp::create(b, loc, reductionIdentity(b, op, accType));
    Value init = linalg::FillOp::create(b, loc, identity, empty).getResult(0);
    Value acc =
        widen && rank == 1
            ? blockedWideSum(op, input, id, init)
            : generic(init, outMap, iters,
                      [&](OpBuilder &nb, Location l, Value a) {
                        Value x = compute(nb, l, input, id);
                        if (widen)
                          x = arith::ExtFOp::create(nb, l, accType, x);
                        return combine(nb, l, op, a, x);
                      });
    return finish(op, acc, reduced);
  }

  /// A reduction's result from its accumulator: mean divides by the number
  /// of reduced elements; a widened (f64) accumulator rounds once.
  Value finish(Operation *op, Value acc, ArrayRef<bool> reduced) {
    auto outType = cast<RankedTensorType>(op->getResult(0).getType());
    Type t = outType.getElementType();
    Type accType = getElementTypeOrSelf(acc.getType());
    bool widen = accType != t;
    if (!isa<MeanOp>(op) && !widen)
      return acc;
    Value countF;
    if (isa<MeanOp>(op)) {
      Value count = arith::ConstantOp::create(b, loc, b.getIndexAttr(1));
      for (auto [d, r] : llvm::enumerate(reduced))
        if (r)
          count = arith::MulIOp::create(b, loc, count, dimOf(leafFor(d), d));
      countF = arith::SIToFPOp::create(
          b, loc, accType,
          arith::IndexCastOp::create(b, loc, b.getI64Type(), count));
    }
    AffineMap outId = b.getMultiDimIdentityMap(outType.getRank());
    SmallVector<utils::IteratorType> par(outType.getRank(),
                                         utils::IteratorType::parallel);
    Value dest = emptyFromValue(outType, acc);
    return linalg::GenericOp::create(
               b, loc, TypeRange{outType}, ValueRange{acc}, ValueRange{dest},
               SmallVector<AffineMap>{outId, outId}, par,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value r = args[0];
                 if (countF)
                   r = arith::DivFOp::create(nb, l, r, countF);
                 if (widen)
                   r = arith::TruncFOp::create(nb, l, t, r);
                 linalg::YieldOp::create(nb, l, r);
               })
        .getResult(0);
  }

  /// Several results of one loop nest over the same elements (a multi-result
  /// air.fused, air-fuse's multi-output fusion): pointwise values of one
  /// shape, written element by element, and full reductions of arrays of
  /// that shape (f32 sums in f64), accumulated in the same loop. The inputs
  /// are read once for all of them.
  SmallVector<Value> multi(ArrayRef<Value> roots) {
    auto reductionOf = [&](Value r) -> Operation * {
      Operation *def = r.getDefiningOp();
      return def && isLoopAnchor(def) ? def : nullptr;
    };
    Value first =
        reductionOf(roots[0]) ? reductionOf(roots[0])->getOperand(0) : roots[0];
    auto shape = cast<RankedTensorType>(first.getType());
    int64_t rank = shape.getRank();
    AffineMap id = b.getMultiDimIdentityMap(rank);
    leaves.clear();
    bool reduces = false;
    for (Value r : roots) {
      Operation *red = reductionOf(r);
      reduces |= red != nullptr;
      collect(red ? red->getOperand(0) : r, id);
    }
    // A dimension no leaf reads still needs its size (static here: air-fuse
    // merges dynamic loops only when they share an array).
    for (int64_t d = 0; d < rank; ++d)
      if (!leafFor(d).first) {
        Value bounds = tensor::EmptyOp::create(b, loc, shape.getShape(),
                                               shape.getElementType());
        leafIndex[{bounds, id}] = leaves.size();
        leaves.push_back({bounds, id});
        break;
      }
    SmallVector<Value> inits, inputs;
    SmallVector<AffineMap> maps;
    for (auto &[v, map] : leaves) {
      inputs.push_back(lookupOuter(v));
      maps.push_back(map);
    }
    AffineMap scalar = AffineMap::get(rank, 0, {}, b.getContext());
    for (Value r : roots) {
      auto type = cast<RankedTensorType>(r.getType());
      Operation *red = reductionOf(r);
      if (!red) {
        inits.push_back(emptyLike(type, id));
        maps.push_back(id);
        continue;
      }
      Type t = type.getElementType();
      Type accType = t.isF32() && isa<SumOp, MeanOp>(red) ? b.getF64Type() : t;
      Value identity =
          arith::ConstantOp::create(b, loc, reductionIdentity(b, red, accType));
      Value empty =
          tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, accType);
      inits.push_back(
          linalg::FillOp::create(b, loc, identity, empty).getResult(0));
      maps.push_back(scalar);
    }
    SmallVector<utils::IteratorType> iters(
        rank, reduces ? utils::IteratorType::reduction
                      : utils::IteratorType::parallel);
    scalars.clear();
    auto generic = linalg::GenericOp::create(
        b, loc, ValueRange(inits).getTypes(), inputs, inits, maps, iters,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          body = nb.getInsertionBlock();
          SmallVector<Value> yields;
          for (auto [i, r] : llvm::enumerate(roots)) {
            Operation *red = reductionOf(r);
            if (!red) {
              yields.push_back(compute(nb, l, r, id));
              continue;
            }
            Value acc = args[inputs.size() + i];
            Value x = compute(nb, l, red->getOperand(0), id);
            if (x.getType() != acc.getType())
              x = arith::ExtFOp::create(nb, l, acc.getType(), x);
            yields.push_back(combine(nb, l, red, acc, x));
          }
          linalg::YieldOp::create(nb, l, yields);
        });
    SmallVector<Value> results;
    SmallVector<bool> all(rank, true);
    for (auto [r, v] : llvm::zip(roots, generic.getResults())) {
      Operation *red = reductionOf(r);
      results.push_back(red ? finish(red, v, all) : v);
    }
    return results;
  }

  /// Elements per block of a 1-D f32 sum's first level.
  static constexpr int64_t kSumBlock = 4096;

  /// A 1-D f32 sum in two levels: f32 partial sums over blocks of kSumBlock
  /// elements (vectorised; a block is short enough to stay accurate), then
  /// the partials and the leftover elements added in f64 into `init`. As
  /// fast as a plain f32 loop, as accurate as an f64 one.
  Value blockedWideSum(Operation *op, Value input, AffineMap id, Value init) {
    MLIRContext *ctx = b.getContext();
    Type f32 = b.getF32Type(), f64 = b.getF64Type();
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getIndexAttr(v));
    };
    Value n = dimOf(leafFor(0), 0);
    Value blocks = arith::DivUIOp::create(b, loc, n, index(kSumBlock));
    Value mainN = arith::MulIOp::create(b, loc, blocks, index(kSumBlock));
    Value restN = arith::SubIOp::create(b, loc, n, mainN);
    AffineExpr blk, j;
    bindDims(ctx, blk, j);
    auto par = utils::IteratorType::parallel, red = utils::IteratorType::reduction;
    // Leaves that read element d0 are sliced (and viewed as blocks); the
    // others (a stretched size-1 or a scalar) read the same at every point.
    auto slice1D = [&](Value v, Value offset, Value size) -> Value {
      return tensor::ExtractSliceOp::create(
          b, loc, v, ArrayRef<OpFoldResult>{offset}, ArrayRef<OpFoldResult>{size},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    };
    auto readsElement = [](AffineMap map) {
      return map.getNumResults() == 1 && isa<AffineDimExpr>(map.getResult(0));
    };
    Value zero32 = arith::ConstantOp::create(b, loc, b.getZeroAttr(f32));
    Value partialInit =
        linalg::FillOp::create(
            b, loc, zero32,
            Value(tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{blocks},
                                          f32)))
            .getResult(0);
    Value partials = generic(
        partialInit, AffineMap::get(2, 0, {blk}, ctx), {par, red},
        [&](OpBuilder &nb, Location l, Value a) {
          return combine(nb, l, op, a, compute(nb, l, input, id));
        },
        [&](Value v, AffineMap map) -> std::pair<Value, AffineMap> {
          if (!readsElement(map))
            return {v, AffineMap::get(2, 0, map.getResults(), ctx)};
          auto type = RankedTensorType::get({ShapedType::kDynamic, kSumBlock},
                                            getElementTypeOrSelf(v.getType()));
          Value blocked = tensor::ExpandShapeOp::create(
              b, loc, type, slice1D(v, index(0), mainN),
              ArrayRef<ReassociationIndices>{{0, 1}},
              ArrayRef<OpFoldResult>{blocks, b.getIndexAttr(kSumBlock)});
          return {blocked, AffineMap::get(2, 0, {blk, j}, ctx)};
        });
    AffineMap to0 = AffineMap::get(1, 0, {}, ctx);
    AffineMap id1 = b.getMultiDimIdentityMap(1);
    Value total =
        linalg::GenericOp::create(
            b, loc, TypeRange{init.getType()}, ValueRange{partials},
            ValueRange{init}, SmallVector<AffineMap>{id1, to0}, {red},
            [&](OpBuilder &nb, Location l, ValueRange args) {
              Value x = arith::ExtFOp::create(nb, l, f64, args[0]);
              linalg::YieldOp::create(nb, l, combine(nb, l, op, args[1], x));
            })
            .getResult(0);
    return generic(
        total, to0, {red},
        [&](OpBuilder &nb, Location l, Value a) {
          Value x = arith::ExtFOp::create(nb, l, f64, compute(nb, l, input, id));
          return combine(nb, l, op, a, x);
        },
        [&](Value v, AffineMap map) -> std::pair<Value, AffineMap> {
          if (!readsElement(map))
            return {v, map};
          return {slice1D(v, mainN, restN), map};
        });
  }

  /// matmul as (m, k, n) and conv1d as (l, k, c, o): the innermost loop walks
  /// the contiguous output dimension. air-vectorize-conv1d (Conv1d.cpp)
  /// turns the conv1d generic into register-blocked vector code.
  Value contraction(Operation *op) {
    auto outType = cast<RankedTensorType>(op->getResult(0).getType());
    Value lhs = lookupOuter(op->getOperand(0));
    Value rhs = lookupOuter(op->getOperand(1));
    MLIRContext *ctx = b.getContext();
    AffineExpr d0, d1, d2, d3;
    bindDims(ctx, d0, d1, d2, d3);
    SmallVector<AffineMap> maps;
    SmallVector<utils::IteratorType> iters;
    SmallVector<Value> dynSizes;
    auto par = utils::IteratorType::parallel, red = utils::IteratorType::reduction;
    if (auto conv = dyn_cast<Conv1DOp>(op)) {
      int64_t s = conv.getStride();
      maps = {AffineMap::get(4, 0, {d0 * s + d1, d2}, ctx),
              AffineMap::get(4, 0, {d1, d2, d3}, ctx),
              AffineMap::get(4, 0, {d0, d3}, ctx)};
      iters = {par, red, red, par};
      if (outType.isDynamicDim(0)) {
        // (L - K) / stride + 1
        Value length = tensor::DimOp::create(b, loc, lhs, 0);
        Value taps = tensor::DimOp::create(b, loc, rhs, 0);
        Value n = arith::SubIOp::create(b, loc, length, taps);
        n = arith::DivUIOp::create(
            b, loc, n, arith::ConstantOp::create(b, loc, b.getIndexAttr(s)));
        dynSizes.push_back(arith::AddIOp::create(
            b, loc, n, arith::ConstantOp::create(b, loc, b.getIndexAttr(1))));
      }
      if (outType.isDynamicDim(1))
        dynSizes.push_back(tensor::DimOp::create(b, loc, rhs, 2));
    } else {
      maps = {AffineMap::get(3, 0, {d0, d1}, ctx),
              AffineMap::get(3, 0, {d1, d2}, ctx),
              AffineMap::get(3, 0, {d0, d2}, ctx)};
      iters = {par, red, par};
      if (outType.isDynamicDim(0))
        dynSizes.push_back(tensor::DimOp::create(b, loc, lhs, 0));
      if (outType.isDynamicDim(1))
        dynSizes.push_back(tensor::DimOp::create(b, loc, rhs, 1));
    }
    Type t = outType.getElementType();
    Value empty = tensor::EmptyOp::create(b, loc, outType, dynSizes);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
    Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
    return multiplyAccumulate({lhs, rhs}, init, maps, iters);
  }

  /// out += in0 * in1 over `maps`.
  Value multiplyAccumulate(ValueRange ins, Value init, ArrayRef<AffineMap> maps,
                           ArrayRef<utils::IteratorType> iters) {
    bool f = isa<FloatType>(getElementTypeOrSelf(init.getType()));
    return linalg::GenericOp::create(
               b, loc, TypeRange{init.getType()}, ins, ValueRange{init}, maps,
               iters,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value p = f ? Value(arith::MulFOp::create(nb, l, args[0], args[1]))
                             : Value(arith::MulIOp::create(nb, l, args[0], args[1]));
                 Value s = f ? Value(arith::AddFOp::create(nb, l, args[2], p))
                             : Value(arith::AddIOp::create(nb, l, args[2], p));
                 linalg::YieldOp::create(nb, l, s);
               })
        .getResult(0);
  }

  /// Binds a group value to an already lowered tensor (an anchor's result
  /// seen by its epilogue).
  void bind(Value groupValue, Value lowered) { outer[groupValue] = lowered; }

private:
  using Leaf = std::pair<Value, AffineMap>;

  Value lookupOuter(Value v) {
    auto it = outer.find(v);
    return it == outer.end() ? v : it->second;
  }

  bool isMember(Value v) {
    Operation *def = v.getDefiningOp();
    return def && members.contains(def) && !outer.count(v);
  }

  /// A leaf read through unit-dimension reshapes reads their source instead
  /// (a row statistic `f32[R]` reshaped to `f32[R, 1]` and broadcast), so
  /// that the reshape is no barrier to fusing loops later (air-fuse-rows).
  Leaf resolveLeaf(Value v, AffineMap map) {
    Value src = lookupOuter(v);
    bool through = false;
    while (auto r = src.getDefiningOp<tensor::ReshapeOp>()) {
      auto in = cast<RankedTensorType>(r.getSource().getType());
      std::optional<AffineMap> m = unitReshapeMap(
          map, in.getShape(), r.getResult().getType().getShape());
      if (!m)
        break;
      src = r.getSource();
      map = *m;
      through = true;
    }
    return through ? Leaf{src, map} : Leaf{v, map};
  }

  void collect(Value v, AffineMap map) {
    if (!isMember(v)) {
      Leaf leaf = resolveLeaf(v, map);
      if (!leafIndex.count(leaf)) {
        leafIndex[leaf] = leaves.size();
        leaves.push_back(leaf);
      }
      return;
    }
    Operation *op = v.getDefiningOp();
    if (isa<ConstantOp>(op))
      return;
    auto shape = cast<RankedTensorType>(v.getType()).getShape();
    for (Value operand : op->getOperands())
      collect(operand,
              broadcastMap(map, cast<RankedTensorType>(operand.getType()).getShape(),
                           shape));
  }

  Value compute(OpBuilder &nb, Location l, Value v, AffineMap map) {
    auto key = std::make_pair(v, map);
    if (auto it = scalars.find(key); it != scalars.end())
      return it->second;
    Value result;
    if (!isMember(v)) {
      result = body->getArgument(leafIndex.lookup(resolveLeaf(v, map)));
    } else if (auto c = v.getDefiningOp<ConstantOp>()) {
      auto splat = cast<SplatElementsAttr>(c.getValue());
      result = arith::ConstantOp::create(
          nb, l, cast<TypedAttr>(splat.getSplatValue<Attribute>()));
    } else {
      Operation *op = v.getDefiningOp();
      auto shape = cast<RankedTensorType>(v.getType()).getShape();
      SmallVector<Value> args;
      for (Value operand : op->getOperands())
        args.push_back(compute(
            nb, l, operand,
            broadcastMap(map,
                         cast<RankedTensorType>(operand.getType()).getShape(),
                         shape)));
      result = isa<BroadcastOp>(op)
                   ? args[0]
                   : emitScalar(nb, l, op, args, dtypeOf(v));
    }
    scalars[key] = result;
    return result;
  }

  /// A leaf that reads iteration dimension `d` directly, and which of its
  /// dimensions that is.
  std::pair<Value, unsigned> leafFor(int64_t d) {
    for (auto &[v, map] : leaves)
      for (auto [j, e] : llvm::enumerate(map.getResults()))
        if (auto dim = dyn_cast<AffineDimExpr>(e); dim && dim.getPosition() == d)
          return {lookupOuter(v), (unsigned)j};
    return {Value(), 0};
  }

  Value dimOf(std::pair<Value, unsigned> leaf, int64_t d) {
    auto type = cast<RankedTensorType>(leaf.first.getType());
    if (!type.isDynamicDim(leaf.second))
      return arith::ConstantOp::create(
          b, loc, b.getIndexAttr(type.getDimSize(leaf.second)));
    return tensor::DimOp::create(b, loc, leaf.first, leaf.second);
  }

  /// tensor.empty of `type`, dynamic sizes read from the leaves; `map` says
  /// which iteration dimension each result dimension is.
  Value emptyLike(RankedTensorType type, AffineMap map) {
    SmallVector<Value> dyn;
    for (auto [i, e] : llvm::enumerate(map.getResults()))
      if (type.isDynamicDim(i)) {
        int64_t d = cast<AffineDimExpr>(e).getPosition();
        dyn.push_back(dimOf(leafFor(d), d));
      }
    return tensor::EmptyOp::create(b, loc, type, dyn);
  }

  Value emptyFromValue(RankedTensorType type, Value like) {
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (type.isDynamicDim(i))
        dyn.push_back(tensor::DimOp::create(b, loc, like, i));
    return tensor::EmptyOp::create(b, loc, type, dyn);
  }

  /// How a generic reads a leaf: the tensor and map to use for (leaf value,
  /// map); the identity by default.
  using LeafView =
      llvm::function_ref<std::pair<Value, AffineMap>(Value, AffineMap)>;

  Value generic(Value init, AffineMap outMap,
                ArrayRef<utils::IteratorType> iters,
                llvm::function_ref<Value(OpBuilder &, Location, Value)> body_,
                LeafView view = nullptr) {
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (auto &[v, map] : leaves) {
      auto [input, inputMap] =
          view ? view(lookupOuter(v), map) : std::make_pair(lookupOuter(v), map);
      inputs.push_back(input);
      maps.push_back(inputMap);
    }
    maps.push_back(outMap);
    scalars.clear();
    return linalg::GenericOp::create(
               b, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
               maps, iters,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 body = nb.getInsertionBlock();
                 linalg::YieldOp::create(nb, l, body_(nb, l, args.back()));
               })
        .getResult(0);
  }

  OpBuilder &b;
  Location loc;
  llvm::DenseSet<Operation *> members;
  llvm::DenseMap<Value, Value> outer; // group value -> lowered tensor
  SmallVector<Leaf> leaves;
  llvm::DenseMap<Leaf, unsigned> leafIndex;
  llvm::DenseMap<Leaf, Value> scalars;
  Block *body = nullptr;
};


/// Lowers `ops` (a group: pointwise ops around at most one anchor) whose
/// value `root` is the result; `outer` binds block arguments to tensors.
Value lowerGroup(OpBuilder &b, Location loc, ArrayRef<Operation *> ops,
                 Value root, llvm::DenseMap<Value, Value> outer) {
  llvm::DenseSet<Operation *> members(ops.begin(), ops.end());
  GroupEmitter emitter(b, loc, members, std::move(outer));
  Operation *anchor = nullptr;
  for (Operation *op : ops)
    if (isLoopAnchor(op))
      anchor = op;
  if (!anchor)
    return emitter.pointwise(root);
  Value anchored = isa<MatmulOp, Conv1DOp>(anchor)
                       ? emitter.contraction(anchor)
                       : emitter.reduction(anchor);
  if (root == anchor->getResult(0))
    return anchored;
  emitter.bind(anchor->getResult(0), anchored);
  return emitter.pointwise(root);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertAirToLinalgPass
    : public unum::impl::ConvertAirToLinalgBase<ConvertAirToLinalgPass> {
  using Base::Base;

  LogicalResult lowerOp(OpBuilder &b, Operation *op) {
    Location loc = op->getLoc();
    b.setInsertionPoint(op);
    Value result;
    if (auto c = dyn_cast<ConstantOp>(op)) {
      result = arith::ConstantOp::create(b, loc, c.getType(),
                                         cast<TypedAttr>(c.getValue()));
    } else if (auto fused = dyn_cast<FusedOp>(op)) {
      Block &body = fused.getBody().front();
      llvm::DenseMap<Value, Value> outer;
      for (auto [arg, input] : llvm::zip(body.getArguments(), fused.getInputs()))
        outer[arg] = input;
      SmallVector<Operation *> ops;
      for (Operation &inner : body.without_terminator())
        ops.push_back(&inner);
      ValueRange roots = cast<YieldOp>(body.getTerminator()).getValues();
      if (roots.size() > 1) {
        llvm::DenseSet<Operation *> members(ops.begin(), ops.end());
        GroupEmitter emitter(b, loc, members, std::move(outer));
        SmallVector<Value> rootList(roots.begin(), roots.end());
        for (auto [r, v] :
             llvm::zip(fused.getResults(), emitter.multi(rootList)))
          r.replaceAllUsesWith(v);
        fused.erase();
        return success();
      }
      result = lowerGroup(b, loc, ops, roots[0], std::move(outer));
    } else if (isPointwise(op) || isLoopAnchor(op)) {
      result = lowerGroup(b, loc, {op}, op->getResult(0),
                          DenseMap<Value, Value>());
    } else if (isa<Conv1DInputGradOp, Conv1DFilterGradOp>(op)) {
      result = lowerConvGrad(b, op);
      if (!result)
        return failure();
    } else if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      auto type = cast<RankedTensorType>(reshape.getType());
      auto shapeType = RankedTensorType::get({type.getRank()}, b.getI64Type());
      Value shape;
      if (type.hasStaticShape()) {
        shape = arith::ConstantOp::create(
            b, loc, DenseIntElementsAttr::get(shapeType, type.getShape()));
      } else {
        // The one dynamic size (a -1) is the element count over the others'
        // product; the ABI entry has checked that it divides.
        Value in = reshape.getOperand();
        auto inType = cast<RankedTensorType>(in.getType());
        Value count = arith::ConstantIndexOp::create(b, loc, 1);
        for (int64_t d = 0; d < inType.getRank(); ++d)
          count = arith::MulIOp::create(
              b, loc, count,
              inType.isDynamicDim(d)
                  ? Value(tensor::DimOp::create(b, loc, in, d))
                  : Value(arith::ConstantIndexOp::create(
                        b, loc, inType.getDimSize(d))));
        int64_t known = 1;
        for (int64_t s : type.getShape())
          if (!ShapedType::isDynamic(s))
            known *= s;
        SmallVector<Value> sizes;
        for (int64_t s : type.getShape()) {
          Value size = ShapedType::isDynamic(s)
                           ? Value(arith::DivUIOp::create(
                                 b, loc, count,
                                 arith::ConstantIndexOp::create(
                                     b, loc, std::max<int64_t>(known, 1))))
                           : Value(arith::ConstantIndexOp::create(b, loc, s));
          sizes.push_back(
              arith::IndexCastOp::create(b, loc, b.getI64Type(), size));
        }
        shape = tensor::FromElementsOp::create(b, loc, shapeType, sizes);
      }
      result = tensor::ReshapeOp::create(b, loc, type, reshape.getOperand(), shape);
    } else if (auto transpose = dyn_cast<TransposeOp>(op)) {
      auto type = cast<RankedTensorType>(transpose.getType());
      SmallVector<Value> dyn;
      for (int64_t i = 0; i < type.getRank(); ++i)
        if (type.isDynamicDim(i))
          dyn.push_back(tensor::DimOp::create(b, loc, transpose.getOperand(),
                                              transpose.getPerm()[i]));
      Value empty = tensor::EmptyOp::create(b, loc, type, dyn);
      result = linalg::TransposeOp::create(b, loc, transpose.getOperand(), empty,
                                           transpose.getPerm())
                   .getResult()[0];
    } else if (auto call = dyn_cast<CallOp>(op)) {
      auto lowered = func::CallOp::create(b, loc, call.getCalleeAttr(),
                                          call.getResultTypes(),
                                          call.getOperands());
      call.replaceAllUsesWith(lowered.getResults());
      call.erase();
      return success();
    } else {
      return op->emitError("cannot lower '")
             << op->getName() << "' to linalg (tuples and weak literals must "
             << "be simplified away first: run air-infer and air-simplify)";
    }
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
    return success();
  }

  /// The adjoints of conv1d (stride s), as generics:
  ///   filter: dw[k, c, o] += x[j * s + k, c] * g[j, o]   over (k, c, j, o)
  ///   input:  dx[l, c] += g[j, o] * w[k, c, o] where l = j * s + k, over
  ///           (l, c, k, o).
  Value lowerConvGrad(OpBuilder &b, Operation *op) {
    Location loc = op->getLoc();
    MLIRContext *ctx = b.getContext();
    auto outType = cast<RankedTensorType>(op->getResult(0).getType());
    Type t = outType.getElementType();
    Value like = op->getOperand(2);
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < outType.getRank(); ++i)
      if (outType.isDynamicDim(i))
        dyn.push_back(tensor::DimOp::create(b, loc, like, i));
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
    Value init =
        linalg::FillOp::create(
            b, loc, zero, Value(tensor::EmptyOp::create(b, loc, outType, dyn)))
            .getResult(0);
    AffineExpr d0, d1, d2, d3;
    bindDims(ctx, d0, d1, d2, d3);
    auto par = utils::IteratorType::parallel,
         red = utils::IteratorType::reduction;
    auto mac = [&](ValueRange ins, ArrayRef<AffineMap> maps,
                   ArrayRef<utils::IteratorType> iters) {
      return linalg::GenericOp::create(
                 b, loc, TypeRange{outType}, ins, ValueRange{init}, maps, iters,
                 [&](OpBuilder &nb, Location l, ValueRange args) {
                   Value p = arith::MulFOp::create(nb, l, args[0], args[1]);
                   linalg::YieldOp::create(
                       nb, l,
                       ValueRange{arith::AddFOp::create(nb, l, args[2], p)});
                 })
          .getResult(0);
    };
    if (auto filter = dyn_cast<Conv1DFilterGradOp>(op)) {
      int64_t s = filter.getStride();
      return mac({filter.getInput(), filter.getGrad()},
                 {AffineMap::get(4, 0, {d2 * s + d0, d1}, ctx),
                  AffineMap::get(4, 0, {d2, d3}, ctx),
                  AffineMap::get(4, 0, {d0, d1, d3}, ctx)},
                 {par, par, red, par});
    }
    // dx[l, c] = sum_{k, o} w[k, c, o] * (g[j, o] where l = j * s + k): g
    // is read in the body, at a clamped row, and counts only when the row
    // exists (a strided insertion would cost a library copy).
    auto input = cast<Conv1DInputGradOp>(op);
    int64_t s = input.getStride();
    Value g = input.getGrad();
    Value rows = tensor::DimOp::create(b, loc, g, 0);
    return linalg::GenericOp::create(
               b, loc, TypeRange{outType}, ValueRange{input.getFilter()},
               ValueRange{init},
               {AffineMap::get(4, 0, {d2, d1, d3}, ctx),
                AffineMap::get(4, 0, {d0, d1}, ctx)},
               {par, par, red, red},
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 auto index = [&](int64_t v) -> Value {
                   return arith::ConstantOp::create(nb, l, nb.getIndexAttr(v));
                 };
                 Value diff = arith::SubIOp::create(
                     nb, l, linalg::IndexOp::create(nb, l, 0),
                     linalg::IndexOp::create(nb, l, 2));
                 Value zeroIndex = index(0);
                 Value row = arith::DivSIOp::create(nb, l, diff, index(s));
                 Value valid = arith::AndIOp::create(
                     nb, l,
                     arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge,
                                           diff, zeroIndex),
                     arith::AndIOp::create(
                         nb, l,
                         arith::CmpIOp::create(
                             nb, l, arith::CmpIPredicate::eq,
                             arith::RemSIOp::create(nb, l, diff, index(s)),
                             zeroIndex),
                         arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                               row, rows)));
                 Value safeRow =
                     arith::SelectOp::create(nb, l, valid, row, zeroIndex);
                 Value gv = tensor::ExtractOp::create(
                     nb, l, g,
                     ValueRange{safeRow, linalg::IndexOp::create(nb, l, 3)});
                 Value p = arith::MulFOp::create(
                     nb, l, arith::SelectOp::create(nb, l, valid, gv, zero),
                     args[0]);
                 linalg::YieldOp::create(
                     nb, l,
                     ValueRange{arith::AddFOp::create(nb, l, args[1], p)});
               })
        .getResult(0);
  }

  /// A kernel body (see AbiEntry.h): inputs become contiguous memrefs read
  /// through bufferization.to_tensor, results memref out-parameters after
  /// them, written in place and `noalias` (the ABI's promise).
  void passDestinations(func::FuncOp func) {
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    SmallVector<Type> inputTypes;
    for (BlockArgument arg : entry.getArguments()) {
      auto t = cast<RankedTensorType>(arg.getType());
      arg.setType(contiguousMemRefType(t));
      inputTypes.push_back(arg.getType());
      auto read = bufferization::ToTensorOp::create(b, func.getLoc(), t, arg,
                                                    /*restrict=*/true);
      arg.replaceAllUsesExcept(read, read);
    }
    func.setType(FunctionType::get(func.getContext(), inputTypes,
                                   func.getResultTypes()));
    auto ret = cast<func::ReturnOp>(entry.getTerminator());
    b.setInsertionPoint(ret);
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      auto t = cast<RankedTensorType>(v.getType());
      unsigned index = func.getNumArguments();
      (void)func.insertArgument(
          index, contiguousMemRefType(t),
          b.getDictionaryAttr(
              {b.getNamedAttr("air.name",
                              b.getStringAttr("result" + std::to_string(i))),
               b.getNamedAttr(LLVM::LLVMDialect::getNoAliasAttrName(),
                              b.getUnitAttr())}),
          func.getLoc());
      auto m = bufferization::MaterializeInDestinationOp::create(
          b, ret.getLoc(), v, func.getArgument(index));
      m.setRestrict(true);
      m.setWritable(true);
    }
    func::ReturnOp::create(b, ret.getLoc());
    ret.erase();
    (void)func.eraseResults(llvm::BitVector(func.getNumResults(), true));
  }

  /// A public function that another calls keeps a private copy for the
  /// calls, which pass tensors (the public one becomes the ABI entry).
  void copyCalledPublicFunctions(ModuleOp module) {
    SymbolTable table(module);
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (!func.isPublic() || func.isExternal())
        continue;
      auto uses = SymbolTable::getSymbolUses(func, module);
      if (!uses || uses->empty())
        continue;
      func::FuncOp copy = func.clone();
      copy.setPrivate();
      copy->removeAttr("llvm.emit_c_interface");
      table.insert(copy); // renamed, the name being taken
      (void)SymbolTable::replaceAllSymbolUses(func, copy.getNameAttr(), module);
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      bool generic = llvm::any_of(func.getFunctionType().getInputs(),
                                  llvm::IsaPred<GenericType>);
      if (generic) {
        func.erase(); // a template; its specialisations are what runs
        continue;
      }
      for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                             func.getResultTypes()))
        if (!isa<RankedTensorType>(t)) {
          func.emitError("function '")
              << func.getName() << "' passes " << formatAirType(t)
              << "; only arrays cross function boundaries";
          return signalPassFailure();
        }
    }
    // Public functions split into an ABI entry (memref code already) and
    // the kernel body the entry calls.
    llvm::DenseSet<Operation *> entries, bodies;
    if (destinationPassing) {
      copyCalledPublicFunctions(module);
      for (auto func : llvm::to_vector(module.getOps<func::FuncOp>()))
        if (func.isPublic() && !func.isExternal()) {
          bodies.insert(func);
          createAbiEntry(func);
          entries.insert(func->getPrevNode());
        }
    }
    OpBuilder b(&getContext());
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (entries.contains(func) || func.isExternal())
        continue;
      for (Operation &op : llvm::make_early_inc_range(func.getBody().front())) {
        if (op.getDialect() != getContext().getLoadedDialect<AirDialect>())
          continue;
        if (failed(lowerOp(b, &op)))
          return signalPassFailure();
      }
      if (bodies.contains(func))
        passDestinations(func);
      else if (!destinationPassing && func.isPublic())
        func->setAttr("llvm.emit_c_interface", UnitAttr::get(&getContext()));
    }
  }
};
} // namespace
