//===- Reductions.cpp - reductions over outer axes, vectorised ------------===//
//
// y[j] = combine over rows r of f(x[r, j]) (axis-0 sum, max, mean, ... of a
// row-major array, any leading axes, or middle axes after parallel ones) as
// explicit vector code sized for the target, instead of a scalar loop nest
// left to LLVM's vectoriser:
//
//   for panel in [0, P)                      (scf.parallel with threads)
//     for (outer parallel and reduction loops)
//       for c0 in panel's columns step CB      column block (1024 f32)
//         for r0 in rows step RB               chunk of rows (8 to 32)
//           for j0 in block's strips step U*W  U accumulators of W lanes
//             acc[u] = y[j0 + u W : +W]        (0 for an f32 sum, below)
//             for r in [r0, r0 + RB): acc[u] = combine(acc[u], f(x[r, ...]))
//             y[j0 + u W : +W] = acc[u]        (y += f64(acc[u]))
//           the columns left: single vectors, then one column at a time
//
// The accumulators live in registers over a chunk of rows and the loads of x
// are contiguous along each row. Narrow arrays take whole rows and up to 32
// of them; a wide one (a row over 4 KB) is cut into column blocks of 8 rows
// at a time, so that its block of accumulators stays in L1 too and is loaded
// and stored once per 8 rows (one chunk of 1-2 whole rows loaded and stored
// the accumulators of 4096 columns every row: 0.5x numpy at 1024x4096). W is
// one register of the widest type the body computes in; an f64 sum of f32
// terms adds each chunk in f32 (8 lanes on AVX2) and then into the f64 sum.
//
//===----------------------------------------------------------------------===//
#include "Reductions.h"
#include "Parallel.h"
#include "VectorBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {
bool byteSized(Type t) {
  return t.isIntOrFloat() && t.getIntOrFloatBitWidth() >= 8 &&
         t.getIntOrFloatBitWidth() <= 64 && t.getIntOrFloatBitWidth() % 8 == 0;
}

/// A body of elementwise arith/math ops on scalars (and constants): what
/// cloneBodyOnVectors can compute on vectors.
bool vectorizableBody(Block *body) {
  for (Operation &inner : body->without_terminator()) {
    if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()) ||
        inner.getNumResults() != 1 || inner.getNumRegions() != 0)
      return false;
    bool constant =
        inner.getNumOperands() == 0 && inner.hasTrait<OpTrait::ConstantLike>();
    if (!constant && !(inner.hasTrait<OpTrait::Elementwise>() &&
                       inner.hasTrait<OpTrait::Vectorizable>()))
      return false;
    Type t = inner.getResult(0).getType();
    if (!t.isIntOrFloat() || t.getIntOrFloatBitWidth() > 64)
      return false;
  }
  return true;
}
} // namespace

bool unum::air::isOuterReduction(linalg::GenericOp op) {
  unsigned n = op.getNumLoops();
  if (n < 2 || op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics())
    return false;
  // Parallel loops [0, p), the reduction loops [p, p + k), then at least
  // one parallel loop (the columns).
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  unsigned p = 0;
  while (p < n && iters[p] == utils::IteratorType::parallel)
    ++p;
  unsigned k = op.getNumReductionLoops();
  if (k == 0 || p + k >= n)
    return false;
  for (unsigned d = p; d < n; ++d)
    if ((d < p + k) != (iters[d] == utils::IteratorType::reduction))
      return false;
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineExpr> outExprs;
  for (unsigned d = 0; d < n; ++d)
    if (d < p || d >= p + k)
      outExprs.push_back(getAffineDimExpr(d, ctx));
  OpOperand &init = op.getDpsInitsMutable()[0];
  if (op.getMatchingIndexingMap(&init) != AffineMap::get(n, 0, outExprs, ctx) ||
      !byteSized(getElementTypeOrSelf(init.get().getType())) ||
      !contiguousLast(init.get()))
    return false;
  for (OpOperand *in : op.getDpsInputOperands()) {
    if (!isa<ShapedType>(in->get().getType()))
      continue; // a scalar
    if (!isa<MemRefType>(in->get().getType()) ||
        !byteSized(getElementTypeOrSelf(in->get().getType())))
      return false;
    AffineMap map = op.getMatchingIndexingMap(in);
    if (!map.isProjectedPermutation())
      return false;
    if (!map.isFunctionOfDim(n - 1))
      continue;
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!last || last.getPosition() != n - 1 || !contiguousLast(in->get()))
      return false;
  }
  Block *body = op.getBody();
  if (body->getArgument(body->getNumArguments() - 1).use_empty())
    return false;
  return vectorizableBody(body);
}

