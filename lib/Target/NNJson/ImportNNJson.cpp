//===- ImportNNJson.cpp - JSON layer graph -> nn dialect ------------------===//
//
// The importer does what only the JSON can tell (field names and types, edge
// endpoints, cycles, tensor shapes of the literals, inferred layer shapes) and
// leaves a model that the nn verifier then checks as a whole.
//
//===----------------------------------------------------------------------===//
#include "unum/Config/Document.h"
#include "unum/Dialect/NN/IR/NNDialect.h"
#include "unum/Target/JsonImage.h"
#include "unum/Target/NNJson/NNJson.h"
#include "unum/Target/TranslateDiagnostics.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

using namespace mlir;
using namespace unum;
using config::Node;

namespace {
struct Shape {
  int64_t length = 0, channels = 0;
};

/// A literal tensor read from nested JSON arrays, row-major.
struct Literal {
  std::vector<double> values;
  SmallVector<int64_t> shape;
};

class Importer {
public:
  Importer(MLIRContext *context, config::DiagnosticSink &diags, StringRef file)
      : context(context), diags(diags), file(file), builder(context) {}

  OwningOpRef<ModuleOp> run(const Node &root);

private:
  Location loc(const Node &node) {
    return FileLineColLoc::get(context, file, node.loc.line, node.loc.col);
  }
  bool error(const Node &node, const Twine &message) {
    diags.error(node.loc, message.str());
    return false;
  }

  const Node *field(const Node &object, StringRef key, Node::Kind kind,
                    bool required);
  std::optional<int64_t> integer(const Node &object, StringRef key,
                                 std::optional<int64_t> fallback,
                                 int64_t minimum);
  std::optional<double> number(const Node &object, StringRef key,
                               double fallback);
  bool tensor(const Node &node, ArrayRef<int64_t> shape, Literal &out);
  std::optional<Literal> tensorField(const Node &object, StringRef key,
                                     ArrayRef<int64_t> shape, bool optional);
  bool checkKeys(const Node &object, ArrayRef<StringRef> allowed);
  bool precision(const Node &node, StringRef type, Operation *op);
  bool format(const Node &value, bool modes, Type &out,
              std::optional<std::string> &rounding,
              std::optional<std::string> &overflow);
  /// Reports that field `key` (`given`) contradicts the input's channels.
  Value channelMismatch(const Node &node, StringRef key, int64_t given,
                        int64_t channels, StringRef hint = "") {
    error(*node.find(key), key + " " + Twine(given) + " does not match the " +
                               Twine(channels) + " channels of the input" +
                               hint);
    return {};
  }

  /// Builds the op of `node` on `input`; returns null after an error.
  Value build(const Node &node, StringRef type, Value input);
  Value buildConv(const Node &node, Value input, Shape in);
  Value buildLinear(const Node &node, Value input, Shape in);
  Value buildBatchNorm(const Node &node, Value input, Shape in);
  Value buildPool(const Node &node, StringRef type, Value input, Shape in);
  /// Builds an add or concat of `inputs` (in edge order).
  Value buildJoin(const Node &node, StringRef type, ArrayRef<Value> inputs);

  RankedTensorType tensorType(Shape shape) {
    return RankedTensorType::get({shape.length, shape.channels},
                                 builder.getF32Type());
  }
  DenseElementsAttr elements(const Literal &literal) {
    auto type = RankedTensorType::get(literal.shape, builder.getF64Type());
    return DenseElementsAttr::get(type, ArrayRef<double>(literal.values));
  }

  MLIRContext *context;
  config::DiagnosticSink &diags;
  StringRef file;
  OpBuilder builder;
};
} // namespace

static Shape shapeOf(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return {type.getDimSize(0), type.getDimSize(1)};
}

const Node *Importer::field(const Node &object, StringRef key, Node::Kind kind,
                            bool required) {
  const Node *value = object.find(key);
  if (!value) {
    if (required)
      error(object, "missing field '" + key + "'");
    return nullptr;
  }
  if (value->kind != kind) {
    error(*value, "'" + key + "' must be " + Node::kindName(kind) + ", not " +
                      Node::kindName(value->kind));
    return nullptr;
  }
  return value;
}

