//===- unum-airc.cpp - The AIR array compiler driver ----------------------===//
//
//   unum-airc expr.air -o expr.o --header expr.h
//   unum-airc expr.air --emit=linalg -o -
//
// Compiles every public function of an AIR file to native code for this
// machine (or --mcpu) and writes an object file plus a C header. Outputs are
// written to a temporary file and renamed, so a failed run leaves none.
//
//===----------------------------------------------------------------------===//
#include "unum/AirCompiler/AirCompiler.h"
#include "unum/Support/ToolSupport.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
namespace air = unum::air;

static cl::OptionCategory category("unum-airc options");

static cl::opt<std::string> input(cl::Positional, cl::desc("<file.air>"),
                                  cl::init("-"), cl::cat(category));
static cl::opt<std::string> output("o",
                                   cl::desc("Output file ('-' for stdout)"),
                                   cl::value_desc("file"), cl::init("-"),
                                   cl::cat(category));
static cl::opt<std::string> header("header",
                                   cl::desc("Also write a C header declaring "
                                            "the kernels"),
                                   cl::value_desc("file"), cl::cat(category));
enum class Emit { Air, Linalg, LLVMDialect, LLVMIR, Object };
static cl::opt<Emit> emit(
    "emit", cl::desc("What to write"), cl::init(Emit::Object),
    cl::values(clEnumValN(Emit::Air, "air", "air after air-optimize"),
               clEnumValN(Emit::Linalg, "linalg",
                          "after convert-air-to-linalg"),
               clEnumValN(Emit::LLVMDialect, "mlir-llvm", "the LLVM dialect"),
               clEnumValN(Emit::LLVMIR, "llvm-ir", "optimised LLVM IR"),
               clEnumValN(Emit::Object, "obj", "an object file (default)")),
    cl::cat(category));
static cl::opt<std::string> entry("entry",
                                  cl::desc("Public function to specialise"),
                                  cl::cat(category));
static cl::opt<std::string>
    signature("signature",
              cl::desc("Parameter types for --entry, e.g. "
                       "'f32[?],f32[?],f32[]'"),
              cl::cat(category));
static cl::opt<std::string> mcpu("mcpu",
                                 cl::desc("Target CPU (default: this machine)"),
                                 cl::cat(category));
// Not "threads": an LLVM library linked in registers a global --threads.
static cl::opt<int> threads(
    "num-threads",
    cl::desc("Threads for the kernels' parallel loops (matmul, conv1d, rows, "
             "axis reductions); "
             "> 1 uses OpenMP: link the object with libomp (-lomp)"),
    cl::init(1), cl::cat(category));

/// Files to write, each staged in a temporary beside its destination and
/// renamed into place only once every one of them is written.
class StagedOutputs {
public:
  ~StagedOutputs() {
    for (auto &[temp, path] : staged)
      sys::fs::remove(temp);
  }

  bool add(const std::string &path, const std::string &data) {
    if (path == "-") {
      outs() << data;
      return true;
    }
    SmallString<256> temp;
    int fd;
    std::error_code ec =
        sys::fs::createUniqueFile(path + ".tmp-%%%%%%", fd, temp);
    if (ec)
      return fail(path, ec);
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    staged.emplace_back(temp.str().str(), path);
    os << data;
    os.close();
    if (os.has_error())
      return fail(path, os.error());
    return true;
  }

  bool commit() {
    for (auto &[temp, path] : staged)
      if (std::error_code ec = sys::fs::rename(temp, path))
        return fail(path, ec);
    staged.clear();
    return true;
  }

private:
  static bool fail(const std::string &path, std::error_code ec) {
    WithColor::error() << path << ": " << ec.message() << "\n";
    return false;
  }
  std::vector<std::pair<std::string, std::string>> staged;
};

/// `expr.h` -> `UNUM_AIR_EXPR_H`.
static std::string guardFor(StringRef path) {
  std::string guard = "UNUM_AIR_";
  for (char c : sys::path::filename(path))
    guard += isalnum((unsigned char)c) ? toupper(c) : '_';
  return guard;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  unum::initToolCommandLine("unum-airc", {&category},
                            /*boundsDiagnostics=*/true);
  cl::ParseCommandLineOptions(argc, argv,
                              "Unum array compiler (AIR -> native)\n");
  auto buffer = MemoryBuffer::getFileOrSTDIN(input);
  if (!buffer) {
    WithColor::error() << input << ": " << buffer.getError().message() << "\n";
    return 1;
  }
  if (emit == Emit::Object && output == "-" && header.empty()) {
    WithColor::error() << "an object file needs -o FILE\n";
    return 1;
  }
  air::CompileOptions options;
  options.entry = entry;
  options.signature = signature;
  options.cpu = mcpu;
  options.threads = threads;
  air::Stage stage = emit == Emit::Air      ? air::Stage::Air
                     : emit == Emit::Linalg ? air::Stage::Linalg
                                            : air::Stage::Full;
  air::AirCompiler compiler;
  std::string name = input == "-" ? "<stdin>" : input.getValue();
  bool ok =
      compiler.compile((*buffer)->getBuffer().str(), name, options, stage);
  errs() << compiler.errors();
  if (!ok)
    return 1;
  if (compiler.kernels().empty()) {
    WithColor::error() << name << ": no typed public function to compile "
                       << "(give generic ones a --signature)\n";
    return 1;
  }
  std::string data;
  if (emit == Emit::Object)
    ok = compiler.emitObject(data);
  else if (emit == Emit::LLVMIR)
    ok = compiler.emitLLVMIR(data);
  else
    data = compiler.printModule();
  if (!ok) {
    errs() << compiler.errors();
    return 1;
  }
  // Both files or neither.
  StagedOutputs outputs;
  if (!header.empty() &&
      !outputs.add(header, compiler.cHeader(guardFor(header))))
    return 1;
  if (!(emit == Emit::Object && output == "-") && !outputs.add(output, data))
    return 1;
  return outputs.commit() ? 0 : 1;
}
