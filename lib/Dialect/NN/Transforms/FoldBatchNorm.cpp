//===- FoldBatchNorm.cpp - Fold nn.batchnorm into conv1d/linear -----------===//
#include "unum/Dialect/NN/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

#include <cmath>

namespace unum::nn {
#define GEN_PASS_DEF_NNFOLDBATCHNORM
#include "unum/Dialect/NN/Transforms/Passes.h.inc"
} // namespace unum::nn

using namespace mlir;
using namespace unum::nn;

static std::vector<double> toDoubles(ElementsAttr attr) {
  std::vector<double> out;
  for (APFloat v : attr.getValues<APFloat>())
    out.push_back(v.convertToDouble());
  return out;
}

static DenseElementsAttr toF64(ArrayRef<int64_t> shape, MLIRContext *context,
                               ArrayRef<double> values) {
  auto type = RankedTensorType::get(shape, Float64Type::get(context));
  return DenseElementsAttr::get(type, values);
}

/// Scales the weights of output channel o by s[o] and rewrites the bias.
template <typename LayerOp> static void fold(LayerOp layer, BatchNormOp bn) {
  std::vector<double> gamma = toDoubles(bn.getGamma()),
                      beta = toDoubles(bn.getBeta()),
                      mean = toDoubles(bn.getMean()),
                      var = toDoubles(bn.getVariance());
  std::vector<double> weight = toDoubles(layer.getWeight());
  size_t outCh = gamma.size(), perOut = weight.size() / outCh;
  std::vector<double> bias(outCh, 0.0);
  if (layer.getBiasAttr())
    bias = toDoubles(layer.getBiasAttr());
  for (size_t o = 0; o < outCh; ++o) {
    double s = gamma[o] / std::sqrt(var[o] + bn.getEps().convertToDouble());
    for (size_t i = 0; i < perOut; ++i)
      weight[o * perOut + i] *= s;
    bias[o] = (bias[o] - mean[o]) * s + beta[o];
  }
  MLIRContext *context = layer.getContext();
  layer.setWeightAttr(
      toF64(cast<ShapedType>(layer.getWeight().getType()).getShape(), context,
            weight));
  layer.setBiasAttr(toF64({int64_t(outCh)}, context, bias));
  // The batchnorm's per-layer precision (result, rounding, overflow) is the
  // folded layer's: the pair becomes one layer with one result.
  if (auto bnPrecision = bn->getAttrOfType<DictionaryAttr>("nn.precision")) {
    NamedAttrList merged;
    if (auto own =
            layer->template getAttrOfType<DictionaryAttr>("nn.precision"))
      merged.append(own.getValue());
    for (NamedAttribute entry : bnPrecision)
      merged.set(entry.getName(), entry.getValue());
    layer->setAttr("nn.precision", merged.getDictionary(context));
  }
  bn.getResult().replaceAllUsesWith(layer.getResult());
  bn.erase();
}

namespace {
struct FoldBatchNorm : unum::nn::impl::NNFoldBatchNormBase<FoldBatchNorm> {
  void runOnOperation() override {
    SmallVector<BatchNormOp> norms;
    getOperation().walk([&](BatchNormOp bn) { norms.push_back(bn); });
    for (BatchNormOp bn : norms) {
      Operation *producer = bn.getInput().getDefiningOp();
      if (!producer || !producer->hasOneUse() ||
          !isa<Conv1dOp, LinearOp>(producer)) {
        bn.emitOpError("has no conv1d or linear of its own to fold into");
        return signalPassFailure();
      }
      if (auto conv = dyn_cast<Conv1dOp>(producer))
        fold(conv, bn);
      else
        fold(cast<LinearOp>(producer), bn);
    }
  }
};
} // namespace
