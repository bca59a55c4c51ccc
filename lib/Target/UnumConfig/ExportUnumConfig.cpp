//===- ExportUnumConfig.cpp - unum dialect -> unum_config files -----------===//
#include "unum/Config/AppFiles.h"
#include "unum/Dialect/Unum/IR/UnumOps.h"
#include "unum/Target/JsonImage.h"
#include "unum/Target/UnumConfig/UnumConfig.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace unum;

/// Attributes a config file has no key for must not be dropped silently.
static LogicalResult checkNoExtraAttributes(Operation *op) {
  for (NamedAttribute attr : op->getDiscardableAttrs())
    return op->emitOpError()
           << "carries attribute '" << attr.getName().getValue()
           << "', which unum_config files cannot express";
  return success();
}

static config::EdgeKind edgeKind(Operation *edge) {
  return llvm::TypeSwitch<Operation *, config::EdgeKind>(edge)
      .Case([](MapOp) { return config::EdgeKind::Map; })
      .Case([](FanInOp) { return config::EdgeKind::FanIn; })
      .Case([](ErrorOp) { return config::EdgeKind::Error; })
      .Default([](Operation *) { return config::EdgeKind::Scalar; });
}

static LogicalResult exportFunction(FunctionOp function,
                                    config::FunctionConfig &out) {
  if (failed(checkNoExtraAttributes(function)))
    return failure();
  out.name = function.getSymName().str();
  out.start = function.getStart();
  out.checkpoint = function.getCheckpoint();
  if (auto retry = function.getRetry())
    out.retry = static_cast<int64_t>(*retry);
  if (auto debug = function.getDebug())
    out.debug = *debug;
  if (auto handler = function.getHandler())
    out.handler = handler->str();
  if (auto builtin = function.getBuiltin())
    out.builtin = builtin->str();
  if (DictionaryAttr dataflow = function.getDataflowAttr()) {
    out.dataFlow = attrToJson(dataflow);
    if (!out.dataFlow)
      return function.emitOpError()
             << "has a 'dataflow' value that is not a JSON image";
  }
  out.saveInput = function.getSaveInput();
  if (FlatSymbolRefAttr from = function.getStateInputAttr())
    out.stateInput = from.getValue().str();
  if (auto loop = function.getLoop())
    out.loop = static_cast<int64_t>(*loop);
  if (auto timeout = function.getTimeout())
    out.timeoutSeconds = static_cast<int64_t>(*timeout);
  if (ArrayAttr retriers = function.getRetriersAttr()) {
    out.retriersNode = attrToJson(retriers);
    if (!out.retriersNode)
      return function.emitOpError()
             << "has a 'retriers' value that is not a JSON image";
  }

  ArrayAttr modifiers;
  Operation *firstEdge = nullptr;
  for (EdgeOpInterface edge : function.getEdges()) {
    Operation *op = edge.getOperation();
    if (failed(checkNoExtraAttributes(op)))
      return failure();
    // The file formats hold one modifier list per function, applied to
    // every continuation: edges that disagree cannot be written.
    ArrayAttr edgeModifiers = edge.getModifiersAttr();
    if (!firstEdge) {
      firstEdge = op;
      modifiers = edgeModifiers;
    } else if (edgeModifiers != modifiers) {
      InFlightDiagnostic diag =
          op->emitOpError()
          << "has payload modifiers that differ from those of the function's "
             "first edge; unum_config files hold one modifier list per "
             "function";
      diag.attachNote(firstEdge->getLoc()) << "first edge is here";
      return diag;
    }
    config::Edge e;
    e.target = edge.getTargetAttr().getValue().str();
    e.kind = edgeKind(op);
    if (ConditionAttr condition = edge.getConditionAttr())
      e.conditional = condition.getValue();
    if (auto fanin = dyn_cast<FanInOp>(op))
      for (auto pattern : fanin.getValues().getAsRange<NamePatternAttr>())
        e.values.push_back(pattern.getValue());
    if (auto error = dyn_cast<ErrorOp>(op);
        error && error.getResultPathAttr()) {
      e.resultPath = attrToJson(error.getResultPathAttr());
      if (!e.resultPath)
        return error.emitOpError()
               << "has a 'result_path' that is not a JSON image";
    }
    if (auto error = dyn_cast<ErrorOp>(op))
      e.propagate = error.getPropagate();
    if (auto fanin = dyn_cast<FanInOp>(op))
      e.propagate = fanin.getPropagate();
    if (auto map = dyn_cast<MapOp>(op))
      if (std::optional<uint64_t> k = map.getMaxConcurrency())
        e.maxConcurrency = int64_t(*k);
    out.next.push_back(std::move(e));
  }
  if (modifiers)
    for (auto modifier : modifiers.getAsRange<ModifierAttr>())
      out.modifiers.push_back(modifier.getValue());
  out.nextIsList = out.next.size() > 1 || function.getFanout();
  return success();
}

LogicalResult
unum::exportUnumConfigs(AppOp app, std::vector<config::FunctionConfig> &out) {
  if (failed(checkNoExtraAttributes(app)))
    return failure();
  for (FunctionOp function : app.getBodyBlock().getOps<FunctionOp>()) {
    config::FunctionConfig config;
    if (failed(exportFunction(function, config)))
      return failure();
    out.push_back(std::move(config));
  }
  return success();
}

LogicalResult unum::translateAppToConfig(AppOp app, config::Format format,
                                         StringRef outputDir,
                                         llvm::raw_ostream &os) {
  std::vector<config::FunctionConfig> configs;
  if (failed(exportUnumConfigs(app, configs)))
    return failure();

  if (outputDir.empty()) {
    // One document per function: a YAML stream, or concatenated JSON values
    // (which --from-json reads back).
    for (const config::FunctionConfig &config : configs) {
      if (format == config::Format::Yaml)
        os << "---\n";
      os << config::writeConfig(config, format);
    }
    return success();
  }

  std::vector<std::pair<std::string, std::string>> files;
  for (const config::FunctionConfig &config : configs)
    files.emplace_back(config.name, config::writeConfig(config, format));
  std::string error;
  if (!config::writeAppDirectory(outputDir.str(), format, files, error))
    return app.emitError() << "cannot write '" << outputDir << "': " << error;
  return success();
}
