//===- Simplify.cpp - air-simplify ----------------------------------------===//
//
// Inlining first (so that folding sees through calls), then the kernels'
// folders to a fixed point with the greedy driver (which also deletes dead
// pure ops), then CSE, then private functions nobody calls.
//
//===----------------------------------------------------------------------===//
#include "unum/Dialect/Air/IR/AirOps.h"
#include "unum/Dialect/Air/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace unum::air {
#define GEN_PASS_DEF_AIRSIMPLIFY
#include "unum/Dialect/Air/Transforms/Passes.h.inc"
} // namespace unum::air

using namespace mlir;
using namespace unum::air;

void unum::air::inlineCall(CallOp call, func::FuncOp callee) {
  OpBuilder b(call);
  IRMapping mapping;
  Block &body = callee.getBody().front();
  mapping.map(body.getArguments(), call.getOperands());
  for (Operation &op : body.without_terminator())
    b.clone(op, mapping);
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (auto [result, value] : llvm::zip(call.getResults(), ret.getOperands()))
    result.replaceAllUsesWith(mapping.lookupOrDefault(value));
  call.erase();
}

namespace {
unsigned countKernels(func::FuncOp func) {
  unsigned n = 0;
  func.walk([&](Operation *op) { n += isa<KernelOp, CallOp>(op); });
  return n;
}

struct AirSimplifyPass
    : public unum::air::impl::AirSimplifyBase<AirSimplifyPass> {
  using Base::Base;

  /// Inlines typed calls whose callee is small or called once; repeats so
  /// that chains of small functions collapse. Returns true on a change.
  bool inlineCalls(ModuleOp module) {
    SymbolTable table(module);
    bool any = false;
    for (bool changed = true; changed;) {
      changed = false;
      module.walk([&](CallOp call) {
        auto callee = table.lookup<func::FuncOp>(call.getCallee());
        if (!callee || callee.isExternal() ||
            !callee.getBody().hasOneBlock() ||
            TypeRange(call.getOperandTypes()) != callee.getArgumentTypes() ||
            callee->isProperAncestor(call))
          return WalkResult::advance();
        auto uses = SymbolTable::getSymbolUses(callee, module);
        bool singleUse = uses && llvm::hasSingleElement(*uses);
        if (!singleUse && countKernels(callee) > inlineThreshold)
          return WalkResult::advance();
        inlineCall(call, callee);
        changed = any = true;
        return WalkResult::interrupt(); // the walk's iterator is stale now
      });
    }
    return any;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    inlineCalls(module);

    RewritePatternSet patterns(&getContext());
    for (RegisteredOperationName name :
         getContext().getRegisteredOperations())
      if (name.getDialectNamespace() == AirDialect::getDialectNamespace())
        name.getCanonicalizationPatterns(patterns, &getContext());
    FrozenRewritePatternSet frozen(std::move(patterns));
    IRRewriter rewriter(&getContext());
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(applyPatternsGreedily(func, frozen))) {
        func.emitError("air-simplify did not converge");
        return signalPassFailure();
      }
      DominanceInfo dominance(func);
      eliminateCommonSubExpressions(rewriter, dominance, func);
    }

    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (func.isPrivate() && SymbolTable::symbolKnownUseEmpty(func, module))
        func.erase();
  }
};
} // namespace