namespace {
/// The extf of a body ending in `out + extf(v)` with v an f32 and out an f64
/// (an f32 sum accumulated in f64), else null.
arith::ExtFOp widenedTerm(Block *body) {
  BlockArgument acc = body->getArguments().back();
  auto add =
      body->getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || !acc.hasOneUse() || !acc.getType().isF64())
    return {};
  Value other = add.getLhs() == acc   ? add.getRhs()
                : add.getRhs() == acc ? add.getLhs()
                                      : Value();
  auto ext = other ? other.getDefiningOp<arith::ExtFOp>() : nullptr;
  if (!ext || !ext->hasOneUse() || !ext.getIn().getType().isF32())
    return {};
  return ext;
}

/// The term t of a body ending in `maximumf(out, t)` or `minimumf(out, t)`
/// (a NaN-propagating float max/min), else null; `isMax` says which.
Value extremumTerm(Block *body, bool &isMax) {
  BlockArgument acc = body->getArguments().back();
  Operation *combine = body->getTerminator()->getOperand(0).getDefiningOp();
  if (!isa_and_nonnull<arith::MaximumFOp, arith::MinimumFOp>(combine) ||
      !acc.hasOneUse() || combine->getBlock() != body)
    return {};
  isMax = isa<arith::MaximumFOp>(combine);
  Value lhs = combine->getOperand(0), rhs = combine->getOperand(1);
  return lhs == acc ? rhs : rhs == acc ? lhs : Value();
}

class OuterReduction {
public:
  OuterReduction(RewriterBase &b, linalg::GenericOp op,
                 linalg::GenericOp epilogue,
                 const unum::air::MatmulTarget &target)
      : b(b), loc(op.getLoc()), op(op), epilogue(epilogue), target(target) {
    n = op.getNumLoops();
    k = op.getNumReductionLoops();
    SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
    p = 0;
    while (iters[p] == utils::IteratorType::parallel)
      ++p;
    out = op.getDpsInits()[0];
    Block *body = op.getBody();
    arith::ExtFOp ext = widenedTerm(body);
    if (ext)
      term = ext.getIn();
    extremum = extremumTerm(body, isMax);
    // The lanes: one register of the widest type the loop body computes in
    // (an f64 sum of f32 terms computes in f32, see emit()).
    int64_t bits = 8;
    for (BlockArgument arg : body->getArguments())
      if (!term || arg != body->getArguments().back())
        bits = std::max<int64_t>(bits, arg.getType().getIntOrFloatBitWidth());
    for (Operation &inner : body->without_terminator()) {
      if (ext && (&inner == ext.getOperation() || &inner == *ext->user_begin()))
        continue; // the f64 add of the term
      if (!inner.getResult(0).getType().isInteger(1))
        bits = std::max<int64_t>(
            bits, inner.getResult(0).getType().getIntOrFloatBitWidth());
    }
    lanes = std::max<int64_t>(1, target.vectorBits / bits);
    // Accumulators, the loaded row segments and the body's temporaries.
    unroll = std::clamp<int64_t>((target.registers - 4) / 3, 1, 4);
  }

