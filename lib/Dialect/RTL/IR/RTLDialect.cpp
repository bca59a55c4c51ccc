//===- RTLDialect.cpp - Streaming layer datapaths -------------------------===//
#include "unum/Dialect/RTL/IR/RTLDialect.h"
#include "unum/Dialect/NN/IR/FixedPoint.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace unum::rtl;
namespace fixed = unum::nn::fixed;

#include "unum/Dialect/RTL/IR/RTLOpsDialect.cpp.inc"

void RTLDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "unum/Dialect/RTL/IR/RTLOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "unum/Dialect/RTL/IR/RTLOps.cpp.inc"

MacParts unum::rtl::getMacParts(MacUnitOp unit) {
  auto it = unit.getBody().front().begin();
  MacParts parts;
  parts.buffer = cast<InputBufferOp>(*it++);
  parts.counters = cast<CountersOp>(*it++);
  parts.rom = cast<WeightRomOp>(*it++);
  parts.multipliers = cast<MultipliersOp>(*it++);
  parts.tree = cast<AdderTreeOp>(*it++);
  parts.accumulators = cast<AccumulatorsOp>(*it++);
  parts.requantizer = cast<RequantizerOp>(*it);
  return parts;
}

int64_t unum::rtl::getMinLineBuffer(MacUnitOp unit) {
  CountersOp c = getMacParts(unit).counters;
  return (c.getKernel() + c.getStride()) * c.getInChannels() +
         unit.getInWidth();
}

int64_t unum::rtl::getPipelineDepth(Operation *stage) {
  // a mac unit: the buffer and ROM read, the products, the accumulators,
  // the requantizer (the output register); a pool: the buffer write, the
  // window read, the output register; a join: the FIFO write, the FIFO
  // read, the output register
  if (isa<MacUnitOp>(stage))
    return 4;
  return isa<PoolOp, JoinOp>(stage) ? 3 : 1;
}

static bool fits(int64_t v, int64_t bits) {
  return v >= fixed::minValue(bits) && v <= fixed::maxValue(bits);
}

/// Every value of `values` fits `bits`; reports the first that does not.
static LogicalResult checkFits(Operation *op, ElementsAttr values, int64_t bits,
                               StringRef what) {
  if (!isa<IntegerType>(values.getElementType()))
    return op->emitOpError() << what << " must hold integers";
  for (APInt v : values.getValues<APInt>())
    if (!fits(v.getSExtValue(), bits))
      return op->emitOpError() << what << " value " << v.getSExtValue()
                               << " does not fit " << bits << " bits";
  return success();
}

StageStreams unum::rtl::getStageStreams(Operation *stage) {
  StageStreams s;
  if (auto mac = dyn_cast<MacUnitOp>(stage)) {
    s.inputs = mac.getInputs();
    s.in.push_back({mac.getInWidth(), mac.getInBeats()});
    s.out = {mac.getOutWidth(), mac.getOutBeats()};
  } else if (auto ew = dyn_cast<ElementwiseOp>(stage)) {
    s.inputs = ew.getInputs();
    s.in.push_back({ew.getWidth(), ew.getBeats()});
    s.out = s.in.front();
  } else if (auto pool = dyn_cast<PoolOp>(stage)) {
    s.inputs = pool.getInputs();
    s.in.push_back({pool.getWidth(), pool.getInBeats()});
    s.out = {pool.getWidth(), pool.getOutBeats()};
  } else if (auto join = dyn_cast<JoinOp>(stage)) {
    s.inputs = join.getInputs();
    for (auto [w, b] : llvm::zip(join.getInWidths(), join.getInBeats()))
      s.in.push_back({w, b});
    s.out = {join.getOutWidth(), join.getOutBeats()};
  }
  return s;
}

