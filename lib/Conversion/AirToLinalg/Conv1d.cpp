//===- Conv1d.cpp - air-vectorize-conv1d ----------------------------------===//
//
// conv1d as explicit register-blocked vector code (oneDNN-style direct
// convolution on the [L, C] layout), so that its speed does not depend on
// what LLVM's loop vectoriser guesses for the host:
//
//   y[l, o] += sum_{k, c} x[l * s + k, c] * w[k, c, o]
//
// The output is cut into register blocks of R output positions x N vectors
// of W output channels (W = lanes of one vector register). A block's R x N
// accumulators are loaded once, carried through the (k, c) loops in
// registers and stored once; each (k, c) step loads N weight vectors
// w[k, c, o0 : o0 + N W] (contiguous: the filter is already [K, C_in, C_out])
// and, per row, broadcasts one input element into N FMAs. R and N come from
// the register count: R N accumulators + N weights + 1 broadcast fit in the
// registers, and of the blocks that fit the one with the best FMA : load
// balance is taken (6 x 2 for f32 on AVX2, 14 x 2 on AVX-512).
//
// Channels that do not fill N vectors take a block with masked loads and
// stores (vector.maskedload / maskedstore), so any C_out works; output
// positions that do not fill R rows take a block with fewer rows (static L)
// or blocks of 4, 2 and 1 rows as their count needs (dynamic L). Nothing is
// gathered or scattered.
//
// The loop over blocks of R output positions is the outer one, with every
// channel block inside: with threads it is the one loop shared between them
// (one fork per call; each thread reads its half of x once). A conv1d with
// an elementwise epilogue (bias, relu, ...) comes blocked by air-fuse-rows:
// an scf.for over blocks of output rows (marked air.row_blocks) holding the
// conv1d into a block temporary and the epilogue. There the register blocks
// stay serial and that row-block loop is the one shared, epilogue included
// (still one fork per call, not one per row block).
//
// Runs on the bufferized kernel bodies: it matches the conv1d generic of
// convert-air-to-linalg, (l, k, c, o) with maps (l * s + k, c), (k, c, o),
// (l, o) and a multiply-accumulate body, whose filter and output are
// contiguous along their last dimension (the input is read element by
// element, any layout). Anything else is left to convert-linalg-to-loops.
// The linalg.fill of the output right before it (the lowering's zero) is
// dropped: the accumulators start as that value in registers instead, so
// the output is written once, not zeroed first and read back.
//
//===----------------------------------------------------------------------===//
#include "Parallel.h"
#include "RowFusion.h"
#include "unum/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

namespace unum {
#define GEN_PASS_DEF_AIRVECTORIZECONV1D
#include "unum/Conversion/Passes.h.inc"
} // namespace unum

using namespace mlir;

