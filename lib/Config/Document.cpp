//===- Document.cpp - A located JSON/YAML value tree ----------------------===//

#include "unum/Config/Document.h"

using namespace unum::config;

const Node *Node::find(std::string_view key) const {
  for (const Member &member : members)
    if (member.key == key)
      return &member.value;
  return nullptr;
}

const char *Node::kindName(Kind kind) {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "boolean";
  case Kind::Number:
    return "number";
  case Kind::String:
    return "string";
  case Kind::Array:
    return "array";
  case Kind::Object:
    return "object";
  }
  return "value";
}

bool Node::isInteger() const {
  if (kind != Kind::Number)
    return false;
  size_t i = !text.empty() && text[0] == '-' ? 1 : 0;
  if (i == text.size())
    return false;
  for (; i < text.size(); ++i)
    if (text[i] < '0' || text[i] > '9')
      return false;
  return true;
}
