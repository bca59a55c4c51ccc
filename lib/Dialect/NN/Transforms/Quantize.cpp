//===- Quantize.cpp - Float nn model to fixed point -----------------------===//
#include "unum/Dialect/NN/IR/FixedPoint.h"
#include "unum/Dialect/NN/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace unum::nn {
#define GEN_PASS_DEF_NNQUANTIZE
#include "unum/Dialect/NN/Transforms/Passes.h.inc"
} // namespace unum::nn

using namespace mlir;
using namespace unum::nn;

namespace {
struct Quantize : unum::nn::impl::NNQuantizeBase<Quantize> {
  using NNQuantizeBase::NNQuantizeBase;

  unsigned n = 0, f = 0;

  DenseElementsAttr quantize(ElementsAttr values, unsigned frac, unsigned bits,
                             unsigned storageBits) {
    SmallVector<APInt> out;
    for (APFloat v : values.getValues<APFloat>())
      out.emplace_back(storageBits,
                       fixed::quantizeConstant(v.convertToDouble(), frac, bits),
                       /*isSigned=*/true);
    auto shape = cast<ShapedType>(values.getType()).getShape();
    Builder b(&getContext());
    return DenseElementsAttr::get(
        RankedTensorType::get(shape, b.getIntegerType(storageBits)), out);
  }

  IntegerAttr quantizeScalar(Attribute value) {
    double v = cast<FloatAttr>(value).getValueAsDouble();
    return Builder(&getContext())
        .getI64IntegerAttr(fixed::quantizeConstant(v, f, n));
  }

  /// Weights, bias and accumulator of a conv1d or linear.
  template <typename MacOp> void quantizeMac(MacOp op, int64_t products) {
    Builder b(&getContext());
    op.setWeightAttr(quantize(op.getWeight(), f, n, 32));
    if (op.getBiasAttr())
      op.setBiasAttr(quantize(op.getBiasAttr(), 2 * f, n + f, 64));
    op.setAccBitsAttr(b.getI64IntegerAttr(fixed::accumulatorBits(n, products)));
    op.setRoundingAttr(b.getStringAttr(rounding));
  }

  void runOnOperation() override {
    ModelOp model = getOperation();
    if (totalBits < 2 || totalBits > 16 || fracBits < 1 ||
        fracBits >= totalBits) {
      model.emitError() << "nn-quantize: total-bits must be 2 to 16 and "
                           "frac-bits 1 to total-bits - 1, got total-bits="
                        << unsigned(totalBits)
                        << " frac-bits=" << unsigned(fracBits);
      return signalPassFailure();
    }
    if (rounding != "nearest" && rounding != "truncate") {
      model.emitError() << "nn-quantize: rounding must be nearest or "
                           "truncate, got '"
                        << rounding << "'";
      return signalPassFailure();
    }
    n = totalBits;
    f = fracBits;
    Builder b(&getContext());
    Type element = FixedType::get(&getContext(), n, f);
    for (Operation &op : model.getBody().front()) {
      if (isa<BatchNormOp>(op)) {
        op.emitOpError("must be folded before quantisation "
                       "(run nn-fold-batchnorm)");
        return signalPassFailure();
      }
      if (op.getNumResults() == 1) {
        auto type = cast<RankedTensorType>(op.getResult(0).getType());
        if (isa<FixedType>(type.getElementType())) {
          op.emitOpError("is already quantised");
          return signalPassFailure();
        }
        op.getResult(0).setType(type.clone(element));
      }
      if (auto conv = dyn_cast<Conv1dOp>(op)) {
        auto shape = cast<ShapedType>(conv.getWeight().getType()).getShape();
        quantizeMac(conv, shape[1] * shape[2]);
        conv.setPaddingValueAttr(quantizeScalar(conv.getPaddingValue()));
      } else if (auto linear = dyn_cast<LinearOp>(op)) {
        quantizeMac(
            linear,
            cast<ShapedType>(linear.getWeight().getType()).getShape()[1]);
      } else if (auto tanh = dyn_cast<HardtanhOp>(op)) {
        IntegerAttr lo = quantizeScalar(tanh.getMinVal());
        IntegerAttr hi = quantizeScalar(tanh.getMaxVal());
        if (lo.getInt() >= hi.getInt()) {
          tanh.emitOpError()
              << "bounds become " << lo.getInt() << " and " << hi.getInt()
              << " at " << f << " fraction bits: min must stay below max";
          return signalPassFailure();
        }
        tanh.setMinValAttr(lo);
        tanh.setMaxValAttr(hi);
      } else if (auto avg = dyn_cast<AvgPool1dOp>(op)) {
        avg.setRoundingAttr(b.getStringAttr(rounding));
      } else if (auto sigmoid = dyn_cast<HardsigmoidOp>(op)) {
        sigmoid.setSlopeAttr(b.getI64IntegerAttr(fixed::hardsigmoidSlope(f)));
        sigmoid.setRoundingAttr(b.getStringAttr(rounding));
      }
    }
  }
};
} // namespace
