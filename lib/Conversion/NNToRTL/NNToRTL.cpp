//===- NNToRTL.cpp - Quantised nn models to rtl datapaths -----------------===//
#include "unum/Conversion/Passes.h"
#include "unum/Dialect/NN/IR/FixedPoint.h"
#include "unum/Dialect/NN/IR/NNDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

namespace unum {
#define GEN_PASS_DEF_CONVERTNNTORTL
#include "unum/Conversion/Passes.h.inc"
} // namespace unum

using namespace mlir;
using namespace unum;
namespace fixed = unum::nn::fixed;

namespace {
struct Stream {
  int64_t width, beats;
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
  void buildMac(OpBuilder &b, Location loc, StringRef name,
                const nn::MacLayer &m, Stream in, unsigned bits,
                unsigned frac) {
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
    auto unit =
        rtl::MacUnitOp::create(b, loc, b.getStringAttr(name), i64(in.width),
                               i64(in.beats), i64(m.outCh), i64(m.outLen));
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
    rtl::MultipliersOp::create(b, loc, i64(po * pr), i64(bits));
    rtl::AdderTreeOp::create(b, loc, i64(po), i64(pr), i64(m.accBits));
    rtl::AccumulatorsOp::create(b, loc, i64(po), i64(m.accBits));
    auto biasType = RankedTensorType::get({blocks * po}, b.getIntegerType(64));
    rtl::RequantizerOp::create(
        b, loc, i64(frac), b.getStringAttr(m.nearest ? "nearest" : "truncate"),
        i64(bits), DenseElementsAttr::get(biasType, bias));
  }

  LogicalResult convert(nn::ModelOp model) {
    OpBuilder b(model);
    nn::InputOp input = *model.getBody().getOps<nn::InputOp>().begin();
    auto inType = cast<RankedTensorType>(input.getType());
    auto fixedType = dyn_cast<nn::FixedType>(inType.getElementType());
    if (!fixedType)
      return model.emitOpError("must be quantised first (nn-quantize)");
    if (llvm::range_size(model.getBody().getOps<nn::InputOp>()) != 1)
      return model.emitOpError("needs exactly one input (run "
                               "nn-dead-node-elim)");
    unsigned bits = fixedType.getWidth(), frac = fixedType.getFrac();
    auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
    auto design = rtl::DesignOp::create(
        b, model.getLoc(), model.getSymNameAttr(), i64(bits), i64(frac),
        i64(inType.getDimSize(1)), i64(inType.getDimSize(0)), i64(0), i64(0));
    b.createBlock(&design.getBody());
    Stream stream{inType.getDimSize(1), inType.getDimSize(0)};
    for (Operation &op : model.getBody().front()) {
      Location loc = op.getLoc();
      auto name = op.getAttrOfType<StringAttr>("name");
      auto clamp = [&](int64_t lo, int64_t hi) {
        rtl::ElementwiseOp::create(b, loc, name, i64(stream.width),
                                   i64(stream.beats), b.getStringAttr("clamp"),
                                   i64(lo), i64(hi), IntegerAttr(),
                                   StringAttr());
      };
      if (isa<nn::Conv1dOp, nn::LinearOp>(op)) {
        nn::MacLayer m = nn::getMacLayer(&op);
        buildMac(b, loc, name, m, stream, bits, frac);
        stream = {m.outCh, m.outLen};
      } else if (isa<nn::ReluOp>(op)) {
        clamp(0, fixed::maxValue(bits));
      } else if (auto tanh = dyn_cast<nn::HardtanhOp>(op)) {
        clamp(cast<IntegerAttr>(tanh.getMinVal()).getInt(),
              cast<IntegerAttr>(tanh.getMaxVal()).getInt());
      } else if (auto sigmoid = dyn_cast<nn::HardsigmoidOp>(op)) {
        rtl::ElementwiseOp::create(
            b, loc, name, i64(stream.width), i64(stream.beats),
            b.getStringAttr("hardsigmoid"), i64(0),
            i64(std::min(int64_t(1) << frac, fixed::maxValue(bits))),
            b.getI64IntegerAttr(*sigmoid.getSlope()),
            b.getStringAttr(*sigmoid.getRounding()));
      } else if (!isa<nn::InputOp, nn::OutputOp, nn::FlattenOp>(op)) {
        return op.emitOpError("has no hardware lowering (fold batchnorm "
                              "first)");
      }
    }
    design.setOutWidthAttr(i64(stream.width));
    design.setOutBeatsAttr(i64(stream.beats));
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
