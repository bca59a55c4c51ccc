//===- InvokerInternal.h - The runtime's in-place continuation -*- C++ -*-===//
//
// Private to the runtime library (not installed). An invoker that keeps
// payloads (the pool's run-next slot) lends the runtime storage in which it
// builds its next payload in place:
//
//   if (Payload *p = InvokerAccess::stage(invoker)) {
//     ... fill *p ...
//     InvokerAccess::invokeStaged(invoker, function);
//   }
//
// The staged payload is reset, except that `session` and `retire` keep the
// previous payload's names and `value` its value: the caller sets all three
// (a name of the same length is then copied in place; the old value goes
// when the new one is moved in). The caller must call invokeStaged() before it
// issues or stages anything else. An invoker without storage returns
// nullptr: build a Payload and call invoke().
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_RUNTIME_INVOKERINTERNAL_H
#define UNUM_LIB_RUNTIME_INVOKERINTERNAL_H

#include "unum/Runtime/Invoker.h"

namespace unum::runtime::detail {

struct InvokerAccess {
  static Payload *stage(Invoker &invoker) { return invoker.stage(); }
  static Status invokeStaged(Invoker &invoker, const std::string &function) {
    return invoker.invokeStaged(function);
  }
};

} // namespace unum::runtime::detail

#endif // UNUM_LIB_RUNTIME_INVOKERINTERNAL_H
