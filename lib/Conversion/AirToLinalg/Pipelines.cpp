//===- Pipelines.cpp - air-optimize and air-to-llvm -----------------------===//
#include "unum/Conversion/AirToLinalg/AirToLinalg.h"
#include "unum/Conversion/Passes.h"
#include "unum/Dialect/Air/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/AllInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
/// convert-scf-to-openmp wraps each parallel body in a memref.alloca_scope,
/// which must keep a single block, so scf-to-cf cannot lower the loops
/// inside it. The bodies air-vectorize makes allocate nothing on the stack:
/// their scopes are inlined.
struct InlineAllocaScopes
    : public PassWrapper<InlineAllocaScopes, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(InlineAllocaScopes)
  StringRef getArgument() const override { return "air-inline-alloca-scopes"; }
  void runOnOperation() override {
    SmallVector<memref::AllocaScopeOp> scopes;
    getOperation()->walk([&](memref::AllocaScopeOp op) {
      bool allocates = false;
      op->walk([&](memref::AllocaOp) { allocates = true; });
      if (!allocates)
        scopes.push_back(op);
    });
    for (memref::AllocaScopeOp op : scopes) {
      Block &body = op.getBodyRegion().front();
      Operation *ret = body.getTerminator();
      op->replaceAllUsesWith(ret->getOperands());
      ret->erase();
      op->getBlock()->getOperations().splice(Block::iterator(op),
                                             body.getOperations());
      op->erase();
    }
  }
};
} // namespace

void unum::air::buildAirOptimizePipeline(OpPassManager &pm,
                                         const PipelineOptions &options) {
  AirMonomorphizeOptions mono;
  mono.entry = options.entry;
  mono.signature = options.signature;
  pm.addPass(createAirMonomorphize(mono));
  pm.addPass(createAirSimplify());
  // Gradients are expanded into kernels that simplify and fuse like any.
  pm.addPass(createAirGrad());
  pm.addPass(createAirSimplify());
  pm.addNestedPass<func::FuncOp>(createAirExplicitBroadcast());
  pm.addNestedPass<func::FuncOp>(createAirFuse());
}

void unum::air::buildAirToLLVMPipeline(OpPassManager &pm,
                                       const PipelineOptions &options) {
  buildAirOptimizePipeline(pm, options);
  pm.addPass(createConvertAirToLinalg());
  buildLinalgToLLVMPipeline(pm, options);
}

