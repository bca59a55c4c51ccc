//===- CAPITest.cpp - libUnum's C API -------------------------------------===//
//
// Every part of include/unum-c/Unum.h through the shared library: kernels
// compiled, queried and called (and refused calls), object files, the
// printed stages, a workflow compiled and run with a handler callback, an
// NN model to VHDL; every failure an error value with a located message.
//
//===----------------------------------------------------------------------===//
#include "unum-c/Unum.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int unum_capi_test_header_is_c(void);

namespace fs = std::filesystem;

namespace {
std::string sourceDir() {
  const char *env = std::getenv("UNUM_SOURCE_DIR");
  return env ? env : UNUM_SOURCE_DIR_DEFAULT;
}

std::string readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Takes an error value: its message, and destroys it.
std::string take(unum_error *e) {
  if (!e)
    return "";
  std::string m = unum_error_message(e);
  unum_error_destroy(e);
  return m;
}

fs::path tempDir(const std::string &name) {
  fs::path p = fs::temp_directory_path() /
               ("unum-capi-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

struct Desc1 {
  float *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
};
struct Desc0 {
  float *allocated, *aligned;
  int64_t offset;
};

const char *kExpr = "function expr(%a: f32[4], %b: f32[4], %c: f32[]) {\n"
                    "  %0 = kernel(mul, %b, %c)\n"
                    "  %1 = kernel(add, %a, %0)\n"
                    "  ret %1\n"
                    "}\n";

class CAPI : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_EQ(take(unum_context_create(&ctx)), ""); }
  void TearDown() override { unum_context_destroy(ctx); }
  unum_context *ctx = nullptr;
};
} // namespace

TEST(CAPIVersion, HeaderAndLibraryAgree) {
  EXPECT_EQ(unum_api_version(), UNUM_C_API_VERSION);
  EXPECT_TRUE(unum_capi_test_header_is_c());
  EXPECT_NE(std::string(unum_version_string()).find("MLIR"), std::string::npos);
  int status = unum_kernels_return_status();
  EXPECT_TRUE(status == 0 || status == 1);
}

TEST_F(CAPI, JitQueryAndCall) {
  unum_kernels *k = nullptr;
  ASSERT_EQ(take(unum_air_jit(ctx, kExpr, "expr.air", nullptr, &k)), "");
  ASSERT_EQ(unum_kernels_count(k), 1u);
  EXPECT_STREQ(unum_kernel_name(k, 0), "expr");
  EXPECT_EQ(unum_kernel_num_params(k, 0, 0), 3u);
  EXPECT_EQ(unum_kernel_num_params(k, 0, 1), 1u);
  EXPECT_STREQ(unum_kernel_param_name(k, 0, 0, 2), "c");
  EXPECT_STREQ(unum_kernel_param_dtype(k, 0, 1, 0), "f32");
  EXPECT_EQ(unum_kernel_param_rank(k, 0, 0, 2), 0u);
  EXPECT_EQ(unum_kernel_param_rank(k, 0, 1, 0), 1u);
  EXPECT_EQ(unum_kernel_param_size(k, 0, 1, 0, 0), 4);
  EXPECT_EQ(unum_kernel_name(k, 1), nullptr);
  EXPECT_EQ(unum_kernel_param_dtype(k, 0, 0, 7), nullptr);

  float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, c = 0.5f, out[4] = {};
  Desc1 da{a, a, 0, {4}, {1}}, db{b, b, 0, {4}, {1}},
      dout{out, out, 0, {4}, {1}};
  Desc0 dc{&c, &c, 0};
  void *args[] = {&da, &db, &dc, &dout};
  ASSERT_EQ(take(unum_kernels_call(k, "expr", args, 4)), "");
  EXPECT_EQ(std::vector<float>(out, out + 4),
            (std::vector<float>{6, 12, 18, 24}));

  // The raw entry point is the same function.
  auto fn = reinterpret_cast<void (*)(Desc1 *, Desc1 *, Desc0 *, Desc1 *)>(
      unum_kernels_lookup(k, "expr"));
  ASSERT_NE(fn, nullptr);
  c = 1;
  fn(&da, &db, &dc, &dout);
  EXPECT_EQ(out[3], 44);
  EXPECT_EQ(unum_kernels_lookup(k, "nope"), nullptr);

  // Refused calls leave the output alone.
  out[0] = -1;
  EXPECT_NE(take(unum_kernels_call(k, "expr", args, 3)).find("takes 4"),
            std::string::npos);
  Desc1 shortA{a, a, 0, {3}, {1}};
  void *bad[] = {&shortA, &db, &dc, &dout};
  EXPECT_NE(take(unum_kernels_call(k, "expr", bad, 4))
                .find("size 3 in dimension 0, the kernel was compiled for 4"),
            std::string::npos);
  Desc1 strided{a, a, 0, {4}, {2}};
  void *bad2[] = {&da, &strided, &dc, &dout};
  EXPECT_NE(take(unum_kernels_call(k, "expr", bad2, 4)).find("not row-major"),
            std::string::npos);
  EXPECT_NE(take(unum_kernels_call(k, "other", args, 4)).find("no kernel"),
            std::string::npos);
  EXPECT_EQ(out[0], -1);
  unum_kernels_destroy(k);
}

