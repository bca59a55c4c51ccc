//===- Vectorize.cpp - air-vectorize --------------------------------------===//
//
// Explicit vectorisation of the bufferized kernel bodies, sized for the
// target's vector registers, so that the code does not depend on LLVM's loop
// vectoriser:
//
//  * a matmul (the (m, k, n) generic of convert-air-to-linalg) becomes a
//    packed Goto/BLIS loop nest with MR x NR register tiles and masked edge
//    tiles, with its elementwise tail fused into the tile's last store
//    (MatmulNest.cpp);
//  * an elementwise generic (all loops parallel, every operand contiguous
//    along the innermost loop or not reading it) is tiled to 1 x ... x 1 x W
//    and the full tiles vectorised;
//  * a reduction over leading axes (axis 0 of a row-major array) streams
//    the rows into vector accumulators (Reductions.cpp);
//  * an f32 sum over the last axis (accumulated in f64: softmax's and
//    layernorm's row statistics) adds chunks of 128 columns in f32 vector
//    accumulators, then the chunks' sums in f64 (splitWideRowSum), and a
//    float max or min over the last axis (softmax's row maximum) runs in
//    vector accumulators (vectorizeRowMinMax);
//  * tiles cut by a loop bound (remainders) stay linalg ops and become plain
//    loops with everything this pass does not match (reductions, conv1d
//    gradients, copies of non-contiguous layouts).
//
// W is one vector register per unit of `unroll`; MR and NR follow from the
// register count (16 on AVX2, 32 on AVX-512): MR x 2 accumulators of one
// register each, plus the B row and a broadcast.
//
//===----------------------------------------------------------------------===//
#include "MatmulNest.h"
#include "Parallel.h"
#include "Reductions.h"
#include "RowFusion.h"
#include "VectorBody.h"
#include "unum/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/ScopeExit.h"

namespace unum {
#define GEN_PASS_DEF_AIRVECTORIZE
#include "unum/Conversion/Passes.h.inc"
} // namespace unum

using namespace mlir;

namespace {
/// Marks the ops this pass tiled, so that the full tiles can be found again
/// after peeling.
constexpr llvm::StringLiteral kTileMarker = "air.vector_tile";

/// A matmul's indexing maps over (m, k, n): A(m, k), B(k, n), C(m, n).
SmallVector<AffineMap> matmulMaps(MLIRContext *ctx) {
  AffineExpr m, k, n;
  bindDims(ctx, m, k, n);
  return {AffineMap::get(3, 0, {m, k}, ctx), AffineMap::get(3, 0, {k, n}, ctx),
          AffineMap::get(3, 0, {m, n}, ctx)};
}

/// The generic convert-air-to-linalg emits for a matmul: matmulMaps() and a
/// multiply-accumulate body.
bool isMatmul(linalg::GenericOp op) {
  if (op.getNumLoops() != 3 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return false;
  return op.getIndexingMapsArray() == matmulMaps(op.getContext());
}

bool contiguousInner(Value v) { return unum::air::contiguousLast(v); }

/// All loops parallel, identity output, and every input either contiguous
/// along the innermost loop or independent of it: what vectorises into plain
/// vector loads, broadcasts and stores.
bool isContiguousElementwise(linalg::GenericOp op) {
  unsigned loops = op.getNumLoops();
  if (loops == 0 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 || op.getNumParallelLoops() != loops)
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!isa<ShapedType>(operand.get().getType())) {
      if (op.isDpsInit(&operand))
        return false;
      continue; // a scalar operand
    }
    // i1 memrefs hold a byte per element, but a vector<Nxi1> load or store
    // is bit-packed in LLVM: those stay scalar.
    Type element = getElementTypeOrSelf(operand.get().getType());
    if (!isa<MemRefType>(operand.get().getType()) || !element.isIntOrFloat() ||
        element.getIntOrFloatBitWidth() % 8 != 0)
      return false;
    if (op.isDpsInit(&operand)) {
      if (!map.isIdentity() || !contiguousInner(operand.get()))
        return false;
      continue;
    }
    if (!map.isProjectedPermutation())
      return false;
    bool readsInner = map.isFunctionOfDim(loops - 1);
    if (!readsInner)
      continue;
    // The innermost loop must be the operand's innermost dimension.
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!last || last.getPosition() != loops - 1 ||
        !contiguousInner(operand.get()))
      return false;
  }
  // Only what the vectoriser turns into vector arithmetic.
  for (Operation &inner : op.getBody()->without_terminator())
    if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()) &&
        !isa<linalg::IndexOp>(inner))
      return false;
  return true;
}

