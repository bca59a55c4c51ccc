//===- Document.cpp - A located JSON/YAML value tree ----------------------===//

#include "unum/Config/Document.h"
#include "Text.h"

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

std::string unum::config::writeJsonValue(const Node &node, bool yamlFlow) {
  switch (node.kind) {
  case Node::Kind::Null:
    return "null";
  case Node::Kind::Bool:
    return node.boolValue ? "true" : "false";
  case Node::Kind::Number:
    return node.text;
  case Node::Kind::String:
    return detail::quoteJson(node.text);
  case Node::Kind::Array: {
    std::string out = "[";
    for (size_t i = 0; i < node.items.size(); ++i)
      out += (i ? ", " : "") + writeJsonValue(node.items[i], yamlFlow);
    return out + "]";
  }
  case Node::Kind::Object: {
    std::string out = "{";
    for (size_t i = 0; i < node.members.size(); ++i) {
      std::string key = detail::quoteJson(node.members[i].key);
      // yaml-cpp reads implicit keys of up to 1024 bytes, quotes included.
      bool explicitKey = yamlFlow && key.size() > 1000;
      out += (i ? ", " : "") + std::string(explicitKey ? "? " : "") + key +
             (explicitKey ? " : " : ": ") +
             writeJsonValue(node.members[i].value, yamlFlow);
    }
    return out + "}";
  }
  }
  return "null";
}

void unum::config::appendJsonString(std::string &out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if ((unsigned char)c < 0x20) {
        out += "\\u00";
        out += detail::hexDigit((unsigned char)c >> 4);
        out += detail::hexDigit(c);
      } else {
        out += c;
      }
    }
  }
  out += '"';
}