std::optional<int64_t> Importer::integer(const Node &object, StringRef key,
                                         std::optional<int64_t> fallback,
                                         int64_t minimum) {
  const Node *value = object.find(key);
  if (!value) {
    if (!fallback)
      error(object, "missing field '" + key + "'");
    return fallback;
  }
  if (!value->isInteger()) {
    error(*value, "'" + key + "' must be an integer");
    return std::nullopt;
  }
  int64_t v = 0;
  if (StringRef(value->text).getAsInteger(10, v) || v < minimum ||
      v > (int64_t(1) << 30)) {
    error(*value,
          "'" + key + "' must be an integer of at least " + Twine(minimum));
    return std::nullopt;
  }
  return v;
}

std::optional<double> Importer::number(const Node &object, StringRef key,
                                       double fallback) {
  const Node *value = object.find(key);
  if (!value)
    return fallback;
  double v = 0;
  if (value->kind != Node::Kind::Number ||
      StringRef(value->text).getAsDouble(v) || !std::isfinite(v)) {
    error(*value, "'" + key + "' must be a finite number");
    return std::nullopt;
  }
  return v;
}

bool Importer::tensor(const Node &node, ArrayRef<int64_t> shape, Literal &out) {
  if (shape.empty()) {
    double v = 0;
    if (node.kind != Node::Kind::Number ||
        StringRef(node.text).getAsDouble(v) || !std::isfinite(v))
      return error(node, "expected a finite number");
    out.values.push_back(v);
    return true;
  }
  if (node.kind != Node::Kind::Array)
    return error(node,
                 "expected an array of " + Twine(shape.front()) + " elements");
  if (static_cast<int64_t>(node.items.size()) != shape.front())
    return error(node, "expected " + Twine(shape.front()) + " elements, got " +
                           Twine(node.items.size()));
  for (const Node &item : node.items)
    if (!tensor(item, shape.drop_front(), out))
      return false;
  return true;
}

std::optional<Literal> Importer::tensorField(const Node &object, StringRef key,
                                             ArrayRef<int64_t> shape,
                                             bool optional) {
  const Node *value = object.find(key);
  if (!value) {
    if (!optional)
      error(object, "missing field '" + key + "'");
    return std::nullopt;
  }
  Literal literal;
  literal.shape.assign(shape.begin(), shape.end());
  // `[]` means "none" for an optional tensor (a bias).
  if (optional && value->kind == Node::Kind::Array && value->items.empty())
    return std::nullopt;
  if (!tensor(*value, shape, literal)) {
    std::string dims;
    for (int64_t d : shape)
      dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    diags.note(value->loc,
               "'" + key.str() + "' must have shape [" + dims + "]");
    return std::nullopt;
  }
  return literal;
}

bool Importer::checkKeys(const Node &object, ArrayRef<StringRef> allowed) {
  bool ok = true;
  for (const Node::Member &member : object.members)
    if (!llvm::is_contained(allowed, member.key)) {
      diags.error(member.keyLoc, "unknown field '" + member.key + "'");
      ok = false;
    }
  return ok;
}

