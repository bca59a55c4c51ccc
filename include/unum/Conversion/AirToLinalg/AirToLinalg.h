//===- AirToLinalg.h - air to linalg, and the array pipelines ---*- C++ -*-===//
#ifndef UNUM_CONVERSION_AIRTOLINALG_AIRTOLINALG_H
#define UNUM_CONVERSION_AIRTOLINALG_AIRTOLINALG_H

#include <cstdint>
#include <string>

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace unum::air {
struct PipelineOptions {
  /// Public entry to specialise, with its parameter types in the AIR
  /// notation (`f32[?],f32[]`); empty leaves functions as they are.
  std::string entry, signature;
  /// The target's vector registers, for air-vectorize: width in bits (0
  /// leaves vectorisation to LLVM) and count. AirCompiler reads them from
  /// the LLVM TargetMachine; the defaults are AVX2's.
  int64_t vectorBits = 256, vectorRegisters = 16;
  /// Threads the parallel loops run on (the matmul's M blocks): 1 leaves
  /// them serial; > 1 lowers them to OpenMP (the code then calls libomp's
  /// __kmpc_* entry points, docs/AirABI.md).
  int64_t threads = 1;
};

/// air-optimize: monomorphize (with inference), simplify, make broadcasts
/// explicit, fuse.
void buildAirOptimizePipeline(mlir::OpPassManager &pm,
                              const PipelineOptions &options = {});
/// air-to-llvm: air-optimize, convert-air-to-linalg, bufferize (outputs
/// written in place into the callers' buffers), loops, vectorizable math,
/// then the LLVM dialect, ready for translation to LLVM IR.
void buildAirToLLVMPipeline(mlir::OpPassManager &pm,
                            const PipelineOptions &options = {});
/// The part of air-to-llvm after convert-air-to-linalg (uses the target
/// fields of `options`).
void buildLinalgToLLVMPipeline(mlir::OpPassManager &pm,
                               const PipelineOptions &options = {});
/// Registers the external interface models the lowering relies on
/// (bufferization of arith/linalg/tensor/scf/func, conversion to LLVM).
void registerAirLoweringInterfaces(mlir::DialectRegistry &registry);
/// The private kernel body behind the ABI entry of public function `name`
/// (convert-air-to-linalg; the entry checks sizes and layouts, then calls it).
std::string abiBodyName(const std::string &name);
/// Registers both pipelines (unum-opt --air-optimize / --air-to-llvm).
void registerAirPipelines();
} // namespace unum::air

#endif // UNUM_CONVERSION_AIRTOLINALG_AIRTOLINALG_H