namespace {
/// The stride s of a conv1d generic (see the file comment), or 0.
int64_t matchConv1d(linalg::GenericOp op) {
  if (op.getNumLoops() != 4 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics())
    return 0;
  auto par = utils::IteratorType::parallel,
       red = utils::IteratorType::reduction;
  if (op.getIteratorTypesArray() !=
      SmallVector<utils::IteratorType>{par, red, red, par})
    return 0;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  MLIRContext *ctx = op.getContext();
  AffineExpr l, k, c, o;
  bindDims(ctx, l, k, c, o);
  if (maps[0].getNumResults() != 2)
    return 0;
  // The stride: the coefficient of l in the input's row expression.
  AffineExpr one = getAffineConstantExpr(1, ctx),
             zero = getAffineConstantExpr(0, ctx);
  auto sExpr = dyn_cast<AffineConstantExpr>(
      maps[0].getResult(0).replaceDims({one, zero, zero, zero}));
  if (!sExpr || sExpr.getValue() < 1)
    return 0;
  int64_t s = sExpr.getValue();
  if (maps[0] != AffineMap::get(4, 0, {l * s + k, c}, ctx) ||
      maps[1] != AffineMap::get(4, 0, {k, c, o}, ctx) ||
      maps[2] != AffineMap::get(4, 0, {l, o}, ctx))
    return 0;
  // yield acc + in0 * in1.
  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (body->getOperations().size() != 3)
    return 0;
  Operation *add = yield.getOperand(0).getDefiningOp();
  if (!add || !isa<arith::AddFOp, arith::AddIOp>(add))
    return 0;
  Value acc = body->getArgument(2), product;
  if (add->getOperand(0) == acc)
    product = add->getOperand(1);
  else if (add->getOperand(1) == acc)
    product = add->getOperand(0);
  else
    return 0;
  Operation *mul = product.getDefiningOp();
  if (!mul || !isa<arith::MulFOp, arith::MulIOp>(mul) ||
      isa<arith::AddFOp>(add) != isa<arith::MulFOp>(mul))
    return 0;
  Value a = mul->getOperand(0), b = mul->getOperand(1);
  if (!((a == body->getArgument(0) && b == body->getArgument(1)) ||
        (a == body->getArgument(1) && b == body->getArgument(0))))
    return 0;
  // Element type: the three operands alike, 8..64 bits.
  Type t = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (!t.isIntOrFloat() || t.getIntOrFloatBitWidth() < 8 ||
      t.getIntOrFloatBitWidth() > 64 || t.getIntOrFloatBitWidth() % 8 != 0)
    return 0;
  for (Value v : op->getOperands())
    if (getElementTypeOrSelf(v.getType()) != t)
      return 0;
  // Vector loads and stores need the last dimension contiguous.
  auto contiguousInner = [](Value v) {
    auto type = cast<MemRefType>(v.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    return succeeded(type.getStridesAndOffset(strides, offset)) &&
           strides.back() == 1;
  };
  if (!contiguousInner(op.getDpsInputs()[1]) ||
      !contiguousInner(op.getDpsInits()[0]))
    return 0;
  return s;
}

/// Register block shape: R rows x N vectors.
struct BlockShape {
  int64_t rows, vectors;
};

/// The block of at most `maxVectors` vectors that keeps the FMA units
/// busiest: per (k, c) step it issues R N FMAs and N + R loads (weights,
/// broadcasts), two of each per cycle; ties go to more accumulators (more
/// FMAs in flight to hide their latency).
BlockShape chooseBlock(int64_t registers, int64_t maxVectors) {
  BlockShape best{1, 1};
  double bestRate = 0;
  for (int64_t n = 1; n <= std::max<int64_t>(1, maxVectors); ++n) {
    int64_t r = (registers - n - 1) / n;
    if (r < 1)
      break;
    double cycles = std::max<double>(r * n, r + n) / 2;
    double rate = r * n / cycles;
    if (rate > bestRate + 1e-9 ||
        (rate > bestRate - 1e-9 && r * n > best.rows * best.vectors)) {
      best = {r, n};
      bestRate = rate;
    }
  }
  return best;
}

/// Emits the register-blocked loops of one conv1d generic in its place.
class Conv1dEmitter {
public:
  Conv1dEmitter(RewriterBase &rewriter, linalg::GenericOp op, int64_t stride,
                int64_t vectorBits, int64_t registers, int64_t threads)
      : b(rewriter), loc(op.getLoc()), s(stride), registers(registers),
        threads(threads) {
    x = op.getDpsInputs()[0];
    w = op.getDpsInputs()[1];
    y = op.getDpsInits()[0];
    t = getElementTypeOrSelf(y.getType());
    lanes = std::max<int64_t>(1, vectorBits / t.getIntOrFloatBitWidth());
    vecType = VectorType::get({lanes}, t);
    maskType = VectorType::get({lanes}, b.getI1Type());
    isFloat = isa<FloatType>(t);
  }

  /// Start the accumulators at `value` (a scalar of the element type)
  /// instead of loading them from y.
  void startFrom(Value value) { init = value; }

  void emit() {
    auto wType = cast<MemRefType>(w.getType());
    auto yType = cast<MemRefType>(y.getType());
    taps = dim(w, 0);
    channels = dim(w, 1);
    Value outChannels = dim(y, 1);
    rowsOut = dim(y, 0);
    if (threads > 1)
      useThreads = unum::air::enoughWork(
          b, loc,
          unum::air::product(b, loc, {rowsOut, taps, channels, outChannels}),
          unum::air::kMinParallelMacs);
    staticRows = yType.isDynamicDim(0) ? -1 : yType.getDimSize(0);
    int64_t staticOut = yType.isDynamicDim(1)
                            ? (wType.isDynamicDim(2) ? -1 : wType.getDimSize(2))
                            : yType.getDimSize(1);
    int64_t maxVectors =
        staticOut < 0 ? 4 : std::min<int64_t>(4, ceilDiv(staticOut, lanes));
    BlockShape shape = chooseBlock(registers, std::max<int64_t>(1, maxVectors));
    step = shape.vectors * lanes;
    // Full channel blocks end at `fullOut`; the channels left take masked
    // vectors (static: just enough of them; dynamic: N, masked).
    if (staticOut >= 0) {
      fullOut = index(staticOut / step * step);
      int64_t left = staticOut % step;
      if (left) {
        tailVectors = ceilDiv(left, lanes);
        tailMask = masks(index(left), tailVectors);
      }
    } else {
      fullOut = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, outChannels, index(step)),
          index(step));
      rest = arith::SubIOp::create(b, loc, outChannels, fullOut);
      tailVectors = shape.vectors;
      tailMask = masks(rest, tailVectors);
    }
    // Blocks of R output positions, all channels of a block before the
    // next: one loop over the rows, shared by the threads (one fork per
    // call), each block's input rows read from L1 by every channel block.
    int64_t r = shape.rows;
    Value fullRows;
    if (staticRows >= 0)
      fullRows = index(staticRows / r * r);
    else
      fullRows = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, rowsOut, index(r)), index(r));
    auto blocks =
        scf::ForOp::create(b, loc, index(0), fullRows, index(r), ValueRange{},
                           [&](OpBuilder &, Location, Value l0, ValueRange) {
                             allChannels(l0, r, shape.vectors);
                             scf::YieldOp::create(b, loc);
                           });
    // Blocks of output positions write disjoint rows of y.
    unum::air::parallelize(b, blocks, threads, useThreads);
    // The rows left: one block (static) or, dynamic, blocks of the powers
    // of two their count is made of (4 + 2 + 1 rows for 7; at most R - 1):
    // a few register blocks, none row by row (the blocks of air-fuse-rows
    // leave 64 mod R rows in each).
    if (staticRows >= 0) {
      if (staticRows % r)
        allChannels(fullRows, staticRows % r, shape.vectors);
      return;
    }
    Value left = arith::SubIOp::create(b, loc, rowsOut, fullRows);
    Value at = fullRows;
    for (int64_t bit = llvm::PowerOf2Ceil(r) / 2; bit >= 1; bit /= 2) {
      Value rows = arith::AndIOp::create(b, loc, left, index(bit));
      Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, rows,
                                        index(0));
      Value from = at;
      scf::IfOp::create(b, loc, any, [&](OpBuilder &, Location) {
        allChannels(from, bit, shape.vectors);
        scf::YieldOp::create(b, loc);
      });
      at = add(at, rows);
    }
  }

