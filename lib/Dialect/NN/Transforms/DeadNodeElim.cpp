//===- DeadNodeElim.cpp - Remove layers that do not reach the output ------===//
#include "unum/Dialect/NN/Transforms/Passes.h"

namespace unum::nn {
#define GEN_PASS_DEF_NNDEADNODEELIM
#include "unum/Dialect/NN/Transforms/Passes.h.inc"
} // namespace unum::nn

using namespace mlir;
using namespace unum::nn;

namespace {
struct DeadNodeElim : unum::nn::impl::NNDeadNodeElimBase<DeadNodeElim> {
  void runOnOperation() override {
    // Layers are in def-before-use order, so one backward sweep sees every
    // user before its producer and removes whole dead chains.
    Block &body = getOperation().getBody().front();
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (!isa<OutputOp>(op) && op.use_empty())
        op.erase();
  }
};
} // namespace
