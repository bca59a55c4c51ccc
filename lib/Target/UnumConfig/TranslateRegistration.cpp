//===- TranslateRegistration.cpp - unum-translate's config translations ---===//
#include "unum/Dialect/Sfn/IR/SfnDialect.h"
#include "unum/Dialect/Unum/IR/UnumOps.h"
#include "unum/Dialect/Unum/Transforms/Passes.h"
#include "unum/Target/TranslateDiagnostics.h"
#include "unum/Target/UnumConfig/UnumConfig.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace unum;

namespace {
/// unum-translate's options for these translations, registered with them
/// (not at start-up, so tools that only link this library do not list them).
struct ConfigTranslationOptions {
  llvm::cl::OptionCategory category{"Config translation options"};
  llvm::cl::opt<std::string> appName{
      "app-name",
      llvm::cl::desc("Name of the imported unum.app (default: the input "
                     "directory or file name)"),
      llvm::cl::value_desc("name"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> outputDir{
      "output-dir",
      llvm::cl::desc("Write DIR/<Function>/unum_config.{json,yaml} (--to-json, "
                     "--to-yaml) or the VHDL files (--to-vhdl), all or "
                     "nothing, instead of printing them"),
      llvm::cl::value_desc("dir"), llvm::cl::cat(category)};
};
} // namespace

static llvm::ManagedStatic<ConfigTranslationOptions> clOptions;

StringRef unum::getAppNameOption() {
  return clOptions.isConstructed() ? StringRef(clOptions->appName) : "";
}
StringRef unum::getOutputDirOption() {
  return clOptions.isConstructed() ? StringRef(clOptions->outputDir) : "";
}

/// Set by unum-translate's main when the input is an app directory, which
/// mlirTranslateMain cannot open as a file.
static std::string &directoryInput() {
  static std::string path;
  return path;
}

void unum::setConfigDirectoryInput(StringRef path) {
  directoryInput() = path.str();
}

static OwningOpRef<Operation *> importFrom(llvm::SourceMgr &sourceMgr,
                                           MLIRContext *context,
                                           config::Format format) {
  if (!directoryInput().empty())
    return importUnumConfigPath(directoryInput(), format, getAppNameOption(),
                                context);
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  return importUnumConfigText(buffer->getBuffer(),
                              buffer->getBufferIdentifier(), format,
                              getAppNameOption(), context);
}

static LogicalResult exportTo(Operation *op, llvm::raw_ostream &os,
                              config::Format format) {
  SmallVector<AppOp> apps;
  sfn::StateMachineOp machine;
  if (auto app = dyn_cast<AppOp>(op))
    apps.push_back(app);
  else
    op->walk([&](Operation *nested) {
      if (auto app = dyn_cast<AppOp>(nested))
        apps.push_back(app);
      else if (auto sm = dyn_cast<sfn::StateMachineOp>(nested))
        machine = sm;
    });
  if (apps.empty() && machine)
    return machine.emitError()
           << "this is a Step Functions state machine (the sfn dialect): "
              "lower it to an unum.app first, with unum-opt "
              "--convert-sfn-to-unum (or compile the ASL with unumc)";
  if (apps.size() != 1)
    return op->emitError() << "expected exactly one 'unum.app', found "
                           << apps.size();
  lintApp(apps.front()); // the warnings, once
  return translateAppToConfig(apps.front(), format, getOutputDirOption(), os);
}

void unum::registerUnumConfigTranslations() {
  (void)*clOptions; // registers the options
  auto registerDialects = [](DialectRegistry &registry) {
    registry.insert<UnumDialect>();
    quietOpDiagnostics(registry);
  };
  static TranslateToMLIRRegistration fromJson(
      "from-json",
      "import unum_config.json files (file, stream or app directory)",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) {
        return importFrom(sourceMgr, context, config::Format::Json);
      },
      registerDialects);
  static TranslateToMLIRRegistration fromYaml(
      "from-yaml",
      "import unum_config.yaml files (file, stream or app directory)",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) {
        return importFrom(sourceMgr, context, config::Format::Yaml);
      },
      registerDialects);
  // The exports parse sfn IR too, to say what to do with it.
  auto registerExportDialects = [](DialectRegistry &registry) {
    registry.insert<UnumDialect, sfn::SfnDialect>();
    quietOpDiagnostics(registry);
  };
  static TranslateFromMLIRRegistration toJson(
      "to-json", "export an unum.app as unum_config.json files",
      [](Operation *op, llvm::raw_ostream &os) {
        return exportTo(op, os, config::Format::Json);
      },
      registerExportDialects);
  static TranslateFromMLIRRegistration toYaml(
      "to-yaml", "export an unum.app as unum_config.yaml files",
      [](Operation *op, llvm::raw_ostream &os) {
        return exportTo(op, os, config::Format::Yaml);
      },
      registerExportDialects);
}
