//===- NNToRTL.cpp - Quantised nn models to rtl datapaths -----------------===//
#include "unum/Conversion/Passes.h"
#include "unum/Dialect/NN/IR/FixedPoint.h"
#include "unum/Dialect/NN/IR/NNDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

namespace unum {
#define GEN_PASS_DEF_CONVERTNNTORTL
#include "unum/Conversion/Passes.h.inc"
} // namespace unum

using namespace mlir;
using namespace unum;
namespace fixed = unum::nn::fixed;

namespace {
using rtl::Stream;

/// Where a value of the nn model comes from in the design: the stream's
/// name (the design input or a stage) and shape. A flatten changes neither.
struct Source {
  StringAttr name;
  Stream stream;
};

struct ConvertNNToRTL : unum::impl::ConvertNNToRTLBase<ConvertNNToRTL> {
  using ConvertNNToRTLBase::ConvertNNToRTLBase;

  /// Splits the P multipliers into output lanes (one output channel each)
  /// and reduction lanes (terms of the same output, summed by an adder
  /// tree), whichever takes the fewest cycles; ties keep more output lanes,
  /// which need no adders.
  static std::pair<int64_t, int64_t> chooseLanes(int64_t p, int64_t outCh,
                                                 int64_t terms) {
    std::pair<int64_t, int64_t> best{1, 1};
    int64_t bestCycles = -1;
    for (int64_t po = std::min(p, outCh); po >= 1; --po) {
      int64_t pr = std::min(p / po, terms);
      int64_t cycles = ((outCh + po - 1) / po) * ((terms + pr - 1) / pr);
      if (bestCycles < 0 || cycles < bestCycles) {
        best = {po, pr};
        bestCycles = cycles;
      }
    }
    return best;
  }

  /// Lays the weights out: address b * steps + s, column o * pr + r holds the
  /// weight of output channel b * po + o for term s * pr + r (term t is tap
  /// t / cpg, channel t % cpg); zeros past the last channel or term.
  void buildMac(OpBuilder &b, Location loc, StringRef name, ArrayAttr inputs,
                const nn::MacLayer &m, Stream in, unsigned bits) {
    int64_t cpg = m.inCh / m.groups, outPerGroup = m.outCh / m.groups;
    int64_t terms = m.kernel * cpg;
    auto [po, pr] = chooseLanes(parallelism, m.outCh, terms);
    int64_t blocks = (m.outCh + po - 1) / po, steps = (terms + pr - 1) / pr;
    SmallVector<APInt> rom, bias;
    SmallVector<int64_t> laneBase;
    for (int64_t blk = 0; blk < blocks; ++blk) {
      for (int64_t o = 0; o < po; ++o) {
        int64_t ch = blk * po + o;
        laneBase.push_back(ch < m.outCh ? (ch / outPerGroup) * cpg : -1);
        bias.emplace_back(64, ch < m.outCh && !m.bias.empty() ? m.bias[ch] : 0,
                          true);
      }
      for (int64_t step = 0; step < steps; ++step)
        for (int64_t o = 0; o < po; ++o)
          for (int64_t r = 0; r < pr; ++r) {
            int64_t ch = blk * po + o, t = step * pr + r;
            int64_t w =
                ch < m.outCh && t < terms
                    ? m.weight[(ch * cpg + t % cpg) * m.kernel + t / cpg]
                    : 0;
            rom.emplace_back(32, w, true);
          }
    }
    auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
    auto unit = rtl::MacUnitOp::create(b, loc, b.getStringAttr(name), inputs,
                                       i64(in.width), i64(in.beats),
                                       i64(m.outCh), i64(m.outLen));
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(&unit.getBody());
    // A line buffer when a power of two below the whole input holds the
    // rows of a window and the next stride (rtl::getMinLineBuffer).
    int64_t total = m.inLen * m.inCh;
    int64_t lines =
        int64_t(llvm::PowerOf2Ceil((m.kernel + m.stride) * m.inCh + in.width));
    rtl::InputBufferOp::create(b, loc, i64(lines < total ? lines : total),
                               i64(bits));
    rtl::CountersOp::create(b, loc, i64(m.outLen), i64(blocks), i64(steps),
                            i64(m.kernel), i64(cpg), i64(m.inLen), i64(m.inCh),
                            i64(m.stride), i64(m.padLo), i64(m.padValue));
    auto romType =
        RankedTensorType::get({blocks * steps, po * pr}, b.getIntegerType(32));
    rtl::WeightRomOp::create(b, loc, i64(po), i64(pr), i64(bits),
                             DenseElementsAttr::get(romType, rom),
                             b.getDenseI64ArrayAttr(laneBase));
    rtl::MultipliersOp::create(b, loc, i64(po * pr), i64(bits), i64(m.inBits),
                               i64(m.weightBits));
    rtl::AdderTreeOp::create(b, loc, i64(po), i64(pr), i64(m.accBits));
    rtl::AccumulatorsOp::create(b, loc, i64(po), i64(m.accBits));
    auto biasType = RankedTensorType::get({blocks * po}, b.getIntegerType(64));
    rtl::RequantizerOp::create(
        b, loc, i64(m.inFrac + m.weightFrac - m.outFrac),
        b.getStringAttr(fixed::roundingName(m.rounding)), i64(m.outBits),
        DenseElementsAttr::get(biasType, bias),
        b.getStringAttr(fixed::overflowName(m.overflow)));
  }