  void emit();

private:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) {
    return b.createOrFold<arith::AddIOp>(loc, x, y);
  }
  Value sub(Value x, Value y) {
    return b.createOrFold<arith::SubIOp>(loc, x, y);
  }
  Value mul(Value x, Value y) {
    return b.createOrFold<arith::MulIOp>(loc, x, y);
  }
  Value min(Value x, Value y) {
    return b.createOrFold<arith::MinSIOp>(loc, x, y);
  }
  /// x rounded down to a multiple of m (x >= 0).
  Value floorTo(Value x, int64_t m) {
    return mul(b.createOrFold<arith::DivUIOp>(loc, x, cst(m)), cst(m));
  }
  scf::ForOp forLoop(Value lb, Value ub, Value step, ValueRange init,
                     function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    return scf::ForOp::create(
        b, loc, lb, ub, step, init,
        [&](OpBuilder &, Location, Value iv, ValueRange args) {
          scf::YieldOp::create(b, loc, body(iv, args));
        });
  }
  void forLoop(Value lb, Value ub, Value step, function_ref<void(Value)> body) {
    forLoop(lb, ub, step, ValueRange{}, [&](Value iv, ValueRange) {
      body(iv);
      return SmallVector<Value>{};
    });
  }

  /// Loops over dims [from, to) of `ivs` (entries filled in), then `body`.
  void nest(unsigned from, unsigned to, SmallVector<Value> &ivs,
            function_ref<void()> body) {
    if (from == to)
      return body();
    forLoop(cst(0), sizes[from], cst(1), [&](Value iv) {
      ivs[from] = iv;
      nest(from + 1, to, ivs, body);
    });
  }

  /// The inputs of the body on `width` columns from ivs[n - 1].
  IRMapping loadInputs(ArrayRef<Value> ivs, int64_t width);
  /// The body on `width` columns from ivs[n - 1], accumulating into `acc`.
  Value step(ArrayRef<Value> ivs, Value acc, int64_t width);
  /// A max/min strip's rows [r0, r1) from `acc`: the accumulators after
  /// them (see the definition).
  SmallVector<Value> fastExtremum(SmallVector<Value> &ivs, ArrayRef<Value> cols,
                                  ValueRange acc, int64_t width, Value r0,
                                  Value r1);
  /// The rows [r0, r1) of a strip, from `acc`, combined by the body.
  scf::ForOp exactRows(SmallVector<Value> &ivs, ArrayRef<Value> cols,
                       ValueRange acc, int64_t width, Value r0, Value r1);
  /// Columns [j0, j0 + count * width) of the output for the rows
  /// [r0, r1) of dim p + k - 1: `count` accumulators of `width` lanes.
  void strip(SmallVector<Value> ivs, Value j0, int64_t count, int64_t width,
             Value r0, Value r1);
  /// The indices of the output at `ivs` (the parallel dims).
  SmallVector<Value> outIndices(ArrayRef<Value> ivs);
  /// The f64 sum so far of `width` columns from `col` (the scratch's, or
  /// the fill value before the first chunk).
  Value scratchSum(Value col, int64_t width, Value first);
  /// With an epilogue: the epilogue of the sums of columns [c0, c1) (all
  /// their chunks added in the scratch) into its output.
  void flush(ArrayRef<Value> ivs, Value c0, Value c1);

  RewriterBase &b;
  Location loc;
  linalg::GenericOp op;
  /// findSumEpilogue(op), or null.
  linalg::GenericOp epilogue;
  unum::air::MatmulTarget target;
  /// With an epilogue: the f64 sums of a column block (cb per panel) on
  /// the stack, the scratch index of column c is c + scratchOffset (set per
  /// column block), the value the temporary was filled with, and whether
  /// there are no rows to add (the epilogue then reads the fill value).
  Value scratch, scratchOffset, fillValue, noRows;
  /// Loops: parallel [0, p), reductions [p, p + k), parallel [p + k, n).
  unsigned n, k, p;
  int64_t lanes, unroll;
  Value out;
  /// For an f64 sum of f32 terms: the f32 term (see emit()).
  Value term;
  /// For a float max (isMax) or min: the term combined with the output
  /// (see fastExtremum()).
  Value extremum;
  bool isMax = false;
  SmallVector<Value> sizes;
};

