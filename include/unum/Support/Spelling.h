//===- Spelling.h - "did you mean" for misspelled names ---------*- C++ -*-===//
#ifndef UNUM_SUPPORT_SPELLING_H
#define UNUM_SUPPORT_SPELLING_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace unum {

/// " (did you mean 'X'?)" for the candidate a few edits away from `name`
/// (at most a third of its length; the closest, the first of equals), else
/// "". `open` and `close` wrap the suggestion ("'@" and "'" for a symbol).
std::string didYouMean(llvm::StringRef name,
                       llvm::ArrayRef<llvm::StringRef> candidates,
                       llvm::StringRef open = "'", llvm::StringRef close = "'");

} // namespace unum

#endif // UNUM_SUPPORT_SPELLING_H
