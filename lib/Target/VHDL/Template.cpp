//===- Template.cpp - text with named placeholders ------------------------===//
#include "Template.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace {
bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}
} // namespace

std::string unum::vhdl::expand(StringRef text, ArrayRef<Field> fields) {
  SmallVector<bool> used(fields.size(), false);
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    size_t open = text.find('{');
    out += text.take_front(open).str();
    if (open == StringRef::npos)
      break;
    text = text.drop_front(open);
    size_t end = 1;
    while (end < text.size() && isNameChar(text[end]))
      ++end;
    if (end == 1 || end == text.size() || text[end] != '}') {
      out += '{'; // not a placeholder
      text = text.drop_front();
      continue;
    }
    StringRef name = text.slice(1, end);
    const Field *field = nullptr;
    for (size_t i = 0; i < fields.size(); ++i)
      if (fields[i].name == name) {
        field = &fields[i];
        used[i] = true;
      }
    if (!field)
      report_fatal_error(Twine("VHDL template: no field '") + name + "'");
    out += field->value;
    text = text.drop_front(end + 1);
  }
  for (size_t i = 0; i < fields.size(); ++i)
    if (!used[i])
      report_fatal_error(Twine("VHDL template: field '") + fields[i].name +
                         "' unused");
  return out;
}