IRMapping OuterReduction::loadInputs(ArrayRef<Value> ivs, int64_t width) {
  Block *body = op.getBody();
  IRMapping map;
  auto vectorOf = [&](Type s) { return VectorType::get({width}, s); };
  auto splat = [&](Value s) { return unum::air::splatLanes(b, loc, s, width); };
  for (OpOperand *in : op.getDpsInputOperands()) {
    Value v = in->get();
    Value arg = body->getArgument(in->getOperandNumber());
    if (!isa<MemRefType>(v.getType())) {
      map.map(arg, splat(v));
      continue;
    }
    AffineMap m = op.getMatchingIndexingMap(in);
    SmallVector<Value> indices;
    for (AffineExpr e : m.getResults())
      indices.push_back(ivs[cast<AffineDimExpr>(e).getPosition()]);
    if (m.isFunctionOfDim(n - 1))
      map.map(arg, vector::LoadOp::create(b, loc, vectorOf(arg.getType()), v,
                                          indices));
    else
      map.map(arg, splat(memref::LoadOp::create(b, loc, v, indices)));
  }
  return map;
}

Value OuterReduction::step(ArrayRef<Value> ivs, Value acc, int64_t width) {
  Block *body = op.getBody();
  IRMapping map = loadInputs(ivs, width);
  // Without fast-math flags: each element is combined in row order, so
  // nothing (LLVM included) may reassociate it.
  if (term) {
    Value v = unum::air::cloneBodyOnVectors(b, loc, body, map, width,
                                            /*keepFastMath=*/false, term);
    return arith::AddFOp::create(b, loc, acc, v);
  }
  map.map(body->getArguments().back(), acc);
  return unum::air::cloneBodyOnVectors(b, loc, body, map, width,
                                       /*keepFastMath=*/false);
}

scf::ForOp OuterReduction::exactRows(SmallVector<Value> &ivs,
                                     ArrayRef<Value> cols, ValueRange acc,
                                     int64_t width, Value r0, Value r1) {
  unsigned rowDim = p + k - 1;
  return forLoop(r0, r1, cst(1), acc, [&](Value r, ValueRange a) {
    ivs[rowDim] = r;
    SmallVector<Value> next;
    for (auto [u, col] : llvm::enumerate(cols)) {
      ivs[n - 1] = col;
      next.push_back(step(ivs, a[u], width));
    }
    return next;
  });
}

// maximumf/minimumf propagate NaN and order -0 below +0: on x86 that is
// five instructions per vector (two blends ordering the zeros, max, an
// unordered compare, a blend), which made the f32 max/min over axis 0
// slower than numpy. Each row of a strip takes two instead: the plain
// compare-select `t > acc ? t : acc` (one vmaxps) and a running sum of the
// terms. That is the exact result unless a term is NaN (it drops it; the
// sum is then NaN) or the result is a zero (-0 and +0 compare equal, so
// either may be kept): after the chunk's rows, if any lane of the sums is
// NaN (or infinite) or any lane of the result is zero (or NaN), the chunk's
// rows are combined again, from the same accumulators, by the body itself.
// A NaN accumulator stays NaN in both.
SmallVector<Value> OuterReduction::fastExtremum(SmallVector<Value> &ivs,
                                                ArrayRef<Value> cols,
                                                ValueRange acc, int64_t width,
                                                Value r0, Value r1) {
  unsigned rowDim = p + k - 1;
  size_t count = cols.size();
  auto type = cast<VectorType>(acc[0].getType());
  Value zero = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(type, b.getFloatAttr(type.getElementType(), 0.0)));
  SmallVector<Value> init(acc.begin(), acc.end());
  init.append(count, zero);
  arith::CmpFPredicate keep =
      isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT;
  scf::ForOp rows = forLoop(r0, r1, cst(1), init, [&](Value r, ValueRange a) {
    ivs[rowDim] = r;
    SmallVector<Value> next(2 * count);
    for (auto [u, col] : llvm::enumerate(cols)) {
      ivs[n - 1] = col;
      IRMapping map = loadInputs(ivs, width);
      Value t = unum::air::cloneBodyOnVectors(b, loc, op.getBody(), map, width,
                                              /*keepFastMath=*/false, extremum);
      Value better = arith::CmpFOp::create(b, loc, keep, t, a[u]);
      next[u] = arith::SelectOp::create(b, loc, better, t, a[u]);
      next[count + u] = arith::AddFOp::create(b, loc, a[count + u], t);
    }
    return next;
  });
  // One float test for all the strip's lanes: (sum + 1 / result) * 0 is
  // NaN when the sum is NaN or infinite or the result is a zero (1 / 0 is
  // an infinity) or NaN (rarely also for a tiny result: the exact path,
  // merely slower). Comparing and or-ing i1 vectors per accumulator cost
  // ~100 instructions per strip and chunk on AVX2.
  Value one = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(type, b.getFloatAttr(type.getElementType(), 1.0)));
  Value test;
  for (size_t u = 0; u < count; ++u) {
    Value result = rows.getResult(u), sum = rows.getResult(count + u);
    Value inverse = arith::DivFOp::create(b, loc, one, result);
    Value t = arith::MulFOp::create(
        b, loc, arith::AddFOp::create(b, loc, sum, inverse), zero);
    test = test ? arith::AddFOp::create(b, loc, test, t) : t;
  }
  Value nan =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, test, test);
  Value any =
      vector::ReductionOp::create(b, loc, vector::CombiningKind::OR, nan);
  auto again = scf::IfOp::create(
      b, loc, any,
      [&](OpBuilder &, Location) {
        scf::YieldOp::create(
            b, loc, exactRows(ivs, cols, acc, width, r0, r1).getResults());
      },
      [&](OpBuilder &, Location) {
        scf::YieldOp::create(b, loc, rows.getResults().take_front(count));
      });
  return SmallVector<Value>(again.getResults());
}

