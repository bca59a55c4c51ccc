//===- VHDL.h - rtl designs to VHDL-2008 ------------------------*- C++ -*-===//
//
// Emits an `rtl.design` as VHDL-2008 (docs/VHDLInterface.md): a package of
// shared types, one entity per stage, the network's top-level entity, a
// file-driven testbench and report.json (multipliers, ROM bits, the cycle
// bound). Names are legalised first, so the printers only print.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_TARGET_VHDL_VHDL_H
#define UNUM_TARGET_VHDL_VHDL_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace unum {
/// Writes the VHDL of the single rtl.design in `op`: into `outputDir` (all
/// files or none) when it is not empty, else every file to `os`, each after a
/// `-- file: NAME` line.
mlir::LogicalResult translateRTLToVHDL(mlir::Operation *op,
                                       llvm::StringRef outputDir,
                                       llvm::raw_ostream &os);

/// Registers --to-vhdl (the directory comes from --output-dir).
void registerVHDLTranslation();
} // namespace unum

#endif // UNUM_TARGET_VHDL_VHDL_H
