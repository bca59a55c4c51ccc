//===- json.cpp - Fuzz the JSON readers and writers -----------------------===//
//
// The config library's JSON reader (documents with locations) and the
// runtime's (payloads, checkpoints): neither may crash, and what each writes
// of a document it accepted must read back as the same document.
//
//===----------------------------------------------------------------------===//

#include "DocumentFuzz.h"

#include "unum/Runtime/Value.h"

using namespace unum;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text = fuzz::asText(data, size);

  fuzz::checkDocuments(text, config::parseJson, "fuzz.json");

  auto value = runtime::parseJsonValue(text, "fuzz");
  if (value) {
    std::string compact = runtime::toJson(*value);
    auto back = runtime::parseJsonValue(compact, "rewritten");
    fuzz::fuzzCheck(bool(back), "toJson output does not read back", compact);
    fuzz::fuzzCheck(runtime::toJson(*back) == compact,
                    "toJson is not a fixed point", compact);
    auto pretty = runtime::parseJsonValue(runtime::toJson(*value, true));
    fuzz::fuzzCheck(pretty && runtime::toJson(*pretty) == compact,
                    "pretty toJson reads back differently", compact);
  }
  return 0;
}
