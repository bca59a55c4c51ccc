//===- DocumentFuzz.h - Checks on parsed config documents -------*- C++ -*-===//
#ifndef UNUM_UTILS_FUZZ_DOCUMENTFUZZ_H
#define UNUM_UTILS_FUZZ_DOCUMENTFUZZ_H

#include "FuzzCommon.h"

#include "unum/Config/Document.h"

namespace unum::fuzz {

/// Parses `text` with `parse` (parseJson, parseYaml); every document it
/// accepts must be JSON data: its JSON spelling (writeJsonValue) reads back
/// with the JSON reader as one document that spells the same.
template <typename Parse>
void checkDocuments(std::string_view text, Parse parse, const char *what) {
  std::vector<config::Node> docs;
  config::DiagnosticSink diags(what);
  bool ok = parse(text, docs, diags);
  fuzzCheck(ok != diags.hasErrors(), "a parse result disagrees with errors");
  if (!ok)
    return;
  for (const config::Node &doc : docs) {
    std::string written = config::writeJsonValue(doc);
    std::vector<config::Node> again;
    config::DiagnosticSink diags2("rewritten.json");
    fuzzCheck(config::parseJson(written, again, diags2) && again.size() == 1,
              "a document's JSON spelling does not read back", written);
    fuzzCheck(config::writeJsonValue(again[0]) == written,
              "a document's JSON spelling reads back differently", written);
  }
}

} // namespace unum::fuzz

#endif // UNUM_UTILS_FUZZ_DOCUMENTFUZZ_H
