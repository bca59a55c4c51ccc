//===- Timing.cpp - cycle model of an emitted design ----------------------===//
//
// Every stage's registers that decide when beats move (not the data), with
// the same update rules as the VHDL processes in ExportVHDL.cpp: each cycle
// first evaluates the combinational valid/ready signals (valids come from
// registers; readies are computed from the output backwards, since an
// elementwise stage's in_ready and a fork's in_ready depend on their
// readers'), then updates every register from the values before the edge.
//
//===----------------------------------------------------------------------===//
#include "Timing.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>

using namespace mlir;
using namespace unum;
using namespace unum::rtl;
using namespace unum::vhdl;

uint32_t unum::vhdl::stallStep(uint32_t lfsr) {
  // Galois LFSR x^16 + x^14 + x^13 + x^11 + 1 (period 65535)
  return (lfsr >> 1) ^ ((lfsr & 1) ? 0xB400u : 0u);
}

namespace {
/// The registers of one stage that decide when beats move.
struct StageModel {
  enum Kind { Mac, Pool, Join, Elementwise } kind;
  // mac unit
  MacCounters mac{};
  int64_t beatsIn = 0, loaded = 0, wbank = 0, rbank = 0, pos = 0, blk = 0;
  int64_t step = 0;
  bool issued = false;
  /// row ends in the registers between issue and the output register
  std::vector<bool> pipe;
  // pool: beats in and out, window
  int64_t inLen = 0, outLen = 0, kernel = 0, stride = 0, padLo = 0;
  int64_t rows = 0;
  bool wValid = false; // a window read, for the output register
  // join
  bool concatLength = false;
  std::vector<int64_t> depth, beats, count, peak;
  /// entries written before the last edge (the registered read port's)
  std::vector<int64_t> visible;
  int64_t part = 0, sent = 0;
  // all
  bool oValid = false;
  int64_t outBeats = 0;

  int64_t macNeed(int64_t l) const {
    int64_t last = l * mac.stride + mac.kernel - 1 - mac.padLo;
    last = std::min(last, mac.inLen - 1);
    return last < 0 ? 1 : (last + 1) * mac.inChannels;
  }
  int64_t macFirst(int64_t l) const {
    return l * mac.stride < mac.padLo
               ? 0
               : (l * mac.stride - mac.padLo) * mac.inChannels;
  }
  int64_t poolNeed(int64_t l) const {
    int64_t v = l * stride + kernel - padLo;
    return v > inLen ? inLen : (v < 1 ? 1 : v);
  }
  bool ahead() const { return wbank != rbank; }

  /// in_ready of input port `port`, given the stage's out_ready.
  bool inReady(size_t port, bool outReady) const {
    switch (kind) {
    case Mac:
      return beatsIn < mac.inBeats &&
             ((ahead() && loaded + mac.inWidth <= mac.bankElements) ||
              (!ahead() && (issued || loaded + mac.inWidth <=
                                          macFirst(pos) + mac.bankElements)));
    case Pool:
      return rows < inLen;
    case Join:
      return count[port] < depth[port];
    case Elementwise:
      return !oValid || outReady;
    }
    return false;
  }

