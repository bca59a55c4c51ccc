//===- EndToEndTest.cpp - JIT-compiled AIR against a naive evaluator ------===//
//
// Random expressions (seeded, so a failure reproduces) over random shapes
// with numpy broadcasting, in f32, f64 and i32, are written in the AIR
// notation, compiled through the whole pipeline (fusion included) by the JIT,
// run, and compared with a reference evaluator in this file that computes one
// kernel at a time with full temporaries, in the same dtype.
//
// Arithmetic must match exactly (this file is built with -ffp-contract=off
// so the reference does not fuse multiply-adds either). A transcendental
// function appears only as the last kernel and must be within 1 ulp of the
// correctly rounded value. Sums are exact because inputs are small
// multiples of 1/4 and no division happens below a reduction, so the
// reduction order (which the compiler may change) does not matter.
//
//===----------------------------------------------------------------------===//
#include "unum/AirCompiler/AirCompiler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>

using namespace unum::air;

namespace {
enum class DType { F32, F64, I32 };

const char *dtypeName(DType t) {
  return t == DType::F32 ? "f32" : t == DType::F64 ? "f64" : "i32";
}

/// A dense array; values are held as double and rounded to the dtype after
/// every kernel, which is exact for these dtypes' arithmetic.
struct Array {
  std::vector<int64_t> shape;
  std::vector<double> data;
  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
};

double roundTo(DType t, double v) {
  if (t == DType::F32)
    return (double)(float)v;
  if (t == DType::I32)
    return (double)(int32_t)v;
  return v;
}

std::vector<int64_t> broadcastShape(const std::vector<int64_t> &a,
                                    const std::vector<int64_t> &b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    out[i] = x == 1 ? y : x;
  }
  return out;
}

/// Element `linear` of `shape`, read from `a` with numpy broadcasting.
double at(const Array &a, const std::vector<int64_t> &shape, int64_t linear) {
  int64_t index = 0, stride = 1;
  for (int64_t d = shape.size() - 1, od = a.shape.size() - 1; od >= 0;
       --d, --od) {
    int64_t coord = linear % shape[d];
    linear /= shape[d];
    index += (a.shape[od] == 1 ? 0 : coord) * stride;
    stride *= a.shape[od];
  }
  return a.data[index];
}

Array elementwise(DType t, const std::vector<const Array *> &in,
                  const std::function<double(const std::vector<double> &)> &f) {
  Array out;
  out.shape = in[0]->shape;
  for (const Array *a : in)
    out.shape = broadcastShape(out.shape, a->shape);
  for (int64_t i = 0, n = out.size(); i < n; ++i) {
    std::vector<double> args;
    for (const Array *a : in)
      args.push_back(at(*a, out.shape, i));
    out.data.push_back(roundTo(t, f(args)));
  }
  return out;
}

/// One random expression: AIR text and the reference computation.
struct Case {
  std::string name;
  DType dtype;
  std::vector<Array> inputs;
  std::string text;
  Array expected;
  bool transcendental = false;
};

class Generator {
public:
  Generator(unsigned seed, DType dtype) : rng(seed), dtype(dtype) {}