Value Importer::buildConv(const Node &node, Value input, Shape in) {
  auto inCh = integer(node, "in_channels", std::nullopt, 1);
  auto outCh = integer(node, "out_channels", std::nullopt, 1);
  auto kernel = integer(node, "kernel_size", std::nullopt, 1);
  auto stride = integer(node, "stride", 1, 1);
  auto groups = integer(node, "groups", 1, 1);
  auto padValue = number(node, "padding_value", 0.0);
  if (!inCh || !outCh || !kernel || !stride || !groups || !padValue)
    return {};
  if (*inCh != in.channels)
    return channelMismatch(node, "in_channels", *inCh, in.channels);
  if (*inCh % *groups || *outCh % *groups)
    return error(*node.find("groups"),
                 "groups " + Twine(*groups) +
                     " must divide in_channels and out_channels"),
           Value();
  int64_t padLo = 0, padHi = 0;
  if (const Node *padding = node.find("padding")) {
    if (padding->kind == Node::Kind::String && padding->text == "valid") {
    } else if (padding->kind == Node::Kind::String && padding->text == "same") {
      if (*stride != 1)
        return error(*padding, "padding \"same\" needs stride 1"), Value();
      padLo = (*kernel - 1) / 2;
      padHi = *kernel - 1 - padLo;
    } else if (padding->kind == Node::Kind::Number) {
      auto n = integer(node, "padding", 0, 0);
      if (!n)
        return {};
      padLo = padHi = *n;
    } else {
      return error(*padding,
                   "padding must be \"valid\", \"same\" or an integer >= 0"),
             Value();
    }
  }
  if (in.length + padLo + padHi < *kernel)
    return error(*node.find("kernel_size"),
                 "kernel_size " + Twine(*kernel) +
                     " exceeds the padded input length " +
                     Twine(in.length + padLo + padHi)),
           Value();
  auto weight =
      tensorField(node, "weight", {*outCh, *inCh / *groups, *kernel}, false);
  if (!weight)
    return {};
  auto bias = tensorField(node, "bias", {*outCh}, true);
  if (diags.hasErrors())
    return {};
  Shape out{(in.length + padLo + padHi - *kernel) / *stride + 1, *outCh};
  return nn::Conv1dOp::create(
      builder, loc(node), tensorType(out),
      builder.getStringAttr(node.find("name")->text), input, elements(*weight),
      bias ? elements(*bias) : DenseElementsAttr(),
      builder.getI64IntegerAttr(*stride), builder.getI64IntegerAttr(padLo),
      builder.getI64IntegerAttr(padHi), builder.getF64FloatAttr(*padValue),
      builder.getI64IntegerAttr(*groups), TypeAttr(), IntegerAttr(),
      StringAttr(), StringAttr());
}

Value Importer::buildLinear(const Node &node, Value input, Shape in) {
  auto inF = integer(node, "in_features", std::nullopt, 1);
  auto outF = integer(node, "out_features", std::nullopt, 1);
  if (!inF || !outF)
    return {};
  if (*inF != in.channels)
    return channelMismatch(node, "in_features", *inF, in.channels,
                           " (flatten first for a dense layer over all "
                           "positions)");
  auto weight = tensorField(node, "weight", {*outF, *inF}, false);
  if (!weight)
    return {};
  auto bias = tensorField(node, "bias", {*outF}, true);
  if (diags.hasErrors())
    return {};
  return nn::LinearOp::create(
      builder, loc(node), tensorType({in.length, *outF}),
      builder.getStringAttr(node.find("name")->text), input, elements(*weight),
      bias ? elements(*bias) : DenseElementsAttr(), TypeAttr(), IntegerAttr(),
      StringAttr(), StringAttr());
}

Value Importer::buildBatchNorm(const Node &node, Value input, Shape in) {
  auto features = integer(node, "num_features", in.channels, 1);
  if (!features)
    return {};
  if (*features != in.channels)
    return channelMismatch(node, "num_features", *features, in.channels);
  auto gamma = tensorField(node, "weight", {in.channels}, false);
  auto beta = tensorField(node, "bias", {in.channels}, false);
  auto mean = tensorField(node, "running_mean", {in.channels}, false);
  auto var = tensorField(node, "running_var", {in.channels}, false);
  auto eps = number(node, "eps", 1e-5);
  if (!gamma || !beta || !mean || !var || !eps)
    return {};
  for (double v : var->values)
    if (v + *eps <= 0)
      return error(*node.find("running_var"),
                   "running_var + eps must be positive"),
             Value();
  return nn::BatchNormOp::create(builder, loc(node), tensorType(in),
                                 builder.getStringAttr(node.find("name")->text),
                                 input, elements(*gamma), elements(*beta),
                                 elements(*mean), elements(*var),
                                 builder.getF64FloatAttr(*eps));
}

