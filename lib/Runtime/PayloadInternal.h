//===- PayloadInternal.h - A payload's in-process hints --------*- C++ -*-===//
//
// Private to the runtime library (not installed). An in-process delivery
// (the thread pool) carries hints with the payload, never on the wire:
//
//  * fresh: the first delivery of the only invocation of this instance
//    issued by a first execution of its sender, so no checkpoint can exist
//    yet and the lookup is skipped. Correctness does not depend on it: the
//    conditional put still decides.
//  * noCheckpoint: the host that accepted this delivery looked for the
//    instance's checkpoint (in the round trip that journaled it,
//    LocalRunner::accept) and found none, so the lookup is skipped. As
//    with fresh, the conditional put still decides.
//  * target: the target's node in the sender's App, so that the receiver
//    skips the lookup by name. Used only if it belongs to the receiver's
//    App and names the function.
//  * outboxId: the invocation's id in the store's outbox (LocalRunner on a
//    persistent store); 0: none yet.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_RUNTIME_PAYLOADINTERNAL_H
#define UNUM_LIB_RUNTIME_PAYLOADINTERNAL_H

#include "unum/Runtime/Payload.h"

namespace unum::runtime::detail {

struct PayloadAccess {
  static auto &hints(Payload &p) { return p.hints; }
  static const auto &hints(const Payload &p) { return p.hints; }
  static void clearHints(Payload &p) { p.hints = {}; }
};

/// The payload's hints (see the file comment).
inline auto &hints(Payload &p) { return PayloadAccess::hints(p); }
inline const auto &hints(const Payload &p) { return PayloadAccess::hints(p); }

/// toJson(encodePayload(p)), written straight into the text (no Value tree
/// in between): the durable runner's outbox entry and the HTTP body.
std::string payloadJson(const Payload &p);

} // namespace unum::runtime::detail

#endif // UNUM_LIB_RUNTIME_PAYLOADINTERNAL_H
