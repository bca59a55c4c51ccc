//===- RowFusion.cpp - air-fuse-rows --------------------------------------===//
//
// softmax over rows lowers to four loop nests: m = max over each row,
// e = exp(x - m), s = sum over each row of e, y = e / s. e has two users, so
// air-fuse materialises it: a full-size temporary, and six passes over memory.
// Here the last nest (y) is tiled along its rows and every producer of a row
// slice it reads is fused into that loop (upstream tile-and-fuse, the
// TilingInterface of linalg), so each block of rows is reduced and written
// while it is in cache, and e exists only one block at a time.
//
// The loop over row blocks is marked (kRowBlocksAttr); after bufferization
// air-vectorize calls shareRowBlocks, which shares it between threads when
// the kernel is built for several and the call is large enough.
//
//===----------------------------------------------------------------------===//
#include "RowFusion.h"
#include "Parallel.h"
#include "unum/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

namespace unum {
#define GEN_PASS_DEF_AIRFUSEROWS
#include "unum/Conversion/Passes.h.inc"
} // namespace unum

using namespace mlir;

namespace {
/// Bytes of each input a block of rows should hold: a few blocks (the
/// inputs, the block temporaries, the output) fit in a 48 KB L1 cache.
constexpr int64_t kBlockBytes = 8192;

bool isTensorLinalg(Operation *op) {
  return isa_and_nonnull<linalg::LinalgOp>(op) && op->getNumResults() > 0 &&
         llvm::all_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>);
}

/// A reduction over inner dimensions with the first (row) dimension
/// parallel: a row statistic.
bool isRowReduction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumLoops() < 2)
    return false;
  SmallVector<utils::IteratorType> iters = linalgOp.getIteratorTypesArray();
  return iters[0] == utils::IteratorType::parallel &&
         llvm::is_contained(iters, utils::IteratorType::reduction);
}

