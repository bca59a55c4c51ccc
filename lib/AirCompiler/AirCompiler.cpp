//===- AirCompiler.cpp - AIR text to native kernels -----------------------===//
#include "unum/AirCompiler/AirCompiler.h"
#include "unum/Conversion/AirToLinalg/AirToLinalg.h"
#include "unum/Conversion/Passes.h"
#include "unum/InitAll.h"
#include "unum/Support/Diagnostics.h"
#include "unum/Target/AirText/AirText.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <mutex>

using namespace mlir;
using namespace unum::air;

namespace {
void initializeLLVM() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

std::string dtypeName(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isF64())
    return "f64";
  return "i" + std::to_string(t.getIntOrFloatBitWidth());
}

std::string cType(const std::string &dtype) {
  if (dtype == "f32")
    return "float";
  if (dtype == "f64")
    return "double";
  if (dtype == "i1")
    return "_Bool";
  return "int" + dtype.substr(1) + "_t";
}

std::string descriptorName(const ArrayParam &p) {
  return "UnumMemRef_" + p.dtype + "_" + std::to_string(p.shape.size()) + "d";
}

/// A target machine for this host (or `cpu`), at the highest opt level.
std::unique_ptr<llvm::TargetMachine> hostMachine(const std::string &cpu,
                                                 std::string &error) {
  initializeLLVM();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string cpuName = cpu.empty() ? llvm::sys::getHostCPUName().str() : cpu;
  llvm::SubtargetFeatures features;
  if (cpu.empty())
    for (auto &feature : llvm::sys::getHostCPUFeatures())
      features.AddFeature(feature.first(), feature.second);
  // No gathers or scatters: the kernels' vector code is explicit and reads
  // and writes contiguous vectors; what LLVM's loop vectoriser still sees
  // (copies of strided arguments, matmul's packing, loops left scalar) it
  // would otherwise vectorise with AVX-512 (or AVX2) gathers and scatters
  // along strided dimensions, slower than scalar code there.
  if (triple.isX86()) {
    features.AddFeature("prefer-no-gather");
    features.AddFeature("prefer-no-scatter");
  }
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpuName, features.getString(), llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    error = "cannot create a target machine for " + triple.str();
  return machine;
}
/// What air-vectorize sizes its tiles for.
struct TargetVectors {
  int64_t bits, registers;
};

/// The widest vector registers the target machine has (its CPU's features,
/// implied ones included): AVX-512 32 x 512 bits, AVX 16 x 256, else SSE.
TargetVectors targetVectors(const llvm::TargetMachine &machine) {
  const llvm::MCSubtargetInfo *info = machine.getMCSubtargetInfo();
  if (!machine.getTargetTriple().isX86())
    return {128, 32}; // AArch64 NEON and the like
  if (info->checkFeatures("+avx512f"))
    return {512, 32};
  if (info->checkFeatures("+avx"))
    return {256, 16};
  return {128, 16};
}

/// Explicit 512-bit vectors use zmm registers even on CPUs whose tuning
/// prefers 256-bit ones (Skylake-X, Sapphire Rapids): without this, LLVM
/// splits them in two.
void allowVectorWidth(llvm::Module &m, int64_t bits) {
  if (bits <= 256)
    return;
  for (llvm::Function &f : m)
    if (!f.isDeclaration())
      f.addFnAttr("min-legal-vector-width", std::to_string(bits));
}
} // namespace

struct AirCompiler::Impl {
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  std::string errors;
  std::vector<KernelSignature> kernels;
  CompileOptions options;
  bool lowered = false;   // the last compile() reached Stage::Full
  int64_t vectorBits = 0; // what air-vectorize sized its vectors for

  /// The backends need a module in the LLVM dialect.
  bool requireLowered() {
    if (!lowered)
      errors += "error: nothing to emit: compile() to Stage::Full first\n";
    return lowered;
  }

  Impl() {
    unum::registerAllDialects(registry);
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    registerOpenMPDialectTranslation(registry);
    context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
  }

