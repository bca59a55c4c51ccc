//===- ExpandMath.cpp - air-expand-math -----------------------------------===//
#include "unum/Dialect/Air/Transforms/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace unum::air {
#define GEN_PASS_DEF_AIREXPANDMATH
#include "unum/Dialect/Air/Transforms/Passes.h.inc"
} // namespace unum::air

using namespace mlir;

namespace {
struct AirExpandMathPass
    : public unum::air::impl::AirExpandMathBase<AirExpandMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Only the approximations the end-to-end tests hold to 1 ulp.
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) {
          name.consume_front("math.");
          return name == "exp" || name == "log";
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