  /// Updates the registers at a clock edge; returns whether the stage did
  /// work (issued a MAC, produced an output).
  bool clock(const std::vector<bool> &inValid, bool outReady) {
    bool work = false;
    StageModel next = *this;
    if (oValid && outReady)
      next.oValid = false;
    switch (kind) {
    case Mac: {
      bool stall = pipe.back() && oValid && !outReady;
      int64_t avail = ahead() ? mac.elements : loaded;
      bool issue = !issued && !stall && avail >= macNeed(pos);
      if (inValid[0] && inReady(0, outReady)) {
        if (beatsIn == mac.inBeats - 1 && !ahead()) {
          next.beatsIn = next.loaded = 0;
          next.wbank = 1 - wbank;
        } else {
          ++next.beatsIn;
          next.loaded += mac.inWidth;
        }
      } else if (beatsIn == mac.inBeats && !ahead()) {
        next.beatsIn = next.loaded = 0;
        next.wbank = 1 - wbank;
      }
      if (issued && ahead()) {
        next.issued = false;
        next.rbank = 1 - rbank;
      }
      if (!stall) {
        if (pipe.back())
          next.oValid = true;
        for (size_t i = pipe.size() - 1; i > 0; --i)
          next.pipe[i] = pipe[i - 1];
        next.pipe[0] = issue && step == mac.steps - 1 && blk == mac.blocks - 1;
        if (issue) {
          work = true;
          if (step < mac.steps - 1) {
            ++next.step;
          } else if (blk < mac.blocks - 1) {
            next.step = 0;
            ++next.blk;
          } else {
            next.step = next.blk = 0;
            if (pos < mac.outLen - 1) {
              ++next.pos;
            } else {
              next.pos = 0;
              if (ahead())
                next.rbank = 1 - rbank;
              else
                next.issued = true;
            }
          }
        }
      }
      break;
    }
    case Pool: {
      int64_t avail = ahead() ? inLen : rows;
      bool move = !oValid || outReady;
      bool fire = pos < outLen && avail >= poolNeed(pos) && (!wValid || move);
      if (inValid[0] && rows < inLen) {
        if (rows == inLen - 1 && !ahead()) {
          next.rows = 0;
          next.wbank = 1 - wbank;
        } else {
          ++next.rows;
        }
      } else if (rows == inLen && !ahead()) {
        next.rows = 0;
        next.wbank = 1 - wbank;
      }
      if (move)
        next.oValid = wValid;
      if (fire) {
        work = next.wValid = true;
        if (pos == outLen - 1 && ahead()) {
          next.pos = 0;
          next.rbank = 1 - rbank;
        } else {
          ++next.pos;
        }
      } else {
        if (move)
          next.wValid = false;
        if (pos == outLen && ahead()) {
          next.pos = 0;
          next.rbank = 1 - rbank;
        }
      }
      break;
    }
    case Join: {
      bool available = true;
      if (concatLength)
        available = visible[part] > 0;
      else
        for (int64_t v : visible)
          available = available && v > 0;
      bool fire = (!oValid || outReady) && available;
      for (size_t i = 0; i < count.size(); ++i) {
        bool push = inValid[i] && count[i] < depth[i];
        bool pop = fire && (!concatLength || part == int64_t(i));
        if (push)
          next.peak[i] = std::max(peak[i], count[i]);
        next.visible[i] = count[i] - int64_t(pop);
        next.count[i] += int64_t(push) - int64_t(pop);
      }
      if (fire) {
        work = next.oValid = true;
        if (concatLength) {
          if (sent == beats[part] - 1) {
            next.sent = 0;
            next.part = (part + 1) % int64_t(count.size());
          } else {
            ++next.sent;
          }
        }
      }
      break;
    }
    case Elementwise:
      if (!oValid || outReady)
        next.oValid = inValid[0];
      break;
    }
    *this = std::move(next);
    return work;
  }