LogicalResult DesignOp::verifyRegions() {
  if (getDataBits() < 2 || getDataBits() > 16 || getFracBits() < 1 ||
      getFracBits() >= getDataBits())
    return emitOpError("needs data_bits 2 to 16 and frac_bits 1 to "
                       "data_bits - 1");
  if (getInWidth() < 1 || getInBeats() < 1)
    return emitOpError("input stream needs a positive width and beat count");
  // Streams defined so far (the input, then every stage in order), and
  // whether something reads them.
  llvm::StringMap<std::pair<Stream, bool>> streams;
  streams[getInputName()] = {{getInWidth(), getInBeats()}, false};
  for (Operation &stage : getBody().front()) {
    if (!isa<MacUnitOp, ElementwiseOp, PoolOp, JoinOp>(stage))
      return stage.emitOpError("is not a stage of an rtl.design");
    StageStreams s = getStageStreams(&stage);
    if (s.inputs.size() != s.in.size())
      return stage.emitOpError() << "reads " << s.inputs.size()
                                 << " streams but describes " << s.in.size();
    for (auto [name, expected] : llvm::zip(s.inputs, s.in)) {
      StringRef from = cast<StringAttr>(name).getValue();
      auto it = streams.find(from);
      if (it == streams.end())
        return stage.emitOpError()
               << "reads '" << from
               << "', which is neither the design input nor an earlier stage";
      Stream got = it->second.first;
      it->second.second = true;
      if (got.width != expected.width || got.beats != expected.beats)
        return stage.emitOpError()
               << "takes " << expected.beats << " beats of " << expected.width
               << " values from '" << from << "', which gives " << got.beats
               << " beats of " << got.width;
    }
    StringRef name = stage.getAttrOfType<StringAttr>("sym_name").getValue();
    if (!streams.try_emplace(name, std::make_pair(s.out, false)).second)
      return stage.emitOpError()
             << "stream name '" << name << "' is already used";
  }
  auto it = streams.find(getOutputSource());
  if (it == streams.end())
    return emitOpError() << "output_source '" << getOutputSource()
                         << "' is not a stream of the design";
  it->second.second = true;
  Stream got = it->second.first;
  if (got.width != getOutWidth() || got.beats != getOutBeats())
    return emitOpError() << "output stream is " << getOutBeats() << " beats of "
                         << getOutWidth() << " values but '"
                         << getOutputSource() << "' gives " << got.beats
                         << " beats of " << got.width;
  for (Operation &stage : getBody().front())
    if (!streams[stage.getAttrOfType<StringAttr>("sym_name").getValue()].second)
      return stage.emitOpError("is read by no stage and is not the output");
  return success();
}

LogicalResult PoolOp::verify() {
  if (getFunction() != "max" && getFunction() != "avg")
    return emitOpError("function must be max or avg");
  if (getWidth() < 1 || getInBeats() < 1 || getKernel() < 1 ||
      getStride() < 1 || getPadding() < 0 || 2 * getPadding() > getKernel() ||
      getInBeats() + 2 * getPadding() < getKernel())
    return emitOpError("needs positive sizes, padding at most half the "
                       "kernel and a kernel within the padded input");
  int64_t out =
      (getInBeats() + 2 * getPadding() - getKernel()) / getStride() + 1;
  if (getOutBeats() != out)
    return emitOpError() << "output must be " << out << " beats";
  fixed::Rounding r;
  bool rounded = getRounding() && fixed::parseRounding(getRounding()->str(), r);
  if (getFunction() == "avg" && !rounded)
    return emitOpError("avg needs rounding nearest, truncate or half_even");
  return success();
}

LogicalResult JoinOp::verify() {
  ArrayRef<int64_t> widths = getInWidths(), beats = getInBeats(),
                    depths = getFifoDepths();
  size_t n = getInputs().size();
  if (widths.size() != n || beats.size() != n || depths.size() != n)
    return emitOpError("needs one width, beat count and FIFO depth per input");
  if (n < 2)
    return emitOpError("needs at least two inputs");
  for (size_t i = 0; i < n; ++i) {
    if (widths[i] < 1 || beats[i] < 1)
      return emitOpError("input streams need positive widths and beats");
    if (depths[i] < beats[i])
      return emitOpError() << "FIFO " << i << " holds " << depths[i]
                           << " beats, less than the " << beats[i]
                           << " of an inference";
  }
  int64_t width = widths[0], count = beats[0];
  StringRef f = getFunction();
  if (f == "add") {
    if (n != 2 || widths[1] != width || beats[1] != count)
      return emitOpError("add needs two streams of equal shape");
  } else if (f == "concat_channels") {
    for (size_t i = 1; i < n; ++i) {
      if (beats[i] != count)
        return emitOpError("concat_channels needs equal beat counts");
      width += widths[i];
    }
  } else if (f == "concat_length") {
    for (size_t i = 1; i < n; ++i) {
      if (widths[i] != width)
        return emitOpError("concat_length needs equal widths");
      count += beats[i];
    }
  } else {
    return emitOpError("function must be add, concat_channels or "
                       "concat_length");
  }
  if (getOutWidth() != width || getOutBeats() != count)
    return emitOpError() << "output must be " << count << " beats of " << width
                         << " values";
  int64_t designBits = cast<DesignOp>((*this)->getParentOp()).getDataBits();
  fixed::Overflow o;
  if (getBits() && (*getBits() < 2 || *getBits() > designBits))
    return emitOpError("bits must be 2 to the design's data_bits");
  if (getOverflow() && !fixed::parseOverflow(getOverflow()->str(), o))
    return emitOpError("overflow must be saturate or wrap");
  return success();
}

