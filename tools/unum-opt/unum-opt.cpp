//===- unum-opt.cpp - Unum's optimizer driver -----------------------------===//
#include "unum/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  unum::registerAllPasses();
  mlir::DialectRegistry registry;
  unum::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Unum optimizer driver\n", registry));
}
