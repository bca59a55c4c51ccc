//===- App.cpp - The functions of an application and their code -----------===//

#include "unum/Runtime/App.h"
#include "AppInternal.h"

#include "unum/Config/Cycles.h"

#include "unum/Config/AppFiles.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <unistd.h>

using namespace unum::runtime;
namespace config = unum::config;
namespace fs = std::filesystem;

App::App() : index(std::make_unique<detail::AppIndex>()) {}
App::~App() = default;
App::App(const App &other) : fns(other.fns) { reindex(); }
// A map's move keeps its nodes, so the specs and the index stay valid.
App::App(App &&other) noexcept = default;

App &App::operator=(const App &other) {
  if (this != &other) {
    fns = other.fns;
    reindex();
  }
  return *this;
}

App &App::operator=(App &&other) noexcept = default;

/// Derives node.plan (StepPlan) from the spec's config, handler and
/// targets; called whenever one of them changes.
static void plan(detail::FunctionNode &node) {
  const config::FunctionConfig &cfg = node.config;
  detail::StepPlan &p = node.plan;
  p.handler = node.spec->handler.get();
  p.checkpoint = cfg.checkpoint;
  p.start = cfg.start;
  p.timeout = cfg.timeoutSeconds.has_value();
  p.retries = !cfg.retriers.empty();
  p.stateInput = cfg.stateInput.has_value();
  p.debug = cfg.debug.value_or(false);
  p.dataFlow = cfg.dataFlow.has_value();
  p.saveInput = cfg.saveInput;
  p.loop = cfg.loop.value_or(0) > 0;
  p.catchInput = std::any_of(cfg.next.begin(), cfg.next.end(), [](auto &e) {
    return e.kind == config::EdgeKind::Error && e.resultPath;
  });
  p.executionContext =
      cfg.start && cfg.dataFlow && cfg.dataFlow->find("ExecutionContext");
  p.contextConditions =
      std::any_of(cfg.next.begin(), cfg.next.end(), [](auto &e) {
        return e.conditional && config::readsContext(*e.conditional->root);
      });
  p.fanInEdge = std::any_of(cfg.next.begin(), cfg.next.end(), [](auto &e) {
    return e.kind == config::EdgeKind::FanIn;
  });
  const bool chain = cfg.next.size() == 1 && !cfg.nextIsList &&
                     cfg.next[0].kind == config::EdgeKind::Scalar &&
                     !cfg.next[0].conditional && cfg.modifiers.empty();
  p.chainTarget = chain ? node.targets[0] : nullptr;
}

detail::AppIndex::~AppIndex() {
  forEach([](FunctionNode &node) { node.~FunctionNode(); });
}

detail::FunctionNode &detail::AppIndex::add(const FunctionSpec &spec) {
  if (count == chunks.size() * kChunk)
    chunks.push_back(std::unique_ptr<Chunk>(new Chunk));
  FunctionNode *node =
      new (chunks[count / kChunk]->bytes[count % kChunk]) FunctionNode(spec);
  ++count;
  nodes.emplace(spec.config.name, node);
  if (spec.config.start)
    starts.emplace(spec.config.name, node);
  debugging += spec.config.debug.value_or(false);
  return *node;
}

/// Registers `spec` in the index and links edges to and from it.
static void link(detail::AppIndex &index, const FunctionSpec &spec) {
  detail::FunctionNode &node = index.add(spec);
  node.plan.owner = &index;
  node.targets.assign(spec.config.next.size(), nullptr);
  for (size_t i = 0; i < spec.config.next.size(); ++i) {
    const std::string &target = spec.config.next[i].target;
    if (auto t = index.nodes.find(target); t != index.nodes.end())
      node.targets[i] = t->second;
    else
      index.dangling[target].push_back({&node, i});
  }
  plan(node);
  auto waiting = index.dangling.find(spec.config.name);
  if (waiting != index.dangling.end()) {
    for (auto &[from, edge] : waiting->second) {
      from->targets[edge] = &node;
      plan(*from);
    }
    index.dangling.erase(waiting);
  }
}

void App::reindex() {
  index = std::make_unique<detail::AppIndex>();
  index->nodes.reserve(fns.size());
  for (auto &[name, spec] : fns)
    link(*index, spec);
}

Status App::add(config::FunctionConfig config, std::shared_ptr<Handler> handler,
                std::string dir) {
  std::string name = config.name;
  if (fns.count(name))
    return Status::error("function '" + name + "' is defined twice");
  FunctionSpec spec;
  spec.config = std::move(config);
  spec.handler = std::move(handler);
  spec.dir = std::move(dir);
  if (!index) // a moved-from App, used again
    index = std::make_unique<detail::AppIndex>();
  link(*index, fns.emplace(name, std::move(spec)).first->second);
  return Status::ok();
}