  Case make(const std::string &name) {
    Case c;
    c.name = name;
    c.dtype = dtype;
    // The result shape; inputs drop leading dims or stretch from 1.
    int rank = pick(0, 3);
    for (int i = 0; i < rank; ++i)
      outShape.push_back(pick(1, 7));
    int numInputs = pick(1, 4);
    for (int i = 0; i < numInputs; ++i)
      c.inputs.push_back(randomInput());
    body.str("");
    counter = 0;
    bool reduce = rank > 0 && pick(0, 3) == 0;
    bool transcend = dtype != DType::I32 && !reduce && pick(0, 2) == 0;
    Array result;
    std::string value = expr(c, 3, result, /*exactOnly=*/reduce);
    if (reduce) {
      // sum over the last axis or all axes
      bool all = pick(0, 1) == 0 || result.shape.empty();
      std::string var = "%r" + std::to_string(counter++);
      body << "    " << var << " = kernel(sum, " << value
           << (all ? "" : ", axes=[" + std::to_string(result.shape.size() - 1) + "]")
           << ")\n";
      result = sum(result, all);
      value = var;
    }
    if (transcend) {
      static const char *fns[] = {"exp", "log", "sqrt", "tanh", "sigmoid"};
      std::string fn = fns[pick(0, 4)];
      std::string var = "%t" + std::to_string(counter++);
      body << "    " << var << " = kernel(" << fn << ", " << value << ")\n";
      result = elementwise(dtype, {&result}, [&](auto &a) {
        double x = a[0];
        if (fn == "exp")
          return std::exp(x);
        if (fn == "log")
          return std::log(x);
        if (fn == "sqrt")
          return std::sqrt(x);
        if (fn == "tanh")
          return std::tanh(x);
        return 1.0 / (1.0 + std::exp(-x));
      });
      value = var;
      c.transcendental = true;
    }
    std::ostringstream text;
    text << "function " << name << "(";
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      text << (i ? ", " : "") << "%x" << i << ": " << dtypeName(dtype) << "[";
      const auto &s = c.inputs[i].shape;
      // Half the parameters have dynamic sizes (named like N0, N1).
      bool dynamic = pick(0, 1) == 0;
      for (size_t d = 0; d < s.size(); ++d)
        text << (d ? ", " : "")
             << (dynamic && s[d] != 1 ? "N" + std::to_string(d)
                                      : std::to_string(s[d]));
      text << "]";
    }
    text << ") {\n" << body.str() << "    ret " << value << "\n}\n";
    c.text = text.str();
    c.expected = result;
    outShape.clear();
    return c;
  }

private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

  Array randomInput() {
    Array a;
    size_t drop = pick(0, (int)outShape.size());
    for (size_t d = drop; d < outShape.size(); ++d)
      a.shape.push_back(pick(0, 3) == 0 ? 1 : outShape[d]);
    for (int64_t i = 0, n = a.size(); i < n; ++i) {
      int k = pick(-16, 16);
      a.data.push_back(dtype == DType::I32 ? k : k / 4.0);
    }
    return a;
  }

  Array sum(const Array &a, bool all) {
    Array out;
    if (all) {
      double s = 0;
      for (double v : a.data)
        s += v;
      out.data.push_back(roundTo(dtype, s));
      return out;
    }
    out.shape.assign(a.shape.begin(), a.shape.end() - 1);
    int64_t inner = a.shape.back();
    for (int64_t i = 0; i < a.size() / inner; ++i) {
      double s = 0;
      for (int64_t j = 0; j < inner; ++j)
        s += a.data[i * inner + j];
      out.data.push_back(roundTo(dtype, s));
    }
    return out;
  }

  /// Emits a random subexpression of at most `depth` kernels; returns its
  /// value name and sets `out` to its reference value.
  std::string expr(Case &c, int depth, Array &out, bool exactOnly) {
    if (depth == 0 || pick(0, 3) == 0) {
      int i = pick(0, (int)c.inputs.size() - 1);
      out = c.inputs[i];
      return "%x" + std::to_string(i);
    }
    std::vector<std::string> ops = {"add", "sub", "mul", "max", "min",
                                    "neg", "abs", "select"};
    if (dtype != DType::I32 && !exactOnly)
      ops.push_back("div");
    std::string op = ops[pick(0, (int)ops.size() - 1)];
    Array a, b, k;
    std::string va = expr(c, depth - 1, a, exactOnly);
    std::string var = "%v" + std::to_string(counter++);
    if (op == "neg" || op == "abs") {
      body << "    " << var << " = kernel(" << op << ", " << va << ")\n";
      out = elementwise(dtype, {&a}, [&](auto &x) {
        return op == "neg" ? -x[0] : std::fabs(x[0]);
      });
      return var;
    }
    std::string vb = expr(c, depth - 1, b, exactOnly);
    if (op == "select") {
      // select(a < b, a, b + 1) exercises comparisons and i1 values.
      std::string cond = "%c" + std::to_string(counter++);
      std::string plus = "%p" + std::to_string(counter++);
      body << "    " << cond << " = kernel(lt, " << va << ", " << vb << ")\n";
      body << "    " << plus << " = kernel(add, " << vb << ", 1)\n";
      body << "    " << var << " = kernel(select, " << cond << ", " << va
           << ", " << plus << ")\n";
      out = elementwise(dtype, {&a, &b}, [](auto &x) {
        return x[0] < x[1] ? x[0] : x[1] + 1;
      });
      return var;
    }
    body << "    " << var << " = kernel(" << op << ", " << va << ", " << vb
         << ")\n";
    out = elementwise(dtype, {&a, &b}, [&](auto &x) {
      if (op == "add")
        return x[0] + x[1];
      if (op == "sub")
        return x[0] - x[1];
      if (op == "mul")
        return x[0] * x[1];
      if (op == "max")
        return std::max(x[0], x[1]);
      if (op == "min")
        return std::min(x[0], x[1]);
      return dtype == DType::F32 ? (double)((float)x[0] / (float)x[1])
                                 : x[0] / x[1];
    });
    return var;
  }

  std::mt19937 rng;
  DType dtype;
  std::vector<int64_t> outShape;
  std::ostringstream body;
  int counter = 0;
};