  /// An add or concat: the operands' streams must line up beat for beat
  /// with their logical shapes, which a flatten (beats of the layer before
  /// it) can break.
  LogicalResult buildJoin(OpBuilder &b, Operation &op, StringAttr name,
                          ArrayRef<Source> operands, Stream &out) {
    auto shape = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getShape();
    };
    StringRef function = "add";
    if (auto concat = dyn_cast<nn::ConcatOp>(op))
      function =
          concat.getAxis() == "channels" ? "concat_channels" : "concat_length";
    SmallVector<Attribute> inputs;
    SmallVector<int64_t> widths, beats;
    for (auto [i, source] : llvm::enumerate(operands)) {
      // channels: beat l must be position l; add: equal streams (checked
      // below); length: equal beat widths.
      if (function == "concat_channels" &&
          source.stream.beats != shape(op.getOperand(i))[0])
        return op.emitOpError()
               << "operand " << i << " arrives as " << source.stream.beats
               << " beats, not one per position (after a flatten): the "
                  "hardware cannot concatenate its channels";
      inputs.push_back(source.name);
      widths.push_back(source.stream.width);
      beats.push_back(source.stream.beats);
    }
    if (function == "add" && (widths[0] != widths[1] || beats[0] != beats[1]))
      return op.emitOpError()
             << "operands arrive as " << beats[0] << " beats of " << widths[0]
             << " and " << beats[1] << " beats of " << widths[1]
             << " values (a flatten keeps the beats of the layer before it): "
                "the hardware cannot add them";
    if (function == "concat_length")
      for (int64_t w : widths)
        if (w != widths[0])
          return op.emitOpError()
                 << "operands arrive as beats of " << widths[0] << " and " << w
                 << " values (a flatten keeps the beats of the layer before "
                    "it): the hardware cannot concatenate them";
    out =
        function == "concat_channels"
            ? Stream{std::accumulate(widths.begin(), widths.end(), int64_t(0)),
                     beats[0]}
        : function == "concat_length"
            ? Stream{widths[0],
                     std::accumulate(beats.begin(), beats.end(), int64_t(0))}
            : Stream{widths[0], beats[0]};
    nn::FixedType format = nn::getFixedType(op.getResult(0));
    // Two whole inferences per FIFO: a branch may run an inference ahead
    // (the stages take the next inference while they finish one), so that
    // a fork feeding the join never throttles the pipeline.
    SmallVector<int64_t> depths;
    for (int64_t n : beats)
      depths.push_back(2 * n);
    rtl::JoinOp::create(
        b, op.getLoc(), name, b.getStringAttr(function), b.getArrayAttr(inputs),
        b.getDenseI64ArrayAttr(widths), b.getDenseI64ArrayAttr(beats),
        b.getDenseI64ArrayAttr(depths), b.getI64IntegerAttr(out.width),
        b.getI64IntegerAttr(out.beats), b.getI64IntegerAttr(format.getWidth()),
        b.getStringAttr(fixed::overflowName(nn::getRequant(&op).overflow)));
    return success();
  }

