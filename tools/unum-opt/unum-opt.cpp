//===- unum-opt.cpp - Unum's optimizer driver -----------------------------===//
#include "unum/InitAll.h"
#include "unum/Support/Diagnostics.h"
#include "unum/Support/ToolSupport.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  unum::initToolCommandLine("unum-opt", {}, /*boundsDiagnostics=*/true);
  mlir::registerTransformsPasses();
  unum::registerAllPasses();
  mlir::DialectRegistry registry;
  unum::registerAllDialects(registry);
  std::vector<char *> args = unum::withQuietOpDiagnostics(argc, argv);
  auto [input, output] = mlir::registerAndParseCLIOptions(
      static_cast<int>(args.size()), args.data(), "Unum optimizer driver\n",
      registry);
  // At most --error-limit errors, long source lines cut around the column
  // (unum/Support/Diagnostics.h), in front of MlirOptMain's handler; not
  // when --verify-diagnostics checks every diagnostic as it is.
  if (!mlir::MlirOptMainConfig::createFromCLOptions().shouldVerifyDiagnostics())
    unum::boundDiagnosticsOnLoad(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      static_cast<int>(args.size()), args.data(), input, output, registry));
}