private:
  static int64_t ceilDiv(int64_t a, int64_t d) { return (a + d - 1) / d; }

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value a, Value c) { return arith::AddIOp::create(b, loc, a, c); }
  Value add(Value a, int64_t c) { return c == 0 ? a : add(a, index(c)); }
  Value dim(Value v, int64_t d) {
    auto type = cast<MemRefType>(v.getType());
    if (!type.isDynamicDim(d))
      return index(type.getDimSize(d));
    return memref::DimOp::create(b, loc, v, d);
  }

  /// One mask per vector of a block whose first `count` channels are valid.
  SmallVector<Value> masks(Value count, int64_t n) {
    SmallVector<Value> result;
    for (int64_t i = 0; i < n; ++i) {
      Value valid = arith::SubIOp::create(b, loc, count, index(i * lanes));
      result.push_back(
          vector::CreateMaskOp::create(b, loc, maskType, ValueRange{valid}));
    }
    return result;
  }

  /// Output positions [l0, l0 + rows), every channel: the full blocks of
  /// N vectors, then the channels left in masked vectors (fewer vectors
  /// need fewer registers, so the same rows fit).
  void allChannels(Value l0, int64_t rows, int64_t n) {
    scf::ForOp::create(b, loc, index(0), fullOut, index(step), ValueRange{},
                       [&](OpBuilder &, Location, Value o0, ValueRange) {
                         block(l0, o0, rows, n, {});
                         scf::YieldOp::create(b, loc);
                       });
    if (tailMask.empty())
      return;
    if (!rest) {
      block(l0, fullOut, rows, tailVectors, tailMask);
      return;
    }
    Value any =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, rest, index(0));
    scf::IfOp::create(b, loc, any, [&](OpBuilder &, Location) {
      block(l0, fullOut, rows, tailVectors, tailMask);
      scf::YieldOp::create(b, loc);
    });
  }

  Value load(Value memref, ValueRange indices, ArrayRef<Value> mask,
             int64_t n) {
    if (mask.empty())
      return vector::LoadOp::create(b, loc, vecType, memref, indices);
    Value zero = arith::ConstantOp::create(
        b, loc, vecType, DenseElementsAttr::get(vecType, b.getZeroAttr(t)));
    return vector::MaskedLoadOp::create(b, loc, vecType, memref, indices,
                                        mask[n], zero);
  }

  /// y[l0 : l0 + R, o0 : o0 + N W] += the convolution, in registers.
  void block(Value l0, Value o0, int64_t rows, int64_t n,
             ArrayRef<Value> mask) {
    SmallVector<Value> cols, acc;
    for (int64_t j = 0; j < n; ++j)
      cols.push_back(add(o0, j * lanes));
    for (int64_t r = 0; r < rows; ++r) {
      Value row = add(l0, r);
      for (int64_t j = 0; j < n; ++j)
        acc.push_back(
            init
                ? vector::BroadcastOp::create(b, loc, vecType, init).getResult()
                : load(y, ValueRange{row, cols[j]}, mask, j));
    }
    Value base = s == 1 ? l0 : arith::MulIOp::create(b, loc, l0, index(s));
    auto kLoop = scf::ForOp::create(
        b, loc, index(0), taps, index(1), acc,
        [&](OpBuilder &, Location, Value k, ValueRange kAcc) {
          Value xRow = add(base, k);
          auto cLoop = scf::ForOp::create(
              b, loc, index(0), channels, index(1), kAcc,
              [&](OpBuilder &, Location, Value c, ValueRange cAcc) {
                SmallVector<Value> weights, next;
                for (int64_t j = 0; j < n; ++j)
                  weights.push_back(
                      load(w, ValueRange{k, c, cols[j]}, mask, j));
                for (int64_t r = 0; r < rows; ++r) {
                  Value e = memref::LoadOp::create(
                      b, loc, x, ValueRange{add(xRow, r * s), c});
                  Value splat = vector::BroadcastOp::create(b, loc, vecType, e);
                  for (int64_t j = 0; j < n; ++j) {
                    Value a = cAcc[r * n + j];
                    if (isFloat) {
                      next.push_back(
                          vector::FMAOp::create(b, loc, splat, weights[j], a));
                    } else {
                      Value p =
                          arith::MulIOp::create(b, loc, splat, weights[j]);
                      next.push_back(arith::AddIOp::create(b, loc, a, p));
                    }
                  }
                }
                scf::YieldOp::create(b, loc, next);
              });
          scf::YieldOp::create(b, loc, cLoop.getResults());
        });
    for (int64_t r = 0; r < rows; ++r) {
      Value row = add(l0, r);
      for (int64_t j = 0; j < n; ++j) {
        Value v = kLoop.getResult(r * n + j);
        if (mask.empty())
          vector::StoreOp::create(b, loc, v, y, ValueRange{row, cols[j]});
        else
          vector::MaskedStoreOp::create(b, loc, y, ValueRange{row, cols[j]},
                                        mask[j], v);
      }
    }
  }

  RewriterBase &b;
  Location loc;
  int64_t s, registers, threads, lanes = 1, staticRows = -1;
  Value x, w, y, taps, channels, rowsOut, init;
  /// Channels per full block (N W), where the full blocks end, and the
  /// channels left (dynamic C_out only; null when static).
  int64_t step = 1, tailVectors = 0;
  Value fullOut, rest;
  /// The masks of the channels left (empty: none left).
  SmallVector<Value> tailMask;
  /// The call has enough multiply-adds for the threads (i1).
  Value useThreads;
  Type t;
  VectorType vecType, maskType;
  bool isFloat = true;
};