  /// A pooling stage; its input must arrive one beat per position.
  LogicalResult buildPool(OpBuilder &b, Operation &op, StringAttr name,
                          ArrayAttr inputs, Stream &stream) {
    auto in = cast<RankedTensorType>(op.getOperand(0).getType()).getShape();
    auto out = cast<RankedTensorType>(op.getResult(0).getType()).getShape();
    if (stream.beats != in[0])
      return op.emitOpError()
             << "input arrives as " << stream.beats
             << " beats, not one per position (after a flatten): the "
                "hardware cannot pool it";
    auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
    if (auto max = dyn_cast<nn::MaxPool1dOp>(op))
      rtl::PoolOp::create(
          b, op.getLoc(), name, b.getStringAttr("max"), inputs, i64(in[1]),
          i64(in[0]), i64(out[0]), max.getKernelSizeAttr(), max.getStrideAttr(),
          max.getPaddingAttr(), b.getBoolAttr(true), StringAttr());
    else if (auto avg = dyn_cast<nn::AvgPool1dOp>(op))
      rtl::PoolOp::create(b, op.getLoc(), name, b.getStringAttr("avg"), inputs,
                          i64(in[1]), i64(in[0]), i64(out[0]),
                          avg.getKernelSizeAttr(), avg.getStrideAttr(),
                          avg.getPaddingAttr(), avg.getCountIncludePadAttr(),
                          avg.getRoundingAttr());
    stream = {in[1], out[0]};
    return success();
  }

  /// The formats of layer `op` (for report.json), hls4ml's spelling:
  /// input, result (and weight and accumulator of a conv1d/linear),
  /// rounding, overflow.
  static DictionaryAttr formatOf(OpBuilder &b, Operation &op,
                                 nn::FixedType from, nn::FixedType to) {
    auto spell = [&](int64_t bits, int64_t frac) {
      return b.getStringAttr("ap_fixed<" + std::to_string(bits) + ", " +
                             std::to_string(bits - frac) + ">");
    };
    nn::Requant rq = nn::getRequant(&op);
    SmallVector<NamedAttribute> fields{
        b.getNamedAttr("input", spell(from.getWidth(), from.getFrac())),
        b.getNamedAttr("result", spell(to.getWidth(), to.getFrac())),
        b.getNamedAttr("rounding",
                       b.getStringAttr(fixed::roundingName(rq.rounding))),
        b.getNamedAttr("overflow",
                       b.getStringAttr(fixed::overflowName(rq.overflow)))};
    if (isa<nn::Conv1dOp, nn::LinearOp>(op)) {
      nn::MacLayer m = nn::getMacLayer(&op);
      fields.push_back(
          b.getNamedAttr("weight", spell(m.weightBits, m.weightFrac)));
      fields.push_back(
          b.getNamedAttr("accum", spell(m.accBits, m.inFrac + m.weightFrac)));
    }
    return b.getDictionaryAttr(fields);
  }

  /// A name for a stage the lowering adds, unlike every layer's.
  StringAttr freshName(OpBuilder &b, const Twine &base) {
    std::string name = base.str();
    for (int i = 2; !usedNames.insert(name).second; ++i)
      name = (base + Twine(i)).str();
    return b.getStringAttr(name);
  }
  llvm::StringSet<> usedNames;

