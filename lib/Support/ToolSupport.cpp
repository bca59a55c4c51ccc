//===- ToolSupport.cpp - What every Unum tool's main does first -----------===//
#include "unum/Support/ToolSupport.h"
#include "unum/Version.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;

void unum::printVersion(raw_ostream &os, StringRef tool) {
  os << tool << " (Unum) " << UNUM_VERSION_STRING << "\n  built with MLIR "
     << UNUM_MLIR_VERSION_STRING << "\n";
}

void unum::initToolCommandLine(StringRef tool,
                               ArrayRef<cl::OptionCategory *> own,
                               bool boundsDiagnostics) {
  static std::string toolName;
  toolName = tool.str();
  cl::SetVersionPrinter(
      [](raw_ostream &os) { unum::printVersion(os, toolName); });

  static const StringSet<> helpOptions = {"help", "help-list", "help-hidden",
                                          "help-list-hidden", "version"};
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *opt = entry.second;
    // --error-limit (unum/Support/Diagnostics.h) is the tool's own when it
    // bounds its diagnostics.
    if (helpOptions.contains(entry.first) ||
        (boundsDiagnostics && entry.first == "error-limit")) {
      // (Not clear() then addCategory(): addCategory reads Categories[0].)
      if (!own.empty())
        opt->Categories.assign(1, own.front());
      continue;
    }
    bool isOwn = any_of(opt->Categories, [&](cl::OptionCategory *cat) {
      return is_contained(own, cat);
    });
    if (!isOwn && opt->getOptionHiddenFlag() == cl::NotHidden)
      opt->setHiddenFlag(cl::Hidden);
  }
}

std::vector<char *> unum::withQuietOpDiagnostics(int argc, char **argv) {
  static char quiet[] = "--mlir-print-op-on-diagnostic=false";
  std::vector<char *> args(argv, argv + argc);
  args.insert(args.begin() + (argc > 0 ? 1 : 0), quiet);
  return args;
}
