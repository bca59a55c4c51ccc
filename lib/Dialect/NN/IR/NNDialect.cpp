//===- NNDialect.cpp - Neural-network layers dialect ----------------------===//
#include "unum/Dialect/NN/IR/NNDialect.h"
#include "unum/Dialect/NN/IR/FixedPoint.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace unum::nn;

#include "unum/Dialect/NN/IR/NNOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "unum/Dialect/NN/IR/NNOpsTypes.cpp.inc"

void NNDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "unum/Dialect/NN/IR/NNOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "unum/Dialect/NN/IR/NNOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "unum/Dialect/NN/IR/NNOps.cpp.inc"

LogicalResult FixedType::verify(function_ref<InFlightDiagnostic()> emitError,
                                unsigned width, unsigned frac) {
  if (width < 2 || width > 16)
    return emitError() << "fixed-point width must be 2 to 16, got " << width;
  if (frac < 1 || frac >= width)
    return emitError() << "fraction bits must be 1 to width - 1, got " << frac;
  return success();
}

FixedType unum::nn::getFixedType(Value value) {
  return dyn_cast<FixedType>(
      cast<RankedTensorType>(value.getType()).getElementType());
}

std::vector<int64_t> unum::nn::getIntegers(ElementsAttr attr) {
  std::vector<int64_t> out;
  if (attr)
    for (APInt v : attr.getValues<APInt>())
      out.push_back(v.getSExtValue());
  return out;
}

Requant unum::nn::getRequant(Operation *op) {
  Requant r{fixed::Rounding::Nearest, fixed::Overflow::Saturate};
  if (auto rounding = op->getAttrOfType<StringAttr>("rounding"))
    fixed::parseRounding(rounding.str(), r.rounding);
  if (auto overflow = op->getAttrOfType<StringAttr>("overflow"))
    fixed::parseOverflow(overflow.str(), r.overflow);
  return r;
}

/// The weight format of a quantised conv1d or linear: its `weight_format`,
/// else the input's.
static FixedType weightFormat(Operation *op) {
  if (auto attr = op->getAttrOfType<TypeAttr>("weight_format"))
    return cast<FixedType>(attr.getValue());
  return getFixedType(op->getOperand(0));
}

MacLayer unum::nn::getMacLayer(Operation *op) {
  auto shape = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  auto in = shape(op->getOperand(0)), out = shape(op->getResult(0));
  FixedType inType = getFixedType(op->getOperand(0)),
            outType = getFixedType(op->getResult(0)), w = weightFormat(op);
  Requant r = getRequant(op);
  MacLayer m{in[0],
             in[1],
             out[0],
             out[1],
             /*kernel=*/1,
             /*stride=*/1,
             /*padLo=*/0,
             /*groups=*/1,
             /*padValue=*/0,
             {},
             {},
             0,
             inType.getWidth(),
             inType.getFrac(),
             w.getWidth(),
             w.getFrac(),
             outType.getWidth(),
             outType.getFrac(),
             r.rounding,
             r.overflow};
  if (auto conv = dyn_cast<Conv1dOp>(op)) {
    m.kernel = cast<ShapedType>(conv.getWeight().getType()).getShape()[2];
    m.stride = conv.getStrideAttr().getInt();
    m.padLo = conv.getPadLoAttr().getInt();
    m.groups = conv.getGroupsAttr().getInt();
    m.padValue = cast<IntegerAttr>(conv.getPaddingValue()).getInt();
    m.weight = getIntegers(conv.getWeight());
    m.bias = getIntegers(conv.getBiasAttr());
    m.accBits = static_cast<int64_t>(conv.getAccBits().value_or(0));
    return m;
  }
  auto linear = cast<LinearOp>(op);
  m.weight = getIntegers(linear.getWeight());
  m.bias = getIntegers(linear.getBiasAttr());
  m.accBits = static_cast<int64_t>(linear.getAccBits().value_or(0));
  return m;
}

//===----------------------------------------------------------------------===//
// nn.model
//===----------------------------------------------------------------------===//