  /// An elementwise stage: `function` with bounds [lo, hi] in `from`'s
  /// format, then (when `from` and `to` differ, or for hardsigmoid) `to`'s
  /// format with the layer's rounding and overflow.
  void buildElementwise(OpBuilder &b, Operation &op, StringAttr name,
                        ArrayAttr inputs, Stream stream, StringRef function,
                        int64_t lo, int64_t hi, nn::FixedType from,
                        nn::FixedType to) {
    auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
    nn::Requant rq = nn::getRequant(&op);
    bool converts = from != to || function == "hardsigmoid";
    rtl::ElementwiseOp::create(
        b, op.getLoc(), name, inputs, i64(stream.width), i64(stream.beats),
        b.getStringAttr(function), i64(lo), i64(hi),
        converts ? i64(from.getFrac()) : IntegerAttr(),
        converts ? i64(to.getFrac()) : IntegerAttr(),
        converts ? i64(to.getWidth()) : IntegerAttr(),
        converts ? b.getStringAttr(fixed::roundingName(rq.rounding))
                 : StringAttr(),
        converts ? b.getStringAttr(fixed::overflowName(rq.overflow))
                 : StringAttr());
  }

  /// `source` (of format `from`) in format `to`: itself, or a requantize
  /// stage after it.
  Source requantize(OpBuilder &b, Operation &op, Source source,
                    nn::FixedType from, nn::FixedType to, unsigned bits,
                    const Twine &base) {
    if (from == to)
      return source;
    StringAttr name = freshName(b, base);
    buildElementwise(b, op, name, b.getArrayAttr({source.name}), source.stream,
                     "requantize", fixed::minValue(bits), fixed::maxValue(bits),
                     from, to);
    return {name, source.stream};
  }