/// A ranked memref descriptor laid out as MLIR expects, for any rank.
struct Descriptor {
  std::vector<int64_t> words;
  Descriptor(void *data, const std::vector<int64_t> &shape) {
    words.push_back((int64_t)(intptr_t)data);
    words.push_back((int64_t)(intptr_t)data);
    words.push_back(0);
    for (int64_t d : shape)
      words.push_back(d);
    std::vector<int64_t> strides(shape.size(), 1);
    for (int i = (int)shape.size() - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * shape[i + 1];
    for (int64_t s : strides)
      words.push_back(s);
  }
  void *ptr() { return words.data(); }
};

/// Typed buffers for an array of `t`.
struct Buffer {
  DType t;
  std::vector<float> f32;
  std::vector<double> f64;
  std::vector<int32_t> i32;
  Buffer(DType t, const Array &a) : t(t) {
    for (double v : a.data) {
      f32.push_back((float)v);
      f64.push_back(v);
      i32.push_back((int32_t)v);
    }
  }
  Buffer(DType t, int64_t n) : t(t), f32(n), f64(n), i32(n) {}
  void *data() {
    return t == DType::F32 ? (void *)f32.data()
           : t == DType::F64 ? (void *)f64.data() : (void *)i32.data();
  }
  double get(int64_t i) const {
    return t == DType::F32 ? f32[i] : t == DType::F64 ? f64[i] : i32[i];
  }
};

/// Distance in units in the last place between two floats of `t`.
int64_t ulps(DType t, double a, double b) {
  if (std::isnan(a) && std::isnan(b))
    return 0;
  auto ordered = [](auto bits, auto signBit) {
    return (bits & signBit) ? -(int64_t)(bits & ~signBit) : (int64_t)bits;
  };
  if (t == DType::F32) {
    float fa = (float)a, fb = (float)b;
    uint32_t ua, ub;
    std::memcpy(&ua, &fa, 4);
    std::memcpy(&ub, &fb, 4);
    return std::llabs(ordered(ua, 0x80000000u) - ordered(ub, 0x80000000u));
  }
  uint64_t ua, ub;
  std::memcpy(&ua, &a, 8);
  std::memcpy(&ub, &b, 8);
  int64_t x = ordered(ua, 0x8000000000000000ull),
          y = ordered(ub, 0x8000000000000000ull);
  return x > y ? x - y : y - x;
}

/// Compiles `c` with the JIT, runs it and checks every element.
void run(const Case &c) {
  SCOPED_TRACE(c.text);
  AirCompiler compiler;
  ASSERT_TRUE(compiler.compile(c.text, c.name + ".air")) << compiler.errors();
  std::unique_ptr<JitKernels> jit = compiler.jit();
  ASSERT_TRUE(jit) << compiler.errors();
  void *fn = jit->lookup(c.name);
  ASSERT_NE(fn, nullptr);

  std::vector<Buffer> buffers;
  std::vector<Descriptor> descriptors;
  for (const Array &a : c.inputs)
    buffers.emplace_back(c.dtype, a);
  buffers.emplace_back(c.dtype, c.expected.size());
  for (size_t i = 0; i < c.inputs.size(); ++i)
    descriptors.emplace_back(buffers[i].data(), c.inputs[i].shape);
  descriptors.emplace_back(buffers.back().data(), c.expected.shape);
  std::vector<void *> args;
  for (Descriptor &d : descriptors)
    args.push_back(d.ptr());
  using P = void *;
  int32_t status = -1;
  switch (args.size()) {
  case 2:
    status = ((int32_t(*)(P, P))fn)(args[0], args[1]);
    break;
  case 3:
    status = ((int32_t(*)(P, P, P))fn)(args[0], args[1], args[2]);
    break;
  case 4:
    status = ((int32_t(*)(P, P, P, P))fn)(args[0], args[1], args[2], args[3]);
    break;
  case 5:
    status = ((int32_t(*)(P, P, P, P, P))fn)(args[0], args[1], args[2], args[3],
                                             args[4]);
    break;
  default: FAIL() << "unexpected arity";
  }
  ASSERT_EQ(status, kOk);
  const Buffer &out = buffers.back();
  for (int64_t i = 0; i < c.expected.size(); ++i) {
    double want = c.expected.data[i], got = out.get(i);
    if (c.transcendental)
      ASSERT_LE(ulps(c.dtype, want, got), 1)
          << "element " << i << ": want " << want << " got " << got;
    else if (std::isnan(want))
      ASSERT_TRUE(std::isnan(got)) << "element " << i;
    else
      ASSERT_EQ(want, got) << "element " << i;
  }
}

class RandomExpressions : public ::testing::TestWithParam<std::tuple<DType, unsigned>> {};

TEST_P(RandomExpressions, MatchReference) {
  auto [dtype, seed] = GetParam();
  Generator gen(seed * 7919 + (unsigned)dtype, dtype);
  run(gen.make(std::string("e_") + dtypeName(dtype) + "_" + std::to_string(seed)));
}

INSTANTIATE_TEST_SUITE_P(
    F32, RandomExpressions,
    ::testing::Combine(::testing::Values(DType::F32), ::testing::Range(0u, 20u)));
INSTANTIATE_TEST_SUITE_P(
    F64, RandomExpressions,
    ::testing::Combine(::testing::Values(DType::F64), ::testing::Range(0u, 15u)));
INSTANTIATE_TEST_SUITE_P(
    I32, RandomExpressions,
    ::testing::Combine(::testing::Values(DType::I32), ::testing::Range(0u, 15u)));

} // namespace

