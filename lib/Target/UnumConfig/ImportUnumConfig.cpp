//===- ImportUnumConfig.cpp - unum_config files -> unum dialect -----------===//
#include "unum/Config/AppFiles.h"
#include "unum/Config/Document.h"
#include "unum/Dialect/Unum/IR/UnumOps.h"
#include "unum/Target/InputName.h"
#include "unum/Target/JsonImage.h"
#include "unum/Target/UnumConfig/UnumConfig.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace unum;

namespace {
/// A decoded config and the file it came from (for locations).
struct LoadedConfig {
  config::FunctionConfig config;
  std::string file;
};
} // namespace

static Location toLoc(MLIRContext *context, StringRef file,
                      config::SourceLoc loc) {
  if (loc.line == 0)
    return FileLineColLoc::get(context, file, 0, 0);
  return FileLineColLoc::get(context, file, loc.line, loc.col);
}

/// Parses and decodes every document of one file. Returns false on error.
static bool decodeFile(StringRef text, StringRef file, config::Format format,
                       std::vector<LoadedConfig> &out,
                       std::vector<config::Diagnostic> &diagnostics) {
  config::DiagnosticSink sink(file.str());
  std::vector<config::Node> documents;
  bool ok = format == config::Format::Json
                ? config::parseJson(text, documents, sink)
                : config::parseYaml(text, documents, sink);
  if (ok) {
    for (const config::Node &document : documents) {
      // A JSON array at the top level holds several configs.
      if (format == config::Format::Json &&
          document.kind == config::Node::Kind::Array) {
        for (const config::Node &item : document.items)
          if (auto decoded = config::decodeConfig(item, format, sink))
            out.push_back({std::move(*decoded), file.str()});
        continue;
      }
      if (auto decoded = config::decodeConfig(document, format, sink))
        out.push_back({std::move(*decoded), file.str()});
    }
    if (documents.empty())
      sink.error({}, "no config documents in the input");
  }
  diagnostics.insert(diagnostics.end(), sink.diagnostics().begin(),
                     sink.diagnostics().end());
  return !sink.hasErrors();
}

/// A symbol-friendly default app name.
static std::string defaultAppName(StringRef path) {
  StringRef trimmed = inputFileOf(path).rtrim("/");
  if (trimmed.empty() || trimmed == "-" || trimmed == "<stdin>")
    return "app";
  std::string name = llvm::sys::path::stem(trimmed).str();
  return name.empty() ? "app" : name;
}

/// The app needs a start function; the files mark it with `Start`, so the
/// error says so in their own spelling (the verifier, which knows only IR,
/// would ask for the `start` keyword).
static bool checkStart(ArrayRef<LoadedConfig> configs, config::Format format,
                       MLIRContext *context) {
  if (configs.empty() || llvm::any_of(configs, [](const LoadedConfig &c) {
        return c.config.start;
      }))
    return true;
  const LoadedConfig &first = configs.front();
  emitError(toLoc(context, first.file, first.config.loc))
      << "no function is marked as the start of the app: add "
      << (format == config::Format::Json ? "\"Start\": true" : "Start: true")
      << " to the entry function's config";
  return false;
}

static ArrayAttr modifierArray(Builder &builder,
                               const std::vector<config::Modifier> &mods) {
  if (mods.empty())
    return {};
  SmallVector<Attribute> attrs;
  for (const config::Modifier &m : mods)
    attrs.push_back(ModifierAttr::get(builder.getContext(), m));
  return builder.getArrayAttr(attrs);
}

static void buildEdge(OpBuilder &builder, const config::Edge &edge,
                      StringRef file, ArrayAttr modifiers) {
  MLIRContext *context = builder.getContext();
  Location loc = toLoc(context, file, edge.loc);
  auto target = FlatSymbolRefAttr::get(context, edge.target);
  ConditionAttr condition;
  if (edge.conditional)
    condition = ConditionAttr::get(context, *edge.conditional);
  switch (edge.kind) {
  case config::EdgeKind::Scalar:
    ChainOp::create(builder, loc, target, condition, modifiers);
    return;
  case config::EdgeKind::Map:
    MapOp::create(builder, loc, target, condition, modifiers,
                  edge.maxConcurrency
                      ? builder.getI64IntegerAttr(*edge.maxConcurrency)
                      : IntegerAttr());
    return;
  case config::EdgeKind::Error: {
    auto error = ErrorOp::create(
        builder, loc, target, condition, modifiers,
        /*result_path=*/Attribute(),
        /*propagate=*/edge.propagate ? builder.getUnitAttr() : UnitAttr());
    if (edge.resultPath)
      error.setResultPathAttr(jsonToAttr(*edge.resultPath, context));
    return;
  }
  case config::EdgeKind::FanIn: {
    SmallVector<Attribute> values;
    for (const config::NamePattern &p : edge.values)
      values.push_back(NamePatternAttr::get(context, p));
    FanInOp::create(builder, loc, target, condition, modifiers,
                    builder.getArrayAttr(values),
                    edge.propagate ? builder.getUnitAttr() : UnitAttr());
    return;
  }
  }
}

