//===- InputName.h - The file an importer's buffer came from ----*- C++ -*-===//
#ifndef UNUM_TARGET_INPUTNAME_H
#define UNUM_TARGET_INPUTNAME_H

#include "llvm/ADT/StringRef.h"

namespace unum {

/// The input file of a buffer identifier. mlir-translate's
/// --split-input-file names each chunk "within split at FILE:LINE offset ";
/// importers that name what they build after their input (the app, the state
/// machine) want FILE, whichever chunk they read.
inline llvm::StringRef inputFileOf(llvm::StringRef bufferIdentifier) {
  if (bufferIdentifier.consume_front("within split at "))
    bufferIdentifier = bufferIdentifier.rsplit(':').first;
  return bufferIdentifier;
}

} // namespace unum

#endif // UNUM_TARGET_INPUTNAME_H