Status App::setHandler(const std::string &function,
                       std::shared_ptr<Handler> handler) {
  auto it = fns.find(function);
  if (it == fns.end())
    return Status::error("no function '" + function + "'");
  it->second.handler = std::move(handler);
  plan(*index->nodes.at(it->second.config.name));
  return Status::ok();
}

const FunctionSpec *App::find(const std::string &function) const {
  const detail::FunctionNode *node = detail::AppAccess::node(*this, function);
  return node ? node->spec : nullptr;
}

bool App::owns(const FunctionSpec &spec) const {
  return find(spec.config.name) == &spec;
}

std::vector<std::string> App::startFunctions() const {
  std::vector<std::string> out;
  if (index)
    for (const auto &[name, node] : index->starts)
      out.emplace_back(name);
  return out;
}

static Status validateLoops(const std::map<std::string, FunctionSpec> &fns);
static Status
validateStateInputs(const std::map<std::string, FunctionSpec> &fns);

Status App::validate() const {
  if (fns.empty())
    return Status::error("the application has no functions");
  // The graph first: a dangling name is the more fundamental mistake.
  for (const auto &[name, spec] : fns) {
    for (const config::Edge &e : spec.config.next) {
      if (!fns.count(e.target))
        return Status::error("function '" + name +
                             "' continues to unknown function '" + e.target +
                             "'");
      for (const config::NamePattern &p : e.values)
        if (!fns.count(p.function))
          return Status::error("function '" + name + "': fan-in value '" +
                               p.text + "' names unknown function '" +
                               p.function + "'");
    }
  }
  if (Status s = validateStateInputs(fns); !s)
    return s;
  if (Status s = validateLoops(fns); !s)
    return s;
  for (const auto &[name, spec] : fns) {
    if (!spec.handler && spec.config.builtin)
      return Status::error(
          "function '" + name + "' is the built-in '" + *spec.config.builtin +
          "' with DataFlow fields this runtime does not apply yet");
    if (!spec.handler)
      return Status::error(
          "function '" + name + "' has no handler" +
          (spec.dir.empty()
               ? std::string()
               : " (expected an executable " +
                     (fs::path(spec.dir) / "handler").string() + ")"));
  }
  return Status::ok();
}

/// A function on a loop of the graph runs more than once at the same
/// fan-out indices, so its instances need "Loop" to get names of their own;
/// without it a later visit would find an earlier one's checkpoint and
/// silently stop or go on with its output. A loop whose modifiers assign an
/// index or size (`$0 = $0 + 1`, ExCamera's chains) renames its instances
/// itself.
static Status validateLoops(const std::map<std::string, FunctionSpec> &fns) {
  std::vector<const FunctionSpec *> specs;
  std::map<std::string_view, unsigned> id;
  for (const auto &[name, spec] : fns) {
    id[name] = specs.size();
    specs.push_back(&spec);
  }
  std::vector<std::vector<unsigned>> succ(specs.size());
  for (unsigned v = 0; v < specs.size(); ++v)
    for (const config::Edge &e : specs[v]->config.next)
      succ[v].push_back(id.at(e.target));
  std::vector<unsigned> component = config::stronglyConnected(succ);
  std::vector<bool> cyclic = config::onCycle(succ);
  std::set<unsigned> renaming; // components that rewrite indices
  for (unsigned v = 0; v < specs.size(); ++v)
    for (const config::Modifier &m : specs[v]->config.modifiers)
      if (m.kind != config::Modifier::Kind::Pop)
        renaming.insert(component[v]);
  for (unsigned v = 0; v < specs.size(); ++v)
    if (cyclic[v] && !specs[v]->config.loop && !renaming.count(component[v]))
      return Status::error(
          "function '" + specs[v]->config.name +
          "' is on a loop but has no \"Loop\": each visit would reuse its "
          "instance names (and stop at the first visit's checkpoint)");
  return Status::ok();
}

