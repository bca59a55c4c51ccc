//===- Quantize.cpp - Float nn model to fixed point -----------------------===//
//
// Every value gets a format: the layer's `nn.precision` (from the JSON
// model's per-layer `precision`), else the pass options (the model-wide
// default). Constants are rounded to nearest and saturated; saturated
// weights and biases are reported per layer. docs/NNQuantization.md.
//
//===----------------------------------------------------------------------===//
#include "unum/Dialect/NN/IR/FixedPoint.h"
#include "unum/Dialect/NN/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/Format.h"

#include <cmath>

namespace unum::nn {
#define GEN_PASS_DEF_NNQUANTIZE
#include "unum/Dialect/NN/Transforms/Passes.h.inc"
} // namespace unum::nn

using namespace mlir;
using namespace unum::nn;

namespace {
/// Constants quantised to one format, with what saturated.
struct Quantized {
  DenseElementsAttr values;
  int64_t saturated = 0, count = 0;
  double largestError = 0; // of the saturated values, in real units
};

Quantized quantize(MLIRContext *context, ElementsAttr values, unsigned frac,
                   unsigned bits, unsigned storageBits) {
  Quantized q;
  SmallVector<APInt> out;
  for (APFloat v : values.getValues<APFloat>()) {
    double d = v.convertToDouble();
    int64_t i = fixed::quantizeConstant(d, frac, bits);
    double error = std::fabs(d - std::ldexp(double(i), -int(frac)));
    if (i == fixed::minValue(bits) || i == fixed::maxValue(bits)) {
      // saturated unless the value rounds to the end of the range anyway
      if (error > std::ldexp(0.5, -int(frac))) {
        ++q.saturated;
        q.largestError = std::max(q.largestError, error);
      }
    }
    ++q.count;
    out.emplace_back(storageBits, i, /*isSigned=*/true);
  }
  auto shape = cast<ShapedType>(values.getType()).getShape();
  q.values = DenseElementsAttr::get(
      RankedTensorType::get(shape, IntegerType::get(context, storageBits)),
      out);
  return q;
}

/// The largest magnitude of a float elements attribute.
double largest(ElementsAttr values) {
  double m = 0;
  if (values)
    for (APFloat v : values.getValues<APFloat>())
      m = std::max(m, std::fabs(v.convertToDouble()));
  return m;
}

struct Quantize : unum::nn::impl::NNQuantizeBase<Quantize> {
  using NNQuantizeBase::NNQuantizeBase;

  FixedType defaultFormat;
  fixed::Rounding defaultRounding;
  fixed::Overflow defaultOverflow;

  /// A warning naming the layer when constants saturated.
  void warnSaturated(Operation *op, StringRef what, const Quantized &q,
                     FixedType format, unsigned frac) {
    if (!q.saturated)
      return;
    std::string error;
    llvm::raw_string_ostream(error) << llvm::format("%.4g", q.largestError);
    op->emitWarning() << "layer '"
                      << op->getAttrOfType<StringAttr>("name").getValue()
                      << "': " << q.saturated << " of " << q.count << " "
                      << what << " saturate at " << format << " (" << frac
                      << " fraction bits; largest error " << error << ")";
  }

  /// The weight format the policy picks: `weights` gives the fewest integer
  /// bits that hold the largest weight and bias, `uniform` the default.
  FixedType pickWeightFormat(ElementsAttr weight, ElementsAttr bias,
                             FixedType in) {
    unsigned n = defaultFormat.getWidth();
    if (policy != "weights")
      return defaultFormat;
    double w = largest(weight), b = largest(bias);
    for (unsigned f = n - 1; f >= 1; --f) {
      // the largest value of n bits at f fraction bits, and of the bias
      double wMax = std::ldexp(double(fixed::maxValue(n)), -int(f));
      double bMax = std::ldexp(double(fixed::maxValue(in.getWidth() + n - 1)),
                               -int(in.getFrac() + f));
      if (w <= wMax && b <= bMax)
        return FixedType::get(&getContext(), n, f);
    }
    return FixedType::get(&getContext(), n, 1);
  }