SmallVector<Value> OuterReduction::outIndices(ArrayRef<Value> ivs) {
  SmallVector<Value> outIdx;
  for (unsigned d = 0; d < n; ++d)
    if (d < p || d >= p + k)
      outIdx.push_back(ivs[d]);
  return outIdx;
}

Value OuterReduction::scratchSum(Value col, int64_t width, Value first) {
  auto type = VectorType::get({width}, b.getF64Type());
  auto sum = scf::IfOp::create(
      b, loc, first,
      [&](OpBuilder &, Location) {
        scf::YieldOp::create(b, loc,
                             unum::air::splatLanes(b, loc, fillValue, width));
      },
      [&](OpBuilder &, Location) {
        scf::YieldOp::create(b, loc,
                             vector::LoadOp::create(b, loc, type, scratch,
                                                    add(col, scratchOffset))
                                 .getResult());
      });
  return sum.getResult(0);
}

void OuterReduction::flush(ArrayRef<Value> ivs, Value c0, Value c1) {
  Value init = epilogue.getDpsInits()[0];
  Block *body = epilogue.getBody();
  SmallVector<Value> outIdx = outIndices(ivs);
  auto columns = [&](Value j0, int64_t width) {
    IRMapping map;
    for (OpOperand *in : epilogue.getDpsInputOperands()) {
      Value arg = body->getArgument(in->getOperandNumber());
      map.map(arg, in->get() == out
                       ? scratchSum(j0, width, noRows)
                       : unum::air::splatLanes(b, loc, in->get(), width));
    }
    Value v = unum::air::cloneBodyOnVectors(b, loc, body, map, width,
                                            /*keepFastMath=*/true);
    outIdx.back() = j0;
    vector::StoreOp::create(b, loc, v, init, outIdx);
  };
  Value vectors = add(c0, floorTo(sub(c1, c0), lanes));
  forLoop(c0, vectors, cst(lanes), [&](Value j0) { columns(j0, lanes); });
  if (lanes > 1)
    forLoop(vectors, c1, cst(1), [&](Value j0) { columns(j0, 1); });
}

