//===- Apps.h - Small applications the runtime tests run --------*- C++ -*-===//
//
// Every handler stages one effect (its instance name), so tests can check
// that each instance's side effect is committed exactly once.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_UNITTESTS_RUNTIME_APPS_H
#define UNUM_UNITTESTS_RUNTIME_APPS_H

#include "unum/Runtime/App.h"

#include <functional>
#include <string>
#include <vector>

namespace unum::runtime::test {

/// A handler computing `f(input)` that records its instance as an effect.
std::shared_ptr<Handler> pure(std::function<Value(const Value &)> f);

struct TestApp {
  std::string name;
  App app;
  Value input;
  Value expected; // {instance: output} of the terminal instances
  /// Instances that checkpoint (each commits exactly one effect).
  std::vector<std::string> checkpointed;
  /// Instances that save their input for their state's sink (SaveInput):
  /// one more record each until the sink retires it.
  std::vector<std::string> saved;
};

/// A -> B -> C.
TestApp chainApp();
/// A -> [B, C] (parallel) -> fan-in D.
TestApp parallelApp();
/// A -> map B (terminal instances).
TestApp mapApp(int n = 4);
/// A -> map B -> fan-in C.
TestApp fanInApp(int n = 4);
/// S -> [M -> map W -> fan-in SinkM, Z] -> fan-in Join.
TestApp mapInParallelApp(int n = 3);

/// A -> map B -> map C -> fan-in SinkC (per B) -> fan-in SinkB.
TestApp mapInMapApp(int outer = 3, int inner = 2);

/// A Map state with InputPath, ItemsPath, ResultSelector, ResultPath and
/// OutputPath: Enter (SaveInput) -> map Square -> fan-in Collect
/// (StateInput Enter).
TestApp mapResultPathApp(int n = 3);

/// Map inside Parallel inside Map, each sink placing its list in its state's
/// input: Orders -> map Both -> [Lines -> map Dbl -> LinesSink, Tag] ->
/// BothSink -> OrdersSink (order i has i lines).
TestApp nestedResultPathApp(int orders = 3);

/// A Map state with Retry and Catch, as unumc lowers it: Enter (SaveInput)
/// -> map Work -> Tail -> fan-in Sink (StateInput, Retriers) -> error edge
/// Handle. Work fails with "Boom" on item `bad`: on the first attempt only
/// when `recovers` (the retry succeeds), else always (the Catch takes it).
TestApp mapRetryApp(bool recovers, int n = 3, int bad = 1);

/// A -> map B (MaxConcurrency k) -> fan-in C.
TestApp maxConcurrencyApp(int n = 5, int k = 2);

std::vector<TestApp> allApps();

/// fanInApp(n) with shell scripts written to `dir` as handlers: each stages
/// its instance name on UNUM_EFFECTS_FD.
TestApp subprocessApp(const std::string &dir, int n = 3);

/// `t` with "Debug": true on every function.
TestApp withDebug(TestApp t);

} // namespace unum::runtime::test

#endif // UNUM_UNITTESTS_RUNTIME_APPS_H
