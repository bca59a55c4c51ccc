//===- Diagnostic.h - Located diagnostics for config files ------*- C++ -*-===//
//
// The MLIR-free config library reports problems as plain records so that the
// runtime (which does not link MLIR) and the MLIR translations (which turn them
// into mlir::Diagnostics) can share one parser.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_CONFIG_DIAGNOSTIC_H
#define UNUM_CONFIG_DIAGNOSTIC_H

#include <string>
#include <vector>

namespace unum::config {

/// A position in a source file. Lines and columns are 1-based; 0 means unknown.
struct SourceLoc {
  unsigned line = 0;
  unsigned col = 0;
  /// Returns the location `offset` characters to the right on the same line.
  SourceLoc shifted(unsigned offset) const { return {line, col + offset}; }
};

struct Diagnostic {
  enum class Severity { Error, Warning, Note };
  Severity severity = Severity::Error;
  std::string file;
  SourceLoc loc;
  std::string message;

  /// "file:line:col: error: message", the format compilers use.
  std::string str() const;
};

/// Collects diagnostics; parsing functions append to it and keep going where
/// they can so that one run reports several problems.
class DiagnosticSink {
public:
  explicit DiagnosticSink(std::string file = "") : file(std::move(file)) {}

  void error(SourceLoc loc, std::string message) {
    add(Diagnostic::Severity::Error, loc, std::move(message));
  }
  void warning(SourceLoc loc, std::string message) {
    add(Diagnostic::Severity::Warning, loc, std::move(message));
  }
  void note(SourceLoc loc, std::string message) {
    add(Diagnostic::Severity::Note, loc, std::move(message));
  }

  bool hasErrors() const { return errorCount != 0; }
  const std::vector<Diagnostic> &diagnostics() const { return diags; }
  const std::string &fileName() const { return file; }
  void setFileName(std::string name) { file = std::move(name); }

private:
  void add(Diagnostic::Severity severity, SourceLoc loc, std::string message) {
    if (severity == Diagnostic::Severity::Error)
      ++errorCount;
    diags.push_back({severity, file, loc, std::move(message)});
  }

  std::string file;
  std::vector<Diagnostic> diags;
  unsigned errorCount = 0;
};

} // namespace unum::config

#endif // UNUM_CONFIG_DIAGNOSTIC_H