  /// Runs `build`'s passes; diagnostics go to `errors`.
  bool run(llvm::function_ref<void(OpPassManager &)> build) {
    PassManager pm(context.get());
    build(pm);
    return succeeded(pm.run(*module));
  }

  void recordKernels() {
    kernels.clear();
    for (auto func : module->getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      KernelSignature k;
      k.name = func.getName().str();
      auto param = [&](Type t, std::string name) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        ArrayParam p;
        p.name = std::move(name);
        if (!tensor)
          return p; // rejected by the lowering with a located error
        p.dtype = dtypeName(tensor.getElementType());
        for (int64_t d : tensor.getShape())
          p.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
        return p;
      };
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        auto name = func.getArgAttrOfType<StringAttr>(i, "air.name");
        k.inputs.push_back(param(func.getArgumentTypes()[i],
                                 name ? name.str() : "in" + std::to_string(i)));
      }
      for (auto [i, t] : llvm::enumerate(func.getResultTypes()))
        k.outputs.push_back(param(t, "result" + std::to_string(i)));
      if (llvm::any_of(k.inputs, [](auto &p) { return p.dtype.empty(); }) ||
          llvm::any_of(k.outputs, [](auto &p) { return p.dtype.empty(); }))
        continue; // generic: a template, not a kernel
      kernels.push_back(std::move(k));
    }
  }

  /// NAME becomes the C-interface wrapper (descriptor pointers); the
  /// expanded-argument function MLIR calls NAME becomes internal, and so
  /// does the kernel body the entry calls (see convert-air-to-linalg).
  void exposeCInterface() {
    SymbolTable table(*module);
    // Only the kernels are exported: helpers the lowering generates
    // (`dealloc_helper`) would clash between two objects.
    for (auto fn : module->getOps<LLVM::LLVMFuncOp>())
      if (!fn.isExternal())
        fn.setLinkage(LLVM::Linkage::Internal);
    for (const KernelSignature &k : kernels) {
      auto entry = table.lookup<LLVM::LLVMFuncOp>(k.name);
      auto wrapper = table.lookup<LLVM::LLVMFuncOp>("_mlir_ciface_" + k.name);
      if (!entry || !wrapper)
        continue;
      (void)table.rename(entry, "__unum_entry_" + k.name);
      (void)table.rename(wrapper, k.name);
      wrapper.setLinkage(LLVM::Linkage::External);
      auto body = table.lookup<LLVM::LLVMFuncOp>(abiBodyName(k.name));
      if (!body)
        continue;
      // The ABI promises outputs alias nothing: mark each output's data
      // pointer noalias, so LLVM keeps accumulators in registers and
      // vectorises across the stores. A rank-r memref expands to
      // (allocated, aligned, offset, sizes[r], strides[r]).
      unsigned arg = 0;
      for (const ArrayParam &p : k.inputs)
        arg += 3 + 2 * p.shape.size();
      for (const ArrayParam &p : k.outputs) {
        if (arg + 1 < body.getNumArguments())
          body.setArgAttr(arg + 1, LLVM::LLVMDialect::getNoAliasAttrName(),
                          UnitAttr::get(context.get()));
        arg += 3 + 2 * p.shape.size();
      }
    }
  }

  /// Translates the module to LLVM IR for this host (or options.cpu),
  /// optimises it and hands it to `use`.
  bool withOptimizedModule(
      llvm::function_ref<bool(llvm::Module &, llvm::TargetMachine &)> use) {
    if (!requireLowered())
      return false;
    std::unique_ptr<llvm::TargetMachine> machine =
        hostMachine(options.cpu, errors);
    if (!machine)
      return false;
    llvm::LLVMContext ctx;
    std::unique_ptr<llvm::Module> m = toLLVM(ctx, *machine);
    return m && use(*m, *machine);
  }

  std::unique_ptr<llvm::Module> toLLVM(llvm::LLVMContext &ctx,
                                       llvm::TargetMachine &machine) {
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(*module, ctx);
    if (!llvmModule) {
      errors += "error: translation to LLVM IR failed\n";
      return nullptr;
    }
    ExecutionEngine::setupTargetTripleAndDataLayout(llvmModule.get(), &machine);
    allowVectorWidth(*llvmModule, vectorBits);
    auto optimize = makeOptimizingTransformer(options.optLevel, 0, &machine);
    if (llvm::Error e = optimize(llvmModule.get())) {
      errors += "error: " + llvm::toString(std::move(e)) + "\n";
      return nullptr;
    }
    return llvmModule;
  }
};