static OwningOpRef<ModuleOp> buildModule(ArrayRef<LoadedConfig> configs,
                                         StringRef appName,
                                         StringRef defaultLocFile,
                                         MLIRContext *context) {
  context->getOrLoadDialect<UnumDialect>();
  OpBuilder builder(context);
  Location moduleLoc = FileLineColLoc::get(context, defaultLocFile, 1, 1);
  OwningOpRef<ModuleOp> module = ModuleOp::create(moduleLoc);
  builder.setInsertionPointToEnd(module->getBody());
  auto app = AppOp::create(builder, moduleLoc, appName);

  for (const LoadedConfig &loaded : configs) {
    const config::FunctionConfig &c = loaded.config;
    builder.setInsertionPointToEnd(&app.getBodyBlock());
    auto function = FunctionOp::create(
        builder, toLoc(context, loaded.file, c.nameLoc), c.name);
    function.setStart(c.start);
    function.setCheckpoint(c.checkpoint);
    function.setFanout(c.nextIsList && c.next.size() == 1);
    if (c.retry)
      function.setRetry(static_cast<uint64_t>(*c.retry));
    if (c.debug)
      function.setDebug(*c.debug);
    if (c.handler)
      function.setHandler(StringRef(*c.handler));
    if (c.builtin)
      function.setBuiltin(StringRef(*c.builtin));
    if (c.dataFlow)
      function.setDataflowAttr(
          cast<DictionaryAttr>(jsonToAttr(*c.dataFlow, context)));
    function.setSaveInput(c.saveInput);
    if (c.loop)
      function.setLoop(static_cast<uint64_t>(*c.loop));
    if (c.timeoutSeconds)
      function.setTimeout(static_cast<uint64_t>(*c.timeoutSeconds));
    if (c.retriersNode)
      function.setRetriersAttr(
          cast<ArrayAttr>(jsonToAttr(*c.retriersNode, context)));
    if (c.stateInput)
      function.setStateInputAttr(
          FlatSymbolRefAttr::get(context, *c.stateInput));

    // The file formats hold one modifier list per function; the dialect keeps
    // it on each edge, where it applies.
    ArrayAttr modifiers = modifierArray(builder, c.modifiers);
    if (modifiers && c.next.empty())
      emitWarning(toLoc(context, loaded.file,
                        c.modifierLocs.empty() ? c.loc : c.modifierLocs[0]))
          << "payload modifiers of '" << c.name
          << "' have no effect: the function has no 'Next'; dropped";
    builder.setInsertionPointToEnd(&function.getBodyBlock());
    for (const config::Edge &edge : c.next)
      buildEdge(builder, edge, loaded.file, modifiers);
  }
  return module;
}

OwningOpRef<ModuleOp> unum::importUnumConfigText(StringRef text,
                                                 StringRef bufferName,
                                                 config::Format format,
                                                 StringRef appName,
                                                 MLIRContext *context) {
  std::vector<LoadedConfig> configs;
  std::vector<config::Diagnostic> diagnostics;
  bool ok = decodeFile(text, bufferName, format, configs, diagnostics);
  reportConfigDiagnostics(context, diagnostics);
  if (!ok || !checkStart(configs, format, context))
    return {};
  std::string name =
      appName.empty() ? defaultAppName(bufferName) : appName.str();
  return buildModule(configs, name, bufferName, context);
}

OwningOpRef<ModuleOp> unum::importUnumConfigPath(StringRef path,
                                                 config::Format format,
                                                 StringRef appName,
                                                 MLIRContext *context) {
  config::DiagnosticSink sink(path.str());
  std::vector<config::SourceFile> files;
  if (!config::readConfigSources(path.str(), format, files, sink)) {
    reportConfigDiagnostics(context, sink.diagnostics());
    return {};
  }
  std::vector<LoadedConfig> configs;
  std::vector<config::Diagnostic> diagnostics;
  bool ok = true;
  for (const config::SourceFile &file : files)
    ok &= decodeFile(file.text, file.path, format, configs, diagnostics);
  reportConfigDiagnostics(context, diagnostics);
  if (!ok || !checkStart(configs, format, context))
    return {};
  std::string name = appName.empty() ? defaultAppName(path) : appName.str();
  return buildModule(configs, name, files.front().path, context);
}
