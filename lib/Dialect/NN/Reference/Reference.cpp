//===- Reference.cpp - CPU fixed-point reference of quantised nn ----------===//
#include "unum/Dialect/NN/Reference/Reference.h"
#include "unum/Dialect/NN/IR/FixedPoint.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace unum::nn;

/// The multiply-accumulate layers seen as one convolution (linear is a
/// kernel of 1): the same loop nest the hardware runs.
static std::vector<int64_t> runMac(const MacLayer &m,
                                   const std::vector<int64_t> &x) {
  int64_t perGroupIn = m.inCh / m.groups, perGroupOut = m.outCh / m.groups;
  std::vector<int64_t> y(m.outLen * m.outCh);
  for (int64_t l = 0; l < m.outLen; ++l)
    for (int64_t o = 0; o < m.outCh; ++o) {
      int64_t acc = m.bias.empty() ? 0 : m.bias[o];
      int64_t g = o / perGroupOut;
      for (int64_t k = 0; k < m.kernel; ++k)
        for (int64_t i = 0; i < perGroupIn; ++i) {
          int64_t pos = l * m.stride + k - m.padLo;
          int64_t v = pos < 0 || pos >= m.inLen
                          ? m.padValue
                          : x[pos * m.inCh + g * perGroupIn + i];
          acc += v * m.weight[(o * perGroupIn + i) * m.kernel + k];
        }
      y[l * m.outCh + o] =
          fixed::requantize(acc, m.inFrac + m.weightFrac, m.outFrac, m.outBits,
                            m.rounding, m.overflow);
    }
  return y;
}

/// Max or average over each window, per channel (FixedPoint.h).
static std::vector<int64_t> runPool(Operation *op,
                                    const std::vector<int64_t> &x) {
  auto in = cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
  auto out = cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  auto max = dyn_cast<MaxPool1dOp>(op);
  auto avg = dyn_cast<AvgPool1dOp>(op);
  int64_t kernel = max ? max.getKernelSize() : avg.getKernelSize();
  int64_t stride = max ? max.getStride() : avg.getStride();
  int64_t padding = max ? max.getPadding() : avg.getPadding();
  int64_t channels = in[1];
  std::vector<int64_t> y;
  for (int64_t l = 0; l < out[0]; ++l) {
    fixed::PoolWindow w = fixed::poolWindow(l, kernel, stride, padding, in[0]);
    for (int64_t c = 0; c < channels; ++c) {
      int64_t best = x[w.first * channels + c], sum = 0;
      for (int64_t p = w.first; p <= w.last; ++p) {
        best = std::max(best, x[p * channels + c]);
        sum += x[p * channels + c];
      }
      if (max) {
        y.push_back(best);
        continue;
      }
      int64_t count = avg.getCountIncludePad() ? kernel : w.last - w.first + 1;
      y.push_back(fixed::divideRounded(sum, count, getRequant(op).rounding));
    }
  }
  return y;
}

/// Channels: row l of every operand in turn; length: every operand whole.
static void concat(ConcatOp op,
                   llvm::DenseMap<Value, std::vector<int64_t>> &values,
                   std::vector<int64_t> &y) {
  bool channels = op.getAxis() == "channels";
  int64_t length =
      cast<RankedTensorType>(op.getResult().getType()).getDimSize(0);
  for (int64_t l = 0; l < (channels ? length : 1); ++l)
    for (Value operand : op.getInputs()) {
      const std::vector<int64_t> &v = values[operand];
      int64_t row = channels ? v.size() / length : v.size();
      y.insert(y.end(), v.begin() + l * row, v.begin() + (l + 1) * row);
    }
}