AirCompiler::AirCompiler() : impl(std::make_unique<Impl>()) {}
AirCompiler::~AirCompiler() = default;

bool AirCompiler::compile(const std::string &text, const std::string &filename,
                          const CompileOptions &options, Stage stage) {
  impl->errors.clear();
  impl->kernels.clear();
  impl->lowered = false;
  impl->options = options;
  if (options.threads < 1 || options.threads > kMaxThreads) {
    impl->errors += "error: threads must be between 1 and " +
                    std::to_string(kMaxThreads) + " (got " +
                    std::to_string(options.threads) + ")\n";
    return false;
  }
  ScopedDiagnosticHandler handler(impl->context.get(), [&](Diagnostic &d) {
    std::string line;
    llvm::raw_string_ostream os(line);
    if (auto loc = dyn_cast<FileLineColLoc>(d.getLocation()))
      os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
         << loc.getColumn() << ": ";
    os << (d.getSeverity() == DiagnosticSeverity::Error     ? "error: "
           : d.getSeverity() == DiagnosticSeverity::Warning ? "warning: "
                                                            : "note: ")
       << d.str() << "\n";
    impl->errors += line;
    return success();
  });
  // At most --error-limit errors, then one line saying so; a diagnostic on
  // a long source line is written with the line cut around its column
  // (unum/Support/Diagnostics.h), in front of the handler above. Erased at
  // the end: the context serves the next compile().
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, filename,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  llvm::raw_string_ostream bounded(impl->errors);
  DiagnosticEngine &engine = impl->context->getDiagEngine();
  DiagnosticEngine::HandlerID bounds =
      unum::boundDiagnostics(impl->context.get(), &sources, bounded);
  struct Unbound {
    DiagnosticEngine &engine;
    DiagnosticEngine::HandlerID id;
    ~Unbound() { engine.eraseHandler(id); }
  } unbound{engine, bounds};
  // AIR text, or (a name ending in .mlir) an air-dialect module, such as
  // what convert-nn-to-air makes of a float nn model.
  if (StringRef(filename).ends_with(".mlir"))
    impl->module = parseSourceString<ModuleOp>(
        text, ParserConfig(impl->context.get()), filename);
  else
    impl->module = unum::importAirText(text, filename, impl->context.get());
  if (!impl->module)
    return false;
  PipelineOptions pipeline{options.entry, options.signature};
  if (!impl->run(
          [&](OpPassManager &pm) { buildAirOptimizePipeline(pm, pipeline); }))
    return false;
  impl->recordKernels();
  if (stage == Stage::Air)
    return true;
  if (!impl->run([](OpPassManager &pm) {
        pm.addPass(unum::createConvertAirToLinalg());
      }))
    return false;
  if (stage == Stage::Linalg)
    return true;
  // Vector sizes for this host's (or options.cpu's) registers.
  std::unique_ptr<llvm::TargetMachine> machine =
      hostMachine(options.cpu, impl->errors);
  if (!machine)
    return false;
  TargetVectors vectors = targetVectors(*machine);
  pipeline.vectorBits = vectors.bits;
  pipeline.vectorRegisters = vectors.registers;
  pipeline.threads = options.threads;
  impl->vectorBits = vectors.bits;
  if (!impl->run(
          [&](OpPassManager &pm) { buildLinalgToLLVMPipeline(pm, pipeline); }))
    return false;
  impl->exposeCInterface();
  impl->lowered = true;
  return true;
}