/// Columns per chunk of a two-level f32 row sum.
constexpr int64_t kRowChunk = 128;

/// A reduction over the last loop only (loops (rows..., column), every
/// loop but the last parallel) into an output indexed by the rows, its
/// inputs memrefs reading the column as their last dimension or not at all
/// (at least one reads it), its body arith and math only. Returns the
/// output's block argument (the accumulator).
BlockArgument matchRowReduction(linalg::GenericOp op) {
  unsigned loops = op.getNumLoops();
  if (loops < 2 || op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1 ||
      !linalg::isReductionIterator(op.getIteratorTypesArray().back()))
    return {};
  OpOperand *init = op.getDpsInitOperand(0);
  if (op.getMatchingIndexingMap(init) !=
      AffineMap::getMultiDimIdentityMap(loops, op.getContext())
          .getMajorSubMap(loops - 1))
    return {};
  bool readsColumns = false; // some input gives the column count
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    if (!isa<MemRefType>(in->get().getType()) || !map.isProjectedPermutation())
      return {};
    for (unsigned r = 0, e = map.getNumResults(); r < e; ++r) {
      if (map.getDimPosition(r) == loops - 1 && r + 1 < e)
        return {};
      readsColumns |= map.getDimPosition(r) == loops - 1;
    }
  }
  if (!readsColumns)
    return {};
  for (Operation &inner : op.getBody()->without_terminator())
    if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()))
      return {};
  BlockArgument acc = op.getMatchingBlockArgument(init);
  return acc.hasOneUse() ? acc : BlockArgument();
}

/// A row sum of f32 terms accumulated in f64 (convert-air-to-linalg's f32
/// sum or mean over the last axis of an array of rank >= 2, inside
/// air-fuse-rows' blocks or not): a row reduction, out(rows...) +=
/// extf(term). Returns the extf.
arith::ExtFOp matchWideRowSum(linalg::GenericOp op) {
  BlockArgument acc = matchRowReduction(op);
  if (!acc || !acc.getType().isF64())
    return {};
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || !add->hasOneUse())
    return {};
  Value term = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  auto ext = term.getDefiningOp<arith::ExtFOp>();
  if (!ext || !ext.getIn().getType().isF32() || !ext->hasOneUse())
    return {};
  return ext;
}

/// A float max or min over the last axis (softmax's and logsumexp's row
/// maximum): a row reduction, out(rows...) = maximumf/minimumf(out, term).
/// Returns the combining op.
Operation *matchRowMinMax(linalg::GenericOp op) {
  BlockArgument acc = matchRowReduction(op);
  if (!acc || !isa<FloatType>(acc.getType()))
    return {};
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  Operation *combine = yield.getOperand(0).getDefiningOp();
  if (!isa_and_nonnull<arith::MaximumFOp, arith::MinimumFOp>(combine) ||
      !combine->hasOneUse() ||
      (combine->getOperand(0) != acc && combine->getOperand(1) != acc))
    return {};
  return combine;
}