LogicalResult unum::nn::evaluateReference(ModelOp model,
                                          const std::vector<int64_t> &input,
                                          std::vector<int64_t> &output,
                                          std::string &error) {
  llvm::DenseMap<Value, std::vector<int64_t>> values;
  for (Operation &op : model.getBody().front()) {
    Value in = op.getNumOperands() ? op.getOperand(0) : Value();
    Value result = op.getNumResults() ? op.getResult(0) : in;
    FixedType type = getFixedType(result);
    if (!type) {
      error = "the model is not quantised (run nn-quantize)";
      return failure();
    }
    auto shape = cast<RankedTensorType>(result.getType()).getShape();
    std::vector<int64_t> x = in ? values[in] : std::vector<int64_t>();
    std::vector<int64_t> y;
    Requant rq = getRequant(&op);
    // A value of `from`'s format in the result's format (the layer's
    // rounding and overflow); the identity when the formats agree.
    auto convert = [&](std::vector<int64_t> &v, FixedType from) {
      if (from == type)
        return;
      for (int64_t &e : v)
        e = fixed::requantize(e, from.getFrac(), type.getFrac(),
                              type.getWidth(), rq.rounding, rq.overflow);
    };
    FixedType inType = in ? getFixedType(in) : FixedType();
    // Layers that compute in their input's format, then requantise.
    bool converts =
        isa<ReluOp, HardtanhOp, MaxPool1dOp, AvgPool1dOp, FlattenOp>(op);
    auto elementwise = [&](auto f) {
      for (int64_t v : x)
        y.push_back(f(v));
    };
    bool ok =
        llvm::TypeSwitch<Operation *, bool>(&op)
            .Case([&](InputOp) {
              if (static_cast<int64_t>(input.size()) != shape[0] * shape[1]) {
                error = "an inference needs " +
                        std::to_string(shape[0] * shape[1]) + " input values";
                return false;
              }
              for (int64_t v : input)
                if (v < fixed::minValue(type.getWidth()) ||
                    v > fixed::maxValue(type.getWidth())) {
                  error = "input value " + std::to_string(v) +
                          " does not fit " + std::to_string(type.getWidth()) +
                          " bits";
                  return false;
                }
              y = input;
              return true;
            })
            .Case<Conv1dOp, LinearOp>([&](Operation *mac) {
              y = runMac(getMacLayer(mac), x);
              return true;
            })
            .Case([&](ReluOp) {
              elementwise([](int64_t v) { return v < 0 ? 0 : v; });
              return true;
            })
            .Case([&](HardtanhOp op) {
              int64_t lo = cast<IntegerAttr>(op.getMinVal()).getInt();
              int64_t hi = cast<IntegerAttr>(op.getMaxVal()).getInt();
              elementwise(
                  [&](int64_t v) { return v < lo ? lo : (v > hi ? hi : v); });
              return true;
            })
            .Case([&](HardsigmoidOp op) {
              elementwise([&](int64_t v) {
                return fixed::hardsigmoid(v, inType.getFrac(), type.getFrac(),
                                          type.getWidth(), rq.rounding);
              });
              return true;
            })
            .Case<MaxPool1dOp, AvgPool1dOp>([&](Operation *pool) {
              y = runPool(pool, x);
              return true;
            })
            .Case([&](AddOp op) {
              std::vector<int64_t> a = x, b = values[op.getRhs()];
              convert(a, getFixedType(op.getLhs()));
              convert(b, getFixedType(op.getRhs()));
              for (size_t i = 0; i < a.size(); ++i)
                y.push_back(
                    fixed::fit(a[i] + b[i], type.getWidth(), rq.overflow));
              return true;
            })
            .Case([&](ConcatOp op) {
              llvm::DenseMap<Value, std::vector<int64_t>> operands;
              for (Value operand : op.getInputs()) {
                operands[operand] = values[operand];
                convert(operands[operand], getFixedType(operand));
              }
              concat(op, operands, y);
              return true;
            })
            .Case([&](FlattenOp) {
              y = x; // position-major order is already the flattened order
              return true;
            })
            .Case([&](OutputOp) {
              output = x;
              return true;
            })
            .Default([&](Operation *other) {
              error = "no reference for '" +
                      other->getName().getStringRef().str() +
                      "' (fold batchnorm first)";
              return false;
            });
    if (!ok)
      return failure();
    if (converts)
      convert(y, inType);
    if (op.getNumResults())
      values[result] = std::move(y);
  }
  return success();
}
