//===- NNToAir.cpp - float nn models -> air functions ---------------------===//
//
// The CPU path of a float model: each nn.model becomes one public function
// of air kernels (the weights as air.constant), which air-optimize fuses and
// air-to-llvm compiles like any array program. Padding is a tensor.pad (the
// air kernels have none); a pooling window is K strided tensor.extract_slice
// views combined by elementwise air.max / air.add (+ one air.div), which
// air-fuse puts into one loop nest; everything else is air.
//
//===----------------------------------------------------------------------===//
#include "unum/Conversion/Passes.h"
#include "unum/Dialect/Air/IR/AirDialect.h"
#include "unum/Dialect/Air/IR/AirOps.h"
#include "unum/Dialect/NN/IR/FixedPoint.h"
#include "unum/Dialect/NN/IR/NNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace unum {
#define GEN_PASS_DEF_CONVERTNNTOAIR
#include "unum/Conversion/Passes.h.inc"
} // namespace unum

using namespace mlir;
using namespace unum;

namespace {
/// The values of a float attribute tensor (the importer writes f64).
std::vector<double> values(ElementsAttr attr) {
  std::vector<double> out;
  for (APFloat v : cast<DenseElementsAttr>(attr).getValues<APFloat>()) {
    bool lost;
    v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    out.push_back(v.convertToDouble());
  }
  return out;
}

double number(Attribute attr) {
  return cast<FloatAttr>(attr).getValueAsDouble();
}

/// Lowers the layers of one model, in order, into the body of a function.
class Lowering {
public:
  explicit Lowering(OpBuilder &b) : b(b) {}

  /// The air value of `op`'s result from the air values of its operands
  /// (`in`), or failure after a located error.
  FailureOr<Value> lower(Operation *op, ArrayRef<Value> in) {
    return TypeSwitch<Operation *, FailureOr<Value>>(op)
        .Case([&](nn::Conv1dOp c) { return conv1d(c, in[0]); })
        .Case([&](nn::LinearOp l) { return linear(l, in[0]); })
        .Case([&](nn::ReluOp r) { return clamp(r.getLoc(), in[0], 0.0, {}); })
        .Case([&](nn::HardtanhOp h) {
          return clamp(h.getLoc(), in[0], number(h.getMinVal()),
                       number(h.getMaxVal()));
        })
        .Case([&](nn::HardsigmoidOp h) { return hardsigmoid(h, in[0]); })
        .Case([&](nn::BatchNormOp n) { return batchnorm(n, in[0]); })
        .Case([&](nn::FlattenOp f) -> Value {
          auto type = resultType(f);
          return air::ReshapeOp::create(
              b, f.getLoc(), type, in[0],
              b.getDenseI64ArrayAttr(type.getShape()));
        })
        .Case([&](nn::MaxPool1dOp p) {
          return pool(p.getLoc(), in[0], resultType(p), p.getKernelSize(),
                      p.getStride(), p.getPadding(), /*max=*/true,
                      /*countIncludePad=*/false);
        })
        .Case([&](nn::AvgPool1dOp p) {
          return pool(p.getLoc(), in[0], resultType(p), p.getKernelSize(),
                      p.getStride(), p.getPadding(), /*max=*/false,
                      p.getCountIncludePad());
        })
        .Case([&](nn::AddOp a) {
          return binary<air::AddOp>(a.getLoc(), in[0], in[1]);
        })
        .Case([&](nn::ConcatOp c) -> Value {
          // [L, C] tensors: channels are dimension 1, positions dimension 0.
          uint64_t dim = c.getAxis() == "length" ? 0 : 1;
          return tensor::ConcatOp::create(b, c.getLoc(), Type(resultType(c)),
                                          dim, in);
        })
        .Default([&](Operation *other) -> FailureOr<Value> {
          return other->emitError("convert-nn-to-air: no lowering for '")
                 << other->getName() << "' yet";
        });
  }

private:
  static RankedTensorType resultType(Operation *op) {
    return cast<RankedTensorType>(op->getResult(0).getType());
  }

  Value constant(Location loc, ArrayRef<int64_t> shape, ArrayRef<double> data) {
    auto type = RankedTensorType::get(shape, b.getF32Type());
    SmallVector<float> f(data.begin(), data.end());
    return air::ConstantOp::create(
        b, loc, type, DenseElementsAttr::get(type, ArrayRef<float>(f)));
  }
  Value scalar(Location loc, double v) { return constant(loc, {}, {v}); }

  template <typename OpT> Value binary(Location loc, Value lhs, Value rhs) {
    return OpT::create(b, loc, lhs.getType(), lhs, rhs);
  }