LogicalResult MacUnitOp::verifyRegions() {
  Block &body = getBody().front();
  auto it = body.begin();
  auto expect = [&](auto tag) -> bool {
    using T = decltype(tag);
    return it != body.end() && isa<T>(*it++);
  };
  if (!expect(InputBufferOp()) || !expect(CountersOp()) ||
      !expect(WeightRomOp()) || !expect(MultipliersOp()) ||
      !expect(AdderTreeOp()) || !expect(AccumulatorsOp()) ||
      !expect(RequantizerOp()) || it != body.end())
    return emitOpError("needs exactly rtl.input_buffer, rtl.counters, "
                       "rtl.weight_rom, rtl.multipliers, rtl.adder_tree, "
                       "rtl.accumulators, rtl.requantizer, in this order");
  MacParts p = getMacParts(*this);
  int64_t bits = cast<DesignOp>((*this)->getParentOp()).getDataBits();
  CountersOp c = p.counters;
  int64_t outLanes = p.rom.getOutLanes(), reduceLanes = p.rom.getReduceLanes();
  int64_t terms = c.getKernel() * c.getChannelsPerGroup();
  int64_t total = c.getInLen() * c.getInChannels();
  if (total != getInWidth() * getInBeats())
    return c.emitOpError() << "counts " << total
                           << " input values, the input stream carries "
                           << getInWidth() * getInBeats();
  int64_t elements = p.buffer.getElements();
  if (elements != total &&
      (elements > total || !llvm::isPowerOf2_64(elements) ||
       elements < getMinLineBuffer(*this)))
    return p.buffer.emitOpError()
           << "must hold the whole input (" << total
           << " values) or be a power of two of at least "
           << getMinLineBuffer(*this) << " values below that";
  for (int64_t b :
       {p.buffer.getBits(), p.rom.getBits(), p.multipliers.getBits()})
    if (b != bits)
      return emitOpError() << "component width " << b
                           << " differs from the design's " << bits << " bits";
  if (c.getOutLen() != getOutBeats() || c.getOutLen() < 1 ||
      c.getBlocks() < 1 || c.getKernel() < 1 || c.getChannelsPerGroup() < 1 ||
      c.getStride() < 1 || c.getPadLo() < 0 ||
      c.getInChannels() % c.getChannelsPerGroup())
    return c.emitOpError("counter bounds are inconsistent with the unit");
  if (!fits(c.getPadValue(), bits))
    return c.emitOpError("pad_value does not fit the data width");
  if (outLanes < 1 || getOutWidth() > c.getBlocks() * outLanes ||
      getOutWidth() <= (c.getBlocks() - 1) * outLanes)
    return p.rom.emitOpError()
           << outLanes << " output lanes in " << c.getBlocks()
           << " blocks do not cover " << getOutWidth() << " output channels";
  if (reduceLanes < 1 || c.getSteps() * reduceLanes < terms ||
      (c.getSteps() - 1) * reduceLanes >= terms)
    return c.emitOpError() << c.getSteps() << " steps of " << reduceLanes
                           << " terms do not cover " << terms << " products";
  int64_t lanes = outLanes * reduceLanes;
  auto shape = cast<ShapedType>(p.rom.getValues().getType()).getShape();
  if (shape.size() != 2 || shape[0] != c.getBlocks() * c.getSteps() ||
      shape[1] != lanes)
    return p.rom.emitOpError()
           << "values must be [" << c.getBlocks() * c.getSteps() << ", "
           << lanes << "]";
  int64_t inBits = p.multipliers.getInBits().value_or(bits);
  int64_t weightBits = p.multipliers.getWeightBits().value_or(bits);
  if (inBits < 2 || inBits > bits || weightBits < 2 || weightBits > bits)
    return p.multipliers.emitOpError("in_bits and weight_bits must be 2 to "
                                     "the design's data_bits");
  if (failed(checkFits(p.rom, p.rom.getValues(), weightBits, "weight")))
    return failure();
  ArrayRef<int64_t> base = p.rom.getLaneBase();
  if (static_cast<int64_t>(base.size()) != c.getBlocks() * outLanes)
    return p.rom.emitOpError("lane_base needs one entry per block and output "
                             "lane");
  for (int64_t b : base)
    if (b < -1 || b + c.getChannelsPerGroup() > c.getInChannels())
      return p.rom.emitOpError()
             << "lane_base " << b << " is outside the input channels";
  if (p.multipliers.getCount() != lanes)
    return p.multipliers.emitOpError()
           << "needs one multiplier per weight of a ROM row (" << lanes << ")";
  int64_t accBits = p.accumulators.getBits();
  if (p.tree.getCount() != outLanes || p.tree.getInputs() != reduceLanes ||
      p.tree.getBits() != accBits)
    return p.tree.emitOpError("needs one tree per output lane over its "
                              "reduction lanes, as wide as the accumulator");
  if (p.accumulators.getCount() != outLanes)
    return p.accumulators.emitOpError("needs one accumulator per output lane");
  unsigned needed = fixed::accumulatorBits(inBits, weightBits, terms);
  if (accBits < needed || accBits > 62)
    return p.accumulators.emitOpError()
           << "needs " << needed << " to 62 bits for " << terms << " products";
  RequantizerOp rq = p.requantizer;
  fixed::Rounding r;
  fixed::Overflow o;
  if (!fixed::parseRounding(rq.getRounding().str(), r))
    return rq.emitOpError("rounding must be nearest, truncate or half_even");
  if (rq.getOverflow() && !fixed::parseOverflow(rq.getOverflow()->str(), o))
    return rq.emitOpError("overflow must be saturate or wrap");
  if (rq.getBits() < 2 || rq.getBits() > bits)
    return rq.emitOpError("bits must be 2 to the design's data_bits");
  if (rq.getShift() < 0 || rq.getShift() >= accBits)
    return rq.emitOpError("shift must be 0 to the accumulator width - 1");
  if (rq.getBias().getNumElements() != c.getBlocks() * outLanes)
    return rq.emitOpError("bias needs one value per block and output lane");
  return checkFits(rq, rq.getBias(), inBits + weightBits - 1, "bias");
}