/// Maps `op`'s input block arguments to its inputs at (rows..., col), the
/// last loop being the column: loaded scalars, or with `lanes` > 0 a vector
/// of that many columns for the inputs that read the column and a scalar
/// broadcast to `lanes` for the others.
void mapInputsAt(OpBuilder &b, Location loc, linalg::GenericOp op,
                 ValueRange rows, Value col, IRMapping &map, int64_t lanes) {
  unsigned colDim = op.getNumLoops() - 1;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap m = op.getMatchingIndexingMap(in);
    SmallVector<Value> indices;
    bool readsCol = false;
    for (unsigned r = 0; r < m.getNumResults(); ++r) {
      unsigned d = m.getDimPosition(r);
      readsCol |= d == colDim;
      indices.push_back(d == colDim ? col : rows[d]);
    }
    Value v = in->get();
    Type element = getElementTypeOrSelf(v.getType());
    if (lanes && readsCol)
      v = vector::LoadOp::create(b, loc, VectorType::get({lanes}, element), v,
                                 indices);
    else
      v = memref::LoadOp::create(b, loc, v, indices);
    if (lanes && !readsCol)
      v = unum::air::splatLanes(b, loc, v, lanes);
    map.map(op.getMatchingBlockArgument(in), v);
  }
}

/// The inputs of a row reduction (the last loop a reduction) that read the
/// column: can they be loaded as vectors (contiguous along it, not i1,
/// whose memrefs hold a byte per element where a vector<Nxi1> is packed)?
/// Also returns the column count.
bool vectorColumns(OpBuilder &b, Location loc, linalg::GenericOp op,
                   Value &cols) {
  unsigned colDim = op.getNumLoops() - 1;
  bool vectors = true;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    if (!map.getNumResults() ||
        map.getDimPosition(map.getNumResults() - 1) != colDim)
      continue;
    if (!cols)
      cols = memref::DimOp::create(b, loc, in->get(), map.getNumResults() - 1);
    Type element = getElementTypeOrSelf(in->get().getType());
    vectors &= contiguousInner(in->get()) && element.isIntOrFloat() &&
               element.getIntOrFloatBitWidth() >= 8;
  }
  return vectors;
}