TEST_F(CAPI, KernelsOutliveTheContext) {
  unum_kernels *k = nullptr;
  ASSERT_EQ(take(unum_air_jit(ctx, kExpr, "expr.air", nullptr, &k)), "");
  unum_context_destroy(ctx);
  ctx = nullptr;
  float a[4] = {1, 1, 1, 1}, b[4] = {1, 2, 3, 4}, c = 2, out[4];
  Desc1 da{a, a, 0, {4}, {1}}, db{b, b, 0, {4}, {1}},
      dout{out, out, 0, {4}, {1}};
  Desc0 dc{&c, &c, 0};
  void *args[] = {&da, &db, &dc, &dout};
  ASSERT_EQ(take(unum_kernels_call(k, "expr", args, 4)), "");
  EXPECT_EQ(out[3], 9);
  unum_kernels_destroy(k);
}

TEST_F(CAPI, CompileErrorsAreLocatedValues) {
  unum_kernels *k = nullptr;
  std::string m = take(unum_air_jit(
      ctx,
      "function f(%a: f32[4]) {\n  %0 = kernel(add, %a, %b)\n  ret %0\n}\n",
      "bad.air", nullptr, &k));
  EXPECT_NE(m.find("bad.air:2:"), std::string::npos) << m;
  EXPECT_NE(m.find("error: use of undefined value '%b'"), std::string::npos);
  EXPECT_EQ(k, nullptr);
  m = take(unum_air_jit(ctx,
                        "function f(%a: f32[4], %b: f32[3]) {\n"
                        "  %0 = kernel(add, %a, %b)\n  ret %0\n}\n",
                        "shape.air", nullptr, &k));
  EXPECT_NE(m.find("shape.air:2:"), std::string::npos) << m;
  // The context compiles again after a failure.
  ASSERT_EQ(take(unum_air_jit(ctx, kExpr, "expr.air", nullptr, &k)), "");
  unum_kernels_destroy(k);
  EXPECT_NE(take(unum_air_jit(ctx, nullptr, "x.air", nullptr, &k)), "");
  EXPECT_NE(take(unum_air_jit(nullptr, kExpr, "x.air", nullptr, &k)), "");
}

TEST_F(CAPI, EntryAndSignatureSpecialise) {
  unum_air_options o = {"g", "f64[3]", nullptr, 3};
  unum_kernels *k = nullptr;
  ASSERT_EQ(take(unum_air_jit(ctx,
                              "function g(%x) {\n  %0 = kernel(mul, %x, %x)\n"
                              "  ret %0\n}\n",
                              "g.air", &o, &k)),
            "");
  ASSERT_EQ(unum_kernels_count(k), 1u);
  EXPECT_STREQ(unum_kernel_param_dtype(k, 0, 0, 0), "f64");
  unum_kernels_destroy(k);
}