LogicalResult ElementwiseOp::verify() {
  int64_t bits = cast<DesignOp>((*this)->getParentOp()).getDataBits();
  StringRef f = getFunction();
  if (f != "clamp" && f != "hardsigmoid" && f != "requantize")
    return emitOpError("function must be clamp, hardsigmoid or requantize");
  if (!fits(getLo(), bits) || !fits(getHi(), bits) || getLo() > getHi())
    return emitOpError("needs lo <= hi within the data width");
  bool converts = getInFrac() || getOutFrac() || getBits();
  if (converts && (!getInFrac() || !getOutFrac() || !getBits()))
    return emitOpError("needs in_frac, out_frac and bits together");
  if ((f != "clamp" || getRounding() || getOverflow()) && !converts)
    return emitOpError() << f << " needs in_frac, out_frac and bits";
  if (converts && (*getInFrac() < 0 || *getInFrac() > 15 || *getOutFrac() < 0 ||
                   *getOutFrac() > 15 || *getBits() < 2 || *getBits() > bits))
    return emitOpError("needs fractions 0 to 15 and bits 2 to the design's");
  fixed::Rounding r;
  fixed::Overflow o;
  if (converts &&
      (!getRounding() || !fixed::parseRounding(getRounding()->str(), r)))
    return emitOpError("needs rounding nearest, truncate or half_even");
  if (getOverflow() && !fixed::parseOverflow(getOverflow()->str(), o))
    return emitOpError("overflow must be saturate or wrap");
  if (f == "hardsigmoid" && getOverflow() && *getOverflow() != "saturate")
    return emitOpError("hardsigmoid saturates");
  return success();
}
