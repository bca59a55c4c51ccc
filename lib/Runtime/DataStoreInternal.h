//===- DataStoreInternal.h - The runtime's plain store writes --*- C++ -*-===//
//
// Private to the runtime library (not installed). DataStore::put, a plain
// keyed write in a session, is protected: the runner journals with it
// (LocalRunner.cpp), a wrapping store forwards it (DebugRuntime.cpp), and
// the store conformance tests and the runtime benchmark (its floor: one
// bare call plus one store write) reach it through here. So do the tests
// that hold a batch of outbox changes in flight (onOutboxBatchTaken).
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_RUNTIME_DATASTOREINTERNAL_H
#define UNUM_LIB_RUNTIME_DATASTOREINTERNAL_H

#include "unum/Runtime/DataStore.h"

namespace unum::runtime::detail {

struct StoreAccess {
  static Status put(DataStore &store, const std::string &session,
                    const std::string &key, const std::string &value) {
    return store.put(session, key, value);
  }
  /// Tests only: `hook` runs in every thread that takes a non-empty batch
  /// of staged outbox changes (DataStore::takeOutbox), after taking it and
  /// before writing it: a test holds a batch in flight there. nullptr:
  /// none (the default; one relaxed load per batch).
  static void onOutboxBatchTaken(void (*hook)());
};

} // namespace unum::runtime::detail

#endif // UNUM_LIB_RUNTIME_DATASTOREINTERNAL_H
