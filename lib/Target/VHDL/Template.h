//===- Template.h - text with named placeholders ----------------*- C++ -*-===//
#ifndef UNUM_LIB_TARGET_VHDL_TEMPLATE_H
#define UNUM_LIB_TARGET_VHDL_TEMPLATE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <type_traits>

namespace unum::vhdl {
/// One named value of a template.
struct Field {
  llvm::StringRef name;
  std::string value;
  Field(llvm::StringRef name, std::string value)
      : name(name), value(std::move(value)) {}
  Field(llvm::StringRef name, const char *value) : name(name), value(value) {}
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T> &&
                                                    !std::is_same_v<T, bool>>>
  Field(llvm::StringRef name, T value)
      : name(name), value(std::to_string(value)) {}
  Field(llvm::StringRef name, bool value)
      : name(name), value(value ? "true" : "false") {}
};

/// `text` with every `{name}` replaced by the field of that name (names are
/// lower case letters, digits and '_'; any other '{' is copied). A
/// placeholder without a field, or a field no placeholder uses, is a bug in
/// the emitter: fatal, so that every test catches it.
std::string expand(llvm::StringRef text, llvm::ArrayRef<Field> fields);
} // namespace unum::vhdl

#endif // UNUM_LIB_TARGET_VHDL_TEMPLATE_H
