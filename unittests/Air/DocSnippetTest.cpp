//===- DocSnippetTest.cpp - docs/Air.md's JIT example, compiled and run ---===//
//
// AirDocSnippet.inc is the C++ block of docs/Air.md's "Using the compiler
// from C++ (JIT)" section, extracted at build time (unittests/Air/
// CMakeLists.txt): the doc's example cannot stop compiling or working.
//
//===----------------------------------------------------------------------===//
#include "AirDocSnippet.inc"

#include "gtest/gtest.h"

TEST(AirDocs, JitSnippetRuns) {
  testing::internal::CaptureStdout();
  int status = runExpr();
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, 0);
  EXPECT_EQ(out, "6 12 18 24 \n");
}