  LogicalResult convert(nn::ModelOp model) {
    OpBuilder b(model);
    if (llvm::range_size(model.getBody().getOps<nn::InputOp>()) != 1)
      return model.emitOpError("needs exactly one input (run "
                               "nn-dead-node-elim)");
    nn::InputOp input = *model.getBody().getOps<nn::InputOp>().begin();
    auto inType = cast<RankedTensorType>(input.getType());
    auto fixedType = dyn_cast<nn::FixedType>(inType.getElementType());
    if (!fixedType)
      return model.emitOpError("must be quantised first (nn-quantize)");
    // Every stream carries values of the widest format (weights included);
    // each value stays within its own format's range.
    unsigned bits = 0;
    usedNames.clear();
    for (Operation &op : model.getBody().front()) {
      if (auto name = op.getAttrOfType<StringAttr>("name"))
        usedNames.insert(name.getValue());
      for (Value result : op.getResults())
        bits = std::max(bits, nn::getFixedType(result).getWidth());
      if (isa<nn::Conv1dOp, nn::LinearOp>(op))
        bits = std::max(bits, nn::getMacLayer(&op).weightBits);
    }
    auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
    auto design = rtl::DesignOp::create(
        b, model.getLoc(), model.getSymNameAttr(), i64(bits),
        i64(fixedType.getFrac()), input.getNameAttr(),
        i64(inType.getDimSize(1)), i64(inType.getDimSize(0)),
        input.getNameAttr(), i64(0), i64(0));
    b.createBlock(&design.getBody());
    llvm::DenseMap<Value, Source> sources;
    for (Operation &op : model.getBody().front()) {
      Location loc = op.getLoc();
      auto name = op.getAttrOfType<StringAttr>("name");
      SmallVector<Source> operands;
      for (Value operand : op.getOperands())
        operands.push_back(sources.lookup(operand));
      if (auto in = dyn_cast<nn::InputOp>(op)) {
        sources[in.getResult()] = {
            name, {inType.getDimSize(1), inType.getDimSize(0)}};
        continue;
      }
      if (auto output = dyn_cast<nn::OutputOp>(op)) {
        design.setOutputSourceAttr(operands.front().name);
        design.setOutWidthAttr(i64(operands.front().stream.width));
        design.setOutBeatsAttr(i64(operands.front().stream.beats));
        continue;
      }
      nn::FixedType from = nn::getFixedType(op.getOperand(0)),
                    to = nn::getFixedType(op.getResult(0));
      Stream stream = operands.front().stream;
      ArrayAttr inputs = b.getArrayAttr({operands.front().name});
      Block &stages = design.getBody().front();
      Operation *before = stages.empty() ? nullptr : &stages.back();
      // a flatten's stream is its operand's, requantised when its format
      // differs (a stage named after it)
      std::optional<Source> flat;
      if (isa<nn::FlattenOp>(op)) {
        flat = requantize(b, op, operands.front(), from, to, bits, name.str());
      } else if (isa<nn::Conv1dOp, nn::LinearOp>(op)) {
        nn::MacLayer m = nn::getMacLayer(&op);
        buildMac(b, loc, name, inputs, m, stream, bits);
        stream = {m.outCh, m.outLen};
      } else if (isa<nn::AddOp, nn::ConcatOp>(op)) {
        for (auto [i, operand] : llvm::enumerate(op.getOperands()))
          operands[i] =
              requantize(b, op, operands[i], nn::getFixedType(operand), to,
                         bits, name.str() + "_in" + std::to_string(i));
        if (failed(buildJoin(b, op, name, operands, stream)))
          return failure();
      } else if (isa<nn::MaxPool1dOp, nn::AvgPool1dOp>(op)) {
        StringAttr pool =
            from == to ? name : freshName(b, name.str() + "_pool");
        if (failed(buildPool(b, op, pool, inputs, stream)))
          return failure();
        if (from != to)
          buildElementwise(b, op, name, b.getArrayAttr({pool}), stream,
                           "requantize", fixed::minValue(bits),
                           fixed::maxValue(bits), from, to);
      } else if (isa<nn::ReluOp>(op)) {
        buildElementwise(b, op, name, inputs, stream, "clamp", 0,
                         fixed::maxValue(from.getWidth()), from, to);
      } else if (auto tanh = dyn_cast<nn::HardtanhOp>(op)) {
        buildElementwise(b, op, name, inputs, stream, "clamp",
                         cast<IntegerAttr>(tanh.getMinVal()).getInt(),
                         cast<IntegerAttr>(tanh.getMaxVal()).getInt(), from,
                         to);
      } else if (isa<nn::HardsigmoidOp>(op)) {
        buildElementwise(b, op, name, inputs, stream, "hardsigmoid", 0,
                         std::min(int64_t(1) << to.getFrac(),
                                  fixed::maxValue(to.getWidth())),
                         from, to);
      } else {
        return op.emitOpError("has no hardware lowering (fold batchnorm "
                              "first)");
      }
      // the layer's formats on each of its stages, for report.json
      DictionaryAttr format = formatOf(b, op, from, to);
      Operation *first = before           ? before->getNextNode()
                         : stages.empty() ? nullptr
                                          : &stages.front();
      for (Operation *stage = first; stage; stage = stage->getNextNode())
        stage->setAttr("rtl.format", format);
      sources[op.getResult(0)] = flat ? *flat : Source{name, stream};
    }
    return success();
  }

  void runOnOperation() override {
    if (parallelism < 1) {
      getOperation().emitError("convert-nn-to-rtl: parallelism must be >= 1");
      return signalPassFailure();
    }
    SmallVector<nn::ModelOp> models(getOperation().getOps<nn::ModelOp>());
    for (nn::ModelOp model : models) {
      if (failed(convert(model)))
        return signalPassFailure();
      model.erase();
    }
  }
};
} // namespace
