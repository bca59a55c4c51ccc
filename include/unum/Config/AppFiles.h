//===- AppFiles.h - Reading and writing application config sets -*- C++ -*-===//
//
// An application on disk is a directory with one folder per function holding
// its unum_config.{json,yaml}. Writing is all-or-nothing: every file is
// produced in memory first, then staged and renamed into place, so an error
// never leaves a half-written application behind.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_CONFIG_APPFILES_H
#define UNUM_CONFIG_APPFILES_H

#include "unum/Config/FunctionConfig.h"

#include <string>
#include <vector>

namespace unum::config {

/// One config file as read from disk.
struct SourceFile {
  std::string path;
  std::string text;
};

/// Reads `path`: a single file, or a directory holding
/// `<Function>/unum_config.<ext>` for the format's extension (function folders
/// without one are skipped; folders are visited in name order). Returns false
/// and reports an error (no location) if nothing readable is found.
bool readConfigSources(const std::string &path, Format format,
                       std::vector<SourceFile> &files, DiagnosticSink &diags);

/// Parses and decodes every document of every file, one DiagnosticSink per
/// file so that messages name the right file. Returns false if any error was
/// reported; `configs` then holds the configs that decoded cleanly.
bool loadConfigs(const std::vector<SourceFile> &files, Format format,
                 std::vector<FunctionConfig> &configs,
                 std::vector<Diagnostic> &diagnostics);

/// Writes `DIR/<name>/<file name>` for every (name, text) pair atomically with
/// respect to errors: all files are staged in a temporary directory next to
/// `dir` and moved into place only when all were written. Existing files of the
/// same name are replaced; other files in `dir` are left alone. Returns false
/// with a message in `error` on failure.
bool writeAppDirectory(const std::string &dir, Format format,
                       const std::vector<std::pair<std::string, std::string>> &files,
                       std::string &error);

} // namespace unum::config

#endif // UNUM_CONFIG_APPFILES_H