namespace {
/// Compiles `text`, calls `name` on f32 `inputs` and returns the output.
std::vector<float> runF32(const std::string &text, const std::string &name,
                          std::vector<std::pair<std::vector<float>, std::vector<int64_t>>> inputs,
                          const std::vector<int64_t> &outShape,
                          const std::string &signature = "") {
  AirCompiler compiler;
  CompileOptions options;
  if (!signature.empty()) {
    options.entry = name;
    options.signature = signature;
  }
  EXPECT_TRUE(compiler.compile(text, name + ".air", options)) << compiler.errors();
  std::unique_ptr<JitKernels> jit = compiler.jit();
  EXPECT_TRUE(jit) << compiler.errors();
  if (!jit)
    return {};
  int64_t n = 1;
  for (int64_t d : outShape)
    n *= d;
  std::vector<float> out(n, -12345.0f);
  std::vector<Descriptor> d;
  for (auto &[data, shape] : inputs)
    d.emplace_back(data.data(), shape);
  d.emplace_back(out.data(), outShape);
  void *fn = jit->lookup(name);
  EXPECT_NE(fn, nullptr);
  using P = void *;
  int32_t status;
  if (d.size() == 2)
    status = ((int32_t(*)(P, P))fn)(d[0].ptr(), d[1].ptr());
  else if (d.size() == 3)
    status = ((int32_t(*)(P, P, P))fn)(d[0].ptr(), d[1].ptr(), d[2].ptr());
  else
    status = ((int32_t(*)(P, P, P, P))fn)(d[0].ptr(), d[1].ptr(), d[2].ptr(),
                                          d[3].ptr());
  EXPECT_EQ(status, kOk);
  return out;
}

std::vector<float> iota(int64_t n, float scale = 1, float offset = 0) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = offset + scale * (float)((i * 7) % 13 - 6);
  return v;
}