const std::string &AirCompiler::errors() const { return impl->errors; }
const std::vector<KernelSignature> &AirCompiler::kernels() const {
  return impl->kernels;
}

std::string AirCompiler::printModule() const {
  std::string out;
  llvm::raw_string_ostream os(out);
  if (impl->module)
    impl->module->print(os);
  return out;
}

bool AirCompiler::emitLLVMIR(std::string &out) {
  return impl->withOptimizedModule([&](llvm::Module &m, llvm::TargetMachine &) {
    llvm::raw_string_ostream os(out);
    m.print(os, nullptr);
    return true;
  });
}

bool AirCompiler::emitObject(std::string &out) {
  return impl->withOptimizedModule(
      [&](llvm::Module &m, llvm::TargetMachine &machine) {
        llvm::SmallVector<char, 0> buffer;
        llvm::raw_svector_ostream os(buffer);
        llvm::legacy::PassManager codegen;
        if (machine.addPassesToEmitFile(codegen, os, nullptr,
                                        llvm::CodeGenFileType::ObjectFile)) {
          impl->errors += "error: the target cannot emit object files\n";
          return false;
        }
        codegen.run(m);
        out.assign(buffer.begin(), buffer.end());
        return true;
      });
}

std::string AirCompiler::cHeader(const std::string &guard) const {
  std::string h;
  h += "/* Generated by unum-airc: one function per AIR kernel. The ABI is in\n"
       "   docs/AirABI.md: inputs first, then one out-parameter per result,\n"
       "   each a pointer to a ranked memref descriptor of any strides and\n"
       "   offset; the caller allocates every buffer. Each returns\n"
       "   UNUM_AIR_OK, or UNUM_AIR_ERROR_SHAPE when sizes disagree. */\n";
  if (impl->options.threads > 1)
    h += "/* Built with " + std::to_string(impl->options.threads) +
         " threads: the kernels call libomp (OpenMP); link with it, e.g.\n"
         "   -L/usr/lib/llvm-22/lib -lomp or clang -fopenmp. */\n";
  h +=
      "#ifndef " + guard + "\n#define " + guard + "\n\n#include <stdint.h>\n\n";
  h += "/* What every kernel returns. */\n#ifndef UNUM_AIR_OK\n"
       "#define UNUM_AIR_OK 0\n"
       "#define UNUM_AIR_ERROR_SHAPE 1 /* sizes disagree; nothing written */\n"
       "#endif\n\n";
  h += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  std::vector<std::string> seen;
  auto declare = [&](const ArrayParam &p) {
    std::string name = descriptorName(p);
    if (std::find(seen.begin(), seen.end(), name) != seen.end())
      return;
    seen.push_back(name);
    std::string macro = name;
    for (char &c : macro)
      c = toupper(c);
    std::string rank = std::to_string(p.shape.size());
    h += "#ifndef " + macro + "_DEFINED\n#define " + macro + "_DEFINED\n";
    h += "typedef struct {\n  " + cType(p.dtype) + " *allocated;\n  " +
         cType(p.dtype) + " *aligned;\n  int64_t offset;\n";
    if (!p.shape.empty())
      h += "  int64_t sizes[" + rank + "];\n  int64_t strides[" + rank + "];\n";
    h += "} " + name + ";\n#endif\n\n";
  };
  for (const KernelSignature &k : impl->kernels) {
    for (const ArrayParam &p : k.inputs)
      declare(p);
    for (const ArrayParam &p : k.outputs)
      declare(p);
  }
  auto shape = [](const ArrayParam &p) {
    std::string s = p.dtype + "[";
    for (size_t i = 0; i < p.shape.size(); ++i)
      s += (i ? ", " : "") +
           (p.shape[i] < 0 ? std::string("?") : std::to_string(p.shape[i]));
    return s + "]";
  };
  for (const KernelSignature &k : impl->kernels) {
    h += "/* " + k.name + "(";
    for (size_t i = 0; i < k.inputs.size(); ++i)
      h += (i ? ", " : "") + k.inputs[i].name + ": " + shape(k.inputs[i]);
    h += ") -> ";
    for (size_t i = 0; i < k.outputs.size(); ++i)
      h += (i ? ", " : "") + shape(k.outputs[i]);
    h += " */\nint32_t " + k.name + "(";
    bool first = true;
    for (const ArrayParam &p : k.inputs) {
      h += (first ? "" : ", ") + std::string("const ") + descriptorName(p) +
           " *" + p.name;
      first = false;
    }
    for (const ArrayParam &p : k.outputs) {
      h += (first ? "" : ", ") + descriptorName(p) + " *" + p.name;
      first = false;
    }
    h += ");\n\n";
  }
  h += "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " + guard + " */\n";
  return h;
}

