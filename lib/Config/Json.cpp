//===- Json.cpp - The located JSON reader ---------------------------------===//
//
// parseJson: the one JSON reader (JsonReader.h) building located Nodes.
//
//===----------------------------------------------------------------------===//

#include "JsonReader.h"

using namespace unum::config;

bool unum::config::parseJson(std::string_view text,
                             std::vector<Node> &documents,
                             DiagnosticSink &diags) {
  return detail::JsonReader<Node>(text, &diags).readStream(documents);
}