Value Importer::buildJoin(const Node &node, StringRef type,
                          ArrayRef<Value> inputs) {
  StringAttr name = builder.getStringAttr(node.find("name")->text);
  auto describe = [&](size_t i) {
    Shape s = shapeOf(inputs[i]);
    return "[" + std::to_string(s.length) + ", " + std::to_string(s.channels) +
           "]";
  };
  if (type == "add") {
    if (!checkKeys(node, {"name", "type", "precision"}))
      return {};
    Shape a = shapeOf(inputs[0]), b = shapeOf(inputs[1]);
    if (a.length != b.length || a.channels != b.channels)
      return error(node, "add '" + name.getValue() +
                             "' needs operands of equal shape, got " +
                             describe(0) + " and " + describe(1)),
             Value();
    return nn::AddOp::create(builder, loc(node), tensorType(a), name, inputs[0],
                             inputs[1], StringAttr(), StringAttr());
  }
  if (!checkKeys(node, {"name", "type", "axis", "precision"}))
    return {};
  StringRef axis = "channels";
  if (const Node *a = node.find("axis")) {
    if (a->kind != Node::Kind::String ||
        (a->text != "channels" && a->text != "length"))
      return error(*a, "axis must be \"channels\" or \"length\""), Value();
    axis = a->text;
  }
  bool channels = axis == "channels";
  Shape out = shapeOf(inputs[0]);
  for (size_t i = 1; i < inputs.size(); ++i) {
    Shape s = shapeOf(inputs[i]);
    if (channels ? s.length != out.length
                 : s.channels != shapeOf(inputs[0]).channels)
      return error(node, "concat '" + name.getValue() + "' along " + axis +
                             " needs operands of equal " +
                             (channels ? "length" : "channels") + ", got " +
                             describe(0) + " and " + describe(i)),
             Value();
    (channels ? out.channels : out.length) += channels ? s.channels : s.length;
  }
  return nn::ConcatOp::create(builder, loc(node), tensorType(out), name, inputs,
                              builder.getStringAttr(axis), StringAttr(),
                              StringAttr());
}

Value Importer::buildPool(const Node &node, StringRef type, Value input,
                          Shape in) {
  auto kernel = integer(node, "kernel_size", std::nullopt, 1);
  if (!kernel)
    return {};
  auto stride = integer(node, "stride", *kernel, 1);
  auto padding = integer(node, "padding", 0, 0);
  if (!stride || !padding)
    return {};
  bool includePad = true;
  if (const Node *count = node.find("count_include_pad")) {
    if (type != "avgpool1d")
      return error(*count, "count_include_pad belongs to avgpool1d"), Value();
    if (count->kind != Node::Kind::Bool)
      return error(*count, "count_include_pad must be true or false"), Value();
    includePad = count->boolValue;
  }
  if (2 * *padding > *kernel)
    return error(*node.find("padding"), "padding " + Twine(*padding) +
                                            " exceeds half the kernel_size " +
                                            Twine(*kernel)),
           Value();
  if (in.length + 2 * *padding < *kernel)
    return error(*node.find("kernel_size"),
                 "kernel_size " + Twine(*kernel) +
                     " exceeds the padded input length " +
                     Twine(in.length + 2 * *padding)),
           Value();
  RankedTensorType result = tensorType(
      {(in.length + 2 * *padding - *kernel) / *stride + 1, in.channels});
  StringAttr name = builder.getStringAttr(node.find("name")->text);
  auto i64 = [&](int64_t v) { return builder.getI64IntegerAttr(v); };
  if (type == "maxpool1d")
    return nn::MaxPool1dOp::create(builder, loc(node), result, name, input,
                                   i64(*kernel), i64(*stride), i64(*padding),
                                   StringAttr(), StringAttr());
  return nn::AvgPool1dOp::create(builder, loc(node), result, name, input,
                                 i64(*kernel), i64(*stride), i64(*padding),
                                 builder.getBoolAttr(includePad), StringAttr(),
                                 StringAttr());
}