  /// Whether the stage holds beats or work of an inference.
  bool busy() const {
    bool any = oValid || wValid || beatsIn || rows || issued || pos || step ||
               blk || llvm::is_contained(pipe, true);
    return any || llvm::any_of(count, [](int64_t c) { return c > 0; });
  }
};

StageModel modelOf(Operation &stage, const MacCounters *mac,
                   ArrayRef<int64_t> fifoDepths) {
  StageModel m;
  m.outBeats = getStageStreams(&stage).out.beats;
  if (mac) {
    m.kind = StageModel::Mac;
    m.mac = *mac;
    m.pipe.assign(std::max<int64_t>(getPipelineDepth(&stage) - 1, 1), false);
  } else if (auto pool = dyn_cast<PoolOp>(stage)) {
    m.kind = StageModel::Pool;
    m.inLen = pool.getInBeats();
    m.outLen = pool.getOutBeats();
    m.kernel = pool.getKernel();
    m.stride = pool.getStride();
    m.padLo = pool.getPadding();
  } else if (auto join = dyn_cast<JoinOp>(stage)) {
    m.kind = StageModel::Join;
    m.concatLength = join.getFunction() == "concat_length";
    m.depth.assign(fifoDepths.begin(), fifoDepths.end());
    m.beats.assign(join.getInBeats().begin(), join.getInBeats().end());
    m.count.assign(m.depth.size(), 0);
    m.peak.assign(m.depth.size(), 0);
    m.visible.assign(m.depth.size(), 0);
  } else {
    m.kind = StageModel::Elementwise;
  }
  return m;
}
} // namespace

