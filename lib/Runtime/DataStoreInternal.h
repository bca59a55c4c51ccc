//===- DataStoreInternal.h - The runtime's plain store writes --*- C++ -*-===//
//
// Private to the runtime library (not installed). DataStore::put, a plain
// keyed write in a session, is protected: the runner journals with it
// (LocalRunner.cpp), a wrapping store forwards it (DebugRuntime.cpp), and
// the store conformance tests and the runtime benchmark (its floor: one
// bare call plus one store write) reach it through here.
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
};

} // namespace unum::runtime::detail

#endif // UNUM_LIB_RUNTIME_DATASTOREINTERNAL_H