/// An hls4ml-style type string `ap_fixed<W, I>` (W bits, I of them integer
/// bits with the sign, so W - I fraction bits), with `modes` also
/// `ap_fixed<W, I, Q>` and `ap_fixed<W, I, Q, O>` (Q a rounding, O an
/// overflow mode, hls4ml's names).
bool Importer::format(const Node &value, bool modes, Type &out,
                      std::optional<std::string> &rounding,
                      std::optional<std::string> &overflow) {
  auto bad = [&](const Twine &why) {
    return error(value, why + Twine(" (expected \"ap_fixed<W, I>\"") +
                            (modes ? ", optionally with a rounding and an "
                                     "overflow mode: \"ap_fixed<W, I, "
                                     "AP_RND, AP_SAT>\")"
                                   : ")"));
  };
  if (value.kind != Node::Kind::String)
    return bad("a format must be a string");
  StringRef text = StringRef(value.text).trim();
  if (!text.consume_front("ap_fixed<") || !text.consume_back(">"))
    return bad("format '" + value.text + "' is not an ap_fixed type");
  SmallVector<StringRef> parts;
  text.split(parts, ',');
  for (StringRef &part : parts)
    part = part.trim();
  unsigned w = 0, i = 0;
  if (parts.size() < 2 || parts.size() > (modes ? 4u : 2u) ||
      parts[0].getAsInteger(10, w) || parts[1].getAsInteger(10, i))
    return bad("format '" + value.text + "' is malformed");
  if (w < 2 || w > 16)
    return error(value, "format '" + value.text + "' has " + Twine(w) +
                            " bits; the hardware supports 2 to 16");
  if (i < 1 || i >= w)
    return error(value, "format '" + value.text + "' has " + Twine(i) +
                            " integer bits; with the sign bit that is 1 to " +
                            Twine(w - 1) + " (at least one fraction bit)");
  out = nn::FixedType::get(context, w, w - i);
  nn::fixed::Rounding r;
  nn::fixed::Overflow o;
  if (parts.size() > 2) {
    if (!nn::fixed::parseRounding(parts[2].str(), r))
      return error(value, "unknown rounding mode '" + parts[2] +
                              "' (AP_TRN, AP_RND or AP_RND_CONV)");
    rounding = nn::fixed::roundingName(r);
  }
  if (parts.size() > 3) {
    if (!nn::fixed::parseOverflow(parts[3].str(), o))
      return error(value, "unknown overflow mode '" + parts[3] +
                              "' (AP_SAT or AP_WRAP)");
    overflow = nn::fixed::overflowName(o);
  }
  return true;
}

/// A node's `precision` object as the `nn.precision` attribute that
/// nn-quantize reads: `result` (and for conv1d/linear `weight` and `accum`)
/// formats, `rounding` and `overflow`.
bool Importer::precision(const Node &node, StringRef type, Operation *op) {
  const Node *p = node.find("precision");
  if (!p)
    return true;
  if (p->kind != Node::Kind::Object)
    return error(*p, "precision must be an object {\"result\", \"weight\", "
                     "\"accum\", \"rounding\", \"overflow\"}");
  bool mac = type == "conv1d" || type == "linear";
  SmallVector<StringRef> allowed = {"result"};
  if (type != "input")
    allowed.append({"rounding", "overflow"});
  if (mac)
    allowed.append({"weight", "accum"});
  if (!checkKeys(*p, allowed))
    return false;
  SmallVector<NamedAttribute> attrs;
  std::optional<std::string> rounding, overflow;
  if (const Node *r = p->find("result")) {
    Type t;
    if (!format(*r, type != "input", t, rounding, overflow))
      return false;
    attrs.push_back(builder.getNamedAttr("result", TypeAttr::get(t)));
  }
  if (const Node *w = p->find("weight")) {
    Type t;
    std::optional<std::string> none;
    if (!format(*w, false, t, none, none))
      return false;
    attrs.push_back(builder.getNamedAttr("weight", TypeAttr::get(t)));
  }
  if (p->find("accum")) {
    auto bits = integer(*p, "accum", std::nullopt, 2);
    if (!bits)
      return false;
    if (*bits > 62)
      return error(*p->find("accum"), "accum of " + Twine(*bits) +
                                          " bits; at most 62 are supported");
    attrs.push_back(
        builder.getNamedAttr("accum", builder.getI64IntegerAttr(*bits)));
  }
  auto mode = [&](StringRef key, std::optional<std::string> &slot,
                  bool isRounding) {
    const Node *m = p->find(key);
    if (!m)
      return true;
    nn::fixed::Rounding r;
    nn::fixed::Overflow o;
    bool known = m->kind == Node::Kind::String &&
                 (isRounding ? nn::fixed::parseRounding(m->text, r)
                             : nn::fixed::parseOverflow(m->text, o));
    if (!known)
      return error(*m, isRounding
                           ? Twine("unknown rounding mode; expected "
                                   "\"truncate\", \"nearest\", \"half_even\" "
                                   "(AP_TRN, AP_RND, AP_RND_CONV)")
                           : Twine("unknown overflow mode; expected "
                                   "\"saturate\" or \"wrap\" (AP_SAT, "
                                   "AP_WRAP)"));
    std::string name =
        isRounding ? nn::fixed::roundingName(r) : nn::fixed::overflowName(o);
    if (slot && *slot != name)
      return error(*m,
                   key + " '" + m->text + "' contradicts the result format's");
    slot = name;
    return true;
  };
  if (!mode("rounding", rounding, true) || !mode("overflow", overflow, false))
    return false;
  if (rounding)
    attrs.push_back(
        builder.getNamedAttr("rounding", builder.getStringAttr(*rounding)));
  if (overflow)
    attrs.push_back(
        builder.getNamedAttr("overflow", builder.getStringAttr(*overflow)));
  op->setAttr("nn.precision", builder.getDictionaryAttr(attrs));
  return true;
}

