//===- SfnDialect.cpp - Amazon States Language dialect --------------------===//
#include "unum/Dialect/Sfn/IR/SfnDialect.h"
#include "unum/Support/Spelling.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace unum::sfn;

#include "unum/Dialect/Sfn/IR/SfnOpsDialect.cpp.inc"

void SfnDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "unum/Dialect/Sfn/IR/SfnOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "unum/Dialect/Sfn/IR/SfnOps.cpp.inc"

namespace {
/// Checks one scope (the state machine, a Parallel branch, a Map iterator):
/// unique names, and every transition resolving inside the scope.
class ScopeVerifier {
public:
  LogicalResult verify(Region &region, StringRef start, Operation *owner) {
    llvm::StringMap<Operation *> states;
    for (Operation &op : region.front()) {
      auto name = op.getAttrOfType<StringAttr>("name");
      if (!name)
        return op.emitOpError() << "is not a state";
      auto [it, inserted] = states.try_emplace(name.getValue(), &op);
      if (!inserted) {
        InFlightDiagnostic diag = op.emitOpError()
                                  << "state name '" << name.getValue()
                                  << "' is already used in this scope";
        diag.attachNote(it->second->getLoc()) << "first used here";
        return diag;
      }
    }
    SmallVector<StringRef> names;
    for (const auto &entry : states)
      names.push_back(entry.getKey());
    llvm::sort(names); // a suggestion independent of hashing
    auto resolve = [&](Operation *op, StringRef target,
                       StringRef what) -> LogicalResult {
      if (states.count(target))
        return success();
      return op->emitOpError()
             << what << " '" << target << "' is not a state of this scope"
             << unum::didYouMean(target, names);
    };
    if (!states.count(start))
      return owner->emitOpError()
             << "start state '" << start << "' is not a state of this scope"
             << unum::didYouMean(start, names);

    for (Operation &op : region.front()) {
      auto next = op.getAttrOfType<StringAttr>("next");
      bool end = op.hasAttr("end");
      bool terminal = isa<SucceedOp, FailOp>(op);
      if (isa<ChoiceOp>(op) || terminal) {
        if (next || end)
          return op.emitOpError()
                 << "cannot have 'Next' or 'End': a "
                 << (terminal ? "terminal" : "Choice") << " state";
      } else if (next && end) {
        return op.emitOpError() << "has both 'Next' and 'End'";
      } else if (!next && !end) {
        return op.emitOpError() << "has neither 'Next' nor 'End'";
      }
      if (next && failed(resolve(&op, next.getValue(), "next state")))
        return failure();
      if (auto choice = dyn_cast<ChoiceOp>(op)) {
        if (choice.getChoices().empty())
          return op.emitOpError() << "has no choice rules";
        for (Attribute rule : choice.getChoices()) {
          auto dict = dyn_cast<DictionaryAttr>(rule);
          auto target = dict ? dict.getAs<StringAttr>("Next") : StringAttr();
          if (!target)
            return op.emitOpError() << "has a choice rule without 'Next'";
          if (failed(resolve(&op, target.getValue(), "choice target")))
            return failure();
        }
        if (auto def = choice.getDefaultState())
          if (failed(resolve(&op, *def, "default state")))
            return failure();
      }
      if (auto catchers = op.getAttrOfType<ArrayAttr>("catchers")) {
        for (Attribute catcher : catchers) {
          auto dict = dyn_cast<DictionaryAttr>(catcher);
          auto target = dict ? dict.getAs<StringAttr>("Next") : StringAttr();
          if (!target)
            return op.emitOpError() << "has a catcher without 'Next'";
          if (failed(resolve(&op, target.getValue(), "catch target")))
            return failure();
        }
      }
      if (auto parallel = dyn_cast<ParallelOp>(op)) {
        if (parallel.getBranches().empty())
          return op.emitOpError() << "has no branches";
        if (parallel.getStarts().size() != parallel.getBranches().size())
          return op.emitOpError() << "has " << parallel.getBranches().size()
                                  << " branches but "
                                  << parallel.getStarts().size()
                                  << " start states";
        for (auto [branch, startAttr] :
             llvm::zip(parallel.getBranches(), parallel.getStarts())) {
          auto branchStart = dyn_cast<StringAttr>(startAttr);
          if (!branchStart)
            return op.emitOpError() << "'starts' must hold state names";
          if (failed(verify(branch, branchStart.getValue(), &op)))
            return failure();
        }
      }
      if (auto map = dyn_cast<MapOp>(op))
        if (failed(verify(map.getIterator(), map.getStart(), &op)))
          return failure();
    }
    return success();
  }
};
} // namespace

LogicalResult StateMachineOp::verifyRegions() {
  return ScopeVerifier().verify(getBody(), getStart(), *this);
}