TEST_F(CAPI, ObjectHeaderAndStages) {
  fs::path dir = tempDir("obj");
  std::string obj = (dir / "expr.o").string(), h = (dir / "expr.h").string();
  ASSERT_EQ(take(unum_air_emit_object(ctx, kExpr, "expr.air", nullptr,
                                      obj.c_str(), h.c_str())),
            "");
  EXPECT_GT(fs::file_size(obj), 100u);
  std::string header = readFile(h);
  EXPECT_NE(header.find("int32_t expr(const UnumMemRef_f32_1d *a"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("#ifndef EXPR_H"), std::string::npos);
  // A failed compile writes nothing.
  std::string obj2 = (dir / "bad.o").string();
  EXPECT_NE(take(unum_air_emit_object(ctx, "function (", "bad.air", nullptr,
                                      obj2.c_str(), nullptr)),
            "");
  EXPECT_FALSE(fs::exists(obj2));

  char *text = nullptr;
  ASSERT_EQ(take(unum_air_print(ctx, kExpr, "expr.air", nullptr, "air", &text)),
            "");
  EXPECT_NE(std::string(text).find("air.fused"), std::string::npos);
  unum_string_free(text);
  ASSERT_EQ(
      take(unum_air_print(ctx, kExpr, "expr.air", nullptr, "llvm-ir", &text)),
      "");
  EXPECT_NE(std::string(text).find("i32 @expr("), std::string::npos);
  unum_string_free(text);
  EXPECT_NE(take(unum_air_print(ctx, kExpr, "e.air", nullptr, "nope", &text))
                .find("unknown stage"),
            std::string::npos);
  fs::remove_all(dir);
}

namespace {
/// A handler for every function: {"n": x} -> {"n": 2x}; "Boom" fails.
void doubler(void *user, const char *function, const char *input,
             unum_handler_reply *reply) {
  ++*static_cast<int *>(user);
  std::string in = input, name = function;
  if (name == "Boom") {
    unum_handler_reply_error(reply, "Custom.Boom", "it went boom");
    return;
  }
  size_t colon = in.find(':');
  long n = std::strtol(in.c_str() + colon + 1, nullptr, 10);
  unum_handler_reply_output(reply,
                            ("{\"n\": " + std::to_string(2 * n) + "}").c_str());
}
} // namespace

TEST_F(CAPI, WorkflowCompileAndRun) {
  fs::path dir = tempDir("wf");
  std::ofstream(dir / "sm.asl.json") << R"({"StartAt": "One", "States": {
  "One": {"Type": "Task", "Resource": "One", "Next": "Two"},
  "Two": {"Type": "Task", "Resource": "Two", "End": true}}})";
  std::string app = (dir / "app").string();
  ASSERT_EQ(take(unum_workflow_compile(ctx, (dir / "sm.asl.json").c_str(),
                                       app.c_str(), nullptr)),
            "");
  EXPECT_TRUE(fs::exists(dir / "app" / "One" / "unum_config.json"));

  int calls = 0;
  unum_workflow_run_options run = {"memory", 2, 1.0, doubler, &calls};
  char *out = nullptr;
  ASSERT_EQ(take(unum_workflow_run(ctx, app.c_str(), "{\"n\": 5}", &run, &out)),
            "");
  std::string outputs = out;
  unum_string_free(out);
  EXPECT_NE(outputs.find("\"n\": 20"), std::string::npos) << outputs;
  EXPECT_EQ(calls, 2);

  // No handler for the functions: an error, not a crash.
  EXPECT_NE(take(unum_workflow_run(ctx, app.c_str(), "{}", nullptr, &out)), "");
  // Bad input JSON.
  EXPECT_NE(take(unum_workflow_run(ctx, app.c_str(), "{", &run, &out)), "");
  // A failing handler fails the run with its error name.
  std::ofstream(dir / "boom.asl.json") << R"({"StartAt": "Boom", "States": {
  "Boom": {"Type": "Task", "Resource": "Boom", "End": true}}})";
  std::string app2 = (dir / "app2").string();
  ASSERT_EQ(take(unum_workflow_compile(ctx, (dir / "boom.asl.json").c_str(),
                                       app2.c_str(), nullptr)),
            "");
  EXPECT_NE(take(unum_workflow_run(ctx, app2.c_str(), "{}", &run, &out))
                .find("Custom.Boom"),
            std::string::npos);

  // A bad state machine: located, nothing written.
  std::ofstream(dir / "bad.asl.json")
      << "{\"StartAt\": \"Nope\",\n \"States\": {\"A\": {\"Type\": \"Pass\", "
         "\"End\": true}}}";
  std::string m = take(unum_workflow_compile(
      ctx, (dir / "bad.asl.json").c_str(), (dir / "app3").c_str(), nullptr));
  EXPECT_NE(m.find("bad.asl.json:1:"), std::string::npos) << m;
  EXPECT_FALSE(fs::exists(dir / "app3"));
  unum_workflow_options yaml = {"yaml", nullptr};
  ASSERT_EQ(take(unum_workflow_compile(ctx, (dir / "sm.asl.json").c_str(),
                                       (dir / "appy").c_str(), &yaml)),
            "");
  EXPECT_TRUE(fs::exists(dir / "appy" / "Two" / "unum_config.yaml"));
  fs::remove_all(dir);
}