struct AirFuseRowsPass : public unum::impl::AirFuseRowsBase<AirFuseRowsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // Sizes read from a linalg result (tensor.dim) are read from its inputs
    // instead, and dead ops (reshapes the lowering read through) go: then
    // every user of a producer is a computation.
    if (failed(resolveDims(func)))
      return signalPassFailure();
    SmallVector<linalg::GenericOp> candidates;
    func.walk([&](linalg::GenericOp g) {
      if (g->getParentOp() == func.getOperation() && isTensorLinalg(g) &&
          g.getNumReductionLoops() == 0)
        candidates.push_back(g);
    });
    llvm::DenseSet<Operation *> done;
    bool changed = false;
    for (linalg::GenericOp consumer : llvm::reverse(candidates)) {
      if (done.contains(consumer))
        continue;
      llvm::SetVector<Operation *> chain = producerChain(consumer);
      if (llvm::none_of(chain, isRowReduction))
        continue;
      // An array with a 0-sized dimension (numpy and dask call functions
      // with those) has nothing to block, and tiling it divides by zero.
      auto empty = [](Operation *op) {
        return llvm::any_of(op->getOperandTypes(), [](Type t) {
          auto shaped = dyn_cast<ShapedType>(t);
          return shaped && shaped.hasRank() &&
                 llvm::is_contained(shaped.getShape(), 0);
        });
      };
      if (empty(consumer) || llvm::any_of(chain, empty))
        continue;
      if (succeeded(fuse(consumer, chain))) {
        done.insert(chain.begin(), chain.end());
        changed = true;
      }
    }
    if (changed) {
      // Fusion computes a value used twice in the block twice; CSE keeps one.
      IRRewriter rewriter(&getContext());
      DominanceInfo dom(func);
      eliminateCommonSubExpressions(rewriter, dom, func);
      // But CSE also merges equal fills (layernorm's two f64 sums start
      // from one zero fill): one tensor as the destination of two
      // reductions, which bufferization copies per block. Each gets its own.
      unshareFills(rewriter, func);
      splitWidePrologues(rewriter, func);
      // The loop's sizes read the fused producers; then these are dead. A
      // block temporary's destination, a slice of a full-size tensor.empty,
      // becomes a block-sized tensor.empty (else bufferization would
      // allocate the full size, and the output could not be written in
      // place).
      if (failed(resolveDims(func, /*foldEmpty=*/true)))
        return signalPassFailure();
    }
  }

  /// A row reduction of a block (in a loop of ours) that computes a math
  /// function of its inputs and accumulates it in a wider type (logsumexp's
  /// sum in f64 of f32 exp(x - max)) is split in two nests: the function
  /// into a block temporary (elementwise: vectorised at the narrow type's
  /// width), then the sum of the temporary. Fused, the function ran at the
  /// accumulator's width (4 f64 lanes on AVX2, not 8 f32). Same values, same
  /// order: the results do not change.
  static void splitWidePrologues(IRRewriter &rewriter, func::FuncOp func) {
    SmallVector<linalg::GenericOp> todo;
    func.walk([&](linalg::GenericOp g) {
      auto loop = g->getParentOfType<scf::ForOp>();
      if (loop && loop->hasAttr(unum::air::kRowBlocksAttr) &&
          isRowReduction(g) && widenedPrologue(g))
        todo.push_back(g);
    });
    for (linalg::GenericOp g : todo)
      splitPrologue(rewriter, g);
  }

  /// The extension `acc = combine(acc, ext(v))` ending `g`'s body when v is
  /// computed by a math op of its inputs and only used there; else null.
  static arith::ExtFOp widenedPrologue(linalg::GenericOp g) {
    if (!g.hasPureTensorSemantics() || g.getNumDpsInits() != 1 ||
        !identityInput(g))
      return nullptr;
    Block *body = g.getBody();
    Value acc = body->getArguments().back();
    Operation *yield = body->getTerminator();
    Operation *combine = yield->getOperand(0).getDefiningOp();
    if (!combine || combine->getBlock() != body ||
        combine->getNumOperands() != 2 || !combine->hasOneUse() ||
        !acc.hasOneUse() || !llvm::is_contained(combine->getOperands(), acc))
      return nullptr;
    Value other = combine->getOperand(combine->getOperand(0) == acc ? 1 : 0);
    auto ext = other.getDefiningOp<arith::ExtFOp>();
    if (!ext || !ext->hasOneUse() || ext->getBlock() != body)
      return nullptr;
    Operation *def = ext.getIn().getDefiningOp();
    if (!def || def->getBlock() != body || !ext.getIn().hasOneUse())
      return nullptr;
    bool math = llvm::any_of(body->without_terminator(), [&](Operation &op) {
      return isa<math::MathDialect>(op.getDialect());
    });
    // Only the prologue, the extension and the combine in the body.
    if (!math || &*std::prev(body->end(), 3) != ext.getOperation() ||
        combine->getNextNode() != yield)
      return nullptr;
    return ext;
  }

  /// An input read at every iteration (identity map): the block's shape.
  static Value identityInput(linalg::GenericOp g) {
    for (OpOperand *in : g.getDpsInputOperands())
      if (g.getMatchingIndexingMap(in).isIdentity() &&
          isa<RankedTensorType>(in->get().getType()))
        return in->get();
    return Value();
  }

  static void splitPrologue(IRRewriter &rewriter, linalg::GenericOp g) {
    arith::ExtFOp ext = widenedPrologue(g);
    Operation *combine = *ext->getUsers().begin();
    Block *body = g.getBody();
    Location loc = g.getLoc();
    rewriter.setInsertionPoint(g);
    Value shape = identityInput(g);
    Value empty = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, shape),
        ext.getIn().getType());
    unsigned loops = g.getNumLoops();
    AffineMap id = rewriter.getMultiDimIdentityMap(loops);
    SmallVector<AffineMap> maps;
    for (OpOperand *in : g.getDpsInputOperands())
      maps.push_back(g.getMatchingIndexingMap(in));
    maps.push_back(id);
    SmallVector<utils::IteratorType> parallel(loops,
                                              utils::IteratorType::parallel);
    auto prologue = linalg::GenericOp::create(
        rewriter, loc, TypeRange{empty.getType()}, g.getDpsInputs(),
        ValueRange{empty}, maps, parallel,
        [&](OpBuilder &b, Location, ValueRange args) {
          IRMapping map;
          map.map(body->getArguments().drop_back(), args.drop_back());
          for (Operation &op : body->without_terminator()) {
            if (&op == ext.getOperation())
              break;
            b.clone(op, map);
          }
          linalg::YieldOp::create(b, loc, map.lookup(ext.getIn()));
        });
    auto sum = linalg::GenericOp::create(
        rewriter, loc, g->getResultTypes(), prologue->getResults(),
        g.getDpsInits(),
        SmallVector<AffineMap>{id, g.getIndexingMapsArray().back()},
        g.getIteratorTypesArray(),
        [&](OpBuilder &b, Location, ValueRange args) {
          IRMapping map;
          map.map(ext.getIn(), args[0]);
          map.map(body->getArguments().back(), args[1]);
          b.clone(*ext, map);
          b.clone(*combine, map);
          linalg::YieldOp::create(b, loc, map.lookup(combine->getResult(0)));
        });
    rewriter.replaceOp(g, sum->getResults());
  }

  /// A tensor linalg.fill with several users is cloned for all but the
  /// first, right before each, so that every destination is its own.
  static void unshareFills(IRRewriter &rewriter, func::FuncOp func) {
    SmallVector<linalg::FillOp> shared;
    func.walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() && !fill->hasOneUse() &&
          !fill->use_empty())
        shared.push_back(fill);
    });
    for (linalg::FillOp fill : shared) {
      SmallVector<OpOperand *> uses = llvm::map_to_vector(
          fill->getResult(0).getUses(), [](OpOperand &use) { return &use; });
      for (OpOperand *use : llvm::drop_begin(uses)) {
        rewriter.setInsertionPoint(use->getOwner());
        Operation *copy = rewriter.clone(*fill);
        rewriter.modifyOpInPlace(use->getOwner(),
                                 [&] { use->set(copy->getResult(0)); });
      }
    }
  }

  LogicalResult resolveDims(func::FuncOp func, bool foldEmpty = false) {
    RewritePatternSet patterns(&getContext());
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    if (foldEmpty)
      tensor::populateFoldTensorEmptyPatterns(patterns);
    return applyPatternsGreedily(func, std::move(patterns));
  }

  /// The linalg ops (before `consumer` in its block) whose every user is
  /// `consumer` or another op of the chain: what may move into its loop.
  llvm::SetVector<Operation *> producerChain(Operation *consumer) {
    llvm::SetVector<Operation *> chain;
    for (Operation *op = consumer->getPrevNode(); op; op = op->getPrevNode()) {
      if (!isTensorLinalg(op) || op->use_empty())
        continue;
      bool inside = llvm::all_of(op->getUsers(), [&](Operation *user) {
        return user == consumer || chain.contains(user);
      });
      if (inside)
        chain.insert(op);
    }
    return chain;
  }

  /// Rows per block: kBlockBytes over the bytes of one row of `rows` (the
  /// array a row reduction reads; computed at run time when a row's size is
  /// dynamic), at least 1. A row may hold no elements (numpy and dask call
  /// functions with 0-sized arrays), so the divisor is at least 1 too.
  OpFoldResult rowsPerBlock(OpBuilder &b, Location loc, Value rows) {
    auto type = cast<RankedTensorType>(rows.getType());
    int64_t bytes =
        std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
    Value dynamic;
    for (int64_t d = 1; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d)) {
        bytes *= type.getDimSize(d);
        continue;
      }
      Value size = tensor::DimOp::create(b, loc, rows, d);
      dynamic = dynamic ? arith::MulIOp::create(b, loc, dynamic, size) : size;
    }
    if (!dynamic)
      return b.getIndexAttr(
          std::max<int64_t>(1, kBlockBytes / std::max<int64_t>(1, bytes)));
    auto index = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value rowBytes = arith::MaxUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, dynamic, index(bytes)), index(1));
    Value count = arith::DivUIOp::create(b, loc, index(kBlockBytes), rowBytes);
    return arith::MaxUIOp::create(b, loc, count, index(1)).getResult();
  }

  /// A slice fuses when the loop reads a block of the producer (its offset
  /// depends on the loop), not the whole of it: a reduction over the rows
  /// themselves would be recomputed in every block.
  static bool readsBlock(tensor::ExtractSliceOp slice) {
    return llvm::any_of(slice.getMixedOffsets(),
                        [](OpFoldResult ofr) { return isa<Value>(ofr); });
  }

  LogicalResult fuse(linalg::GenericOp consumer,
                     const llvm::SetVector<Operation *> &chain) {
    IRRewriter rewriter(&getContext());
    rewriter.setInsertionPoint(consumer);
    SmallVector<OpFoldResult> tiles(consumer.getNumLoops(),
                                    rewriter.getIndexAttr(0));
    auto reduction =
        cast<linalg::LinalgOp>(*llvm::find_if(chain, isRowReduction));
    tiles[0] = rowsPerBlock(rewriter, consumer.getLoc(),
                            reduction.getDpsInputOperand(0)->get());
    scf::SCFTileAndFuseOptions options;
    options.tilingOptions.setTileSizes(tiles);
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp slice, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (!chain.contains(producer.getOwner()) || !readsBlock(slice))
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(consumer.getOperation()), options);
    if (failed(result))
      return failure();
    if (!result->loops.empty())
      result->loops.front()->setAttr(unum::air::kRowBlocksAttr,
                                     rewriter.getUnitAttr());
    for (OpResult r : consumer->getResults())
      rewriter.replaceAllUsesWith(r, result->replacements.lookup(r));
    rewriter.eraseOp(consumer);
    return success();
  }
};
} // namespace