TEST(Kernels, MatmulWithReluEpilogue) {
  const int M = 5, K = 7, N = 9;
  auto a = iota(M * K), b = iota(K * N, 0.5f), bias = iota(N, 1, 0.5f);
  auto out = runF32(R"(
function mm(%a: f32[M, K], %b: f32[K, N], %bias: f32[N]) {
    %0 = kernel(matmul, %a, %b)
    %1 = kernel(add, %0, %bias)
    %2 = kernel(max, %1, 0)
    ret %2
})", "mm", {{a, {M, K}}, {b, {K, N}}, {bias, {N}}}, {M, N});
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float s = 0;
      for (int k = 0; k < K; ++k)
        s += a[m * K + k] * b[k * N + n];
      EXPECT_EQ(out[m * N + n], std::max(s + bias[n], 0.0f)) << m << "," << n;
    }
}

/// Compares `out` with a conv1d (optionally followed by relu) computed in
/// the same order: taps, then channels.
void checkConv(const std::vector<float> &out, const std::vector<float> &x,
               const std::vector<float> &w, int L, int C, int K, int O, int S,
               bool relu) {
  for (int l = 0; l < (L - K) / S + 1; ++l)
    for (int o = 0; o < O; ++o) {
      float s = 0;
      for (int k = 0; k < K; ++k)
        for (int c = 0; c < C; ++c)
          s += x[(l * S + k) * C + c] * w[(k * C + c) * O + o];
      EXPECT_EQ(out[l * O + o], relu ? std::max(s, 0.0f) : s) << l << "," << o;
    }
}

TEST(Kernels, Conv1DStrideTwo) {
  const int L = 11, C = 3, K = 3, O = 4, S = 2, LO = (L - K) / S + 1;
  auto x = iota(L * C), w = iota(K * C * O, 0.25f);
  auto out = runF32(R"(
function conv(%x: f32[11, 3], %w: f32[3, 3, 4]) {
    %0 = kernel(conv1d, %x, %w, stride=2)
    ret %0
})", "conv", {{x, {L, C}}, {w, {K, C, O}}}, {LO, O});
  checkConv(out, x, w, L, C, K, O, S, /*relu=*/false);
}

// 32 output channels and 11 rows: the register-blocked path (6-row blocks
// of 16 channels) plus 5 rows of the plain loop nest, with a stride.
TEST(Kernels, Conv1DBlockedWithTailRows) {
  const int L = 23, C = 5, K = 3, O = 32, S = 2, LO = (L - K) / S + 1;
  auto x = iota(L * C), w = iota(K * C * O, 0.25f);
  auto out = runF32(R"(
function conv(%x: f32[23, 5], %w: f32[3, 5, 32]) {
    %0 = kernel(conv1d, %x, %w, stride=2)
    %1 = kernel(max, %0, 0)
    ret %1
})", "conv", {{x, {L, C}}, {w, {K, C, O}}}, {LO, O});
  checkConv(out, x, w, L, C, K, O, S, /*relu=*/true);
}

