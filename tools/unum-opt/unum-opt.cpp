//===- unum-opt.cpp - Unum's optimizer driver -----------------------------===//
#include "unum/InitAll.h"
#include "unum/Support/ToolSupport.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  unum::initToolCommandLine("unum-opt");
  mlir::registerTransformsPasses();
  unum::registerAllPasses();
  mlir::DialectRegistry registry;
  unum::registerAllDialects(registry);
  std::vector<char *> args = unum::withQuietOpDiagnostics(argc, argv);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(static_cast<int>(args.size()), args.data(),
                        "Unum optimizer driver\n", registry));
}
