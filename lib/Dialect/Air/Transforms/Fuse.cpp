//===- Fuse.cpp - air-explicit-broadcast and air-fuse ---------------------===//
#include "unum/Dialect/Air/IR/AirOps.h"
#include "unum/Dialect/Air/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace unum::air {
#define GEN_PASS_DEF_AIREXPLICITBROADCAST
#define GEN_PASS_DEF_AIRFUSE
#include "unum/Dialect/Air/Transforms/Passes.h.inc"
} // namespace unum::air

using namespace mlir;
using namespace unum::air;

void unum::air::makeBroadcastsExplicit(Operation *root) {
  root->walk([](KernelOp kernel) {
    if (!kernel.isElementwise())
      return;
    Operation *op = kernel.getOperation();
    auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!result)
      return;
    OpBuilder b(op);
    for (OpOperand &use : op->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(use.get().getType());
      if (!type || type.getShape() == result.getShape())
        continue;
      auto target = result.clone(type.getElementType());
      use.set(BroadcastOp::create(b, op->getLoc(), target, use.get()));
    }
  });
}

namespace {
struct AirExplicitBroadcastPass
    : public unum::air::impl::AirExplicitBroadcastBase<
          AirExplicitBroadcastPass> {
  void runOnOperation() override { makeBroadcastsExplicit(getOperation()); }
};


bool isTensor(Value v) { return isa<RankedTensorType>(v.getType()); }

/// A group under construction: its ops, and whether it holds an anchor.
struct Group {
  llvm::SetVector<Operation *> ops;
  Operation *anchor = nullptr;

