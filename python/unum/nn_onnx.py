"""unum.nn.from_onnx: an ONNX model -> the model JSON (docs/NNJson.md).

Reads the graph with the `onnx` package (Debian python3-onnx): one input
[N, C, L] (or [N, F]), initializers and Constant nodes as weights, and the
operators Conv, Gemm, MatMul (+ Add of a bias), Relu, Clip, HardSigmoid,
BatchNormalization, MaxPool, AveragePool, Add, Concat, Flatten, Identity and
Dropout (inference: the identity). Anything else raises UnsupportedModel
naming the node. The layout rules are those of unum.nn_layout.
"""
import numpy as np

from .nn_layout import Builder, UnsupportedModel, Value, require


def _load(onnx, model):
    if isinstance(model, onnx.ModelProto):
        return model
    if isinstance(model, (bytes, bytearray)):
        return onnx.load_from_string(bytes(model))
    return onnx.load(model)


class _Importer:
    def __init__(self, onnx, model, name):
        self.onnx = onnx
        self.graph = model.graph
        self.b = Builder(name or self.graph.name or "model")
        self.consts = {t.name: onnx.numpy_helper.to_array(t).astype(np.float64)
                       for t in self.graph.initializer}
        self.values = {}
        self.uses = {}
        for node in self.graph.node:
            for i in node.input:
                self.uses[i] = self.uses.get(i, 0) + 1
        for o in self.graph.output:
            self.uses[o.name] = self.uses.get(o.name, 0) + 1
        self.bias_free_linears = {}  # MatMul outputs: their JSON nodes
        # Pad outputs, (input, lo, hi, value): a Conv or AveragePool absorbs
        # them (PyTorch exports count_include_pad=True as Pad + AveragePool)
        self.pending = {}

    # ------------------------------------------------------------- helpers
    def attrs(self, node):
        return {a.name: self.onnx.helper.get_attribute_value(a) for a in node.attribute}

    def const(self, node, name, what):
        if name not in self.consts:
            raise UnsupportedModel("%s: its %s must be a constant (an initializer)"
                                   % (self.label(node), what))
        return self.consts[name]

    def value(self, node, name):
        if name in self.pending:
            raise UnsupportedModel("%s: reads a Pad; a Pad is supported only before a "
                                   "Conv or an AveragePool" % self.label(node))
        if name not in self.values:
            raise UnsupportedModel("%s: input '%s' is not a layer output"
                                   % (self.label(node), name))
        return self.values[name]

    @staticmethod
    def label(node):
        return "node '%s' (%s)" % (node.name or node.output[0], node.op_type)

    @staticmethod
    def one_d(node, attrs, key, default):
        v = attrs.get(key, default)
        if isinstance(v, (list, tuple)):
            if len(v) != 1:
                raise UnsupportedModel("%s: %s=%s is not one-dimensional"
                                       % (_Importer.label(node), key, list(v)))
            v = v[0]
        return int(v)

    def pads(self, node, attrs, kernel, stride):
        """(lo, hi) of Conv/MaxPool/AveragePool."""
        label = self.label(node)
        auto = attrs.get("auto_pad", b"NOTSET")
        auto = auto.decode() if isinstance(auto, bytes) else auto
        if auto == "VALID":
            return 0, 0
        if auto in ("SAME_UPPER", "SAME_LOWER"):
            if stride != 1:
                raise UnsupportedModel("%s: auto_pad=%s with stride %d is not supported"
                                       % (label, auto, stride))
            small, big = (kernel - 1) // 2, kernel - 1 - (kernel - 1) // 2
            return (small, big) if auto == "SAME_UPPER" else (big, small)
        if auto != "NOTSET":
            raise UnsupportedModel("%s: auto_pad=%s is not supported" % (label, auto))
        pads = list(attrs.get("pads", [0, 0]))
        if len(pads) != 2:
            raise UnsupportedModel("%s: pads=%s is not one-dimensional" % (label, pads))
        return int(pads[0]), int(pads[1])

    def check_no_dilation(self, node, attrs):
        if any(d != 1 for d in attrs.get("dilations", [1])):
            raise UnsupportedModel("%s: dilations=%s is not supported"
                                   % (self.label(node), list(attrs["dilations"])))

    # --------------------------------------------------------------- nodes
    def node(self, node):
        op, a, label = node.op_type, self.attrs(node), self.label(node)
        name = node.name or node.output[0]
        if op == "Constant":
            if "value" not in a:
                raise UnsupportedModel("%s: only tensor constants are supported" % label)
            self.consts[node.output[0]] = self.onnx.numpy_helper.to_array(
                a["value"]).astype(np.float64)
            return
        if len([o for o in node.output if o]) != 1 and op != "Dropout":
            raise UnsupportedModel("%s: only its first output is supported" % label)
        if op == "Pad":
            self.pending[node.output[0]] = self.pad(node, a, label)
            return
        x, pad = None, None
        if op not in ("Add", "Concat"):
            if node.input[0] in self.pending and op in ("Conv", "AveragePool"):
                pad = self.pending[node.input[0]]
                x = pad[0]
            else:
                x = self.value(node, node.input[0])
        if op in ("Identity", "Dropout"):
            out = x
        elif op == "Conv":
            self.check_no_dilation(node, a)
            w = self.const(node, node.input[1], "weight")
            bias = self.const(node, node.input[2], "bias") if len(node.input) > 2 and \
                node.input[2] else None
            k, stride = w.shape[2], self.one_d(node, a, "strides", 1)
            lo, hi = self.pads(node, a, k, stride)
            extra = {}
            if pad is not None:
                if lo or hi:
                    raise UnsupportedModel("%s: pads after a Pad are not supported" % label)
                _, lo, hi, extra["padding_value"] = pad
            padding = lo
            if lo != hi:
                if stride != 1 or (lo, hi) != ((k - 1) // 2, k - 1 - (k - 1) // 2):
                    raise UnsupportedModel("%s: asymmetric pads %s are not supported"
                                           % (label, [lo, hi]))
                padding = "same"
            out = self.b.conv1d(name, x, w, bias, stride, padding, a.get("group", 1), label,
                                **extra)
        elif op in ("Gemm", "MatMul"):
            w = self.const(node, node.input[1], "weight (second input)")
            if op == "Gemm":
                if a.get("transA", 0):
                    raise UnsupportedModel("%s: transA=1 is not supported" % label)
                w = (w if a.get("transB", 0) else w.T) * a.get("alpha", 1.0)
                bias = None
                if len(node.input) > 2 and node.input[2]:
                    bias = np.broadcast_to(self.const(node, node.input[2], "bias") *
                                           a.get("beta", 1.0), (w.shape[0],))
            else:
                if w.ndim != 2:
                    raise UnsupportedModel("%s: needs a 2-D weight" % label)
                w, bias = w.T, None
            out = self.b.linear(name, x, w, bias, label)
            if op == "MatMul":
                self.bias_free_linears[node.output[0]] = self.b.nodes[-1]
        elif op == "Relu":
            out = self.b.unary(name, "relu", x)
        elif op == "Clip":
            lo, hi = a.get("min"), a.get("max")
            if len(node.input) > 1 and node.input[1]:
                lo = float(self.const(node, node.input[1], "min"))
            if len(node.input) > 2 and node.input[2]:
                hi = float(self.const(node, node.input[2], "max"))
            if hi is None and lo == 0:
                out = self.b.unary(name, "relu", x)
            elif lo is None or hi is None:
                raise UnsupportedModel("%s: needs both bounds (or min 0 alone, a relu)"
                                       % label)
            else:
                out = self.b.unary(name, "hardtanh", x, min=float(lo), max=float(hi))
        elif op == "HardSigmoid":
            alpha, beta = a.get("alpha", 0.2), a.get("beta", 0.5)
            if abs(alpha - 1 / 6) > 1e-6 or abs(beta - 0.5) > 1e-6:
                raise UnsupportedModel("%s: alpha=%g beta=%g; only PyTorch's "
                                       "hardsigmoid (alpha 1/6, beta 1/2) is supported"
                                       % (label, alpha, beta))
            out = self.b.unary(name, "hardsigmoid", x)
        elif op == "BatchNormalization":
            if a.get("training_mode", 0):
                raise UnsupportedModel("%s: training_mode=1 is not supported" % label)
            gamma, beta, mean, var = (self.const(node, n, what) for n, what in zip(
                node.input[1:5], ("scale", "bias", "mean", "variance")))
            out = self.b.batchnorm(name, x, gamma, beta, mean, var,
                                   a.get("epsilon", 1e-5), label)
        elif op in ("MaxPool", "AveragePool"):
            self.check_no_dilation(node, a)
            if a.get("ceil_mode", 0):
                raise UnsupportedModel("%s: ceil_mode=1 is not supported" % label)
            if a.get("storage_order", 0):
                raise UnsupportedModel("%s: storage_order=1 is not supported" % label)
            k = self.one_d(node, a, "kernel_shape", 0)
            stride = self.one_d(node, a, "strides", 1)
            lo, hi = self.pads(node, a, k, stride)
            if lo != hi:
                raise UnsupportedModel("%s: asymmetric pads %s are not supported"
                                       % (label, [lo, hi]))
            extra = {}
            if op == "AveragePool":
                extra["count_include_pad"] = bool(a.get("count_include_pad", 0))
                if pad is not None:  # PyTorch's count_include_pad=True
                    if lo or hi or pad[3] != 0:
                        raise UnsupportedModel("%s: a Pad before it must pad with 0 and "
                                               "the pool itself not pad" % label)
                    _, lo, hi, _ = pad
                    extra["count_include_pad"] = True
                    if lo != hi:
                        raise UnsupportedModel("%s: asymmetric pads %s are not "
                                               "supported" % (label, [lo, hi]))
            out = self.b.pool(name, "maxpool1d" if op == "MaxPool" else "avgpool1d",
                              x, k, stride, lo, label, **extra)
        elif op == "Flatten":
            axis = a.get("axis", 1)
            if axis != 1:
                raise UnsupportedModel("%s: axis=%d is not supported (only 1)"
                                       % (label, axis))
            out = self.b.flatten(name, x)
        elif op == "Add":
            out = self.add(node, name, label)
        elif op == "Concat":
            out = self.b.concat(name, [self.value(node, i) for i in node.input],
                                a.get("axis", 0), label)
        else:
            raise UnsupportedModel("%s is not supported (docs/NNImport.md lists the "
                                   "operators that are)" % label)
        self.values[node.output[0]] = out

    def pad(self, node, a, label):
        """(input, lo, hi, value) of a constant Pad along L only."""
        mode = a.get("mode", b"constant")
        if (mode.decode() if isinstance(mode, bytes) else mode) != "constant":
            raise UnsupportedModel("%s: mode=%s is not supported" % (label, mode))
        x = self.value(node, node.input[0])
        if len(node.input) > 1:
            pads = [int(v) for v in self.const(node, node.input[1], "pads")]
            value = float(self.const(node, node.input[2], "value")) if len(
                node.input) > 2 and node.input[2] else 0.0
        else:
            pads, value = list(a.get("pads", [])), float(a.get("value", 0.0))
        if not x.rank3 or len(pads) != 6 or any(pads[i] for i in (0, 1, 3, 4)):
            raise UnsupportedModel("%s: only padding the length of [N, C, L] is "
                                   "supported (pads %s)" % (label, pads))
        return x, pads[2], pads[5], value

    def add(self, node, name, label):
        a, b = node.input
        if a in self.consts and b in self.values:
            a, b = b, a
        if b in self.consts:
            # MatMul + Add of a constant: the linear layer's bias
            json_node = self.bias_free_linears.get(a)
            if json_node is None or self.uses.get(a, 0) != 1:
                raise UnsupportedModel("%s: adding a constant is supported only as "
                                       "the bias of a MatMul" % label)
            bias = self.consts[b]
            if bias.size != json_node["out_features"]:
                raise UnsupportedModel("%s: the bias has %d values, the MatMul %d "
                                       "outputs" % (label, bias.size,
                                                    json_node["out_features"]))
            json_node["bias"] = bias.reshape(-1).tolist()
            del self.bias_free_linears[a]
            return self.values[a]
        return self.b.add(name, self.value(node, a), self.value(node, b), label)

    # ---------------------------------------------------------------- graph
    def run(self):
        inputs = [i for i in self.graph.input if i.name not in self.consts]
        if len(inputs) != 1:
            raise UnsupportedModel("unum.nn.from_onnx: the graph must have exactly one "
                                   "input (it has %d)" % len(inputs))
        dims = inputs[0].type.tensor_type.shape.dim
        shape = [d.dim_value if d.HasField("dim_value") else None for d in dims]
        if len(shape) not in (2, 3) or any(s is None for s in shape[1:]):
            raise UnsupportedModel("unum.nn.from_onnx: the input must be [N, C, L] or "
                                   "[N, F] with fixed C, L, F (it is %s)" % shape)
        rank3 = len(shape) == 3
        self.values[inputs[0].name] = self.b.input(
            inputs[0].name, [shape[2], shape[1]] if rank3 else [1, shape[1]], rank3)
        for node in self.graph.node:
            self.node(node)
        if len(self.graph.output) != 1:
            raise UnsupportedModel("unum.nn.from_onnx: the graph must have exactly one "
                                   "output (it has %d)" % len(self.graph.output))
        out = self.graph.output[0].name
        if not isinstance(self.values.get(out), Value):
            raise UnsupportedModel("unum.nn.from_onnx: the output '%s' is not a layer "
                                   "output" % out)
        self.b.output("output", self.values[out])
        return self.b.model()


def from_onnx(model, name=None):
    """The model JSON (a dict) of an ONNX model: an onnx.ModelProto, its
    serialised bytes or a path to a .onnx file."""
    onnx = require("onnx", "unum.nn.from_onnx", "python3-onnx")
    require("onnx.numpy_helper", "unum.nn.from_onnx", "python3-onnx")
    return _Importer(onnx, _load(onnx, model), name).run()
