//===- LegalizeNames.h - VHDL identifiers for design names ------*- C++ -*-===//
#ifndef UNUM_LIB_TARGET_VHDL_LEGALIZENAMES_H
#define UNUM_LIB_TARGET_VHDL_LEGALIZENAMES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace unum::vhdl {
/// Hands out VHDL basic identifiers: letters, digits and single inner
/// underscores, starting with a letter, never a reserved word, and unique
/// without regard to case (VHDL is case-insensitive).
class Namer {
public:
  std::string get(llvm::StringRef wanted);

private:
  llvm::StringSet<> used; // lower case
};
} // namespace unum::vhdl

#endif // UNUM_LIB_TARGET_VHDL_LEGALIZENAMES_H
