//===- InitAll.cpp - Register everything Unum provides --------------------===//
#include "unum/InitAll.h"
#include "unum/Conversion/AirToLinalg/AirToLinalg.h"
#include "unum/Conversion/Passes.h"
#include "unum/Dialect/Air/IR/AirDialect.h"
#include "unum/Dialect/Air/Transforms/Passes.h"
#include "unum/Dialect/NN/IR/NNDialect.h"
#include "unum/Dialect/NN/Transforms/Passes.h"
#include "unum/Dialect/RTL/IR/RTLDialect.h"
#include "unum/Dialect/Sfn/IR/SfnDialect.h"
#include "unum/Dialect/Unum/IR/UnumDialect.h"
#include "unum/Dialect/Unum/Transforms/Passes.h"
#include "unum/Target/ASL/ASL.h"
#include "unum/Target/AirText/AirText.h"
#include "unum/Target/Dot/Dot.h"
#include "unum/Target/NNJson/NNJson.h"
#include "unum/Target/UnumConfig/UnumConfig.h"
#include "unum/Target/VHDL/VHDL.h"

void unum::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<UnumDialect, sfn::SfnDialect, air::AirDialect>();
  air::registerAirLoweringInterfaces(registry);
  registry.insert<nn::NNDialect, rtl::RTLDialect>();
}

void unum::registerAllPasses() {
  registerUnumConversionPasses();
  registerUnumPasses();
  air::registerAirPasses();
  air::registerAirPipelines();
  nn::registerNNPasses();
  registerNNHardwarePipeline();
}

void unum::registerAllTranslations() {
  registerUnumConfigTranslations();
  registerAirTextTranslation();
  registerASLTranslation();
  registerDotTranslation();
  registerNNJsonTranslation();
  registerVHDLTranslation();
}
