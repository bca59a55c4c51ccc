//===- TranslateRegistration.cpp - unum-translate's --from-asl ------------===//
#include "unum/Dialect/Sfn/IR/SfnDialect.h"
#include "unum/Target/ASL/ASL.h"
#include "unum/Target/TranslateDiagnostics.h"
#include "unum/Target/UnumConfig/UnumConfig.h"

#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace unum;

namespace {
/// --from-asl's options, registered with the translation (not at start-up,
/// so tools that only link this library do not list them).
struct ASLTranslationOptions {
  llvm::cl::OptionCategory category{"ASL import options"};
  llvm::cl::opt<std::string> functionMap{
      "function-map",
      llvm::cl::desc("--from-asl: a JSON object mapping Task resources (ARNs) "
                     "to function names (default: the ARN's last segment)"),
      llvm::cl::value_desc("file"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> aslGlobals{
      "asl-globals",
      llvm::cl::desc("--from-asl: a JSON object {\"Checkpoint\": bool, "
                     "\"Debug\": bool} recorded on the state machine"),
      llvm::cl::value_desc("file"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> aslSubstitutions{
      "asl-substitutions",
      llvm::cl::desc("--from-asl: a JSON object {\"Name\": value} replacing "
                     "the definition's ${Name} placeholders"),
      llvm::cl::value_desc("file"), llvm::cl::cat(category)};
};
} // namespace

static llvm::ManagedStatic<ASLTranslationOptions> clOptions;

void unum::registerASLTranslation() {
  (void)*clOptions; // registers the options
  static TranslateToMLIRRegistration fromAsl(
      "from-asl",
      "import an Amazon States Language state machine (JSON) as sfn ops",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        ASLImportOptions options;
        options.name = getAppNameOption().str();
        options.functionMapFile = clOptions->functionMap;
        options.globalsFile = clOptions->aslGlobals;
        options.substitutionsFile = clOptions->aslSubstitutions;
        return OwningOpRef<Operation *>(importASL(buffer->getBuffer(),
                                                  buffer->getBufferIdentifier(),
                                                  options, context));
      },
      [](DialectRegistry &registry) {
        registry.insert<sfn::SfnDialect>();
        quietOpDiagnostics(registry);
      });
}
