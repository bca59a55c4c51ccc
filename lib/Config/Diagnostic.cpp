//===- Diagnostic.cpp - Located diagnostics for config files --------------===//

#include "unum/Config/Diagnostic.h"

namespace unum::config {

static const char *severityName(Diagnostic::Severity severity) {
  switch (severity) {
  case Diagnostic::Severity::Error:
    return "error";
  case Diagnostic::Severity::Warning:
    return "warning";
  case Diagnostic::Severity::Note:
    return "note";
  }
  return "error";
}

std::string Diagnostic::str() const {
  std::string result = file;
  if (loc.line != 0) {
    if (!result.empty())
      result += ':';
    result += std::to_string(loc.line);
    if (loc.col != 0)
      result += ':' + std::to_string(loc.col);
  }
  if (!result.empty())
    result += ": ";
  result += severityName(severity);
  result += ": ";
  result += message;
  return result;
}

} // namespace unum::config
