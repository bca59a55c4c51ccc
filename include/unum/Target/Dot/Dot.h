//===- Dot.h - Workflow graphs -> Graphviz ----------------------*- C++ -*-===//
#ifndef UNUM_TARGET_DOT_DOT_H
#define UNUM_TARGET_DOT_DOT_H

#include "mlir/Support/LLVM.h"

namespace unum {
class AppOp;
namespace sfn {
class StateMachineOp;
}

/// Writes the workflow graph of `app` in Graphviz dot: one node per function
/// (start functions doubled, checkpointing ones filled), one edge per
/// continuation labelled with its kind, conditional, values and modifiers.
mlir::LogicalResult exportDot(AppOp app, llvm::raw_ostream &os);

/// Writes the states of a state machine before lowering: one node per state
/// (choices as diamonds, terminal states doubled), its Next, Choice rules,
/// Default and Catch edges, and a cluster per Map iterator or Parallel
/// branch.
mlir::LogicalResult exportDot(sfn::StateMachineOp machine,
                              llvm::raw_ostream &os);

/// Registers --to-dot (an unum.app or an sfn.state_machine).
void registerDotTranslation();
} // namespace unum

#endif // UNUM_TARGET_DOT_DOT_H
