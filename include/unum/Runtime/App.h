//===- App.h - The functions of an application and their code ---*- C++ -*-===//
//
// A deployed function knows only its own config; locally (unum-run, tests)
// all functions of an application live in one process, so an App maps each
// function name to its config and handler.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_RUNTIME_APP_H
#define UNUM_RUNTIME_APP_H

#include "unum/Config/FunctionConfig.h"
#include "unum/Runtime/Handler.h"
#include "unum/Runtime/Status.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace unum::runtime {

class App;
namespace detail {
struct AppAccess; // lib/Runtime/AppInternal.h
struct AppIndex;
} // namespace detail

/// One function of an App: its config, its code and where it came from.
/// Owned by its App (App::find and App::functions give const references):
/// valid while the App lives and the function is not replaced; copying or
/// moving the App keeps them valid only in the App they now belong to
/// (a move keeps the same specs).
struct FunctionSpec {
  config::FunctionConfig config;
  std::shared_ptr<Handler> handler; // nullptr until one is set
  std::string dir; // the function's directory, if loaded from disk
};

/// The functions of an application, by name, with their handlers.
///
/// Thread safety: not synchronised. Build it (load, add, setHandler) on one
/// thread before any Runtime or LocalRunner uses it; from then on it is
/// read-only and any number of threads may read it at once. setHandler()
/// while a Runtime on the App runs is a data race.
///
/// Lifetime: the App owns its FunctionSpecs and their handlers (shared
/// with whoever else holds them). Every Runtime and LocalRunner built on an
/// App keeps a reference to it: the App must outlive them, and must not be
/// moved or assigned to while they exist.
class App {
public:
  App();
  ~App();
  App(const App &other);
  App(App &&other) noexcept;
  App &operator=(const App &other);
  App &operator=(App &&other) noexcept;

  /// Adds a function; a second function of the same name is an error.
  Status add(config::FunctionConfig config,
             std::shared_ptr<Handler> handler = nullptr, std::string dir = "");
  /// Sets (or replaces) the handler of an existing function.
  Status setHandler(const std::string &function,
                    std::shared_ptr<Handler> handler);

  const FunctionSpec *find(const std::string &function) const;
  /// True if `spec` belongs to this App.
  bool owns(const FunctionSpec &spec) const;
  const std::map<std::string, FunctionSpec> &functions() const { return fns; }
  std::vector<std::string> startFunctions() const;

  /// Every function has a handler and every edge target and fan-in function
  /// exists. (The compiler's verifier checks much more; this is what the
  /// runtime needs to not get lost.)
  Status validate() const;

  /// Loads APPDIR/<Function>/unum_config.json (or .yaml when there is no
  /// JSON). Handlers: APPDIR/<Function>/handler if executable, else a
  /// builtin; functions with neither keep no handler (validate() says so).
  static Result<App> load(const std::string &dir);

  /// Decodes configs given as JSON texts (tests, benchmarks).
  static Result<App> fromJson(const std::vector<std::string> &configs);

private:
  friend struct detail::AppAccess;
  void reindex();

  std::map<std::string, FunctionSpec> fns;
  /// What the runtime derives per function (its step plan, its edges'
  /// targets): lib/Runtime/AppInternal.h. Null only in a moved-from App.
  std::unique_ptr<detail::AppIndex> index;
};

} // namespace unum::runtime

#endif // UNUM_RUNTIME_APP_H