//===----------------------------------------------------------------------===//
// JIT
//===----------------------------------------------------------------------===//

struct JitKernels::Impl {
  std::unique_ptr<llvm::TargetMachine> machine; // outlives the transformer
  std::function<llvm::Error(llvm::Module *)> optimize;
  std::unique_ptr<ExecutionEngine> engine;
};

JitKernels::JitKernels(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
JitKernels::~JitKernels() = default;

void *JitKernels::lookup(const std::string &name) const {
  llvm::Expected<void *> fn = impl->engine->lookup(name);
  if (!fn) {
    llvm::consumeError(fn.takeError());
    return nullptr;
  }
  return *fn;
}

/// Makes libomp's __kmpc_* entry points visible to the JIT: the copy this
/// process already has, else LLVM 22's (libomp-22-dev), else any libomp.so.5
/// the loader finds. Never a second copy (two OpenMP runtimes of the same
/// kind in one process abort).
static bool loadOpenMP(std::string &errors) {
  static std::string error;
  static bool loaded = [] {
    std::string message;
    if (llvm::sys::DynamicLibrary::SearchForAddressOfSymbol("__kmpc_fork_call"))
      return true;
    for (const char *path :
         {"/usr/lib/llvm-22/lib/libomp.so.5", "libomp.so.5", "libomp.so"})
      if (!llvm::sys::DynamicLibrary::LoadLibraryPermanently(path, &message))
        return true;
    error = message;
    return false;
  }();
  if (!loaded)
    errors += "error: kernels built with threads > 1 need libomp (apt-get "
              "install libomp-22-dev): " +
              error + "\n";
  return loaded;
}

std::unique_ptr<JitKernels> AirCompiler::jit() {
  if (!impl->requireLowered())
    return nullptr;
  initializeLLVM();
  if (impl->options.threads > 1 && !loadOpenMP(impl->errors))
    return nullptr;
  auto state = std::make_unique<JitKernels::Impl>();
  // This host's CPU and features, or options.cpu (which must be one this
  // host can run).
  state->machine = hostMachine(impl->options.cpu, impl->errors);
  if (!state->machine)
    return nullptr;
  auto optimize = makeOptimizingTransformer(impl->options.optLevel, 0,
                                            state->machine.get());
  int64_t bits = impl->vectorBits;
  state->optimize = [optimize, bits](llvm::Module *m) {
    allowVectorWidth(*m, bits);
    return optimize(m);
  };
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = state->optimize;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  // The engine takes its own copy of the target machine.
  std::unique_ptr<llvm::TargetMachine> engineMachine =
      hostMachine(impl->options.cpu, impl->errors);
  if (!engineMachine)
    return nullptr;
  auto engine = ExecutionEngine::create(*impl->module, engineOptions,
                                        std::move(engineMachine));
  if (!engine) {
    impl->errors += "error: " + llvm::toString(engine.takeError()) + "\n";
    return nullptr;
  }
  state->engine = std::move(*engine);
  return std::unique_ptr<JitKernels>(new JitKernels(std::move(state)));
}
