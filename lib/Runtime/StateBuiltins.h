//===- StateBuiltins.h - Wait and Fail states that read their input -*- C++
//-*-===//
//
// Internal to the runtime library: the built-in Wait states with Timestamp,
// SecondsPath or TimestampPath and the Fail states with ErrorPath or
// CausePath, which read their input (paths and intrinsic calls evaluated as
// DataFlow does). Handler.cpp's builtinHandler asks here first.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_RUNTIME_STATEBUILTINS_H
#define UNUM_LIB_RUNTIME_STATEBUILTINS_H

#include "unum/Config/FunctionConfig.h"
#include "unum/Runtime/Handler.h"

#include <memory>

namespace unum::runtime {

/// The handler of a Wait or Fail built-in whose fields read the input; null
/// for every other function.
std::shared_ptr<Handler> inputReadingBuiltin(const config::FunctionConfig &fn);

} // namespace unum::runtime

#endif // UNUM_LIB_RUNTIME_STATEBUILTINS_H