  bool usersInside(Operation *producer) const {
    return llvm::all_of(producer->getUsers(),
                        [&](Operation *u) { return ops.contains(u); });
  }
};

struct AirFusePass : public unum::air::impl::AirFuseBase<AirFusePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &body = func.getBody().front();
    llvm::DenseSet<Operation *> taken;
    SmallVector<Group> groups;
    // Bottom-up: a group starts at its last op and grows towards producers.
    for (Operation &op : llvm::reverse(body)) {
      if (taken.contains(&op) || !(isPointwise(&op) || isLoopAnchor(&op)) ||
          !isTensor(op.getResult(0)))
        continue;
      Group g;
      g.ops.insert(&op);
      if (isLoopAnchor(&op))
        g.anchor = &op;
      grow(g, cast<RankedTensorType>(op.getResult(0).getType()).getShape());
      if (g.ops.size() < 2)
        continue; // nothing to contract
      for (Operation *member : g.ops)
        taken.insert(member);
      groups.push_back(std::move(g));
    }
    for (Group &g : groups)
      contract(g);
    mergeSiblings(body);
  }

  //===--------------------------------------------------------------------===//
  // Multi-output fusion: loops over the same elements become one
  //===--------------------------------------------------------------------===//

  /// A loop left after contraction: a pointwise kernel or group of shape
  /// `loop`, or a full reduction of an array of that shape (`reduces`).
  struct Loop {
    Operation *op;
    ArrayRef<int64_t> loop;
    bool reduces;
    /// Values of shape `loop` it reads or makes, element for element: two
    /// loops over dynamic sizes iterate over the same elements when they
    /// share one (a dynamic size never stretches).
    llvm::SmallPtrSet<Value, 4> full;
  };

  /// The array a full reduction (every axis, scalar result) reads.
  static RankedTensorType fullReductionInput(Operation *op) {
    auto kernel = dyn_cast<KernelOp>(op);
    if (!kernel || !kernel.isReduction())
      return {};
    auto in = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    auto out = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!in || !out || in.getRank() == 0 || out.getRank() != 0)
      return {};
    return in;
  }

  static std::optional<Loop> classify(Operation *op) {
    if (op->getNumResults() != 1 || !isTensor(op->getResult(0)))
      return std::nullopt;
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    std::optional<Loop> loop;
    if (isPointwise(op) && !isa<BroadcastOp>(op)) {
      loop = Loop{op, type.getShape(), false, {}};
    } else if (RankedTensorType in = fullReductionInput(op)) {
      loop = Loop{op, in.getShape(), true, {}};
    } else if (auto fused = dyn_cast<FusedOp>(op)) {
      Block &body = fused.getBody().front();
      Operation *anchor = nullptr;
      for (Operation &inner : body.without_terminator())
        if (isLoopAnchor(&inner))
          anchor = &inner;
      Value root = cast<YieldOp>(body.getTerminator()).getValues()[0];
      if (!anchor)
        loop = Loop{op, type.getShape(), false, {}};
      else if (RankedTensorType in = fullReductionInput(anchor);
               in && root.getDefiningOp() == anchor)
        loop = Loop{op, in.getShape(), true, {}};
    }
    if (!loop || loop->loop.empty())
      return std::nullopt; // scalars: nothing to share
    auto sameShape = [&](Value v) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t && t.getShape() == loop->loop;
    };
    for (Value v : op->getOperands())
      if (sameShape(v))
        loop->full.insert(v);
    if (!loop->reduces)
      loop->full.insert(op->getResult(0));
    return loop;
  }

  /// Groups loops in block order: a loop joins an earlier group of the same
  /// shape when both provably run over the same elements (a static shape, or
  /// a shared array), it reads no reduction of the group (that needs the
  /// whole loop first), and no other op uses the group's values before it
  /// (the merged loop takes its place). Each group of two or more becomes
  /// one air.fused with a result per value used outside.
  void mergeSiblings(Block &body) {
    struct Sibling {
      SmallVector<Loop> loops;
      llvm::SmallPtrSet<Value, 8> full;
      llvm::SmallPtrSet<Operation *, 8> ops;
    };
    SmallVector<Sibling, 4> siblings;
    for (Operation &op : body) {
      std::optional<Loop> loop = classify(&op);
      if (!loop)
        continue;
      Sibling *joined = nullptr;
      for (Sibling &s : siblings)
        if (canJoin(s.loops.front().loop, s.full, s.loops, *loop)) {
          joined = &s;
          break;
        }
      if (!joined)
        joined = &siblings.emplace_back();
      joined->full.insert(loop->full.begin(), loop->full.end());
      joined->ops.insert(loop->op);
      joined->loops.push_back(std::move(*loop));
    }
    for (Sibling &s : siblings)
      if (s.loops.size() > 1)
        merge(s.loops, s.ops);
  }

  static bool canJoin(ArrayRef<int64_t> shape,
                      const llvm::SmallPtrSet<Value, 8> &full,
                      ArrayRef<Loop> loops, const Loop &x) {
    if (x.loop != shape)
      return false;
    bool same = !ShapedType::isDynamicShape(shape) ||
                llvm::any_of(x.full, [&](Value v) { return full.contains(v); });
    if (!same)
      return false;
    for (const Loop &l : loops)
      for (Operation *user : l.op->getUsers()) {
        if (user == x.op && l.reduces)
          return false; // x needs the whole reduction first
        if (user != x.op && user->getBlock() == x.op->getBlock() &&
            user->isBeforeInBlock(x.op) &&
            !llvm::any_of(loops, [&](const Loop &o) { return o.op == user; }))
          return false; // the merged loop would move below this user
      }
    return true;
  }

  /// Replaces `loops` by one air.fused at the last of them.
  void merge(ArrayRef<Loop> loops,
             const llvm::SmallPtrSet<Operation *, 8> &ops) {
    Operation *last = loops.back().op;
    llvm::SetVector<Value> inputs;
    SmallVector<Value> results;
    for (const Loop &l : loops) {
      for (Value v : l.op->getOperands()) {
        Operation *def = v.getDefiningOp();
        if ((def && ops.contains(def)) || isScalarConstant(v))
          continue;
        inputs.insert(v);
      }
      if (llvm::any_of(l.op->getUsers(),
                       [&](Operation *u) { return !ops.contains(u); }))
        results.push_back(l.op->getResult(0));
    }
    OpBuilder b(last);
    IRMapping mapping;
    FusedOp fused =
        createFused(b, last->getLoc(), ValueRange(results).getTypes(),
                    inputs.getArrayRef(), mapping);
    for (const Loop &l : loops) {
      for (Value v : l.op->getOperands())
        if (!mapping.contains(v) && isScalarConstant(v))
          mapping.map(v, b.clone(*v.getDefiningOp())->getResult(0));
      auto inner = dyn_cast<FusedOp>(l.op);
      if (!inner) {
        b.clone(*l.op, mapping);
        continue;
      }
      Block &innerBody = inner.getBody().front();
      for (auto [arg, in] :
           llvm::zip(innerBody.getArguments(), inner.getInputs()))
        mapping.map(arg, mapping.lookup(in));
      for (Operation &op : innerBody.without_terminator())
        b.clone(op, mapping);
      mapping.map(inner.getResult(0),
                  mapping.lookup(
                      cast<YieldOp>(innerBody.getTerminator()).getValues()[0]));
    }
    SmallVector<Value> yielded;
    for (Value r : results)
      yielded.push_back(mapping.lookup(r));
    YieldOp::create(b, last->getLoc(), yielded);
    for (auto [r, f] : llvm::zip(results, fused.getResults()))
      r.replaceAllUsesWith(f);
    for (const Loop &l : llvm::reverse(loops))
      l.op->erase();
  }

  /// An air.fused of `resultTypes` over `inputs` at `b`'s point, with its
  /// block arguments mapped from the inputs; `b` ends at the body's start.
  static FusedOp createFused(OpBuilder &b, Location loc, TypeRange resultTypes,
                             ArrayRef<Value> inputs, IRMapping &mapping) {
    auto fused = FusedOp::create(b, loc, resultTypes, inputs);
    Block *block = b.createBlock(&fused.getBody());
    for (Value v : inputs)
      mapping.map(v, block->addArgument(v.getType(), v.getLoc()));
    b.setInsertionPointToStart(block);
    return fused;
  }

  static bool isScalarConstant(Value v) {
    auto c = v.getDefiningOp<ConstantOp>();
    return c && c.getType().getRank() == 0;
  }

  /// Adds producers whose every user is in the group: pointwise ones of the
  /// group's shape, an anchor producing that shape (the group becomes its
  /// epilogue), and pointwise producers of a reduction's operand shape (its
  /// prologue). Nothing is absorbed through a broadcast: it would be
  /// recomputed for every element it is stretched to.
  void grow(Group &g, ArrayRef<int64_t> shape) {
    llvm::DenseSet<Operation *> prologue;
    for (size_t i = 0; i < g.ops.size(); ++i) {
      Operation *op = g.ops[i];
      bool inPrologue = op == g.anchor || prologue.contains(op);
      if (inPrologue && !cast<KernelOp>(g.anchor).isReduction())
        continue; // below a matmul or conv1d work would be recomputed
      for (Value operand : op->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (!producer || g.ops.contains(producer) ||
            producer->getBlock() != op->getBlock() || !isTensor(operand) ||
            !g.usersInside(producer) || isa<BroadcastOp>(op))
          continue;
        ArrayRef<int64_t> wanted =
            inPrologue ? cast<RankedTensorType>(
                             g.anchor->getOperand(0).getType()).getShape()
                       : shape;
        if (isPointwise(producer) && isSameShape(producer, wanted)) {
          g.ops.insert(producer);
          if (inPrologue)
            prologue.insert(producer);
        } else if (!inPrologue && isLoopAnchor(producer) && !g.anchor &&
                   isSameShape(producer, shape)) {
          g.anchor = producer;
          g.ops.insert(producer);
        }
      }
    }
  }

  static bool isSameShape(Operation *op, ArrayRef<int64_t> shape) {
    auto t = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    return t && t.getShape() == shape;
  }

  /// Moves the group's ops into an air.fused placed at its root (the only op
  /// with users outside the group).
  void contract(Group &g) {
    Operation *root = g.ops.front();
    SmallVector<Operation *> members(g.ops.begin(), g.ops.end());
    llvm::sort(members,
               [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    llvm::SetVector<Value> inputs;
    for (Operation *op : members)
      for (Value v : op->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (def && g.ops.contains(def))
          continue;
        // Scalar constants are cheaper to rematerialise inside the body.
        if (isScalarConstant(v))
          continue;
        inputs.insert(v);
      }
    OpBuilder b(root);
    IRMapping mapping;
    FusedOp fused = createFused(b, root->getLoc(), root->getResultTypes(),
                                inputs.getArrayRef(), mapping);
    for (Operation *op : members) {
      for (Value v : op->getOperands())
        if (auto c = v.getDefiningOp<ConstantOp>();
            c && !mapping.contains(v) && !g.ops.contains(c))
          mapping.map(v, b.clone(*c)->getResult(0));
      b.clone(*op, mapping);
    }
    YieldOp::create(b, root->getLoc(),
                    ValueRange{mapping.lookup(root->getResult(0))});
    root->getResult(0).replaceAllUsesWith(fused.getResult(0));
    for (Operation *op : llvm::reverse(members))
      op->erase();
  }
};
} // namespace