  Value addBias(Location loc, Value acc, std::optional<ElementsAttr> bias) {
    if (!bias)
      return acc;
    std::vector<double> v = values(*bias);
    return binary<air::AddOp>(loc, acc, constant(loc, {(int64_t)v.size()}, v));
  }

  Value clamp(Location loc, Value x, std::optional<double> lo,
              std::optional<double> hi) {
    if (lo)
      x = binary<air::MaxOp>(loc, x, scalar(loc, *lo));
    if (hi)
      x = binary<air::MinOp>(loc, x, scalar(loc, *hi));
    return x;
  }

  /// `in` ([L, C]) with `lo` positions before and `hi` after holding `value`.
  Value pad(Location loc, Value in, int64_t lo, int64_t hi, double value) {
    if (!lo && !hi)
      return in;
    auto type = cast<RankedTensorType>(in.getType());
    auto padded = RankedTensorType::get(
        {type.getDimSize(0) + lo + hi, type.getDimSize(1)}, b.getF32Type());
    Value v = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
    SmallVector<OpFoldResult> low{b.getIndexAttr(lo), b.getIndexAttr(0)};
    SmallVector<OpFoldResult> high{b.getIndexAttr(hi), b.getIndexAttr(0)};
    return tensor::PadOp::create(b, loc, padded, in, low, high, v);
  }

  /// maxpool1d / avgpool1d (NNOps.td): window l covers the positions
  /// l*stride - padding + k, k < kernel. The input padded with -inf (max:
  /// padded positions never win) or 0 (avg: they add nothing) makes tap k
  /// of every window one strided view, rows k, k + stride, ...; the taps are
  /// combined elementwise, left to right as PyTorch sums them, and the sum
  /// divided by kernel (count_include_pad) or by each window's positions
  /// inside [0, L).
  Value pool(Location loc, Value in, RankedTensorType type, int64_t kernel,
             int64_t stride, int64_t padding, bool max, bool countIncludePad) {
    int64_t length = cast<RankedTensorType>(in.getType()).getDimSize(0);
    int64_t outLen = type.getDimSize(0), channels = type.getDimSize(1);
    // rows the last window reaches past the padded front (at most padding)
    int64_t hi =
        std::max<int64_t>(0, (outLen - 1) * stride + kernel - padding - length);
    Value padded = pad(loc, in, padding, hi,
                       max ? -std::numeric_limits<double>::infinity() : 0.0);
    Value result;
    for (int64_t k = 0; k < kernel; ++k) {
      SmallVector<OpFoldResult> offsets{b.getIndexAttr(k), b.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes{b.getIndexAttr(outLen),
                                      b.getIndexAttr(channels)};
      SmallVector<OpFoldResult> strides{b.getIndexAttr(stride),
                                        b.getIndexAttr(1)};
      Value tap = tensor::ExtractSliceOp::create(b, loc, type, padded, offsets,
                                                 sizes, strides);
      result = !result ? tap
               : max   ? binary<air::MaxOp>(loc, result, tap)
                       : binary<air::AddOp>(loc, result, tap);
    }
    if (max)
      return result;
    if (countIncludePad || !padding)
      return binary<air::DivOp>(loc, result, scalar(loc, double(kernel)));
    // [L_out, 1]: the divisor of each window, broadcast over the channels
    std::vector<double> counts;
    for (int64_t l = 0; l < outLen; ++l) {
      nn::fixed::PoolWindow w =
          nn::fixed::poolWindow(l, kernel, stride, padding, length);
      counts.push_back(double(w.last - w.first + 1));
    }
    return binary<air::DivOp>(loc, result, constant(loc, {outLen, 1}, counts));
  }

  Value conv1d(nn::Conv1dOp c, Value in) {
    Location loc = c.getLoc();
    auto inType = cast<RankedTensorType>(in.getType());
    int64_t inCh = inType.getDimSize(1);
    auto wType = cast<ShapedType>(c.getWeight().getType());
    int64_t outCh = wType.getDimSize(0), cpg = wType.getDimSize(1),
            kernel = wType.getDimSize(2), groups = c.getGroups();
    in = pad(loc, in, c.getPadLo(), c.getPadHi(), number(c.getPaddingValue()));
    // filter[k][c][o] = weight[o][c - group base][k]; zero across groups.
    std::vector<double> w = values(c.getWeight());
    std::vector<double> filter(kernel * inCh * outCh, 0.0);
    int64_t outPerGroup = outCh / groups;
    for (int64_t o = 0; o < outCh; ++o)
      for (int64_t i = 0; i < cpg; ++i)
        for (int64_t k = 0; k < kernel; ++k) {
          int64_t ch = (o / outPerGroup) * cpg + i;
          filter[(k * inCh + ch) * outCh + o] = w[(o * cpg + i) * kernel + k];
        }
    Value f = constant(loc, {kernel, inCh, outCh}, filter);
    Value acc = air::Conv1DOp::create(b, loc, resultType(c), in, f,
                                      b.getI64IntegerAttr(c.getStride()));
    return addBias(loc, acc, c.getBias());
  }

  Value linear(nn::LinearOp l, Value in) {
    Location loc = l.getLoc();
    auto wType = cast<ShapedType>(l.getWeight().getType());
    int64_t outF = wType.getDimSize(0), inF = wType.getDimSize(1);
    std::vector<double> w = values(l.getWeight()), t(inF * outF);
    for (int64_t o = 0; o < outF; ++o)
      for (int64_t i = 0; i < inF; ++i)
        t[i * outF + o] = w[o * inF + i];
    Value acc = air::MatmulOp::create(b, loc, resultType(l), in,
                                      constant(loc, {inF, outF}, t));
    return addBias(loc, acc, l.getBias());
  }

  Value hardsigmoid(nn::HardsigmoidOp h, Value in) {
    Location loc = h.getLoc();
    Value x = binary<air::MulOp>(loc, in, scalar(loc, 1.0 / 6.0));
    x = binary<air::AddOp>(loc, x, scalar(loc, 0.5));
    return clamp(loc, x, 0.0, 1.0);
  }

  Value batchnorm(nn::BatchNormOp n, Value in) {
    Location loc = n.getLoc();
    std::vector<double> gamma = values(n.getGamma()),
                        beta = values(n.getBeta()), mean = values(n.getMean()),
                        var = values(n.getVariance());
    std::vector<double> scale(gamma.size()), shift(gamma.size());
    for (size_t c = 0; c < gamma.size(); ++c) {
      scale[c] = gamma[c] / std::sqrt(var[c] + n.getEps().convertToDouble());
      shift[c] = beta[c] - mean[c] * scale[c];
    }
    int64_t channels = scale.size();
    Value x = binary<air::MulOp>(loc, in, constant(loc, {channels}, scale));
    return binary<air::AddOp>(loc, x, constant(loc, {channels}, shift));
  }

  OpBuilder &b;
};

struct ConvertNNToAir : unum::impl::ConvertNNToAirBase<ConvertNNToAir> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<nn::ModelOp> models(module.getOps<nn::ModelOp>());
    // Check every model before changing any: all or nothing.
    for (nn::ModelOp model : models)
      if (failed(checkFloat(model)))
        return signalPassFailure();
    for (nn::ModelOp model : models)
      if (failed(convert(model)))
        return signalPassFailure();
  }