void OuterReduction::strip(SmallVector<Value> ivs, Value j0, int64_t count,
                           int64_t width, Value r0, Value r1) {
  SmallVector<Value> outIdx = outIndices(ivs);
  auto outType = VectorType::get({width}, getElementTypeOrSelf(out.getType()));
  SmallVector<Value> cols, acc;
  for (int64_t u = 0; u < count; ++u) {
    cols.push_back(add(j0, cst(u * width)));
    outIdx.back() = cols.back();
    if (term)
      acc.push_back(arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(VectorType::get({width}, b.getF32Type()),
                                 b.getF32FloatAttr(0.0))));
    else
      acc.push_back(vector::LoadOp::create(b, loc, outType, out, outIdx));
  }
  SmallVector<Value> results =
      extremum && width > 1
          ? fastExtremum(ivs, cols, acc, width, r0, r1)
          : SmallVector<Value>(
                exactRows(ivs, cols, acc, width, r0, r1).getResults());
  for (int64_t u = 0; u < count; ++u) {
    outIdx.back() = cols[u];
    Value result = results[u];
    if (term && scratch) {
      // The same sum in the column block's scratch.
      Value wide = arith::ExtFOp::create(b, loc, outType, result);
      Value first = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                                  r0, cst(0));
      result = arith::AddFOp::create(b, loc, scratchSum(cols[u], width, first),
                                     wide);
      vector::StoreOp::create(b, loc, result, scratch,
                              add(cols[u], scratchOffset));
      continue;
    }
    if (term) {
      // out += the chunk's f32 partial sum, in f64.
      Value wide = arith::ExtFOp::create(b, loc, outType, result);
      Value old = vector::LoadOp::create(b, loc, outType, out, outIdx);
      result = arith::AddFOp::create(b, loc, old, wide);
    }
    vector::StoreOp::create(b, loc, result, out, outIdx);
  }
}