void unum::air::buildLinalgToLLVMPipeline(OpPassManager &pm,
                                          const PipelineOptions &options) {
  // Row statistics and their row-wise users: one loop over row blocks.
  pm.addNestedPass<func::FuncOp>(unum::createAirFuseRows());
  // Outputs: the last loop nest writes straight into the caller's buffer.
  // Before canonicalisation, which folds whole-tensor slices and hides the
  // chain of destinations from the output back to its tensor.empty.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(createCanonicalizerPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass()); // drops copies of a buffer to itself
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(unum::createAirCopiesToLinalg());
  // Explicit vectors sized for the target; what it leaves becomes loops.
  if (options.vectorBits > 0) {
    // conv1d first (airconv's pass, lib/Conversion/AirToLinalg/Conv1d.cpp).
    unum::AirVectorizeConv1dOptions conv;
    conv.vectorBits = options.vectorBits;
    conv.registers = options.vectorRegisters;
    conv.threads = options.threads;
    pm.addNestedPass<func::FuncOp>(unum::createAirVectorizeConv1d(conv));
    unum::AirVectorizeOptions vectorize;
    vectorize.vectorBits = options.vectorBits;
    vectorize.registers = options.vectorRegisters;
    vectorize.threads = options.threads;
    pm.addNestedPass<func::FuncOp>(unum::createAirVectorize(vectorize));
  }
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // Parallel loops (air-vectorize's, with threads > 1) run on OpenMP
  // threads (libomp; docs/AirABI.md); otherwise they stay serial loops.
  if (options.threads > 1) {
    ConvertSCFToOpenMPPassOptions omp;
    omp.numThreads = options.threads;
    pm.addPass(createConvertSCFToOpenMPPass(omp));
    pm.addPass(std::make_unique<InlineAllocaScopes>());
  }
  pm.addPass(createAirExpandMath());
  // n-D transfers become 1-D ones (one per row), then vector.contract
  // becomes outer products, i.e. a broadcast and an FMA per row
  // (llvm.fmuladd: fused where the target has FMA, docs/Air.md).
  VectorTransferToSCFOptions toSCF;
  toSCF.enableFullUnroll().setTargetRank(1);
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(toSCF));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  ConvertVectorToLLVMPassOptions toLLVM;
  toLLVM.vectorContractLowering = vector::VectorContractLowering::OuterProduct;
  toLLVM.vectorTransposeLowering = vector::VectorTransposeLowering::Shuffle1D;
  pm.addPass(createConvertVectorToLLVMPass(toLLVM));
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void unum::air::registerAirLoweringInterfaces(DialectRegistry &registry) {
  // The dialects on the way down, so that unum-opt reads every stage.
  registry.insert<arith::ArithDialect, bufferization::BufferizationDialect,
                  cf::ControlFlowDialect, func::FuncDialect,
                  linalg::LinalgDialect, LLVM::LLVMDialect, math::MathDialect,
                  memref::MemRefDialect, omp::OpenMPDialect, scf::SCFDialect,
                  tensor::TensorDialect, vector::VectorDialect>();
  // What bufferization and convert-to-llvm look up on the dialects that
  // convert-air-to-linalg produces.
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerAllDialectInterfaceImplementations(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerSubsetOpInterfaceExternalModels(registry);
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertOpenMPToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
}

namespace {
struct PipelineCLOptions : public PassPipelineOptions<PipelineCLOptions> {
  Option<std::string> entry{*this, "entry",
                            llvm::cl::desc("Public function to specialise")};
  Option<std::string> signature{
      *this, "signature",
      llvm::cl::desc("Parameter types for `entry` (AIR notation, comma "
                     "separated)")};
  Option<int64_t> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Vector register width for air-vectorize (0: none)"),
      llvm::cl::init(256)};
  Option<int64_t> registers{*this, "registers",
                            llvm::cl::desc("Vector registers (air-vectorize)"),
                            llvm::cl::init(16)};
  Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Threads for parallel loops (> 1: OpenMP)"),
      llvm::cl::init(1)};
  unum::air::PipelineOptions get() const {
    unum::air::PipelineOptions o;
    o.entry = entry;
    o.signature = signature;
    o.vectorBits = vectorBits;
    o.vectorRegisters = registers;
    o.threads = threads;
    return o;
  }
};
} // namespace

void unum::air::registerAirPipelines() {
  // The upstream passes air-to-llvm is made of, so that unum-opt can run
  // (and a test can check) any stage of it alone.
  bufferization::registerBufferizationPasses();
  registerLinalgPasses();
  memref::registerMemRefPasses();
  registerConvertToLLVMPass();
  registerLowerAffinePass();
  registerReconcileUnrealizedCastsPass();
  registerSCFToControlFlowPass();

  PassPipelineRegistration<PipelineCLOptions>(
      "air-optimize",
      "Specialise, differentiate, simplify and fuse air functions "
      "(monomorphize, simplify, grad, simplify, explicit-broadcast, fuse)",
      [](OpPassManager &pm, const PipelineCLOptions &o) {
        buildAirOptimizePipeline(pm, o.get());
      });
  PassPipelineRegistration<PipelineCLOptions>(
      "air-to-llvm",
      "air-optimize, then lower to linalg, bufferize, loops and the LLVM "
      "dialect",
      [](OpPassManager &pm, const PipelineCLOptions &o) {
        buildAirToLLVMPipeline(pm, o.get());
      });
}
