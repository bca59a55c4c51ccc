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
        if (def && isa<ConstantOp>(def) &&
            cast<ConstantOp>(def).getType().getRank() == 0)
          continue;
        inputs.insert(v);
      }
    OpBuilder b(root);
    auto fused = FusedOp::create(b, root->getLoc(), root->getResultTypes(),
                                 inputs.getArrayRef());
    Block *block = b.createBlock(&fused.getBody());
    IRMapping mapping;
    for (Value v : inputs)
      mapping.map(v, block->addArgument(v.getType(), v.getLoc()));
    b.setInsertionPointToStart(block);
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
