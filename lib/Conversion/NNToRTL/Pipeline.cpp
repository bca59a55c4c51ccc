//===- Pipeline.cpp - The hardware pipeline as one unum-opt option --------===//
#include "unum/Conversion/Passes.h"
#include "unum/Dialect/NN/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {
struct HardwarePipelineOptions
    : public PassPipelineOptions<HardwarePipelineOptions> {
  Option<unsigned> totalBits{*this, "total-bits",
                             llvm::cl::desc("Bits per value (2 to 16)"),
                             llvm::cl::init(8)};
  Option<unsigned> fracBits{*this, "frac-bits", llvm::cl::desc("Fraction bits"),
                            llvm::cl::init(4)};
  Option<std::string> rounding{*this, "rounding",
                               llvm::cl::desc("nearest or truncate"),
                               llvm::cl::init("nearest")};
  Option<unsigned> parallelism{
      *this, "parallelism",
      llvm::cl::desc("Multipliers per multiply-accumulate layer"),
      llvm::cl::init(1)};
};
} // namespace

void unum::registerNNHardwarePipeline() {
  PassPipelineRegistration<HardwarePipelineOptions>(
      "nn-hardware-pipeline",
      "nn-dead-node-elim, nn-fold-batchnorm, nn-quantize and "
      "convert-nn-to-rtl in one: a float nn model to rtl",
      [](OpPassManager &pm, const HardwarePipelineOptions &options) {
        OpPassManager &model = pm.nest<nn::ModelOp>();
        model.addPass(nn::createNNDeadNodeElim());
        model.addPass(nn::createNNFoldBatchNorm());
        model.addPass(nn::createNNQuantize(
            {options.totalBits, options.fracBits, options.rounding}));
        pm.addPass(createConvertNNToRTL({options.parallelism}));
      });
}