Value Importer::build(const Node &node, StringRef type, Value input) {
  Shape in = shapeOf(input);
  StringAttr name = builder.getStringAttr(node.find("name")->text);
  static const StringRef common[] = {"name", "type", "precision"};
  auto keys = [&](std::initializer_list<StringRef> extra) {
    SmallVector<StringRef> allowed(std::begin(common), std::end(common));
    allowed.append(extra.begin(), extra.end());
    return checkKeys(node, allowed);
  };
  if (type == "conv1d")
    return keys({"in_channels", "out_channels", "kernel_size", "stride",
                 "padding", "padding_value", "groups", "weight", "bias"})
               ? buildConv(node, input, in)
               : Value();
  if (type == "linear")
    return keys({"in_features", "out_features", "weight", "bias"})
               ? buildLinear(node, input, in)
               : Value();
  if (type == "batchnorm1d")
    return keys({"num_features", "weight", "bias", "running_mean",
                 "running_var", "eps", "momentum"})
               ? buildBatchNorm(node, input, in)
               : Value();
  if (type == "maxpool1d" || type == "avgpool1d")
    return keys({"kernel_size", "stride", "padding", "count_include_pad"})
               ? buildPool(node, type, input, in)
               : Value();
  if (type == "hardtanh") {
    auto lo = number(node, "min", -1.0), hi = number(node, "max", 1.0);
    if (!keys({"min", "max"}) || !lo || !hi)
      return {};
    if (*lo >= *hi)
      return error(node, "hardtanh needs min < max"), Value();
    return nn::HardtanhOp::create(builder, loc(node), tensorType(in), name,
                                  input, builder.getF64FloatAttr(*lo),
                                  builder.getF64FloatAttr(*hi), StringAttr(),
                                  StringAttr());
  }
  if (!keys({}))
    return {};
  if (type == "relu")
    return nn::ReluOp::create(builder, loc(node), tensorType(in), name, input,
                              StringAttr(), StringAttr());
  if (type == "hardsigmoid")
    return nn::HardsigmoidOp::create(builder, loc(node), tensorType(in), name,
                                     input, StringAttr(), StringAttr());
  if (type == "flatten")
    return nn::FlattenOp::create(builder, loc(node),
                                 tensorType({1, in.length * in.channels}), name,
                                 input, StringAttr(), StringAttr());
  nn::OutputOp::create(builder, loc(node), name, input);
  return input;
}

