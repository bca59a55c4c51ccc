//===- AppFilesTest.cpp - Reading and writing application config sets ----===//

#include "unum/Config/AppFiles.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace unum::config;
using namespace unum::config::test;
namespace fs = std::filesystem;

namespace {

class AppFilesTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string templ =
        (fs::temp_directory_path() / "unum-appfiles-XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    root = templ;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root, ec);
  }

  static std::string read(const fs::path &path) {
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
  }
  static void write(const fs::path &path, const std::string &text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  /// Everything under `dir`, as sorted relative paths.
  static std::vector<std::string> listing(const fs::path &dir) {
    std::vector<std::string> out;
    for (const auto &entry : fs::recursive_directory_iterator(dir))
      out.push_back(fs::relative(entry.path(), dir).string());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path root;
};

TEST_F(AppFilesTest, WritesEveryFunctionAndCreatesTheDirectory) {
  fs::path app = root / "app";
  std::string error;
  ASSERT_TRUE(writeAppDirectory(
      app.string(), Format::Json,
      {{"A", "{\"Name\": \"A\"}\n"}, {"B", "{\"Name\": \"B\"}\n"}}, error))
      << error;
  EXPECT_EQ(read(app / "A" / "unum_config.json"), "{\"Name\": \"A\"}\n");
  EXPECT_EQ(read(app / "B" / "unum_config.json"), "{\"Name\": \"B\"}\n");
  // The staging directory is gone.
  EXPECT_EQ(listing(root),
            (std::vector<std::string>{"app", "app/A", "app/A/unum_config.json",
                                      "app/B", "app/B/unum_config.json"}));
}

TEST_F(AppFilesTest, ReplacesConfigsAndLeavesOtherFilesAlone) {
  fs::path app = root / "app";
  write(app / "A" / "unum_config.yaml", "old\n");
  write(app / "A" / "handler.py", "code\n");
  write(app / "Z" / "unum_config.yaml", "untouched\n");
  std::string error;
  // A trailing slash names the same directory.
  ASSERT_TRUE(writeAppDirectory(app.string() + "/", Format::Yaml,
                                {{"A", "Name: A\n"}}, error))
      << error;
  EXPECT_EQ(read(app / "A" / "unum_config.yaml"), "Name: A\n");
  EXPECT_EQ(read(app / "A" / "handler.py"), "code\n");
  EXPECT_EQ(read(app / "Z" / "unum_config.yaml"), "untouched\n");
  EXPECT_EQ(listing(root).size(), 6u);
}

TEST_F(AppFilesTest, UnsafeNamesFailBeforeWritingAnything) {
  fs::path app = root / "app";
  for (const char *bad : {"a/b", "..", ".", ""}) {
    std::string error;
    EXPECT_FALSE(writeAppDirectory(app.string(), Format::Json,
                                   {{"A", "{}"}, {bad, "{}"}}, error))
        << bad;
    EXPECT_NE(error.find("'" + std::string(bad) + "'"), std::string::npos)
        << error;
    // Nothing at all was created: neither the app nor a staging directory.
    EXPECT_TRUE(listing(root).empty()) << bad;
  }
}

TEST_F(AppFilesTest, DuplicateNamesAreRejected) {
  std::string error;
  EXPECT_FALSE(writeAppDirectory((root / "app").string(), Format::Json,
                                 {{"A", "1"}, {"A", "2"}}, error));
  EXPECT_NE(error.find("'A' is written twice"), std::string::npos) << error;
  EXPECT_TRUE(listing(root).empty());
}

TEST_F(AppFilesTest, FailureAfterStagingLeavesNothingBehind) {
  fs::path app = root / "app";
  // "B" cannot become a function folder: a regular file has its name.
  write(app / "B", "in the way\n");
  std::string error;
  EXPECT_FALSE(writeAppDirectory(
      app.string(), Format::Json,
      {{"A", "{\"Name\": \"A\"}"}, {"B", "{\"Name\": \"B\"}"}}, error));
  EXPECT_NE(error.find("exists and is not a directory"), std::string::npos)
      << error;
  // A was not moved in, its folder was removed again, no staging remains.
  EXPECT_EQ(listing(root), (std::vector<std::string>{"app", "app/B"}));
  EXPECT_EQ(read(app / "B"), "in the way\n");
}

TEST_F(AppFilesTest, MissingParentFailsCleanly) {
  std::string error;
  EXPECT_FALSE(writeAppDirectory((root / "no" / "app").string(), Format::Json,
                                 {{"A", "{}"}}, error));
  EXPECT_NE(error.find("staging directory"), std::string::npos) << error;
  EXPECT_TRUE(listing(root).empty());
}

TEST_F(AppFilesTest, ReadsFunctionFoldersInNameOrder) {
  write(root / "app" / "B" / "unum_config.json", "{\"Name\": \"B\"}");
  write(root / "app" / "A" / "unum_config.json", "{\"Name\": \"A\"}");
  write(root / "app" / "A" / "unum_config.yaml", "Name: A\n");
  write(root / "app" / "C" / "handler.py", "");
  write(root / "app" / "template.yaml", "");
  std::vector<SourceFile> files;
  DiagnosticSink diags;
  ASSERT_TRUE(
      readConfigSources((root / "app").string(), Format::Json, files, diags))
      << allMessages(diags);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, (root / "app" / "A" / "unum_config.json").string());
  EXPECT_EQ(files[0].text, "{\"Name\": \"A\"}");
  EXPECT_EQ(files[1].path, (root / "app" / "B" / "unum_config.json").string());

  files.clear();
  ASSERT_TRUE(
      readConfigSources((root / "app").string(), Format::Yaml, files, diags));
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].text, "Name: A\n");
}