void OuterReduction::emit() {
  b.setInsertionPoint(op);
  auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
  for (Range r : linalgOp.createLoopRanges(b, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, r.size));
  int64_t s = lanes * unroll;
  Value columns = sizes.back();
  // A chunk of RB rows x CB columns: the strips keep their accumulators in
  // registers over its RB rows (their loads and stores are 1/RB of the
  // work), and the strips walk across the chunk's rows together. Narrow
  // arrays take whole rows, RB = 32 KB / (columns x input bytes) up to 32;
  // wide ones (RB would be < 8) take RB = 8 and column blocks of CB = 32 KB
  // / (8 x input bytes), whole strips (1024 f32 columns: a 4 KB run of each
  // row, so that the block's accumulators, loaded and stored once per
  // chunk, stay in L1 instead of a whole row of them). Measured on an AVX2
  // host: 8 x 4 KB runs beat 4 x 4 KB (wide arrays, f32 sums 10-25% faster)
  // and 8 x 2 KB (up to 1.5x slower: too many short streams).
  //
  // An f64 sum of f32 terms (`term`) adds the chunk's RB rows in f32
  // registers, 8 lanes on AVX2 instead of 4 (an f64 add of each term needs
  // a conversion too: twice the work of numpy's f32 loop), from +0, then
  // adds that partial sum to the f64 sum in memory: the error of each
  // output is at most (RB - 1) 2^-24 of the sum of |terms| over a chunk,
  // RB <= 32 (docs/Air.md#semantics-worth-knowing). The chunks depend on
  // the shape only, so the result does not depend on the target or the
  // threads.
  int64_t inBytes = 1;
  for (OpOperand *in : op.getDpsInputOperands())
    if (isa<MemRefType>(in->get().getType()) &&
        op.getMatchingIndexingMap(in).isFunctionOfDim(n - 1))
      inBytes = std::max<int64_t>(
          inBytes,
          getElementTypeOrSelf(in->get().getType()).getIntOrFloatBitWidth() /
              8);
  constexpr int64_t kChunkBytes = 32768, kMinRows = 8, kMaxRows = 32;
  Value rb = b.createOrFold<arith::MaxSIOp>(
      loc, cst(kMinRows),
      min(cst(kMaxRows),
          b.createOrFold<arith::DivUIOp>(
              loc, cst(kChunkBytes / inBytes),
              b.createOrFold<arith::MaxSIOp>(loc, columns, cst(1)))));
  int64_t cbSize =
      std::max<int64_t>(s, kChunkBytes / inBytes / kMinRows / s * s);
  Value cb = cst(cbSize);
  int64_t panels = target.threads > 1 ? target.threads : 1;
  // An f32 sum's f64 temporary (a full output row, allocated, zeroed and
  // rounded by the epilogue every call) becomes cb f64 per panel on the
  // stack: each column block adds its chunks there and the epilogue writes
  // its columns from it (the same additions in the same order: the same
  // results).
  Operation *fill = nullptr;
  if (epilogue) {
    fill = *llvm::find_if(out.getUsers(), llvm::IsaPred<linalg::FillOp>);
    fillValue = cast<linalg::FillOp>(fill).getInputs()[0];
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(
        &op->getParentOfType<FunctionOpInterface>().getFunctionBody().front());
    scratch = memref::AllocaOp::create(
        b, loc, MemRefType::get({panels * cbSize}, b.getF64Type()),
        ValueRange{}, b.getI64IntegerAttr(64));
  }
  if (epilogue)
    noRows = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                           sizes[p + k - 1], cst(0));
  // One panel per thread: with leading parallel dims (a middle axis), a
  // range of the outermost one (whole slices, every column); else panels of
  // whole strips of columns, so that the columns are cut into strips,
  // vectors and single columns the same way for any number of threads.
  bool slices = p > 0;
  // Shared only above a work threshold; below it (and inside another loop)
  // the loop runs ONE panel, i.e. the one-thread code: two serial panels of
  // a narrow array read each row's cache lines twice (the 2-thread build
  // ran 16384x64 at 0.71-0.76x of the 1-thread one, airmm's measurement).
  Value enough;
  if (panels > 1 && !op->getParentOfType<LoopLikeOpInterface>()) {
    enough = unum::air::enoughWork(b, loc, unum::air::product(b, loc, sizes),
                                   unum::air::kMinParallelElements);
    if (!slices) {
      // Panels under 512 columns split each row's cache lines and prefetch
      // streams between the threads: 16384x64 f32 ran at 0.7-1.1x one
      // thread with panels of 32 columns.
      constexpr int64_t kMinPanelColumns = 512;
      Value wide =
          b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, columns,
                                        cst(panels * kMinPanelColumns));
      enough = b.createOrFold<arith::AndIOp>(loc, enough, wide);
    }
  }
  Value count =
      enough ? b.createOrFold<arith::SelectOp>(loc, enough, cst(panels), cst(1))
             : cst(1);
  Value width =
      slices ? b.createOrFold<arith::CeilDivUIOp>(loc, sizes[0], count)
             : mul(b.createOrFold<arith::DivUIOp>(
                       loc, add(columns, sub(mul(count, cst(s)), cst(1))),
                       mul(count, cst(s))),
                   cst(s));
  scf::ForOp panelLoop = scf::ForOp::create(
      b, loc, cst(0), count, cst(1), ValueRange{},
      [&](OpBuilder &, Location, Value panel, ValueRange) {
        Value lo = cst(0), hi = columns;
        if (!slices) {
          lo = min(mul(panel, width), columns);
          hi = min(add(lo, width), columns);
        }
        SmallVector<Value> ivs(n);
        auto columnBlocks = [&] {
          Value rows = sizes[p + k - 1];
          forLoop(lo, hi, cb, [&](Value c0) {
            Value c1 = min(add(c0, cb), hi);
            if (scratch)
              scratchOffset = sub(mul(panel, cb), c0);
            forLoop(cst(0), rows, rb, [&](Value r0) {
              Value r1 = min(add(r0, rb), rows);
              Value strips = add(c0, floorTo(sub(c1, c0), s));
              forLoop(c0, strips, cst(s),
                      [&](Value j0) { strip(ivs, j0, unroll, lanes, r0, r1); });
              Value vectors = add(strips, floorTo(sub(c1, strips), lanes));
              if (unroll > 1)
                forLoop(strips, vectors, cst(lanes),
                        [&](Value j0) { strip(ivs, j0, 1, lanes, r0, r1); });
              if (lanes > 1)
                forLoop(vectors, c1, cst(1),
                        [&](Value j0) { strip(ivs, j0, 1, 1, r0, r1); });
            });
            if (scratch)
              flush(ivs, c0, c1);
          });
        };
        // Parallel dims, then the reduction dims but the last.
        auto reduce = [&] {
          nest(p + k, n - 1, ivs,
               [&] { nest(p, p + k - 1, ivs, columnBlocks); });
        };
        if (slices) {
          Value first = min(mul(panel, width), sizes[0]);
          forLoop(first, min(add(first, width), sizes[0]), cst(1),
                  [&](Value i) {
                    ivs[0] = i;
                    nest(1, p, ivs, reduce);
                  });
        } else {
          reduce();
        }
        scf::YieldOp::create(b, loc);
      });
  if (enough)
    unum::air::parallelize(b, panelLoop, target.threads, enough);
  b.eraseOp(op);
  if (epilogue) {
    Operation *alloc = out.getDefiningOp();
    b.eraseOp(epilogue);
    b.eraseOp(fill);
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      b.eraseOp(user); // the deallocs
    b.eraseOp(alloc);
  }
}
} // namespace