/// Loops over `op`'s output (every loop but the last), [0, size) step 1.
void rowBounds(OpBuilder &b, Location loc, linalg::GenericOp op,
               SmallVectorImpl<Value> &lbs, SmallVectorImpl<Value> &ubs,
               SmallVectorImpl<Value> &steps) {
  Value out = op.getDpsInits()[0];
  for (unsigned d = 0, e = op.getNumLoops() - 1; d < e; ++d) {
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    ubs.push_back(memref::DimOp::create(b, loc, out, d));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
}

/// The row sum in two levels, as the 1-D sum: each row's chunks of
/// kRowChunk columns are added in f32 from +0, the chunks' sums and the
/// leftover columns in f64. A chunk is explicit vector code, `lanes` f32
/// per vector (the target's register width) in kRowAccumulators
/// accumulators, combined and reduced at the chunk's end, when every input
/// that reads the columns is contiguous along them (else it is a scalar
/// loop for LLVM to vectorise).
constexpr int64_t kRowAccumulators = 4;

void splitWideRowSum(RewriterBase &rewriter, linalg::GenericOp op,
                     arith::ExtFOp ext, int64_t lanes) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  Value out = op.getDpsInits()[0];
  SmallVector<Value> lbs, ubs, steps;
  rowBounds(rewriter, loc, op, lbs, ubs, steps);
  Value cols;
  bool vectorTerms = vectorColumns(rewriter, loc, op, cols) && lanes > 1;
  auto add = cast<arith::AddFOp>(*ext->getUsers().begin());
  arith::FastMathFlagsAttr flags = add.getFastmathAttr();
  // The term at (rows, col): the body with its arguments loaded.
  auto term = [&](OpBuilder &b, ValueRange rows, Value col) {
    IRMapping map;
    mapInputsAt(b, loc, op, rows, col, map, 0);
    for (Operation &inner : op.getBody()->without_terminator()) {
      if (&inner == ext.getOperation())
        break;
      b.clone(inner, map);
    }
    return map.lookupOrDefault(ext.getIn());
  };
  int64_t accs = kRowAccumulators;
  while (accs > 1 && lanes * accs > kRowChunk)
    accs /= 2;
  vectorTerms &= kRowChunk % (lanes * accs) == 0;
  // One chunk's f32 sum from +0, columns [c, c + kRowChunk).
  Type f32 = rewriter.getF32Type();
  Value zero32 = arith::ConstantOp::create(rewriter, loc, f32,
                                           rewriter.getF32FloatAttr(0));
  auto chunkSum = [&](OpBuilder &cb, ValueRange rows, Value c) -> Value {
    Value end = arith::AddIOp::create(cb, loc, c, index(kRowChunk));
    if (!vectorTerms) {
      auto chunk = scf::ForOp::create(
          cb, loc, c, end, index(1), ValueRange{zero32},
          [&](OpBuilder &jb, Location, Value col, ValueRange s) {
            Value sum = arith::AddFOp::create(jb, loc, s[0],
                                              term(jb, rows, col), flags);
            scf::YieldOp::create(jb, loc, sum);
          });
      return chunk.getResult(0);
    }
    auto vecType = VectorType::get({lanes}, f32);
    Value zeros = arith::ConstantOp::create(
        cb, loc, vecType, DenseElementsAttr::get(vecType, 0.0f));
    SmallVector<Value> init(accs, zeros);
    auto chunk = scf::ForOp::create(
        cb, loc, c, end, index(lanes * accs), init,
        [&](OpBuilder &jb, Location, Value col, ValueRange acc) {
          SmallVector<Value> next;
          for (int64_t u = 0; u < accs; ++u) {
            Value at = arith::AddIOp::create(jb, loc, col, index(u * lanes));
            IRMapping map;
            mapInputsAt(jb, loc, op, rows, at, map, lanes);
            Value t = unum::air::cloneBodyOnVectors(
                jb, loc, op.getBody(), map, lanes, /*keepFastMath=*/true,
                ext.getIn());
            next.push_back(arith::AddFOp::create(jb, loc, acc[u], t, flags));
          }
          scf::YieldOp::create(jb, loc, next);
        });
    SmallVector<Value> parts(chunk.getResults());
    while (parts.size() > 1) {
      SmallVector<Value> halves;
      for (size_t i = 0; i + 1 < parts.size(); i += 2)
        halves.push_back(
            arith::AddFOp::create(cb, loc, parts[i], parts[i + 1], flags));
      parts = halves;
    }
    return vector::ReductionOp::create(
        cb, loc, vector::CombiningKind::ADD, parts[0],
        flags ? flags.getValue() : arith::FastMathFlags::none);
  };
  Value k = index(kRowChunk);
  Value mainC = arith::MulIOp::create(
      rewriter, loc, arith::DivUIOp::create(rewriter, loc, cols, k), k);
  Type f64 = rewriter.getF64Type();
  // Both loops widen an f32 (a chunk's sum, or one leftover term) into the
  // f64 accumulator.
  auto addWidened = [&](OpBuilder &ab, Value acc, Value narrow) {
    Value wide = arith::ExtFOp::create(ab, loc, f64, narrow);
    scf::YieldOp::create(
        ab, loc, Value(arith::AddFOp::create(ab, loc, acc, wide, flags)));
  };
  scf::buildLoopNest(
      rewriter, loc, lbs, ubs, steps,
      [&](OpBuilder &b, Location, ValueRange rows) {
        Value start = memref::LoadOp::create(b, loc, out, rows);
        auto chunks = scf::ForOp::create(
            b, loc, index(0), mainC, k, ValueRange{start},
            [&](OpBuilder &cb, Location, Value c, ValueRange acc) {
              addWidened(cb, acc[0], chunkSum(cb, rows, c));
            });
        auto rest = scf::ForOp::create(
            b, loc, mainC, cols, index(1), chunks.getResults(),
            [&](OpBuilder &jb, Location, Value col, ValueRange acc) {
              addWidened(jb, acc[0], term(jb, rows, col));
            });
        memref::StoreOp::create(b, loc, rest.getResult(0), out, rows);
      });
  rewriter.eraseOp(op);
}

