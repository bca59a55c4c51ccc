//===- Reductions.cpp - reductions over outer axes, vectorised ------------===//
//
// y[j] = combine over rows r of f(x[r, j]) (axis-0 sum, max, mean, ... of a
// row-major array, or any leading axes) as explicit vector code sized for
// the target, instead of a scalar loop nest left to LLVM's vectoriser:
//
//   for panel in [0, P)                      (scf.parallel with threads)
//     for (outer parallel and reduction loops)
//       for c0 in panel's columns step CB      column block (1024 f32)
//         for r0 in rows step RB               chunk of rows (4 to 32)
//           for j0 in block's strips step U*W  U accumulators of W lanes
//             acc[u] = y[j0 + u W : +W]
//             for r in [r0, r0 + RB): acc[u] = combine(acc[u], f(x[r, ...]))
//             y[j0 + u W : +W] = acc[u]
//           the columns left: single vectors, then one column at a time
//
// The accumulators live in registers over a chunk of rows and the loads of x
// are contiguous along each row; a chunk (RB x CB, 16 KB of x) keeps the
// rows a strip walks through in L1 for the next strip. Narrow arrays take
// whole rows and up to 32 of them; a wide one (a row over 4 KB) is cut into
// column blocks of 4 rows at a time, so that its block of accumulators stays
// in L1 too and is loaded and stored once per 4 rows (one chunk of 1-2
// whole rows loaded and stored the accumulators of 4096 columns every row:
// 0.5x numpy at 1024x4096). W is one register of the widest type in the
// body (f32 sums accumulate in f64: 4 f64 lanes on AVX2).
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
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;

namespace {
bool byteSized(Type t) {
  return t.isIntOrFloat() && t.getIntOrFloatBitWidth() >= 8 &&
         t.getIntOrFloatBitWidth() <= 64 && t.getIntOrFloatBitWidth() % 8 == 0;
}
} // namespace

