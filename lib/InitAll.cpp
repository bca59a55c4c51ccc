//===- InitAll.cpp - Register everything Unum provides --------------------===//
#include "unum/InitAll.h"
#include "unum/Conversion/Passes.h"
#include "unum/Dialect/Air/IR/AirDialect.h"
#include "unum/Dialect/Sfn/IR/SfnDialect.h"
#include "unum/Dialect/Unum/IR/UnumDialect.h"
#include "unum/Target/AirText/AirText.h"
#include "unum/Target/ASL/ASL.h"
#include "unum/Target/Dot/Dot.h"
#include "unum/Target/UnumConfig/UnumConfig.h"

void unum::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<UnumDialect, sfn::SfnDialect, air::AirDialect>();
}

void unum::registerAllPasses() {
  registerUnumConversionPasses();
}

void unum::registerAllTranslations() {
  registerUnumConfigTranslations();
  registerAirTextTranslation();
  registerASLTranslation();
  registerDotTranslation();
}