/// A row max/min (matchRowMinMax) as explicit vector code: each row's
/// columns in `lanes`-wide vectors in kRowAccumulators accumulators that
/// start at the output's value, combined at the end of the row's
/// multiples of kRowAccumulators vectors, then the leftover whole vectors
/// into that one, reduced, then the leftover columns one by one.
/// maximumf/minimumf are exactly associative and commutative (NaN propagates,
/// -0 < +0), so the result is the one of the loop in order. False (nothing
/// done) when the columns cannot be loaded as vectors.
bool vectorizeRowMinMax(RewriterBase &rewriter, linalg::GenericOp op,
                        Operation *combine, int64_t lanes) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value cols;
  if (lanes < 2 || !vectorColumns(rewriter, loc, op, cols))
    return false;
  SmallVector<Value> lbs, ubs, steps;
  rowBounds(rewriter, loc, op, lbs, ubs, steps);
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  BlockArgument acc = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  Value term = combine->getOperand(0) == acc ? combine->getOperand(1)
                                             : combine->getOperand(0);
  bool isMax = isa<arith::MaximumFOp>(combine);
  auto combined = [&](OpBuilder &b, Value x, Value y) -> Value {
    if (isMax)
      return arith::MaximumFOp::create(b, loc, x, y);
    return arith::MinimumFOp::create(b, loc, x, y);
  };
  Value out = op.getDpsInits()[0];
  int64_t step = lanes * kRowAccumulators;
  auto roundDown = [&](int64_t multiple) -> Value {
    Value m = index(multiple);
    return arith::MulIOp::create(
        rewriter, loc, arith::DivUIOp::create(rewriter, loc, cols, m), m);
  };
  Value mainC = roundDown(step), mainV = roundDown(lanes);
  scf::buildLoopNest(
      rewriter, loc, lbs, ubs, steps,
      [&](OpBuilder &b, Location, ValueRange rows) {
        Value start = memref::LoadOp::create(b, loc, out, rows);
        SmallVector<Value> init(kRowAccumulators,
                                unum::air::splatLanes(b, loc, start, lanes));
        auto main = scf::ForOp::create(
            b, loc, index(0), mainC, index(step), init,
            [&](OpBuilder &jb, Location, Value col, ValueRange accs) {
              SmallVector<Value> next;
              for (int64_t u = 0; u < kRowAccumulators; ++u) {
                Value at =
                    arith::AddIOp::create(jb, loc, col, index(u * lanes));
                IRMapping map;
                mapInputsAt(jb, loc, op, rows, at, map, lanes);
                Value t = unum::air::cloneBodyOnVectors(
                    jb, loc, op.getBody(), map, lanes, /*keepFastMath=*/true,
                    term);
                next.push_back(combined(jb, accs[u], t));
              }
              scf::YieldOp::create(jb, loc, next);
            });
        SmallVector<Value> parts(main.getResults());
        while (parts.size() > 1) {
          SmallVector<Value> halves;
          for (size_t i = 0; i + 1 < parts.size(); i += 2)
            halves.push_back(combined(b, parts[i], parts[i + 1]));
          parts = halves;
        }
        // Then whole vectors one at a time, then single columns.
        auto single = scf::ForOp::create(
            b, loc, mainC, mainV, index(lanes), ValueRange{parts[0]},
            [&](OpBuilder &jb, Location, Value col, ValueRange accs) {
              IRMapping map;
              mapInputsAt(jb, loc, op, rows, col, map, lanes);
              Value t = unum::air::cloneBodyOnVectors(
                  jb, loc, op.getBody(), map, lanes, /*keepFastMath=*/true,
                  term);
              scf::YieldOp::create(jb, loc, combined(jb, accs[0], t));
            });
        Value reduced =
            vector::ReductionOp::create(b, loc,
                                        isMax ? vector::CombiningKind::MAXIMUMF
                                              : vector::CombiningKind::MINIMUMF,
                                        single.getResult(0));
        auto rest = scf::ForOp::create(
            b, loc, mainV, cols, index(1), ValueRange{reduced},
            [&](OpBuilder &jb, Location, Value col, ValueRange r) {
              IRMapping map;
              mapInputsAt(jb, loc, op, rows, col, map, 0);
              for (Operation &inner : op.getBody()->without_terminator()) {
                if (map.contains(term))
                  break;
                jb.clone(inner, map);
              }
              scf::YieldOp::create(jb, loc,
                                   combined(jb, r[0], map.lookup(term)));
            });
        memref::StoreOp::create(b, loc, rest.getResult(0), out, rows);
      });
  rewriter.eraseOp(op);
  return true;
}