linalg::GenericOp unum::air::findSumEpilogue(linalg::GenericOp op) {
  // Sums over one axis only: with several, each column block's chunks
  // would be spread over the outer reduction loops.
  if (!isOuterReduction(op) || op.getNumReductionLoops() != 1 ||
      !widenedTerm(op.getBody()))
    return {};
  Value out = op.getDpsInits()[0];
  auto alloc = out.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != op->getBlock())
    return {};
  linalg::FillOp fill;
  linalg::GenericOp epilogue;
  for (Operation *user : alloc->getUsers()) {
    if (user == op.getOperation() || isa<memref::DeallocOp>(user))
      continue;
    auto f = dyn_cast<linalg::FillOp>(user);
    if (f && !fill && f->getBlock() == op->getBlock() &&
        f->isBeforeInBlock(op) && f.getOutputs()[0] == out) {
      fill = f;
      continue;
    }
    auto g = dyn_cast<linalg::GenericOp>(user);
    if (g && !epilogue && g->getBlock() == op->getBlock()) {
      epilogue = g;
      continue;
    }
    return {};
  }
  if (!fill || !epilogue)
    return {};
  // Nothing with memory effects between the sum and its epilogue (those ops
  // move before the sum, see emitOuterReduction): the epilogue's output is
  // written where the sum was.
  Operation *next = op->getNextNode();
  while (next && next != epilogue.getOperation() && isMemoryEffectFree(next))
    next = next->getNextNode();
  if (next != epilogue.getOperation())
    return {};
  // Elementwise over the output's elements: identity maps, the temporary
  // read once, other inputs scalars, the output's old values unread, a
  // contiguous output of the same shape.
  auto outType = cast<MemRefType>(out.getType());
  if (!epilogue.hasPureBufferSemantics() || epilogue.getNumDpsInits() != 1 ||
      epilogue.getNumReductionLoops() != 0 ||
      epilogue.getNumLoops() != static_cast<unsigned>(outType.getRank()))
    return {};
  Value init = epilogue.getDpsInits()[0];
  auto initType = dyn_cast<MemRefType>(init.getType());
  if (!initType || initType.getShape() != outType.getShape() ||
      !byteSized(initType.getElementType()) || !unum::air::contiguousLast(init))
    return {};
  unsigned reads = 0;
  for (OpOperand &operand : epilogue->getOpOperands()) {
    if (isa<ShapedType>(operand.get().getType()) &&
        !epilogue.getMatchingIndexingMap(&operand).isIdentity())
      return {};
    if (epilogue.isDpsInit(&operand))
      continue;
    if (operand.get() == out)
      ++reads;
    else if (isa<ShapedType>(operand.get().getType()))
      return {};
  }
  Block *body = epilogue.getBody();
  if (reads != 1 || !body->getArguments().back().use_empty() ||
      !vectorizableBody(body))
    return {};
  return epilogue;
}

LogicalResult unum::air::emitOuterReduction(RewriterBase &b,
                                            linalg::GenericOp op,
                                            linalg::GenericOp epilogue,
                                            const MatmulTarget &target) {
  // The ops between the sum and its epilogue (free of memory effects: the
  // output's subview, a mean's count) move before the sum, where the
  // epilogue is computed now. None reads the sum, which has no results.
  if (epilogue)
    while (op->getNextNode() != epilogue.getOperation())
      op->getNextNode()->moveBefore(op);
  OuterReduction(b, op, epilogue, target).emit();
  return success();
}
