//===- yaml.cpp - Fuzz the YAML reader ------------------------------------===//
//
// parseYaml must not crash or throw, and every document it accepts must be
// JSON data: its JSON spelling (writeJsonValue) must read back with the
// project's own JSON reader as the same document (numbers, keys and strings
// included).
//
//===----------------------------------------------------------------------===//

#include "DocumentFuzz.h"

using namespace unum;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::checkDocuments(fuzz::asText(data, size), config::parseYaml,
                       "fuzz.yaml");
  return 0;
}
