//===- AppFiles.cpp - Reading and writing application config sets --------===//

#include "unum/Config/AppFiles.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace unum::config;
namespace fs = std::filesystem;

static bool readFile(const std::string &path, std::string &text,
                     std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    error = "cannot read '" + path + "'";
    return false;
  }
  text = buffer.str();
  return true;
}

bool unum::config::readConfigSources(const std::string &path, Format format,
                                     std::vector<SourceFile> &files,
                                     DiagnosticSink &diags) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    diags.error({}, "cannot read '" + path + "': " +
                        (ec ? ec.message() : "no such file or directory"));
    return false;
  }
  std::string error;
  if (!fs::is_directory(status)) {
    SourceFile file{path, ""};
    if (!readFile(path, file.text, error)) {
      diags.error({}, error);
      return false;
    }
    files.push_back(std::move(file));
    return true;
  }

  std::vector<std::string> names;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end;
       it.increment(ec))
    names.push_back(it->path().filename().string());
  if (ec) {
    diags.error({}, "cannot list '" + path + "': " + ec.message());
    return false;
  }
  std::sort(names.begin(), names.end());
  const char *fileName = configFileName(format);
  bool found = false;
  for (const std::string &name : names) {
    fs::path candidate = fs::path(path) / name / fileName;
    if (!fs::is_regular_file(candidate, ec))
      continue;
    SourceFile file{candidate.string(), ""};
    if (!readFile(file.path, file.text, error)) {
      diags.error({}, error);
      return false;
    }
    files.push_back(std::move(file));
    found = true;
  }
  if (!found) {
    diags.error({}, "no function folder in '" + path + "' holds a " + fileName);
    return false;
  }
  return true;
}

bool unum::config::loadConfigs(const std::vector<SourceFile> &files,
                               Format format,
                               std::vector<FunctionConfig> &configs,
                               std::vector<Diagnostic> &diagnostics) {
  bool ok = true;
  for (const SourceFile &file : files) {
    DiagnosticSink sink(file.path);
    std::vector<Node> documents;
    bool parsed = format == Format::Json
                      ? parseJson(file.text, documents, sink)
                      : parseYaml(file.text, documents, sink);
    if (parsed && documents.empty())
      sink.error({}, "the file holds no config");
    // Documents read before a syntax error are still decoded, so that one
    // run reports as much as possible.
    for (const Node &document : documents)
      if (std::optional<FunctionConfig> config =
              decodeConfig(document, format, sink))
        configs.push_back(std::move(*config));
    diagnostics.insert(diagnostics.end(), sink.diagnostics().begin(),
                       sink.diagnostics().end());
    ok = ok && !sink.hasErrors();
  }
  return ok;
}

static bool isSafeComponent(const std::string &name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

static bool isDirectory(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

/// Creates `path` unless it is already a directory; remembers what it created
/// so that a failure can undo it.
static bool makeDirectory(const std::string &path,
                          std::vector<std::string> &created,
                          std::string &error) {
  if (::mkdir(path.c_str(), 0777) == 0) {
    created.push_back(path);
    return true;
  }
  if (errno == EEXIST && isDirectory(path))
    return true;
  error = errno == EEXIST
              ? "'" + path + "' exists and is not a directory"
              : "cannot create '" + path + "': " + std::strerror(errno);
  return false;
}

static bool writeWholeFile(const std::string &path, const std::string &text,
                           std::string &error) {
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file) {
    error = "cannot create '" + path + "': " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  ok = (std::fclose(file) == 0) && ok;
  if (!ok)
    error = "cannot write '" + path + "': " + std::strerror(errno);
  return ok;
}

bool unum::config::writeAppDirectory(
    const std::string &dir, Format format,
    const std::vector<std::pair<std::string, std::string>> &files,
    std::string &error) {
  error.clear();
  // Everything that can be checked without touching the disk comes first.
  std::set<std::string> seen;
  for (const auto &[name, text] : files) {
    if (!isSafeComponent(name)) {
      error = "'" + name + "' cannot be used as a function directory name";
      return false;
    }
    if (!seen.insert(name).second) {
      error = "function '" + name + "' is written twice";
      return false;
    }
  }
  std::string base = dir;
  while (base.size() > 1 && base.back() == '/')
    base.pop_back();
  if (base.empty() || base == "/") {
    error = "invalid output directory '" + dir + "'";
    return false;
  }

  std::string stagingTemplate = base + ".tmp-XXXXXX";
  std::vector<char> buffer(stagingTemplate.begin(), stagingTemplate.end());
  buffer.push_back('\0');
  if (!::mkdtemp(buffer.data())) {
    error = "cannot create a staging directory '" + stagingTemplate +
            "': " + std::strerror(errno);
    return false;
  }
  std::string staging = buffer.data();
  std::vector<std::string> created;
  auto failAndCleanUp = [&] {
    std::error_code ec;
    fs::remove_all(staging, ec);
    for (auto it = created.rbegin(); it != created.rend(); ++it)
      ::rmdir(it->c_str());
    return false;
  };

  const char *fileName = configFileName(format);
  for (const auto &[name, text] : files) {
    std::string folder = staging + "/" + name;
    if (::mkdir(folder.c_str(), 0777) != 0) {
      error = "cannot create '" + folder + "': " + std::strerror(errno);
      return failAndCleanUp();
    }
    if (!writeWholeFile(folder + "/" + fileName, text, error))
      return failAndCleanUp();
  }

  // A new application directory: the staging directory becomes it in one
  // rename, which is also the cheapest way (one syscall, not two per file).
  if (::rename(staging.c_str(), base.c_str()) == 0) {
    // mkdtemp made it private; give it the permissions mkdir would have.
    mode_t mask = ::umask(0);
    ::umask(mask);
    ::chmod(base.c_str(), 0777 & ~mask);
    return true;
  }
  if (errno != EEXIST && errno != ENOTEMPTY) {
    error = "cannot create '" + base + "': " + std::strerror(errno);
    return failAndCleanUp();
  }

  // An existing directory (which may hold handlers): prepare every
  // destination before the first rename, so that the renames (which replace
  // files atomically) are all that can still fail.
  if (!makeDirectory(base, created, error))
    return failAndCleanUp();
  for (const auto &[name, text] : files) {
    std::string folder = base + "/" + name;
    if (!makeDirectory(folder, created, error))
      return failAndCleanUp();
    if (isDirectory(folder + "/" + fileName)) {
      error = "'" + folder + "/" + fileName + "' is a directory";
      return failAndCleanUp();
    }
  }
  for (const auto &[name, text] : files) {
    std::string from = staging + "/" + name + "/" + fileName;
    std::string to = base + "/" + name + "/" + fileName;
    if (std::rename(from.c_str(), to.c_str()) != 0) {
      error =
          "cannot move '" + from + "' to '" + to + "': " + std::strerror(errno);
      std::error_code ec;
      fs::remove_all(staging, ec);
      return false;
    }
  }
  std::error_code ec;
  fs::remove_all(staging, ec);
  return true;
}
