//===- config.cpp - Fuzz config decoding (FunctionConfig) -----------------===//
//
// The first byte picks the spelling (even: JSON, odd: YAML), the rest is a
// config file (one config, or a stream of them). loadConfigs must not crash;
// every config it accepts, written in either spelling, must decode again to
// a config that writes the same text (the compiler writes configs that the
// runtime reads back).
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "unum/Config/AppFiles.h"
#include "unum/Config/FunctionConfig.h"

using namespace unum;
using config::Format;

static void roundTrip(const config::FunctionConfig &c, Format format) {
  std::string written = config::writeConfig(c, format);
  std::vector<config::FunctionConfig> again;
  std::vector<config::Diagnostic> diags;
  bool ok = config::loadConfigs({{"rewritten", written}}, format, again, diags);
  std::string why = written;
  for (const config::Diagnostic &d : diags)
    why += "\n" + d.str();
  fuzz::fuzzCheck(ok && again.size() == 1,
                  "a written config does not decode again", why);
  fuzz::fuzzCheck(config::writeConfig(again[0], format) == written,
                  "a written config decodes to another config", written);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  Format format = (data[0] & 1) ? Format::Yaml : Format::Json;
  std::string text(fuzz::asText(data + 1, size - 1));
  std::vector<config::FunctionConfig> configs;
  std::vector<config::Diagnostic> diags;
  if (!config::loadConfigs({{"fuzz", text}}, format, configs, diags))
    return 0;
  for (const config::FunctionConfig &c : configs) {
    roundTrip(c, Format::Json);
    roundTrip(c, Format::Yaml);
  }
  return 0;
}
