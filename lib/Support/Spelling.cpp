//===- Spelling.cpp - "did you mean" for misspelled names -----------------===//
#include "unum/Support/Spelling.h"

#include "llvm/ADT/Twine.h"

std::string unum::didYouMean(llvm::StringRef name,
                             llvm::ArrayRef<llvm::StringRef> candidates,
                             llvm::StringRef open, llvm::StringRef close) {
  // A third of the name: a transposition in a six-letter name, nothing for
  // names of one or two letters (any other would be "close").
  unsigned limit = name.size() / 3;
  if (limit == 0)
    return "";
  llvm::StringRef best;
  for (llvm::StringRef candidate : candidates) {
    unsigned distance =
        name.edit_distance(candidate, /*AllowReplacements=*/true, limit);
    if (distance <= limit && candidate != name &&
        (best.empty() || distance < limit)) {
      limit = distance;
      best = candidate;
    }
  }
  if (best.empty())
    return "";
  return (llvm::Twine(" (did you mean ") + open + best + close + "?)").str();
}
