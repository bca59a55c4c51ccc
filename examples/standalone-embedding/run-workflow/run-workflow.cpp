//===- run-workflow.cpp - A workflow run by the runtime library alone -----===//
//
//   run-workflow APPDIR N
//
// APPDIR holds a compiled application (unumc sum-of-squares.asl.json -o
// APPDIR): one <Function>/unum_config.json per function. This program gives
// its Task functions C++ handlers, runs the workflow in-process on a thread
// pool over an in-memory data store (checkpoints, fan-in and garbage
// collection as deployed) and prints the outputs of the terminal instances.
// Only Unum's runtime library: no MLIR, no LLVM.
//
//===----------------------------------------------------------------------===//
#include "unum/Runtime/App.h"
#include "unum/Runtime/DataStore.h"
#include "unum/Runtime/Runtime.h"
#include "unum/Version.h"

#include "SumOfSquares.h"

#include <cstdlib>
#include <iostream>

using namespace unum::runtime;

static int fail(const std::string &message) {
  std::cerr << "run-workflow: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return fail("usage: run-workflow APPDIR N");
  std::cerr << "run-workflow on the Unum " UNUM_VERSION_STRING " runtime\n";

  Result<App> app = App::load(argv[1]);
  if (!app)
    return fail(app.getStatus().message());
  if (Status s = sum_of_squares::setHandlers(*app); !s)
    return fail(s.message());

  std::unique_ptr<DataStore> store = createMemoryStore();
  LocalRunner::Options options;
  options.workers = 2;
  LocalRunner runner(*app, *store, options);
  RunResult result = runner.run(Value(int64_t(std::atoi(argv[2]))));
  for (const std::string &error : result.errors)
    std::cerr << "run-workflow: error: " << error << "\n";
  for (const auto &[instance, output] : result.outputs)
    std::cout << instance << ": " << toJson(output) << "\n";
  return result.ok() ? 0 : 1;
}