/// Each StateInput names a SaveInput function, read by no other sink: the
/// sink retires the saved input, and a saved input nobody reads would stay.
/// A sink reads it when its fan-in completes, so it is a fan-in target.
static Status
validateStateInputs(const std::map<std::string, FunctionSpec> &fns) {
  std::map<std::string, std::string> readers; // saver -> its sink
  for (const auto &[name, spec] : fns) {
    if (!spec.config.stateInput)
      continue;
    const std::string &from = *spec.config.stateInput;
    auto saver = fns.find(from);
    if (saver == fns.end())
      return Status::error("function '" + name +
                           "' reads the state input of unknown function '" +
                           from + "'");
    if (!saver->second.config.saveInput)
      return Status::error("function '" + name +
                           "' reads the state input of '" + from +
                           "', which does not save its input (SaveInput)");
    // A sink with Retriers (its state's Retry) re-enters its state: each
    // attempt's instances need names of their own.
    if (!spec.config.retriers.empty() &&
        (!spec.config.loop || !saver->second.config.loop))
      return Status::error("function '" + name +
                           "' retries its state (Retriers with StateInput): "
                           "it and '" +
                           from + "' need \"Loop\"");
    auto [it, inserted] = readers.emplace(from, name);
    if (!inserted)
      return Status::error("functions '" + it->second + "' and '" + name +
                           "' both read the state input of '" + from + "'");
  }
  for (const auto &[name, spec] : fns)
    if (spec.config.saveInput && !readers.count(name))
      return Status::error("function '" + name +
                           "' saves its input (SaveInput) but no function "
                           "reads it (StateInput)");
  std::set<std::string> fanInTargets;
  for (const auto &[name, spec] : fns)
    for (const config::Edge &e : spec.config.next)
      if (e.kind == config::EdgeKind::FanIn)
        fanInTargets.insert(e.target);
  for (const auto &[name, spec] : fns)
    if (spec.config.stateInput && !fanInTargets.count(name))
      return Status::error("function '" + name +
                           "' has a StateInput but no fan-in leads to it (a "
                           "sink reads its state's input when its fan-in "
                           "completes)");
  return Status::ok();
}

static std::string firstErrors(const std::vector<config::Diagnostic> &diags) {
  std::string msg;
  unsigned n = 0;
  for (const config::Diagnostic &d : diags)
    if (d.severity == config::Diagnostic::Severity::Error && n++ < 5)
      msg += (msg.empty() ? "" : "\n") + d.str();
  return msg;
}

Result<App> App::load(const std::string &dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Status::error("'" + dir + "' is not an application directory");
  // JSON is what the compiler writes; YAML apps are accepted as well.
  config::Format format = config::Format::Json;
  bool anyJson = false, anyYaml = false;
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec)) {
    anyJson |= fs::exists(e.path() / "unum_config.json", ec);
    anyYaml |= fs::exists(e.path() / "unum_config.yaml", ec);
  }
  if (!anyJson && anyYaml)
    format = config::Format::Yaml;
  config::DiagnosticSink sink(dir);
  std::vector<config::SourceFile> files;
  if (!config::readConfigSources(dir, format, files, sink))
    return Status::error(firstErrors(sink.diagnostics()));
  App app;
  for (const config::SourceFile &file : files) {
    std::vector<config::FunctionConfig> configs;
    std::vector<config::Diagnostic> diags;
    if (!config::loadConfigs({file}, format, configs, diags))
      return Status::error(firstErrors(diags));
    std::string fnDir = fs::path(file.path).parent_path().string();
    for (config::FunctionConfig &c : configs) {
      // "Handler": F runs the code of function F (one Task resource used by
      // several states); it lives in F's directory.
      std::string codeDir =
          c.handler ? (fs::path(dir) / *c.handler).string() : fnDir;
      std::shared_ptr<Handler> handler;
      fs::path exe = fs::path(codeDir) / "handler";
      if (!c.builtin && fs::is_regular_file(exe, ec) &&
          ::access(exe.c_str(), X_OK) == 0)
        handler = makeSubprocessHandler(fs::absolute(exe).string(),
                                        fs::absolute(codeDir).string());
      else
        handler = builtinHandler(c);
      if (Status s = app.add(std::move(c), handler, fnDir); !s)
        return s.withContext(file.path);
    }
  }
  return app;
}

Result<App> App::fromJson(const std::vector<std::string> &texts) {
  std::vector<config::SourceFile> files;
  for (size_t i = 0; i < texts.size(); ++i)
    files.push_back({"config" + std::to_string(i) + ".json", texts[i]});
  std::vector<config::FunctionConfig> configs;
  std::vector<config::Diagnostic> diags;
  if (!config::loadConfigs(files, config::Format::Json, configs, diags))
    return Status::error(firstErrors(diags));
  App app;
  for (config::FunctionConfig &c : configs) {
    auto handler = builtinHandler(c);
    if (Status s = app.add(std::move(c), handler); !s)
      return s;
  }
  return app;
}