struct AirVectorizePass
    : public unum::impl::AirVectorizeBase<AirVectorizePass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *func = getOperation(); // a function (or a module of them)
    if (vectorBits < 64 || registers < 8) {
      func->emitError("air-vectorize: vector-bits must be >= 64 and "
                      "registers >= 8");
      return signalPassFailure();
    }
    SmallVector<linalg::GenericOp> matmuls, elementwise, reductions;
    SmallVector<std::pair<linalg::GenericOp, arith::ExtFOp>> rowSums;
    SmallVector<std::pair<linalg::GenericOp, Operation *>> rowMinMax;
    func->walk([&](linalg::GenericOp op) {
      if (!op.hasPureBufferSemantics())
        return;
      if (arith::ExtFOp ext = matchWideRowSum(op)) {
        rowSums.push_back({op, ext});
        return;
      }
      if (Operation *combine = matchRowMinMax(op)) {
        rowMinMax.push_back({op, combine});
        return;
      }
      Type t = getElementTypeOrSelf(op.getDpsInits()[0].getType());
      if (!t.isIntOrFloat() || t.getIntOrFloatBitWidth() < 8 ||
          t.getIntOrFloatBitWidth() > 64)
        return;
      if (isMatmul(op) && llvm::all_of(op->getOperands(), contiguousInner) &&
          t.getIntOrFloatBitWidth() % 8 == 0)
        matmuls.push_back(op);
      else if (isContiguousElementwise(op))
        elementwise.push_back(op);
      else if (unum::air::isOuterReduction(op))
        reductions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, ext] : rowSums)
      splitWideRowSum(rewriter, op, ext, lanes(rewriter.getF32Type()));
    for (auto [op, combine] : rowMinMax)
      (void)vectorizeRowMinMax(
          rewriter, op, combine,
          lanes(getElementTypeOrSelf(op.getDpsInits()[0].getType())));
    // air-fuse-rows' loops over row blocks (RowFusion.h), last: the serial
    // copy a dynamic threshold keeps holds the vector code too.
    auto shareRows = llvm::make_scope_exit(
        [&] { unum::air::shareRowBlocks(rewriter, func, threads); });
    if (matmuls.empty() && elementwise.empty() && reductions.empty())
      return;
    SmallVector<scf::ForOp> peel;
    unum::air::MatmulTarget target;
    target.vectorBits = vectorBits;
    target.registers = registers;
    target.threads = threads;
    for (linalg::GenericOp op : matmuls) {
      linalg::GenericOp epilogue = unum::air::findMatmulEpilogue(op);
      if (epilogue)
        llvm::erase(elementwise, epilogue);
      if (failed(unum::air::emitMatmulNest(rewriter, op, epilogue, target))) {
        op.emitError("air-vectorize: cannot emit the matmul nest");
        return signalPassFailure();
      }
    }
    for (linalg::GenericOp op : reductions) {
      linalg::GenericOp epilogue = unum::air::findSumEpilogue(op);
      if (epilogue)
        llvm::erase(elementwise, epilogue);
      if (failed(unum::air::emitOuterReduction(rewriter, op, epilogue, target)))
        return signalPassFailure();
    }
    SmallVector<std::pair<scf::ForOp, Value>> shared;
    for (linalg::GenericOp op : elementwise)
      if (failed(tileElementwise(rewriter, op, peel, shared)))
        return signalPassFailure();
    // Innermost first: peeling an outer loop copies its body.
    for (scf::ForOp loop : llvm::reverse(peel)) {
      scf::ForOp remainder;
      (void)scf::peelForLoopAndSimplifyBounds(rewriter, loop, remainder);
    }
    // The outermost loop of a large elementwise kernel (its main part after
    // peeling) is shared by the threads; each iteration writes its own
    // elements of the output.
    for (auto [loop, output] : shared) {
      rewriter.setInsertionPoint(loop);
      Location loc = loop.getLoc();
      SmallVector<Value> sizes;
      for (int64_t d = 0, e = cast<MemRefType>(output.getType()).getRank();
           d < e; ++d)
        sizes.push_back(rewriter.createOrFold<memref::DimOp>(loc, output, d));
      Value enough = unum::air::enoughWork(
          rewriter, loc, unum::air::product(rewriter, loc, sizes),
          unum::air::kMinParallelElements);
      unum::air::parallelize(rewriter, loop, threads, enough);
    }
    // Full tiles now have static sizes (subview sizes fold to constants).
    if (failed(simplify(func)))
      return signalPassFailure();
    SmallVector<linalg::LinalgOp> tiles;
    func->walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kTileMarker)) {
        op->removeAttr(kTileMarker);
        tiles.push_back(op);
      }
    });
    for (linalg::LinalgOp op : tiles) {
      if (op.hasDynamicShape())
        continue;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::VectorizationResult> result =
          linalg::vectorize(rewriter, op);
      if (succeeded(result))
        rewriter.replaceOp(op, result->replacements);
    }
    // vector<1x...x1xW> -> vector<W>: the LLVM lowering of math ops takes
    // 1-D vectors only.
    {
      RewritePatternSet oneD(&getContext());
      vector::populateCastAwayVectorLeadingOneDimPatterns(oneD);
      if (failed(applyPatternsGreedily(func, std::move(oneD))))
        return signalPassFailure();
    }
    if (failed(simplify(func)))
      return signalPassFailure();
  }

  /// Elements of `t` per vector register.
  int64_t lanes(Type t) const {
    return std::max<int64_t>(1, vectorBits / t.getIntOrFloatBitWidth());
  }

  FailureOr<scf::SCFTilingResult> tile(RewriterBase &rewriter,
                                       linalg::GenericOp op,
                                       ArrayRef<int64_t> sizes,
                                       ArrayRef<int64_t> interchange) {
    scf::SCFTilingOptions options;
    SmallVector<OpFoldResult> tileSizes;
    for (int64_t s : sizes)
      tileSizes.push_back(rewriter.getIndexAttr(s));
    options.setTileSizes(tileSizes);
    options.setInterchange(interchange);
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled)) {
      op.emitError("air-vectorize: cannot tile");
      return failure();
    }
    rewriter.eraseOp(op);
    return tiled;
  }

  /// 1 x ... x 1 x W tiles, W = `unroll` registers.
  /// With threads, the outermost loop of an op outside any loop goes to
  /// `shared` with the output it writes.
  LogicalResult
  tileElementwise(RewriterBase &rewriter, linalg::GenericOp op,
                  SmallVectorImpl<scf::ForOp> &peel,
                  SmallVectorImpl<std::pair<scf::ForOp, Value>> &shared) {
    Value output = op.getDpsInits()[0];
    bool outermost = !op->getParentOfType<LoopLikeOpInterface>();
    Type t = getElementTypeOrSelf(output.getType());
    unsigned loops = op.getNumLoops();
    SmallVector<int64_t> sizes(loops, 1);
    sizes.back() = lanes(t) * unroll;
    SmallVector<int64_t> interchange =
        llvm::to_vector(llvm::seq<int64_t>(0, loops));
    FailureOr<scf::SCFTilingResult> tiled =
        tile(rewriter, op, sizes, interchange);
    if (failed(tiled))
      return failure();
    tiled->tiledOps.back()->setAttr(kTileMarker, rewriter.getUnitAttr());
    if (!tiled->loops.empty()) {
      peel.push_back(cast<scf::ForOp>(tiled->loops.back().getOperation()));
      if (threads > 1 && outermost)
        shared.push_back(
            {cast<scf::ForOp>(tiled->loops.front().getOperation()), output});
    }
    return success();
  }

  LogicalResult initialize(MLIRContext *ctx) override {
    RewritePatternSet set(ctx);
    for (Dialect *dialect : ctx->getLoadedDialects())
      dialect->getCanonicalizationPatterns(set);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      op.getCanonicalizationPatterns(set, ctx);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  LogicalResult simplify(Operation *func) {
    return applyPatternsGreedily(func, patterns);
  }

  FrozenRewritePatternSet patterns;
};
} // namespace
