//===- unum-run.cpp - Run a compiled Unum application locally -------------===//
//
//   unum-run APPDIR --input FILE|- [--store memory|sqlite:PATH|redis://H:P]
//            [--workers N] [--trace] [--no-gc] [--crash-rate P [--seed N]]
//
// Loads APPDIR/<Function>/{unum_config.json, handler}, starts the workflow at
// the start function with the input (a payload {"Data": ...} or a bare JSON
// value), runs it on a local thread pool over the chosen data store, and
// prints the terminal outputs as one JSON object keyed by instance name.
//
//===----------------------------------------------------------------------===//

#include "unum/Runtime/App.h"
#include "unum/Runtime/DataStore.h"
#include "unum/Runtime/Runtime.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <sstream>

using namespace unum::runtime;

static const char *const kUsage =
    "usage: unum-run APPDIR --input FILE|- [--store memory|sqlite:PATH|"
    "redis://HOST:PORT]\n"
    "                [--workers N] [--trace] [--no-gc] [--crash-rate P "
    "[--seed N]]\n"
    "\n"
    "Runs the application in APPDIR (one directory per function, each with "
    "its\n"
    "unum_config.json and an executable `handler` that reads its input as "
    "JSON\n"
    "on stdin and writes its output as JSON on stdout) and prints the outputs\n"
    "of the terminal instances as one JSON object keyed by instance name.\n"
    "\n"
    "  --input FILE|-   the workflow input: a payload {\"Data\": {\"Value\": "
    "...}}\n"
    "                   or any other JSON value (used as the input itself)\n"
    "  --store URI      memory (default), sqlite:PATH or redis://HOST:PORT\n"
    "  --workers N      worker threads (default 4)\n"
    "  --trace          print each step to stderr\n"
    "  --no-gc          keep checkpoints and completion sets\n"
    "  --crash-rate P   fault injection: crash each step boundary with\n"
    "                   probability P (0..0.9); crashed invocations are\n"
    "                   delivered again; --seed N makes it repeatable\n";

static int fail(const std::string &msg) {
  std::cerr << "unum-run: error: " << msg << "\n";
  return 1;
}

int main(int argc, char **argv) {
  std::string appDir, inputPath, storeUri = "memory";
  unsigned workers = 4;
  bool trace = false, gc = true;
  double crashRate = 0;
  unsigned long seed = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *name) -> const char * {
      if (i + 1 >= argc) {
        std::cerr << "unum-run: error: " << name << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "--input") {
      inputPath = value("--input");
    } else if (arg == "--store") {
      storeUri = value("--store");
    } else if (arg == "--workers") {
      const char *v = value("--workers");
      char *end = nullptr;
      long n = std::strtol(v, &end, 10);
      if (*end || n < 1 || n > 1024)
        return fail(std::string("--workers: expected 1..1024, got '") + v +
                    "'");
      workers = unsigned(n);
    } else if (arg == "--trace") {
      trace = true;
    } else if (arg == "--no-gc") {
      gc = false;
    } else if (arg == "--crash-rate") {
      const char *v = value("--crash-rate");
      char *end = nullptr;
      crashRate = std::strtod(v, &end);
      if (*end || crashRate < 0 || crashRate > 0.9)
        return fail(std::string("--crash-rate: expected 0..0.9, got '") + v +
                    "'");
    } else if (arg == "--seed") {
      const char *v = value("--seed");
      char *end = nullptr;
      seed = std::strtoul(v, &end, 10);
      if (*end)
        return fail(std::string("--seed: expected a number, got '") + v + "'");
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      std::cerr << "unum-run: error: unknown option '" << arg << "'\n"
                << kUsage;
      return 2;
    } else if (appDir.empty()) {
      appDir = arg;
    } else {
      std::cerr << "unum-run: error: unexpected argument '" << arg << "'\n"
                << kUsage;
      return 2;
    }
  }
  if (appDir.empty() || inputPath.empty()) {
    std::cerr << kUsage;
    return 2;
  }

  std::string text;
  if (inputPath == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    std::ifstream in(inputPath, std::ios::binary);
    if (!in)
      return fail("cannot read input '" + inputPath + "'");
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  auto input = parseJsonValue(text, inputPath == "-" ? "<stdin>" : inputPath);
  if (!input)
    return fail(input.getStatus().message());

  auto app = App::load(appDir);
  if (!app)
    return fail(app.getStatus().message());
  if (Status s = app->validate(); !s)
    return fail(s.message());

  auto store = openDataStore(storeUri);
  if (!store)
    return fail(store.getStatus().message());

  LocalRunner::Options opts;
  opts.workers = workers;
  opts.trace = trace;
  opts.runtime.gc = gc;
  std::mutex rngMutex;
  std::mt19937_64 rng(seed);
  if (crashRate > 0) {
    // Enough deliveries that a run practically always gets through.
    opts.maxDeliveries = 200;
    opts.runtime.fault = [&](const StepPoint &p) {
      std::lock_guard<std::mutex> lock(rngMutex);
      bool crash =
          std::uniform_real_distribution<double>(0, 1)(rng) < crashRate;
      if (crash && trace)
        std::cerr << "[unum] " << p.instance << ": injected crash at "
                  << stepName(p.step) << "\n";
      return crash;
    };
  }
  RunResult result;
  {
    LocalRunner runner(*app, **store, opts);
    result = runner.run(*input);
  }
  if (!result.ok()) {
    for (const std::string &e : result.errors)
      std::cerr << "unum-run: error: " << e << "\n";
    return 1;
  }
  Value out = Value::object();
  for (auto &[instance, output] : result.outputs)
    out.set(instance, output);
  std::cout << toJson(out, /*pretty=*/true) << "\n";
  return 0;
}