OwningOpRef<ModuleOp> Importer::run(const Node &root) {
  if (root.kind != Node::Kind::Object)
    return error(root, "a model must be a JSON object"), nullptr;
  checkKeys(root, {"name", "nodes", "edges"});
  const Node *modelName = field(root, "name", Node::Kind::String, true);
  const Node *nodes = field(root, "nodes", Node::Kind::Array, true);
  const Node *edges = field(root, "edges", Node::Kind::Array, true);
  if (diags.hasErrors())
    return nullptr;

  // Nodes: unique names, known types.
  static const StringRef types[] = {
      "input",    "output",      "conv1d",      "linear",  "relu",
      "hardtanh", "hardsigmoid", "batchnorm1d", "flatten", "add",
      "concat",   "maxpool1d",   "avgpool1d"};
  llvm::StringMap<size_t> index;
  std::vector<StringRef> typeOf;
  for (const Node &node : nodes->items) {
    typeOf.push_back("");
    if (node.kind != Node::Kind::Object) {
      error(node, "a node must be an object");
      continue;
    }
    const Node *name = field(node, "name", Node::Kind::String, true);
    const Node *type = field(node, "type", Node::Kind::String, true);
    if (!name || !type)
      continue;
    if (!llvm::is_contained(types, type->text))
      error(*type, "unknown node type '" + type->text + "'");
    else
      typeOf.back() = *llvm::find(types, type->text);
    if (name->text.empty())
      error(*name, "a node name cannot be empty");
    else if (!index.try_emplace(name->text, typeOf.size() - 1).second)
      error(*name, "node name '" + name->text + "' is already used");
  }
  if (diags.hasErrors())
    return nullptr;

  // Edges: every non-input node has exactly one producer, except add (two)
  // and concat (two or more, in edge order).
  std::vector<std::vector<size_t>> producers(nodes->items.size());
  std::vector<std::vector<size_t>> consumers(nodes->items.size());
  for (const Node &edge : edges->items) {
    if (edge.kind != Node::Kind::Object) {
      error(edge, "an edge must be an object {\"src\", \"dst\"}");
      continue;
    }
    checkKeys(edge, {"src", "dst"});
    const Node *src = field(edge, "src", Node::Kind::String, true);
    const Node *dst = field(edge, "dst", Node::Kind::String, true);
    if (!src || !dst)
      continue;
    auto s = index.find(src->text), d = index.find(dst->text);
    if (s == index.end()) {
      error(*src, "no node named '" + src->text + "'");
      continue;
    }
    if (d == index.end()) {
      error(*dst, "no node named '" + dst->text + "'");
      continue;
    }
    if (typeOf[s->second] == "output") {
      error(*src, "an output node has no successors");
      continue;
    }
    StringRef dstType = typeOf[d->second];
    if (dstType == "input") {
      error(*dst, "an input node has no predecessors");
      continue;
    }
    size_t have = producers[d->second].size();
    if (dstType == "add" ? have == 2 : (dstType != "concat" && have == 1)) {
      error(*dst, "node '" + dst->text + "' already has " +
                      (dstType == "add" ? "two inputs (add takes two)"
                                        : "an input (layers take one input)"));
      continue;
    }
    producers[d->second].push_back(s->second);
    consumers[s->second].push_back(d->second);
  }
  size_t outputs = 0, inputs = 0;
  for (size_t i = 0; i < typeOf.size(); ++i) {
    const Node &node = nodes->items[i];
    StringRef name = node.find("name")->text;
    size_t have = producers[i].size();
    inputs += typeOf[i] == "input";
    if (typeOf[i] == "output" && ++outputs > 1)
      error(node, "a model has exactly one output node");
    if (diags.hasErrors())
      continue;
    if (typeOf[i] == "add" && have != 2)
      error(node,
            "add '" + name + "' needs two input edges, has " + Twine(have));
    else if (typeOf[i] == "concat" && have < 2)
      error(node, "concat '" + name + "' needs at least two input edges, has " +
                      Twine(have));
    else if (typeOf[i] != "input" && !have)
      error(node, "node '" + name + "' has no input edge");
  }
  if (!outputs && !diags.hasErrors())
    error(*nodes, "the model has no output node");
  if (!inputs && !diags.hasErrors())
    error(*nodes, "the model has no input node");
  if (diags.hasErrors())
    return nullptr;

  // Build in topological order from the inputs: a node is built once all
  // its producers are. Owned from the start: an error below must not leak
  // what was built.
  OwningOpRef<ModuleOp> owned(ModuleOp::create(loc(root)));
  builder.setInsertionPointToEnd(owned->getBody());
  auto model = nn::ModelOp::create(builder, loc(root), modelName->text);
  builder.createBlock(&model.getBody());
  std::vector<Value> value(nodes->items.size());
  std::vector<size_t> waiting(nodes->items.size());
  std::vector<size_t> work;
  for (size_t i = 0; i < typeOf.size(); ++i) {
    waiting[i] = producers[i].size();
    if (typeOf[i] != "input")
      continue;
    const Node &node = nodes->items[i];
    if (!checkKeys(node, {"name", "type", "shape", "precision"}))
      continue;
    std::optional<Literal> shape = tensorField(node, "shape", {2}, false);
    if (!shape)
      continue;
    if (shape->values[0] < 1 || shape->values[1] < 1 ||
        shape->values[0] != std::floor(shape->values[0]) ||
        shape->values[1] != std::floor(shape->values[1]) ||
        shape->values[0] * shape->values[1] > (1 << 20)) {
      error(*node.find("shape"), "shape must be [L, C] with positive integers");
      continue;
    }
    Shape s{int64_t(shape->values[0]), int64_t(shape->values[1])};
    value[i] =
        nn::InputOp::create(builder, loc(node), tensorType(s),
                            builder.getStringAttr(node.find("name")->text));
    if (!precision(node, "input", value[i].getDefiningOp()))
      continue;
    work.push_back(i);
  }
  // Lowest index first, so that the order of the ops follows the file.
  std::reverse(work.begin(), work.end());
  while (!work.empty() && !diags.hasErrors()) {
    size_t from = work.back();
    work.pop_back();
    for (size_t to : consumers[from]) {
      if (--waiting[to])
        continue;
      SmallVector<Value> operands;
      for (size_t p : producers[to])
        operands.push_back(value[p]);
      StringRef type = typeOf[to];
      value[to] = type == "add" || type == "concat"
                      ? buildJoin(nodes->items[to], type, operands)
                      : build(nodes->items[to], type, operands.front());
      if (!value[to])
        break;
      if (type != "output" &&
          !precision(nodes->items[to], type, value[to].getDefiningOp()))
        break;
      work.push_back(to);
    }
  }
  if (diags.hasErrors())
    return nullptr;
  // Nodes never built are on a cycle or depend on one.
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i])
      continue;
    std::vector<size_t> stack(consumers[i]);
    std::vector<bool> seen(value.size());
    bool cycle = false;
    while (!stack.empty() && !cycle) {
      size_t n = stack.back();
      stack.pop_back();
      cycle = n == i;
      if (!seen[n] && !value[n]) {
        seen[n] = true;
        stack.insert(stack.end(), consumers[n].begin(), consumers[n].end());
      }
    }
    StringRef name = nodes->items[i].find("name")->text;
    error(nodes->items[i],
          "node '" + name + "' " +
              (cycle ? "is on a cycle" : "depends on a cycle"));
  }
  if (diags.hasErrors())
    return nullptr;
  if (failed(verify(*owned)))
    return nullptr;
  return owned;
}

OwningOpRef<ModuleOp> unum::importNNJson(StringRef text, StringRef bufferName,
                                         MLIRContext *context) {
  context->loadDialect<nn::NNDialect>();
  config::DiagnosticSink sink(bufferName.str());
  std::vector<Node> documents;
  OwningOpRef<ModuleOp> module;
  if (config::parseJson(text, documents, sink)) {
    if (documents.size() != 1)
      sink.error({}, "expected one JSON model, found " +
                         std::to_string(documents.size()));
    else
      module = Importer(context, sink, bufferName).run(documents.front());
  }
  reportConfigDiagnostics(context, sink.diagnostics());
  if (sink.hasErrors())
    return nullptr;
  return module;
}

void unum::registerNNJsonTranslation() {
  static TranslateToMLIRRegistration fromNNJson(
      "from-nn-json", "import a JSON layer graph as an nn.model",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        return OwningOpRef<Operation *>(importNNJson(
            buffer->getBuffer(), buffer->getBufferIdentifier(), context));
      },
      [](DialectRegistry &registry) {
        registry.insert<nn::NNDialect>();
        quietOpDiagnostics(registry);
      });
}