LogicalResult ModelOp::verifyRegions() {
  unsigned inputs = 0, outputs = 0;
  llvm::StringMap<Operation *> names;
  std::optional<bool> quantised;
  for (Operation &op : getBody().front()) {
    inputs += isa<InputOp>(op);
    outputs += isa<OutputOp>(op);
    if (auto name = op.getAttrOfType<StringAttr>("name")) {
      auto [it, inserted] = names.try_emplace(name.getValue(), &op);
      if (!inserted) {
        InFlightDiagnostic diag = op.emitOpError()
                                  << "layer name '" << name.getValue()
                                  << "' is already used";
        diag.attachNote(it->second->getLoc()) << "first used here";
        return diag;
      }
    }
    for (Value result : op.getResults()) {
      Type type = cast<RankedTensorType>(result.getType()).getElementType();
      if (quantised && *quantised != isa<FixedType>(type))
        return op.emitOpError() << "element type " << type
                                << ": a model is all f32 or all !nn.fixed";
      quantised = isa<FixedType>(type);
    }
  }
  if (outputs != 1)
    return emitOpError() << "needs exactly one nn.output, found " << outputs;
  if (inputs == 0)
    return emitOpError() << "needs an nn.input";
  return success();
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

namespace {
struct Shape {
  int64_t length, channels;
};
} // namespace

static Shape shapeOf(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return {type.getDimSize(0), type.getDimSize(1)};
}

/// The checks every unary layer shares, then the expected result shape.
static LogicalResult verifyResult(Operation *op, Shape expected) {
  Value input = op->getOperand(0), result = op->getResult(0);
  auto inType = cast<RankedTensorType>(input.getType());
  auto outType = cast<RankedTensorType>(result.getType());
  if (isa<FixedType>(inType.getElementType()) !=
      isa<FixedType>(outType.getElementType()))
    return op->emitOpError("input and result are not both quantised");
  Shape got = shapeOf(result);
  if (got.length != expected.length || got.channels != expected.channels)
    return op->emitOpError()
           << "result shape [" << got.length << ", " << got.channels
           << "] should be [" << expected.length << ", " << expected.channels
           << "]";
  return success();
}

/// An attribute holding a scalar of the model's kind: a float, or an integer
/// with fraction F that fits `bits`.
static LogicalResult verifyScalar(Operation *op, Attribute attr, StringRef what,
                                  FixedType fixed, unsigned bits) {
  if (!fixed) {
    if (isa<FloatAttr>(attr))
      return success();
    return op->emitOpError() << what << " must be a float";
  }
  auto integer = dyn_cast<IntegerAttr>(attr);
  if (!integer)
    return op->emitOpError() << what << " must be an integer once quantised";
  int64_t v = integer.getInt();
  if (v < fixed::minValue(bits) || v > fixed::maxValue(bits))
    return op->emitOpError()
           << what << " " << v << " does not fit " << bits << " bits";
  return success();
}

static LogicalResult verifyElements(Operation *op, ElementsAttr elements,
                                    StringRef what, FixedType fixed,
                                    unsigned bits) {
  Type type = elements.getElementType();
  if (!fixed) {
    if (isa<FloatType>(type))
      return success();
    return op->emitOpError() << what << " must hold floats";
  }
  if (!isa<IntegerType>(type))
    return op->emitOpError() << what << " must hold integers once quantised";
  for (APInt v : elements.getValues<APInt>()) {
    int64_t x = v.getSExtValue();
    if (x < fixed::minValue(bits) || x > fixed::maxValue(bits))
      return op->emitOpError()
             << what << " value " << x << " does not fit " << bits << " bits";
  }
  return success();
}

/// `rounding` and `overflow` of a layer: absent while float; once quantised
/// known names, `rounding` present when `needed`.
static LogicalResult verifyQuant(Operation *op, bool needed) {
  auto rounding = op->getAttrOfType<StringAttr>("rounding");
  auto overflow = op->getAttrOfType<StringAttr>("overflow");
  if (!getFixedType(op->getResult(0))) {
    if (rounding || overflow)
      return op->emitOpError("has 'rounding' or 'overflow' but is not "
                             "quantised");
    return success();
  }
  fixed::Rounding r;
  if ((needed || rounding) &&
      (!rounding || !fixed::parseRounding(rounding.str(), r)))
    return op->emitOpError("needs rounding = \"truncate\", \"nearest\" or "
                           "\"half_even\"");
  fixed::Overflow o;
  if (overflow && !fixed::parseOverflow(overflow.str(), o))
    return op->emitOpError("overflow must be \"saturate\" or \"wrap\"");
  return success();
}

/// A layer that requantises its input to its result's format needs a
/// rounding when it drops fraction bits.
static LogicalResult verifyConvert(Operation *op) {
  FixedType in = getFixedType(op->getOperand(0)),
            out = getFixedType(op->getResult(0));
  return verifyQuant(op, in && out && in.getFrac() > out.getFrac());
}

/// Weight, bias and accumulator of a multiply-accumulate layer with `products`
/// products per output and `outChannels` outputs.
static LogicalResult verifyMac(Operation *op, ElementsAttr weight,
                               ElementsAttr bias, int64_t products,
                               int64_t outChannels,
                               std::optional<uint64_t> accBits) {
  FixedType fixed = getFixedType(op->getOperand(0));
  FixedType w = fixed ? weightFormat(op) : FixedType();
  if (!fixed && op->getAttr("weight_format"))
    return op->emitOpError("has 'weight_format' but is not quantised");
  if (failed(verifyElements(op, weight, "weight", fixed, w ? w.getWidth() : 0)))
    return failure();
  if (bias) {
    auto shape = cast<ShapedType>(bias.getType()).getShape();
    if (shape.size() != 1 || shape[0] != outChannels)
      return op->emitOpError() << "bias needs " << outChannels << " values";
    if (failed(verifyElements(op, bias, "bias", fixed,
                              fixed ? fixed.getWidth() + w.getWidth() - 1 : 0)))
      return failure();
  }
  if (failed(verifyQuant(op, /*needed=*/true)))
    return failure();
  if (!fixed) {
    if (!accBits)
      return success();
    return op->emitOpError("has 'acc_bits' but is not quantised");
  }
  FixedType out = getFixedType(op->getResult(0));
  if (out.getFrac() > fixed.getFrac() + w.getFrac())
    return op->emitOpError()
           << "result fraction bits " << out.getFrac()
           << " exceed the product's " << fixed.getFrac() + w.getFrac()
           << " (input " << fixed.getFrac() << " + weight " << w.getFrac()
           << ")";
  unsigned needed =
      fixed::accumulatorBits(fixed.getWidth(), w.getWidth(), products);
  if (!accBits || *accBits < needed)
    return op->emitOpError()
           << "needs an accumulator of at least " << needed << " bits";
  if (*accBits > 62)
    return op->emitOpError("accumulator wider than 62 bits");
  return success();
}

LogicalResult Conv1dOp::verify() {
  Shape in = shapeOf(getInput());
  auto wShape = cast<ShapedType>(getWeight().getType()).getShape();
  if (wShape.size() != 3)
    return emitOpError("weight must be [out_channels, in_channels/groups, "
                       "kernel_size]");
  int64_t outCh = wShape[0], inPerGroup = wShape[1], kernel = wShape[2];
  int64_t groups = getGroupsAttr().getInt();
  if (groups < 1 || getStrideAttr().getInt() < 1 ||
      getPadLoAttr().getInt() < 0 || getPadHiAttr().getInt() < 0 || kernel < 1)
    return emitOpError("groups, stride and kernel_size must be positive, "
                       "padding not negative");
  if (in.channels % groups || outCh % groups)
    return emitOpError() << "groups " << groups
                         << " must divide the input channels " << in.channels
                         << " and the output channels " << outCh;
  if (in.channels / groups != inPerGroup)
    return emitOpError() << "weight has " << inPerGroup
                         << " input channels per group, the input gives "
                         << in.channels / groups;
  int64_t padded =
      in.length + getPadLoAttr().getInt() + getPadHiAttr().getInt();
  if (padded < kernel)
    return emitOpError() << "kernel_size " << kernel
                         << " exceeds the padded length " << padded;
  if (failed(verifyResult(
          *this, {(padded - kernel) / getStrideAttr().getInt() + 1, outCh})))
    return failure();
  FixedType fixed = getFixedType(getInput());
  if (failed(verifyScalar(*this, getPaddingValue(), "padding_value", fixed,
                          fixed ? fixed.getWidth() : 0)))
    return failure();
  return verifyMac(*this, getWeight(), getBiasAttr(), kernel * inPerGroup,
                   outCh, getAccBits());
}

LogicalResult LinearOp::verify() {
  Shape in = shapeOf(getInput());
  auto wShape = cast<ShapedType>(getWeight().getType()).getShape();
  if (wShape.size() != 2 || wShape[1] != in.channels)
    return emitOpError() << "weight must be [out_features, " << in.channels
                         << "]";
  if (failed(verifyResult(*this, {in.length, wShape[0]})))
    return failure();
  return verifyMac(*this, getWeight(), getBiasAttr(), in.channels, wShape[0],
                   getAccBits());
}

LogicalResult ReluOp::verify() {
  if (failed(verifyResult(*this, shapeOf(getInput()))))
    return failure();
  return verifyConvert(*this);
}

LogicalResult HardtanhOp::verify() {
  if (failed(verifyResult(*this, shapeOf(getInput()))))
    return failure();
  FixedType fixed = getFixedType(getInput());
  unsigned n = fixed ? fixed.getWidth() : 0;
  if (failed(verifyScalar(*this, getMinVal(), "min_val", fixed, n)) ||
      failed(verifyScalar(*this, getMaxVal(), "max_val", fixed, n)))
    return failure();
  bool ordered = fixed ? cast<IntegerAttr>(getMinVal()).getInt() <
                             cast<IntegerAttr>(getMaxVal()).getInt()
                       : cast<FloatAttr>(getMinVal()).getValueAsDouble() <
                             cast<FloatAttr>(getMaxVal()).getValueAsDouble();
  if (!ordered)
    return emitOpError("min_val must be below max_val");
  return verifyConvert(*this);
}

LogicalResult HardsigmoidOp::verify() {
  if (failed(verifyResult(*this, shapeOf(getInput()))))
    return failure();
  if (failed(verifyQuant(*this, /*needed=*/true)))
    return failure();
  if (getFixedType(getInput()) && getOverflow() && *getOverflow() != "saturate")
    return emitOpError("saturates its result: overflow must be \"saturate\"");
  return success();
}

/// Windows of `kernel` positions every `stride`, `padding` on both sides.
static LogicalResult verifyPool(Operation *op, int64_t kernel, int64_t stride,
                                int64_t padding) {
  Shape in = shapeOf(op->getOperand(0));
  if (kernel < 1 || stride < 1 || padding < 0)
    return op->emitOpError("kernel_size and stride must be positive, padding "
                           "not negative");
  if (2 * padding > kernel)
    return op->emitOpError() << "padding " << padding
                             << " exceeds half the kernel_size " << kernel;
  if (in.length + 2 * padding < kernel)
    return op->emitOpError()
           << "kernel_size " << kernel << " exceeds the padded length "
           << in.length + 2 * padding;
  return verifyResult(
      op, {(in.length + 2 * padding - kernel) / stride + 1, in.channels});
}

LogicalResult MaxPool1dOp::verify() {
  if (failed(verifyPool(*this, getKernelSize(), getStride(), getPadding())))
    return failure();
  return verifyConvert(*this);
}

LogicalResult AvgPool1dOp::verify() {
  if (failed(verifyPool(*this, getKernelSize(), getStride(), getPadding())))
    return failure();
  return verifyQuant(*this, /*needed=*/true);
}

LogicalResult BatchNormOp::verify() {
  Shape in = shapeOf(getInput());
  if (failed(verifyResult(*this, in)))
    return failure();
  if (getFixedType(getInput()))
    return emitOpError("cannot be quantised; fold it first "
                       "(nn-fold-batchnorm)");
  for (ElementsAttr param : {getGamma(), getBeta(), getMean(), getVariance()})
    if (param.getNumElements() != in.channels)
      return emitOpError() << "parameters need " << in.channels
                           << " values each";
  return success();
}

LogicalResult FlattenOp::verify() {
  Shape in = shapeOf(getInput());
  if (failed(verifyResult(*this, {1, in.length * in.channels})))
    return failure();
  return verifyConvert(*this);
}

/// Operands of a join are quantised when the result is; a rounding is
/// needed when one drops fraction bits.
static LogicalResult verifyJoinTypes(Operation *op) {
  FixedType out = getFixedType(op->getResult(0));
  bool drops = false;
  for (Value operand : op->getOperands()) {
    FixedType in = getFixedType(operand);
    if (bool(in) != bool(out))
      return op->emitOpError("operands and result are not all quantised");
    drops |= in && in.getFrac() > out.getFrac();
  }
  return verifyQuant(op, drops);
}

LogicalResult AddOp::verify() {
  if (failed(verifyJoinTypes(*this)))
    return failure();
  Shape a = shapeOf(getLhs()), b = shapeOf(getRhs());
  if (a.length != b.length || a.channels != b.channels)
    return emitOpError() << "operands have different shapes [" << a.length
                         << ", " << a.channels << "] and [" << b.length << ", "
                         << b.channels << "]";
  return verifyResult(*this, a);
}

LogicalResult ConcatOp::verify() {
  if (getInputs().size() < 2)
    return emitOpError() << "needs at least 2 operands, got "
                         << getInputs().size();
  if (getAxis() != "channels" && getAxis() != "length")
    return emitOpError("axis must be \"channels\" or \"length\"");
  if (failed(verifyJoinTypes(*this)))
    return failure();
  bool channels = getAxis() == "channels";
  Shape first = shapeOf(getInputs().front()), expected = first;
  for (Value operand : getInputs().drop_front()) {
    Shape s = shapeOf(operand);
    if ((channels ? s.length : s.channels) !=
        (channels ? first.length : first.channels))
      return emitOpError() << "operands along " << getAxis() << " need equal "
                           << (channels ? "lengths" : "channels") << ", got ["
                           << first.length << ", " << first.channels
                           << "] and [" << s.length << ", " << s.channels
                           << "]";
    (channels ? expected.channels : expected.length) +=
        channels ? s.channels : s.length;
  }
  return verifyResult(*this, expected);
}
