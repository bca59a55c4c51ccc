//===- Document.h - A located JSON/YAML value tree --------------*- C++ -*-===//
//
// JSON and YAML are read into the same small tree, every node carrying its
// line and column, so that one decoder (FunctionConfig.h) serves both formats
// and every diagnostic points at the offending key or value.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_CONFIG_DOCUMENT_H
#define UNUM_CONFIG_DOCUMENT_H

#include "unum/Config/Diagnostic.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace unum::config {

struct Node {
  enum class Kind { Null, Bool, Number, String, Array, Object };

  struct Member; // a key and its value; defined below, once Node is complete

  Kind kind = Kind::Null;
  SourceLoc loc;
  bool boolValue = false;
  /// Number: the literal as written (e.g. "3", "-1.5e3"). String: the
  /// unescaped value.
  std::string text;
  /// Where the string's characters start (after the opening quote), so that an
  /// error at offset k inside a string is reported at contentLoc.shifted(k).
  /// Exact when the string has no escape sequences before offset k.
  SourceLoc contentLoc;
  std::vector<Node> items;     // Array
  std::vector<Member> members; // Object, in source order

  /// The member named `key`, or nullptr.
  const Node *find(std::string_view key) const;
  /// "object", "array", "string", ... for messages.
  static const char *kindName(Kind kind);
  bool isInteger() const;
};

struct Node::Member {
  std::string key;
  SourceLoc keyLoc;
  Node value;
};

/// Appends `s` as a JSON string literal, quotes included; UTF-8 is kept as
/// is, control characters are escaped.
void appendJsonString(std::string &out, std::string_view s);

/// `node` as compact one-line JSON (numbers as written). JSON is also valid
/// YAML flow syntax, so the YAML writer uses it for nested data, with
/// `yamlFlow`: a key too long for a YAML implicit key (1024 characters) is
/// then written as an explicit one (`? "key" : value`), which reads back.
std::string writeJsonValue(const Node &node, bool yamlFlow = false);

/// Parses JSON text: one value, or several concatenated values (a stream).
/// Rejects trailing garbage, duplicate keys, comments, and nesting deeper than
/// 256. Returns false and reports located errors on failure.
bool parseJson(std::string_view text, std::vector<Node> &documents,
               DiagnosticSink &diags);

/// Parses a YAML stream (one or more `---` separated documents). Quoted
/// scalars are strings; plain scalars become null, bool, number or string by
/// the YAML 1.2 core schema. Anchors/aliases and non-string keys are rejected.
bool parseYaml(std::string_view text, std::vector<Node> &documents,
               DiagnosticSink &diags);

} // namespace unum::config

#endif // UNUM_CONFIG_DOCUMENT_H