  /// Weights, bias, accumulator and rounding of a conv1d or linear.
  template <typename MacOp>
  LogicalResult quantizeMac(MacOp op, int64_t products,
                            DictionaryAttr precision) {
    Builder b(&getContext());
    FixedType in = getFixedType(op->getOperand(0));
    FixedType out = getFixedType(op->getResult(0));
    FixedType w;
    if (auto attr =
            precision ? precision.getAs<TypeAttr>("weight") : TypeAttr())
      w = cast<FixedType>(attr.getValue());
    else
      w = pickWeightFormat(op.getWeight(), op.getBiasAttr(), in);
    if (out.getFrac() > in.getFrac() + w.getFrac())
      return op.emitOpError()
             << "result format " << out << " has more fraction bits than the "
             << "products (input " << in << " times weights " << w
             << "): choose a result with at most " << in.getFrac() + w.getFrac()
             << " fraction bits";
    Quantized weights =
        quantize(&getContext(), op.getWeight(), w.getFrac(), w.getWidth(), 32);
    warnSaturated(op, "weights", weights, w, w.getFrac());
    op.setWeightAttr(weights.values);
    if (op.getBiasAttr()) {
      Quantized bias =
          quantize(&getContext(), op.getBiasAttr(), in.getFrac() + w.getFrac(),
                   in.getWidth() + w.getWidth() - 1, 64);
      warnSaturated(
          op, "biases", bias,
          FixedType::get(&getContext(),
                         std::min(16u, in.getWidth() + w.getWidth() - 1),
                         in.getFrac() + w.getFrac()),
          in.getFrac() + w.getFrac());
      op.setBiasAttr(bias.values);
    }
    if (w != in)
      op.setWeightFormatAttr(TypeAttr::get(w));
    unsigned needed =
        fixed::accumulatorBits(in.getWidth(), w.getWidth(), products);
    int64_t acc = needed;
    if (auto attr =
            precision ? precision.getAs<IntegerAttr>("accum") : IntegerAttr()) {
      acc = attr.getInt();
      if (acc < needed || acc > 62)
        return op.emitOpError()
               << "accumulator of " << acc << " bits: " << products
               << " products of " << in << " and " << w << " need " << needed
               << " to 62 bits";
    }
    op.setAccBitsAttr(b.getI64IntegerAttr(acc));
    return success();
  }

  IntegerAttr quantizeScalar(Attribute value, FixedType format) {
    double v = cast<FloatAttr>(value).getValueAsDouble();
    return Builder(&getContext())
        .getI64IntegerAttr(
            fixed::quantizeConstant(v, format.getFrac(), format.getWidth()));
  }