Timing unum::vhdl::simulateTiming(DesignOp design,
                                  ArrayRef<const MacCounters *> macs,
                                  ArrayRef<std::vector<int64_t>> fifoDepths,
                                  const Drive &drive) {
  // The stream graph: producer 0 is the design input, producer i + 1 stage
  // i; a reader is (stage, port), stage -1 being the testbench.
  std::vector<StageModel> stages;
  std::vector<std::vector<std::pair<int, int>>> readers(1);
  llvm::StringMap<size_t> producer;
  producer[design.getInputName()] = 0;
  for (Operation &stage : design.getBody().front()) {
    size_t s = stages.size();
    stages.push_back(modelOf(stage, macs[s], fifoDepths[s]));
    StageStreams io = getStageStreams(&stage);
    for (size_t port = 0; port < io.inputs.size(); ++port)
      readers[producer.lookup(cast<StringAttr>(io.inputs[port]).getValue())]
          .push_back({int(s), int(port)});
    producer[stage.getAttrOfType<StringAttr>("sym_name").getValue()] = s + 1;
    readers.emplace_back();
  }
  size_t outP = producer.lookup(design.getOutputSource());
  readers[outP].push_back({-1, 0});
  size_t n = stages.size(), producers = n + 1;
  // a fork's readers that have taken the current beat
  std::vector<std::vector<bool>> taken(producers);
  for (size_t p = 0; p < producers; ++p)
    taken[p].assign(readers[p].size(), false);

  Timing t;
  t.stageStart.assign(n, -1);
  t.stageLatency.assign(n, -1);
  std::vector<int64_t> stageOuts(n, 0), starts;
  const int64_t inBeats = design.getInBeats(), outBeats = design.getOutBeats();
  // the source: the testbench takes reset away after two edges
  int64_t inference = 0, beat = 0, validFrom = 2, outs = 0, lastEnd = -1;
  bool waiting = false; // for the previous inferences to finish
  uint32_t lfsr = drive.stallSeed;
  int64_t lastEvent = 0;

  std::vector<bool> valid(producers), ready(producers);
  std::vector<std::vector<bool>> inReady(n), inValid(n);
  for (size_t s = 0; s < n; ++s) {
    inReady[s].assign(
        stages[s].kind == StageModel::Join ? stages[s].depth.size() : 1, false);
    inValid[s].assign(inReady[s].size(), false);
  }
  for (int64_t c = 0;; ++c) {
    if (c > 0 && drive.stallSeed)
      lfsr = stallStep(lfsr);
    if (c < 2)
      continue; // reset
    bool sinkReady = true;
    if (drive.stallEvery)
      sinkReady = c % drive.stallEvery != drive.stallEvery - 1;
    if (drive.stallSeed)
      sinkReady = sinkReady && (lfsr & 3) != 0;
    if (waiting && int64_t(t.cycles.size()) >= inference) {
      waiting = false;
      validFrom = c + 1;
    }
    valid[0] = inference < drive.inferences && !waiting && c >= validFrom;
    for (size_t s = 0; s < n; ++s)
      valid[s + 1] = stages[s].oValid;
    // readies from the output backwards
    auto readerReady = [&](std::pair<int, int> r) {
      return r.first < 0 ? sinkReady : bool(inReady[r.first][r.second]);
    };
    auto producerReady = [&](size_t p) {
      bool all = true;
      for (size_t j = 0; j < readers[p].size(); ++j)
        all = all && (readers[p].size() > 1 && taken[p][j]
                          ? true
                          : readerReady(readers[p][j]));
      return all;
    };
    for (size_t s = n; s-- > 0;) {
      ready[s + 1] = producerReady(s + 1);
      for (size_t port = 0; port < inReady[s].size(); ++port)
        inReady[s][port] = stages[s].inReady(port, ready[s + 1]);
    }
    ready[0] = producerReady(0);
    // what each reader sees
    for (size_t p = 0; p < producers; ++p)
      for (size_t j = 0; j < readers[p].size(); ++j)
        if (readers[p][j].first >= 0)
          inValid[readers[p][j].first][readers[p][j].second] =
              valid[p] && !(readers[p].size() > 1 && taken[p][j]);
    // the testbench takes a beat (before the forks' registers move)
    bool sinkTakes = false;
    for (size_t j = 0; j < readers[outP].size(); ++j)
      if (readers[outP][j].first < 0)
        sinkTakes = valid[outP] && sinkReady &&
                    !(readers[outP].size() > 1 && taken[outP][j]);
    bool event = false;
    for (size_t s = 0; s < n; ++s) {
      bool in = false;
      for (size_t port = 0; port < inReady[s].size(); ++port)
        in = in || (inValid[s][port] && inReady[s][port]);
      if (in && t.stageStart[s] < 0)
        t.stageStart[s] = c;
      if (valid[s + 1] && ready[s + 1] && ++stageOuts[s] == stages[s].outBeats)
        t.stageLatency[s] = c;
      event = stages[s].clock(inValid[s], ready[s + 1]) || event || in;
    }
    for (size_t p = 0; p < producers; ++p) {
      if (readers[p].size() < 2 || !valid[p])
        continue;
      if (ready[p]) {
        taken[p].assign(readers[p].size(), false);
        continue;
      }
      for (size_t j = 0; j < readers[p].size(); ++j)
        if (readerReady(readers[p][j]))
          taken[p][j] = true;
    }
    // the source: the next inference follows at once when back to back,
    // else once every inference sent has finished (seen an edge later)
    if (valid[0] && ready[0]) {
      event = true;
      if (beat == 0)
        starts.push_back(c);
      if (++beat == inBeats) {
        beat = 0;
        ++inference;
        waiting = !drive.backToBack;
        if (waiting && int64_t(t.cycles.size()) >= inference) {
          waiting = false; // already finished before this edge
          validFrom = c + 1;
        }
      }
    }
    // the sink
    if (sinkTakes) {
      event = true;
      if (++outs == outBeats) {
        outs = 0;
        size_t k = t.cycles.size();
        t.cycles.push_back(c - starts[k] + 1);
        if (lastEnd >= 0)
          t.intervals.push_back(c - lastEnd);
        lastEnd = c;
        if (int64_t(t.cycles.size()) == drive.inferences)
          break;
      }
    }
    if (event)
      lastEvent = c;
    else if (c - lastEvent > 1000) {
      t.deadlock = "no beat moves after cycle " +
                   std::to_string(lastEvent - starts.front()) + "; busy:";
      size_t s = 0;
      for (Operation &stage : design.getBody().front())
        if (stages[s++].busy())
          t.deadlock +=
              " " +
              stage.getAttrOfType<StringAttr>("sym_name").getValue().str();
      return t;
    }
  }
  for (size_t s = 0; s < n; ++s) {
    t.stageLatency[s] -= t.stageStart[s] - 1;
    t.stageStart[s] -= starts.front();
    t.fifoPeak.push_back(stages[s].peak);
  }
  return t;
}