/// Size `d` of `v` as a value available before `loop`: a constant, a
/// memref.dim of a buffer defined outside it, or the size of a subview
/// taken inside it from a value defined outside. Null if none.
Value sizeBefore(OpBuilder &b, scf::ForOp loop, Value v, int64_t d) {
  Location loc = loop.getLoc();
  auto type = cast<MemRefType>(v.getType());
  if (!type.isDynamicDim(d))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(d));
  if (loop.isDefinedOutsideOfLoop(v))
    return memref::DimOp::create(b, loc, v, d);
  auto sub = v.getDefiningOp<memref::SubViewOp>();
  if (!sub || sub.getDroppedDims().any())
    return Value();
  OpFoldResult size = sub.getMixedSizes()[d];
  if (auto value = dyn_cast<Value>(size))
    return loop.isDefinedOutsideOfLoop(value) ? value : Value();
  return arith::ConstantIndexOp::create(b, loc, *getConstantIntValue(size));
}

/// The row blocks of air-fuse-rows holding `conv` (a conv1d and its
/// epilogue) when the threads can share them instead of the conv1d's own
/// blocks: the loop is outside any other, has no results and its
/// iterations write disjoint memory (RowFusion.h). Null otherwise.
scf::ForOp shareableRowBlocks(linalg::GenericOp conv) {
  auto loop = dyn_cast<scf::ForOp>(conv->getParentOp());
  if (!loop || !loop->hasAttr(unum::air::kRowBlocksAttr) ||
      loop.getNumResults() != 0 ||
      loop->getParentOfType<LoopLikeOpInterface>() ||
      !unum::air::writesOwnMemory(loop))
    return {};
  return loop;
}