bool unum::air::isOuterReduction(linalg::GenericOp op) {
  unsigned n = op.getNumLoops();
  if (n < 2 || op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics())
    return false;
  unsigned k = op.getNumReductionLoops();
  if (k == 0 || k == n)
    return false;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (unsigned d = 0; d < n; ++d)
    if ((d < k) != (iters[d] == utils::IteratorType::reduction))
      return false;
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineExpr> outExprs;
  for (unsigned d = k; d < n; ++d)
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

namespace {
class OuterReduction {
public:
  OuterReduction(RewriterBase &b, linalg::GenericOp op,
                 const unum::air::MatmulTarget &target)
      : b(b), loc(op.getLoc()), op(op), target(target) {
    n = op.getNumLoops();
    k = op.getNumReductionLoops();
    out = op.getDpsInits()[0];
    int64_t bits = 8;
    for (BlockArgument arg : op.getBody()->getArguments())
      bits = std::max<int64_t>(bits, arg.getType().getIntOrFloatBitWidth());
    for (Operation &inner : op.getBody()->without_terminator())
      if (!inner.getResult(0).getType().isInteger(1))
        bits = std::max<int64_t>(
            bits, inner.getResult(0).getType().getIntOrFloatBitWidth());
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

  /// The body on `width` columns from ivs[n - 1], accumulating into `acc`.
  Value step(ArrayRef<Value> ivs, Value acc, int64_t width);
  /// Columns [j0, j0 + count * width) of the output for the rows
  /// [r0, r1) of dim k - 1: `count` accumulators of `width` lanes.
  void strip(SmallVector<Value> ivs, Value j0, int64_t count, int64_t width,
             Value r0, Value r1);

  RewriterBase &b;
  Location loc;
  linalg::GenericOp op;
  unum::air::MatmulTarget target;
  unsigned n, k;
  int64_t lanes, unroll;
  Value out;
  SmallVector<Value> sizes;
};

Value OuterReduction::step(ArrayRef<Value> ivs, Value acc, int64_t width) {
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
  map.map(body->getArguments().back(), acc);
  // Without fast-math flags: each element is combined in row order, so
  // nothing (LLVM included) may reassociate it.
  return unum::air::cloneBodyOnVectors(b, loc, body, map, width,
                                       /*keepFastMath=*/false);
}

void OuterReduction::strip(SmallVector<Value> ivs, Value j0, int64_t count,
                           int64_t width, Value r0, Value r1) {
  SmallVector<Value> outIdx(ivs.begin() + k, ivs.end());
  auto accType = VectorType::get({width}, getElementTypeOrSelf(out.getType()));
  SmallVector<Value> cols, acc;
  for (int64_t u = 0; u < count; ++u) {
    cols.push_back(add(j0, cst(u * width)));
    outIdx.back() = cols.back();
    acc.push_back(vector::LoadOp::create(b, loc, accType, out, outIdx));
  }
  scf::ForOp rows = forLoop(r0, r1, cst(1), acc, [&](Value r, ValueRange a) {
    ivs[k - 1] = r;
    SmallVector<Value> next;
    for (int64_t u = 0; u < count; ++u) {
      ivs[n - 1] = cols[u];
      next.push_back(step(ivs, a[u], width));
    }
    return next;
  });
  for (int64_t u = 0; u < count; ++u) {
    outIdx.back() = cols[u];
    vector::StoreOp::create(b, loc, rows.getResult(u), out, outIdx);
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
  // work), and its rows stay in L1 (16 KB of the inputs) while the strips
  // walk across them. Narrow arrays take whole rows, RB = 16 KB / (columns x
  // input bytes) up to 32; wide ones (RB would be < 4) take RB = 4 and
  // column blocks of CB = 16 KB / (4 x input bytes), whole strips, so that
  // the block's accumulators (loaded and stored once per chunk) stay in L1
  // too instead of a whole row of them (a row of 4096 f64 sums is 32 KB).
  int64_t inBytes = 1;
  for (OpOperand *in : op.getDpsInputOperands())
    if (isa<MemRefType>(in->get().getType()) &&
        op.getMatchingIndexingMap(in).isFunctionOfDim(n - 1))
      inBytes = std::max<int64_t>(
          inBytes,
          getElementTypeOrSelf(in->get().getType()).getIntOrFloatBitWidth() /
              8);
  constexpr int64_t kChunkBytes = 16384, kMinRows = 4, kMaxRows = 32;
  Value rb = b.createOrFold<arith::MaxSIOp>(
      loc, cst(kMinRows),
      min(cst(kMaxRows),
          b.createOrFold<arith::DivUIOp>(
              loc, cst(kChunkBytes / inBytes),
              b.createOrFold<arith::MaxSIOp>(loc, columns, cst(1)))));
  Value cb =
      cst(std::max<int64_t>(s, kChunkBytes / inBytes / kMinRows / s * s));
  int64_t panels = target.threads > 1 ? target.threads : 1;
  // Panels of whole strips, so that the columns are cut into strips,
  // vectors and single columns the same way for any number of threads.
  Value width =
      mul(b.createOrFold<arith::DivUIOp>(loc, add(columns, cst(panels * s - 1)),
                                         cst(panels * s)),
          cst(s));
  scf::ForOp panelLoop = scf::ForOp::create(
      b, loc, cst(0), cst(panels), cst(1), ValueRange{},
      [&](OpBuilder &, Location, Value panel, ValueRange) {
        Value lo = min(mul(panel, width), columns);
        Value hi = min(add(lo, width), columns);
        SmallVector<Value> ivs(n);
        // Outer parallel dims, then the reduction dims but the last.
        nest(k, n - 1, ivs, [&] {
          nest(0, k - 1, ivs, [&] {
            Value rows = sizes[k - 1];
            forLoop(lo, hi, cb, [&](Value c0) {
              Value c1 = min(add(c0, cb), hi);
              forLoop(cst(0), rows, rb, [&](Value r0) {
                Value r1 = min(add(r0, rb), rows);
                Value strips = add(c0, floorTo(sub(c1, c0), s));
                forLoop(c0, strips, cst(s), [&](Value j0) {
                  strip(ivs, j0, unroll, lanes, r0, r1);
                });
                Value vectors = add(strips, floorTo(sub(c1, strips), lanes));
                if (unroll > 1)
                  forLoop(strips, vectors, cst(lanes),
                          [&](Value j0) { strip(ivs, j0, 1, lanes, r0, r1); });
                if (lanes > 1)
                  forLoop(vectors, c1, cst(1),
                          [&](Value j0) { strip(ivs, j0, 1, 1, r0, r1); });
              });
            });
          });
        });
        scf::YieldOp::create(b, loc);
      });
  if (panels > 1 && !op->getParentOfType<LoopLikeOpInterface>()) {
    b.setInsertionPoint(panelLoop);
    Value enough =
        unum::air::enoughWork(b, loc, unum::air::product(b, loc, sizes),
                              unum::air::kMinParallelElements);
    unum::air::parallelize(b, panelLoop, target.threads, enough);
  }
  b.eraseOp(op);
}
} // namespace

LogicalResult unum::air::emitOuterReduction(RewriterBase &b,
                                            linalg::GenericOp op,
                                            const MatmulTarget &target) {
  OuterReduction(b, op, target).emit();
  return success();
}
