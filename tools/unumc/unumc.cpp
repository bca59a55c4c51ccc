//===- unumc.cpp - Step Functions to Unum configs in one step -------------===//
//
//   unumc statemachine.asl.json -o OUTDIR [--format json|yaml]
//
// Imports the ASL (checking it), lowers it with convert-sfn-to-unum, verifies
// the resulting unum.app and writes OUTDIR/<Function>/unum_config.<ext>, all
// or nothing. `-o -` prints the configs instead; --emit=sfn|unum prints the IR
// after import or after lowering.
//
//===----------------------------------------------------------------------===//
#include "unum/Conversion/Passes.h"
#include "unum/Dialect/Sfn/IR/SfnDialect.h"
#include "unum/Dialect/Unum/IR/UnumOps.h"
#include "unum/Dialect/Unum/Transforms/Passes.h"
#include "unum/Support/Diagnostics.h"
#include "unum/Support/ToolSupport.h"
#include "unum/Target/ASL/ASL.h"
#include "unum/Target/UnumConfig/UnumConfig.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("unumc options");
static cl::opt<std::string> input(cl::Positional, cl::Required,
                                  cl::desc("<statemachine.asl.json>"),
                                  cl::cat(category));
static cl::opt<std::string>
    output("o", cl::Required,
           cl::desc("Output directory for <Function>/unum_config.<ext> "
                    "('-' prints the configs); with --emit=sfn|unum, the IR "
                    "file ('-': stdout)"),
           cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string> formatName("format", cl::init("json"),
                                       cl::desc("Config format: json or yaml"),
                                       cl::cat(category));
static cl::opt<std::string> name("name",
                                 cl::desc("Application name (default: the "
                                          "file name)"),
                                 cl::cat(category));
static cl::opt<std::string>
    globals("globals",
            cl::desc("JSON file {\"Checkpoint\": bool, \"Debug\": bool}: the "
                     "original compiler's template Globals"),
            cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string>
    functionMap("functions",
                cl::desc("JSON file mapping Task resources (ARNs) to function "
                         "names"),
                cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> substitutions(
    "substitutions",
    cl::desc("JSON file {\"Name\": value}: the values of the definition's "
             "${Name} placeholders (SAM's DefinitionSubstitutions)"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string>
    emit("emit", cl::init("configs"),
         cl::desc("What to produce: configs, sfn (IR after import) or unum "
                  "(IR after lowering)"),
         cl::cat(category));
static cl::opt<bool> timing("time", cl::desc("Print the time each phase took"),
                            cl::cat(category));

namespace {
/// Wall-clock phase timer for --time.
struct Phases {
  using Clock = std::chrono::steady_clock;
  Clock::time_point last = Clock::now();
  void mark(const char *phase) {
    Clock::time_point now = Clock::now();
    if (timing)
      llvm::errs() << llvm::format(
          "unumc: %-8s %8.2f ms\n", phase,
          std::chrono::duration<double, std::milli>(now - last).count());
    last = now;
  }
};
} // namespace

/// --emit=sfn|unum: the IR to -o (a file, written whole, or '-').
static int printIR(ModuleOp module) {
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(output, &message);
  if (!file) {
    llvm::errs() << "unumc: " << message << "\n";
    return 1;
  }
  module.print(file->os());
  file->keep();
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  unum::initToolCommandLine("unumc", {&category}, /*boundsDiagnostics=*/true);
  cl::ParseCommandLineOptions(argc, argv,
                              "unumc: compile a Step Functions state machine "
                              "to Unum configs\n");
  if (formatName != "json" && formatName != "yaml") {
    llvm::errs() << "unumc: --format must be json or yaml\n";
    return 1;
  }
  if (emit != "configs" && emit != "sfn" && emit != "unum") {
    llvm::errs() << "unumc: --emit must be configs, sfn or unum\n";
    return 1;
  }

  MLIRContext context;
  // Errors point into the user's file; a dump of the IR is no help there.
  context.printOpOnDiagnostic(false);
  context.loadDialect<unum::sfn::SfnDialect, unum::UnumDialect>();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  unum::boundDiagnostics(&context, &sourceMgr);
  Phases phases;

  unum::ASLImportOptions options;
  options.name = name;
  options.globalsFile = globals;
  options.functionMapFile = functionMap;
  options.substitutionsFile = substitutions;
  OwningOpRef<ModuleOp> module = unum::importASLFile(input, options, &context);
  if (!module)
    return 1;
  phases.mark("import");
  if (emit == "sfn")
    return printIR(*module);

  PassManager pm(&context);
  pm.addPass(unum::createConvertSfnToUnum());
  pm.addPass(unum::createUnumLint());
  if (failed(pm.run(*module)))
    return 1;
  phases.mark("lower");
  if (emit == "unum")
    return printIR(*module);

  unum::AppOp app;
  module->walk([&](unum::AppOp op) { app = op; });
  std::string outputDir = output == "-" ? "" : output.getValue();
  if (!app || failed(unum::translateAppToConfig(
                  app,
                  formatName == "json" ? unum::config::Format::Json
                                       : unum::config::Format::Yaml,
                  outputDir, llvm::outs())))
    return 1;
  phases.mark("export");
  return 0;
}
