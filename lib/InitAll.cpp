//===- InitAll.cpp - Register everything Unum provides --------------------===//
#include "unum/InitAll.h"
#include "unum/Conversion/Passes.h"
#include "unum/Dialect/NN/IR/NNDialect.h"
#include "unum/Dialect/NN/Transforms/Passes.h"
#include "unum/Dialect/RTL/IR/RTLDialect.h"
#include "unum/Dialect/Sfn/IR/SfnDialect.h"
#include "unum/Dialect/Unum/IR/UnumDialect.h"
#include "unum/Target/ASL/ASL.h"
#include "unum/Target/Dot/Dot.h"
#include "unum/Target/NNJson/NNJson.h"
#include "unum/Target/UnumConfig/UnumConfig.h"
#include "unum/Target/VHDL/VHDL.h"

void unum::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<UnumDialect, sfn::SfnDialect>();
  registry.insert<nn::NNDialect, rtl::RTLDialect>();
}

void unum::registerAllPasses() {
  registerUnumConversionPasses();
  nn::registerNNPasses();
  registerNNHardwarePipeline();
}

void unum::registerAllTranslations() {
  registerUnumConfigTranslations();
  registerASLTranslation();
  registerDotTranslation();
  registerNNJsonTranslation();
  registerVHDLTranslation();
}