/// Multiply-adds per output row of `conv` (K C_in C_out), computed before
/// `loop`; null if a size is only known inside it.
Value macsPerRow(OpBuilder &b, scf::ForOp loop, linalg::GenericOp conv) {
  Value w = conv.getDpsInputs()[1];
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < 3; ++d) {
    Value size = sizeBefore(b, loop, w, d);
    if (!size)
      return Value();
    sizes.push_back(size);
  }
  return unum::air::product(b, loop.getLoc(), sizes);
}

struct AirVectorizeConv1dPass
    : public unum::impl::AirVectorizeConv1dBase<AirVectorizeConv1dPass> {
  using Base::Base;

  void runOnOperation() override {
    if (vectorBits < 64 || registers < 8) {
      getOperation()->emitError("air-vectorize-conv1d: vector-bits must be "
                                ">= 64 and registers >= 8");
      return signalPassFailure();
    }
    SmallVector<std::pair<linalg::GenericOp, int64_t>> convs;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (int64_t s = matchConv1d(op))
        convs.push_back({op, s});
    });
    IRRewriter rewriter(&getContext());
    // Row-block loops the threads share (conv1d + epilogue), with the
    // call's multiply-adds per output row (of every conv1d they hold).
    llvm::MapVector<Operation *, Value> rowBlocks;
    if (threads > 1) {
      llvm::DenseSet<Operation *> refused;
      for (auto [op, s] : convs) {
        scf::ForOp loop = shareableRowBlocks(op);
        if (!loop || refused.contains(loop))
          continue;
        rewriter.setInsertionPoint(loop);
        Value macs = macsPerRow(rewriter, loop, op);
        if (!macs) {
          refused.insert(loop);
          rowBlocks.erase(loop);
          continue;
        }
        Value &sum = rowBlocks[loop];
        sum =
            sum ? rewriter.createOrFold<arith::AddIOp>(loop.getLoc(), sum, macs)
                : macs;
      }
    }
    for (auto [op, s] : convs) {
      rewriter.setInsertionPoint(op);
      bool shared = rowBlocks.contains(op->getParentOp());
      Conv1dEmitter emitter(rewriter, op, s, vectorBits, registers,
                            shared ? 1 : threads);
      // The output's initial value, filled right before: in registers.
      auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
      bool fills = fill && fill.getDpsInits()[0] == op.getDpsInits()[0] &&
                   fill.getInputs()[0].getType() ==
                       getElementTypeOrSelf(op.getDpsInits()[0].getType());
      if (fills)
        emitter.startFrom(fill.getInputs()[0]);
      emitter.emit();
      rewriter.eraseOp(op);
      if (fills)
        rewriter.eraseOp(fill);
    }
    // One fork per call: the threads share the row blocks, each running
    // the conv1d and the epilogue of its blocks.
    for (auto [op, macs] : rowBlocks) {
      auto loop = cast<scf::ForOp>(op);
      rewriter.setInsertionPoint(loop);
      Location loc = loop.getLoc();
      Value rows = rewriter.createOrFold<arith::SubIOp>(
          loc, loop.getUpperBound(), loop.getLowerBound());
      Value enough = unum::air::enoughWork(
          rewriter, loc, unum::air::product(rewriter, loc, {rows, macs}),
          unum::air::kMinParallelMacs);
      loop->removeAttr(unum::air::kRowBlocksAttr);
      unum::air::parallelize(rewriter, loop, threads, enough);
    }
  }
};
} // namespace