  LogicalResult quantizeLayer(Operation &op) {
    Builder b(&getContext());
    auto precision = op.getAttrOfType<DictionaryAttr>("nn.precision");
    op.removeAttr("nn.precision");
    fixed::Rounding rounding = defaultRounding;
    fixed::Overflow overflow = defaultOverflow;
    FixedType format = defaultFormat;
    bool explicitWrap = false;
    if (precision) {
      if (auto r = precision.getAs<StringAttr>("rounding"))
        fixed::parseRounding(r.str(), rounding);
      if (auto o = precision.getAs<StringAttr>("overflow")) {
        fixed::parseOverflow(o.str(), overflow);
        explicitWrap = overflow == fixed::Overflow::Wrap;
      }
      if (auto t = precision.getAs<TypeAttr>("result"))
        format = cast<FixedType>(t.getValue());
    }
    if (isa<BatchNormOp>(op))
      return op.emitOpError("must be folded before quantisation "
                            "(run nn-fold-batchnorm)");
    if (op.getNumResults() == 1) {
      auto type = cast<RankedTensorType>(op.getResult(0).getType());
      if (isa<FixedType>(type.getElementType()))
        return op.emitOpError("is already quantised");
      op.getResult(0).setType(type.clone(format));
    }
    if (isa<InputOp, OutputOp>(op))
      return success();
    // Every operand's format was fixed before (def-before-use order).
    FixedType in = getFixedType(op.getOperand(0));
    bool drops = false, rounds = false;
    for (Value operand : op.getOperands())
      drops |= getFixedType(operand).getFrac() > format.getFrac();
    if (auto conv = dyn_cast<Conv1dOp>(op)) {
      auto shape = cast<ShapedType>(conv.getWeight().getType()).getShape();
      if (failed(quantizeMac(conv, shape[1] * shape[2], precision)))
        return failure();
      conv.setPaddingValueAttr(quantizeScalar(conv.getPaddingValue(), in));
      rounds = true;
    } else if (auto linear = dyn_cast<LinearOp>(op)) {
      if (failed(quantizeMac(
              linear,
              cast<ShapedType>(linear.getWeight().getType()).getShape()[1],
              precision)))
        return failure();
      rounds = true;
    } else if (auto tanh = dyn_cast<HardtanhOp>(op)) {
      IntegerAttr lo = quantizeScalar(tanh.getMinVal(), in);
      IntegerAttr hi = quantizeScalar(tanh.getMaxVal(), in);
      if (lo.getInt() >= hi.getInt())
        return tanh.emitOpError() << "bounds become " << lo.getInt() << " and "
                                  << hi.getInt() << " at " << in.getFrac()
                                  << " fraction bits: min must stay below max";
      tanh.setMinValAttr(lo);
      tanh.setMaxValAttr(hi);
    } else if (isa<AvgPool1dOp, HardsigmoidOp>(op)) {
      rounds = true;
      if (isa<HardsigmoidOp>(op) && explicitWrap)
        return op.emitOpError("saturates its result (clamped to [0, 1]): "
                              "overflow must be saturate, not wrap");
      if (isa<HardsigmoidOp>(op)) {
        // A wrapping model-wide default does not apply: say so, located.
        if (overflow == fixed::Overflow::Wrap)
          op.emitWarning() << "hardsigmoid '"
                           << op.getAttrOfType<StringAttr>("name").getValue()
                           << "' saturates its result (clamped to [0, 1]): the "
                              "model-wide overflow=wrap does not apply to it";
        overflow = fixed::Overflow::Saturate;
      }
    }
    if (rounds || drops)
      op.setAttr("rounding", b.getStringAttr(fixed::roundingName(rounding)));
    // wrap where a result can overflow: conv1d/linear, add, requantisation
    bool converts = isa<AddOp, Conv1dOp, LinearOp>(op);
    for (Value operand : op.getOperands())
      converts |= getFixedType(operand) != format;
    if (overflow == fixed::Overflow::Wrap && converts)
      op.setAttr("overflow", b.getStringAttr("wrap"));
    return success();
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
    if (!fixed::parseRounding(rounding, defaultRounding)) {
      model.emitError() << "nn-quantize: rounding must be truncate, nearest "
                           "or half_even (AP_TRN, AP_RND, AP_RND_CONV), got '"
                        << rounding << "'";
      return signalPassFailure();
    }
    if (!fixed::parseOverflow(overflow, defaultOverflow)) {
      model.emitError() << "nn-quantize: overflow must be saturate or wrap "
                           "(AP_SAT, AP_WRAP), got '"
                        << overflow << "'";
      return signalPassFailure();
    }
    if (policy != "uniform" && policy != "weights") {
      model.emitError() << "nn-quantize: policy must be uniform or weights, "
                           "got '"
                        << policy << "'";
      return signalPassFailure();
    }
    defaultFormat = FixedType::get(&getContext(), totalBits, fracBits);
    for (Operation &op : model.getBody().front())
      if (failed(quantizeLayer(op)))
        return signalPassFailure();
  }
};
} // namespace