  static LogicalResult checkFloat(nn::ModelOp model) {
    WalkResult r = model.getBody().walk([&](Operation *op) {
      for (Type t : op->getResultTypes())
        if (!cast<ShapedType>(t).getElementType().isF32()) {
          op->emitError("convert-nn-to-air: the model is quantised (")
              << t << "); the CPU path takes the float model (before "
              << "nn-quantize)";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    return failure(r.wasInterrupted());
  }

  static LogicalResult convert(nn::ModelOp model) {
    OpBuilder b(model);
    Block &body = model.getBody().front();
    SmallVector<nn::InputOp> inputs(body.getOps<nn::InputOp>());
    auto outputs = body.getOps<nn::OutputOp>();
    if (inputs.empty() || std::distance(outputs.begin(), outputs.end()) != 1)
      return model.emitError("convert-nn-to-air: a model needs inputs and "
                             "exactly one output");
    nn::OutputOp output = *outputs.begin();
    SmallVector<Type> argTypes;
    for (nn::InputOp in : inputs)
      argTypes.push_back(in.getType());
    auto func = func::FuncOp::create(
        b, model.getLoc(), model.getSymName(),
        b.getFunctionType(argTypes, {output.getInput().getType()}));
    Block *entry = func.addEntryBlock();
    IRMapping map;
    for (auto [i, in] : llvm::enumerate(inputs)) {
      func.setArgAttr(i, "air.name", in.getNameAttr());
      map.map(in.getResult(), entry->getArgument(i));
    }
    b.setInsertionPointToEnd(entry);
    Lowering lowering(b);
    for (Operation &op : body) {
      if (isa<nn::InputOp, nn::OutputOp>(op))
        continue;
      SmallVector<Value> operands;
      for (Value v : op.getOperands())
        operands.push_back(map.lookup(v));
      FailureOr<Value> v = lowering.lower(&op, operands);
      if (failed(v)) {
        func.erase();
        return failure();
      }
      map.map(op.getResult(0), *v);
    }
    func::ReturnOp::create(b, output.getLoc(), map.lookup(output.getInput()));
    model.erase();
    return success();
  }
};
} // namespace
