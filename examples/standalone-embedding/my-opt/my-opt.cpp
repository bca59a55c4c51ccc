//===- my-opt.cpp - An MLIR tool that embeds Unum -------------------------===//
//
// Registers Unum's dialects and passes (unum::registerAll*) next to a pass of
// its own, --my-count-edges, which reads Unum's IR through its C++ API and
// reports each unum.function's outgoing edges as a remark.
//
//===----------------------------------------------------------------------===//
#include "unum/Dialect/Unum/IR/UnumOps.h"
#include "unum/InitAll.h"
#include "unum/Version.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

namespace {
struct CountEdgesPass
    : public mlir::PassWrapper<CountEdgesPass,
                               mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CountEdgesPass)

  llvm::StringRef getArgument() const final { return "my-count-edges"; }
  llvm::StringRef getDescription() const final {
    return "Report the outgoing edges of every unum.function";
  }
  void runOnOperation() final {
    getOperation()->walk([](unum::FunctionOp function) {
      unsigned edges = llvm::range_size(function.getEdges());
      mlir::emitRemark(function.getLoc())
          << "@" << function.getSymName() << " has " << edges
          << (edges == 1 ? " edge" : " edges")
          << (function.getStart() ? " (start)" : "");
    });
  }
};
} // namespace

int main(int argc, char **argv) {
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "my-opt on Unum " UNUM_VERSION_STRING "\n";
  });
  unum::registerAllPasses();
  mlir::PassRegistration<CountEdgesPass>();
  mlir::DialectRegistry registry;
  unum::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "my-opt: Unum and my pass\n", registry));
}