TEST_F(AppFilesTest, ReadsASingleFile) {
  fs::path file = root / "one.yaml";
  write(file, "Name: X\n");
  std::vector<SourceFile> files;
  DiagnosticSink diags;
  ASSERT_TRUE(readConfigSources(file.string(), Format::Yaml, files, diags));
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, file.string());
  EXPECT_EQ(files[0].text, "Name: X\n");
}

TEST_F(AppFilesTest, ReadErrorsAreReported) {
  std::vector<SourceFile> files;
  DiagnosticSink diags;
  EXPECT_FALSE(readConfigSources((root / "missing").string(), Format::Json,
                                 files, diags));
  ASSERT_TRUE(diags.hasErrors());
  EXPECT_NE(firstError(diags).message.find("missing"), std::string::npos);
  EXPECT_EQ(firstError(diags).loc.line, 0u);

  fs::create_directories(root / "empty" / "F");
  DiagnosticSink diags2;
  EXPECT_FALSE(readConfigSources((root / "empty").string(), Format::Json, files,
                                 diags2));
  EXPECT_NE(firstError(diags2).message.find("unum_config.json"),
            std::string::npos)
      << allMessages(diags2);
  EXPECT_TRUE(files.empty());
}

TEST(LoadConfigsTest, DiagnosticsNameTheirFile) {
  std::vector<SourceFile> files = {
      {"app/A/unum_config.json", "{\"Name\": \"A\", \"Checkpoint\": true}"},
      {"app/B/unum_config.json", "{\"Name\": \"B\",\n \"Start\": \"no\"}"},
      {"app/C/unum_config.json", "{\"Name\": \"C\""},
  };
  std::vector<FunctionConfig> configs;
  std::vector<Diagnostic> diagnostics;
  EXPECT_FALSE(loadConfigs(files, Format::Json, configs, diagnostics));
  ASSERT_EQ(configs.size(), 1u);
  EXPECT_EQ(configs[0].name, "A");
  EXPECT_TRUE(configs[0].checkpoint);
  ASSERT_GE(diagnostics.size(), 2u);
  EXPECT_EQ(diagnostics[0].str(), "app/B/unum_config.json:2:11: error: "
                                  "'Start' must be a boolean, not a string");
  EXPECT_EQ(diagnostics[1].file, "app/C/unum_config.json");
  EXPECT_EQ(diagnostics[1].loc.line, 1u);
}

TEST(LoadConfigsTest, YamlStreamsAndEmptyFiles) {
  std::vector<SourceFile> files = {
      {"all.yaml", "Name: A\nNext: {Name: B, Type: Scalar}\n---\nName: B\n"},
  };
  std::vector<FunctionConfig> configs;
  std::vector<Diagnostic> diagnostics;
  EXPECT_TRUE(loadConfigs(files, Format::Yaml, configs, diagnostics));
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].next[0].target, "B");
  EXPECT_EQ(configs[1].name, "B");
  EXPECT_TRUE(diagnostics.empty());

  configs.clear();
  EXPECT_FALSE(loadConfigs({{"empty.yaml", "# nothing\n"}}, Format::Yaml,
                           configs, diagnostics));
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].str(),
            "empty.yaml: error: the file holds no config");
}

TEST_F(AppFilesTest, WrittenAppReadsBack) {
  std::vector<SourceFile> sources = {
      {"A", "{\"Name\": \"A\", \"Next\": {\"Name\": \"B\", \"InputType\": "
            "\"Map\"}, \"Start\": true}"},
      {"B", "{\"Name\": \"B\", \"Checkpoint\": true}"},
  };
  std::vector<FunctionConfig> configs;
  std::vector<Diagnostic> diagnostics;
  ASSERT_TRUE(loadConfigs(sources, Format::Json, configs, diagnostics));
  for (Format format : {Format::Json, Format::Yaml}) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const FunctionConfig &config : configs)
      out.emplace_back(config.name, writeConfig(config, format));
    fs::path app = root / (format == Format::Json ? "json" : "yaml");
    std::string error;
    ASSERT_TRUE(writeAppDirectory(app.string(), format, out, error)) << error;

    std::vector<SourceFile> files;
    DiagnosticSink diags;
    ASSERT_TRUE(readConfigSources(app.string(), format, files, diags));
    std::vector<FunctionConfig> back;
    ASSERT_TRUE(loadConfigs(files, format, back, diagnostics));
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[0].name, "A");
    EXPECT_TRUE(back[0].start);
    EXPECT_EQ(back[0].next[0].kind, EdgeKind::Map);
    EXPECT_EQ(back[1].name, "B");
    EXPECT_TRUE(back[1].checkpoint);
  }
}

} // namespace
