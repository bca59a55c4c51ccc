//===- Lint.cpp - Warnings about valid but suspicious unum apps -----------===//

#include "unum/Dialect/Unum/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

namespace unum {
#define GEN_PASS_DEF_UNUMLINT
#include "unum/Dialect/Unum/Transforms/Passes.h.inc"
} // namespace unum

using namespace mlir;
using namespace unum;

void unum::lintApp(AppOp app) {
  llvm::StringMap<FunctionOp> functions;
  SmallVector<FunctionOp> worklist;
  for (FunctionOp function : app.getBodyBlock().getOps<FunctionOp>()) {
    functions[function.getSymName()] = function;
    if (function.getStart())
      worklist.push_back(function);
  }
  // Reachability: everything a start function reaches through any edge.
  llvm::DenseSet<Operation *> reached;
  while (!worklist.empty()) {
    FunctionOp function = worklist.pop_back_val();
    if (!reached.insert(function).second)
      continue;
    for (EdgeOpInterface edge : function.getEdges()) {
      auto it = functions.find(edge.getTargetAttr().getValue());
      if (it != functions.end())
        worklist.push_back(it->second);
    }
  }
  // Located warning without the op attached (the op's generic form means
  // nothing to the author of the state machine).
  for (FunctionOp function : app.getBodyBlock().getOps<FunctionOp>())
    if (!reached.contains(function))
      mlir::emitWarning(function.getLoc())
          << "function '@" << function.getSymName()
          << "' is not reachable from any start function";
}

namespace {
struct UnumLintPass : public unum::impl::UnumLintBase<UnumLintPass> {
  void runOnOperation() override {
    getOperation()->walk([](AppOp app) { lintApp(app); });
    markAllAnalysesPreserved();
  }
};
} // namespace