namespace {
/// The buffer `v` is a view of, and whether one of the views on the way
/// takes an offset at `iv`.
std::pair<Value, bool> viewRoot(Value v, Value iv) {
  bool atIv = false;
  while (Operation *def = v.getDefiningOp()) {
    if (auto sub = dyn_cast<memref::SubViewOp>(def)) {
      atIv |= llvm::is_contained(sub.getOffsets(), iv);
      v = sub.getSource();
    } else if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      v = view.getViewSource();
    } else {
      break;
    }
  }
  return {v, atIv};
}
} // namespace

bool unum::air::writesOwnMemory(scf::ForOp loop) {
  Value iv = loop.getInductionVar();
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface)
      return WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &e : effects) {
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect()))
        continue;
      Value written = e.getValue();
      if (!written)
        return WalkResult::interrupt();
      auto [root, atIv] = viewRoot(written, iv);
      if (!atIv && loop.isDefinedOutsideOfLoop(root))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

namespace {
/// Elements of the largest outside buffer the body slices at the
/// induction variable (the rows of the input or of the output): the
/// call's work.
Value rowBlockWork(OpBuilder &b, scf::ForOp loop) {
  Value iv = loop.getInductionVar(), largest;
  loop.getBody()->walk([&](memref::SubViewOp sub) {
    auto [root, atIv] = viewRoot(sub.getResult(), iv);
    auto type = dyn_cast<MemRefType>(root.getType());
    if (atIv && type && loop.isDefinedOutsideOfLoop(root) &&
        (!largest ||
         type.getRank() > cast<MemRefType>(largest.getType()).getRank()))
      largest = root;
  });
  if (!largest)
    return Value();
  Location loc = loop.getLoc();
  SmallVector<Value> sizes;
  for (int64_t d = 0, e = cast<MemRefType>(largest.getType()).getRank(); d < e;
       ++d)
    sizes.push_back(b.createOrFold<memref::DimOp>(loc, largest, d));
  return unum::air::product(b, loc, sizes);
}
} // namespace

void unum::air::shareRowBlocks(RewriterBase &b, Operation *root,
                               int64_t threads) {
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp loop) {
    if (loop->removeAttr(kRowBlocksAttr))
      loops.push_back(loop);
  });
  if (threads <= 1)
    return;
  for (scf::ForOp loop : loops) {
    // A loop holding a parallel loop (conv1d's blocks of output positions,
    // when air-fuse-rows blocks a conv1d with its epilogue) is left to that
    // one: nested teams would not help on the host's cores.
    bool inner =
        loop.getBody()
            ->walk([](scf::ParallelOp) { return WalkResult::interrupt(); })
            .wasInterrupted();
    if (loop.getNumResults() != 0 || inner ||
        loop->getParentOfType<LoopLikeOpInterface>() || !writesOwnMemory(loop))
      continue;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop);
    Value work = rowBlockWork(b, loop);
    if (!work)
      continue;
    Value enough = enoughWork(b, loop.getLoc(), work, kMinParallelElements);
    parallelize(b, loop, threads, enough);
  }
}