// Three full blocks of the two-level f32 sum and 77 leftover elements; the
// values are small integers, so the exact sum is representable.
TEST(Kernels, LongSumInBlocks) {
  const int64_t n = 3 * 4096 + 77;
  std::vector<float> a(n), b(n);
  double want = 0, wantMean = 0;
  for (int64_t i = 0; i < n; ++i) {
    a[i] = (float)(i % 13);
    b[i] = (float)(i % 5);
    want += (double)(a[i] - b[i]) * (a[i] - b[i]);
    wantMean += a[i];
  }
  auto out = runF32(R"(
function s(%a: f32[N], %b: f32[N]) {
    %0 = kernel(sub, %a, %b)
    %1 = kernel(mul, %0, %0)
    %2 = kernel(sum, %1)
    ret %2
})", "s", {{a, {n}}, {b, {n}}}, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (float)want);
  auto mean = runF32(R"(
function m(%a: f32[N]) {
    %0 = kernel(mean, %a)
    ret %0
})", "m", {{a, {n}}}, {});
  EXPECT_EQ(mean[0], (float)(wantMean / n));
}

TEST(Kernels, TransposeReshapeMeanMax) {
  auto x = iota(6);
  // mean over axis 0 of transpose(reshape(x, [2, 3])) plus its max
  auto out = runF32(R"(
function f(%x: f32[6]) {
    %0 = kernel(reshape, %x, shape=[2, -1])
    %1 = kernel(transpose, %0, perm=[1, 0])
    %2 = kernel(mean, %1, axis=1)
    %3 = kernel(max, %1)
    %4 = kernel(add, %2, %3)
    ret %4
})", "f", {{x, {6}}}, {3});
  float mx = *std::max_element(x.begin(), x.end());
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(out[i], (x[i] + x[3 + i]) / 2 + mx) << i;
}

TEST(Kernels, GenericFunctionSpecialisedPerCall) {
  // `scale` is generic: called with f32[4] and f32[] it is cloned twice.
  auto x = iota(4);
  auto out = runF32(R"(
function scale(%v, %k) {
    %0 = kernel(mul, %v, %k)
    ret %0
}
function g(%x: f32[4], %s: f32[]) {
    %0 = call scale(%x, %s)
    %1 = call scale(%s, %s)
    %2 = kernel(sub, %0, %1)
    ret %2
})", "g", {{x, {4}}, {{3.0f}, {}}}, {4});
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out[i], x[i] * 3 - 9) << i;
}

TEST(Kernels, EntrySignatureSpecialisesGenericEntry) {
  auto x = iota(5);
  auto out = runF32(R"(
function h(%a, %b) {
    %0 = kernel(sub, %a, %b)
    %t = kernel(make_tuple, %0, %a)
    %1 = kernel(get, %t, 0)
    %2 = kernel(cast, %1, i32)
    %3 = kernel(cast, %2, f32)
    ret %3
})", "h", {{x, {5}}, {{0.5f}, {}}}, {5}, "f32[?], f32[]");
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(out[i], (float)(int32_t)(x[i] - 0.5f)) << i;
}

TEST(Kernels, ErrorsAreLocated) {
  AirCompiler compiler;
  EXPECT_FALSE(compiler.compile(
      "function f(%a: f32[3], %b: f32[4]) {\n  %0 = kernel(add, %a, %b)\n  ret %0\n}\n",
      "bad.air"));
  EXPECT_NE(compiler.errors().find("bad.air:2:15: error: kernel 'add': shapes "
                                   "[3] and [4] do not broadcast"),
            std::string::npos)
      << compiler.errors();
  // Nothing was lowered: the backends refuse instead of crashing.
  EXPECT_EQ(compiler.jit(), nullptr);
  std::string object;
  EXPECT_FALSE(compiler.emitObject(object));
  EXPECT_NE(compiler.errors().find("compile() to Stage::Full first"),
            std::string::npos);
}
} // namespace
