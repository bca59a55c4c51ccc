//===- TestUtil.h - Helpers shared by the config unit tests -----*- C++ -*-===//
#ifndef UNUM_UNITTESTS_CONFIG_TESTUTIL_H
#define UNUM_UNITTESTS_CONFIG_TESTUTIL_H

#include "unum/Config/Diagnostic.h"

#include <cstdlib>
#include <filesystem>
#include <string>

namespace unum::config::test {

/// All messages of a sink, one per line, for failure output.
inline std::string allMessages(const DiagnosticSink &diags) {
  std::string out;
  for (const Diagnostic &d : diags.diagnostics())
    out += d.str() + "\n";
  return out;
}

/// The first error of a sink, or an empty diagnostic.
inline Diagnostic firstError(const DiagnosticSink &diags) {
  for (const Diagnostic &d : diags.diagnostics())
    if (d.severity == Diagnostic::Severity::Error)
      return d;
  return {};
}

/// The conformance data directory (…/shared/conformance/unum), or "" when the
/// shared tree is not there. UNUM_SHARED_DIR names the shared tree; otherwise
/// it is the sibling of the source tree.
inline std::string conformanceDir() {
  std::filesystem::path shared;
  if (const char *env = std::getenv("UNUM_SHARED_DIR")) {
    shared = env;
  } else {
    const char *source = std::getenv("UNUM_SOURCE_DIR");
#ifdef UNUM_SOURCE_DIR_DEFAULT
    if (!source)
      source = UNUM_SOURCE_DIR_DEFAULT;
#endif
    if (!source)
      return "";
    shared = std::filesystem::path(source) / ".." / "shared";
  }
  std::filesystem::path dir = shared / "conformance" / "unum";
  std::error_code ec;
  return std::filesystem::is_directory(dir, ec) ? dir.string() : "";
}

} // namespace unum::config::test

#endif // UNUM_UNITTESTS_CONFIG_TESTUTIL_H
