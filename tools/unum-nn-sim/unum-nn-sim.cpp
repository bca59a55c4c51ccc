//===- unum-nn-sim.cpp - CPU fixed-point reference for quantised nn -------===//
//
// unum-nn-sim MODEL.mlir --input SAMPLES [-o OUT]: runs the quantised nn.model
// in MODEL on every inference in SAMPLES and writes the raw outputs, in the
// testbench's file format (docs/VHDLInterface.md): one integer per line, each
// inference's values position-major, inferences one after another.
//
//===----------------------------------------------------------------------===//
#include "unum/Dialect/NN/IR/NNDialect.h"
#include "unum/Dialect/NN/Reference/Reference.h"
#include "unum/Support/Diagnostics.h"
#include "unum/Support/ToolSupport.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

static llvm::cl::OptionCategory category("unum-nn-sim options");

static llvm::cl::opt<std::string> modelFile(llvm::cl::Positional,
                                            llvm::cl::desc("<model.mlir>"),
                                            llvm::cl::init("-"),
                                            llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    inputFile("input", llvm::cl::desc("Input samples: one integer per line"),
              llvm::cl::value_desc("file"), llvm::cl::Required,
              llvm::cl::cat(category));
static llvm::cl::opt<std::string> outputFile("o", llvm::cl::desc("Output file"),
                                             llvm::cl::value_desc("file"),
                                             llvm::cl::init("-"),
                                             llvm::cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "unum-nn-sim: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  unum::initToolCommandLine("unum-nn-sim", {&category},
                            /*boundsDiagnostics=*/true);
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "Unum CPU fixed-point reference\n");
  DialectRegistry registry;
  registry.insert<unum::nn::NNDialect>();
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  unum::boundDiagnostics(&context, &sourceMgr);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(modelFile, sourceMgr, &context);
  if (!module)
    return 1;
  SmallVector<unum::nn::ModelOp> models(module->getOps<unum::nn::ModelOp>());
  if (models.size() != 1)
    return fail("expected exactly one nn.model");
  unum::nn::ModelOp model = models.front();
  auto inType = cast<RankedTensorType>(
      (*model.getBody().getOps<unum::nn::InputOp>().begin()).getType());
  size_t perInference = inType.getNumElements();

  auto samples = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!samples)
    return fail("cannot read '" + inputFile + "'");
  std::vector<int64_t> values;
  llvm::SmallVector<llvm::StringRef> lines;
  (*samples)->getBuffer().split(lines, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    llvm::StringRef line = lines[i].trim();
    if (line.empty() || line.starts_with("#"))
      continue;
    long long v;
    if (line.getAsInteger(10, v))
      return fail(inputFile + ":" + llvm::Twine(i + 1) +
                  ": expected an integer, got '" + line + "'");
    values.push_back(v);
  }
  if (values.empty() || values.size() % perInference)
    return fail(inputFile + ": " + llvm::Twine(values.size()) +
                " values is not a whole number of inferences of " +
                llvm::Twine(perInference));

  std::string error;
  auto out = mlir::openOutputFile(outputFile, &error);
  if (!out)
    return fail(error);
  for (size_t start = 0; start < values.size(); start += perInference) {
    std::vector<int64_t> input(values.begin() + start,
                               values.begin() + start + perInference),
        output;
    if (failed(unum::nn::evaluateReference(model, input, output, error)))
      return fail("inference " + llvm::Twine(start / perInference) + ": " +
                  error);
    for (int64_t v : output)
      out->os() << v << "\n";
  }
  out->keep();
  return 0;
}