TEST_F(CAPI, NNToVHDL) {
  fs::path dir = tempDir("nn");
  std::string model =
      readFile(sourceDir() + "/docs/examples/nn-tiny/model.json");
  ASSERT_FALSE(model.empty());
  unum_nn_options o = {"total-bits=8 frac-bits=4", 4};
  char *ir = nullptr;
  ASSERT_EQ(take(unum_nn_to_vhdl(ctx, model.c_str(), "model.json", &o,
                                 (dir / "out").c_str(), &ir)),
            "");
  EXPECT_NE(std::string(ir).find("!nn.fixed"), std::string::npos);
  unum_string_free(ir);
  EXPECT_TRUE(fs::exists(dir / "out" / "report.json"));
  bool vhd = false;
  for (auto &e : fs::directory_iterator(dir / "out"))
    vhd |= e.path().extension() == ".vhd";
  EXPECT_TRUE(vhd);

  std::string m =
      take(unum_nn_to_vhdl(ctx, "{\"nodes\": [\n  {\"name\": 3}]}",
                           "broken.json", &o, (dir / "bad").c_str(), nullptr));
  EXPECT_NE(m.find("broken.json:"), std::string::npos) << m;
  EXPECT_FALSE(fs::exists(dir / "bad"));
  unum_nn_options badBits = {"total-bits=99", 1};
  EXPECT_NE(take(unum_nn_to_vhdl(ctx, model.c_str(), "model.json", &badBits,
                                 (dir / "bad").c_str(), nullptr)),
            "");
  unum_nn_options braces = {"x} , y{", 1};
  EXPECT_NE(take(unum_nn_to_vhdl(ctx, model.c_str(), "model.json", &braces,
                                 (dir / "bad").c_str(), nullptr)),
            "");
  fs::remove_all(dir);
}

TEST_F(CAPI, NNToAir) {
  std::string model =
      readFile(sourceDir() + "/docs/examples/nn-tiny/model.json");
  ASSERT_FALSE(model.empty());
  char *air = nullptr;
  ASSERT_EQ(take(unum_nn_to_air(ctx, model.c_str(), "model.json", &air)), "");
  std::string text = air;
  unum_string_free(air);
  EXPECT_NE(text.find("air.conv1d"), std::string::npos) << text;
  EXPECT_EQ(text.find("nn.model"), std::string::npos) << text;
  // The air module compiles like any (a name ending in .mlir says MLIR).
  unum_kernels *k = nullptr;
  ASSERT_EQ(take(unum_air_jit(ctx, text.c_str(), "tiny.mlir", nullptr, &k)),
            "");
  ASSERT_EQ(unum_kernels_count(k), 1u);
  EXPECT_STREQ(unum_kernel_name(k, 0), "tiny");
  EXPECT_STREQ(unum_kernel_param_name(k, 0, 0, 0), "x");
  EXPECT_EQ(unum_kernel_param_size(k, 0, 1, 0, 0), 8);
  EXPECT_EQ(unum_kernel_param_size(k, 0, 1, 0, 1), 3);
  unum_kernels_destroy(k);

  std::string m = take(unum_nn_to_air(ctx, "{\"nodes\": [\n  {\"name\": 3}]}",
                                      "bad.json", &air));
  EXPECT_NE(m.find("bad.json:1:1: error: missing field 'name'"),
            std::string::npos)
      << m;
  EXPECT_EQ(air, nullptr);
  EXPECT_NE(take(unum_nn_to_air(ctx, nullptr, "x", &air)), "");
}
