//===- Timing.h - cycle model of an emitted design --------------*- C++ -*-===//
//
// A cycle-by-cycle model of the control logic the VHDL emitter prints (the
// handshakes, counters, banks and FIFO counts of every stage, not the data)
// and of the testbench that drives it. It gives the exact cycles an
// inference takes, per stage and for the whole design, which report.json
// states and the testbench checks (expect_latency). Any change to a stage's
// timing in ExportVHDL.cpp must be made here too: the GHDL suites fail
// otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_TARGET_VHDL_TIMING_H
#define UNUM_LIB_TARGET_VHDL_TIMING_H

#include "unum/Dialect/RTL/IR/RTLDialect.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace unum::vhdl {
/// What the model needs of a mac unit's schedule (ExportVHDL's MacSchedule
/// extends it).
struct MacCounters {
  int64_t inWidth, inBeats, inLen, inChannels, elements, outLen;
  int64_t blocks, steps, stride, padLo, kernel;
  int64_t bankElements; // window buffer elements per bank (CAP)
};

/// How the testbench drives the design (its generics).
struct Drive {
  int64_t inferences = 1;
  bool backToBack = false;
  int64_t stallEvery = 0; // out_ready low every stallEvery-th cycle
  uint32_t stallSeed = 0; // out_ready low on a seeded quarter of the cycles
};

struct Timing {
  /// Per inference: cycles from its first input beat to its last output
  /// beat, both included.
  std::vector<int64_t> cycles;
  /// Cycles between consecutive inferences' last output beats.
  std::vector<int64_t> intervals;
  /// First inference, per stage: its first input beat's cycle counted from
  /// the design's first input beat, and the cycles from that beat to its
  /// last output beat (both included).
  std::vector<int64_t> stageStart, stageLatency;
  /// Per stage, per join FIFO: the most beats it held when it took one.
  std::vector<std::vector<int64_t>> fifoPeak;
  /// Set when the design stops making progress: which stages hold work.
  std::string deadlock;
};

/// Simulates `design` as the testbench drives it; `macs` has a mac unit's
/// counters per stage (null for other stages), `fifoDepths` a join's FIFO
/// slots per stage as emitted.
Timing simulateTiming(rtl::DesignOp design,
                      llvm::ArrayRef<const MacCounters *> macs,
                      llvm::ArrayRef<std::vector<int64_t>> fifoDepths,
                      const Drive &drive);

/// The testbench's seeded out_ready pattern: one step of its 16-bit LFSR
/// (never 0 from a non-zero seed); out_ready is low when the low two bits
/// of the new state are 0.
uint32_t stallStep(uint32_t lfsr);
} // namespace unum::vhdl

#endif // UNUM_LIB_TARGET_VHDL_TIMING_H
