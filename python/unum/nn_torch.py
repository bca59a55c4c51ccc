"""unum.nn.from_torch: a PyTorch module -> the model JSON (docs/NNJson.md).

The module is traced with torch.fx (a torch.nn.Sequential traces too); every
node of the trace becomes one JSON node, in inference semantics (BatchNorm1d
reads its running statistics, Dropout is the identity). docs/NNImport.md
lists what is supported; anything else raises UnsupportedModel naming the
layer.

Layout: PyTorch's activations are [N, C, L], the IR's [L, C] (N = 1: the
weights are shared by the batch). After a flatten, PyTorch orders the
features channel-major (c * L + l), the IR position-major (l * C + c); the
importer carries that permutation along and applies it to the weights of
the linear (or batch norm) that reads the flattened features, so the
numbers agree with PyTorch's. Only an output that is itself a flattened
[L, C] tensor stays position-major (nn_layout.torch_order converts it).
"""
import operator

import numpy as np

from .nn_layout import Builder, UnsupportedModel, Value, require


def _single(value, what, layer):
    """PyTorch keeps 1-D sizes as ints or 1-tuples."""
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise UnsupportedModel("%s: %s=%r is not one-dimensional" % (layer, what, value))
        value = value[0]
    return value


def _array(t):
    return t.detach().cpu().double().numpy()


class _Importer:
    def __init__(self, torch, module, example_input, name):
        self.torch = torch
        self.module = module
        self.modules = dict(module.named_modules())
        self.b = Builder(name or type(module).__name__)
        shape = tuple(example_input.shape)
        self.rank3 = len(shape) == 3
        if len(shape) == 3:
            self.input_shape = [shape[2], shape[1]]
        elif len(shape) == 2:
            self.input_shape = [1, shape[1]]
        else:
            raise UnsupportedModel(
                "unum.nn.from_torch: the example input must be [N, C, L] (or [N, F]),"
                " not of shape %s" % (list(shape),))

    # ---------------------------------------------------------------- layers
    def module_node(self, node, mod, args):
        layer = "layer '%s' (%s)" % (node.target, type(mod).__name__)
        nn = self.torch.nn
        if len(args) != 1:
            raise UnsupportedModel("%s: called with %d arguments (one tensor is "
                                   "supported)" % (layer, len(args)))
        x = args[0]
        if isinstance(mod, (nn.Identity, nn.Dropout)):
            return x
        if isinstance(mod, nn.Conv1d):
            if _single(mod.dilation, "dilation", layer) != 1:
                raise UnsupportedModel("%s: dilation=%r is not supported" % (layer, mod.dilation))
            if mod.padding_mode != "zeros":
                raise UnsupportedModel("%s: padding_mode=%r is not supported (only "
                                       "'zeros')" % (layer, mod.padding_mode))
            padding = mod.padding if isinstance(mod.padding, str) else \
                _single(mod.padding, "padding", layer)
            bias = _array(mod.bias) if mod.bias is not None else None
            return self.b.conv1d(node.name, x, _array(mod.weight), bias,
                                 _single(mod.stride, "stride", layer), padding,
                                 mod.groups, layer)
        if isinstance(mod, nn.Linear):
            bias = _array(mod.bias) if mod.bias is not None else None
            return self.b.linear(node.name, x, _array(mod.weight), bias, layer)
        if isinstance(mod, nn.ReLU):
            return self.b.unary(node.name, "relu", x)
        if isinstance(mod, nn.Hardtanh):  # ReLU6 is a Hardtanh(0, 6)
            return self.b.unary(node.name, "hardtanh", x, min=float(mod.min_val),
                                max=float(mod.max_val))
        if isinstance(mod, nn.Hardsigmoid):
            return self.b.unary(node.name, "hardsigmoid", x)
        if isinstance(mod, nn.BatchNorm1d):
            if mod.running_mean is None or mod.running_var is None:
                raise UnsupportedModel("%s: track_running_stats=False has no "
                                       "inference form (no running statistics)" % layer)
            c = mod.num_features
            gamma = _array(mod.weight) if mod.weight is not None else np.ones(c)
            beta = _array(mod.bias) if mod.bias is not None else np.zeros(c)
            return self.b.batchnorm(node.name, x, gamma, beta, _array(mod.running_mean),
                                    _array(mod.running_var), float(mod.eps), layer)
        if isinstance(mod, (nn.MaxPool1d, nn.AvgPool1d)):
            kind = "maxpool1d" if isinstance(mod, nn.MaxPool1d) else "avgpool1d"
            if mod.ceil_mode:
                raise UnsupportedModel("%s: ceil_mode=True is not supported" % layer)
            extra = {}
            if kind == "maxpool1d":
                if _single(mod.dilation, "dilation", layer) != 1:
                    raise UnsupportedModel("%s: dilation=%r is not supported"
                                           % (layer, mod.dilation))
                if mod.return_indices:
                    raise UnsupportedModel("%s: return_indices=True is not supported" % layer)
            else:
                extra["count_include_pad"] = bool(mod.count_include_pad)
            k = _single(mod.kernel_size, "kernel_size", layer)
            stride = _single(mod.stride, "stride", layer) if mod.stride is not None else k
            return self.b.pool(node.name, kind, x, k, stride,
                               _single(mod.padding, "padding", layer), layer, **extra)
        if isinstance(mod, nn.Flatten):
            if mod.start_dim != 1 or mod.end_dim != -1:
                raise UnsupportedModel("%s: only start_dim=1, end_dim=-1 is supported "
                                       "(got %d, %d)" % (layer, mod.start_dim, mod.end_dim))
            return self.b.flatten(node.name, x)
        raise UnsupportedModel("%s is not supported (docs/NNImport.md lists the "
                               "layers that are)" % layer)

    def function_node(self, node, args, kwargs):
        torch = self.torch
        F = torch.nn.functional
        fn = node.target
        what = "'%s' (%s)" % (node.name, getattr(fn, "__name__", fn))
        if node.op == "call_method":
            fn = {"add": operator.add, "relu": F.relu, "flatten": torch.flatten,
                  "__add__": operator.add}.get(fn, fn)
        if fn in (operator.add, operator.iadd, torch.add):
            if kwargs.get("alpha", 1) != 1 or len(args) != 2 or not all(
                    isinstance(a, Value) for a in args):
                raise UnsupportedModel("operation %s: only the sum of two layer outputs "
                                       "is supported (no scalars, no alpha)" % what)
            return self.b.add(node.name, args[0], args[1], what)
        if fn is torch.cat or fn is getattr(torch, "concat", None):
            tensors = args[0] if args else kwargs.get("tensors")
            dim = args[1] if len(args) > 1 else kwargs.get("dim", 0)
            if not isinstance(tensors, (list, tuple)) or not all(
                    isinstance(t, Value) for t in tensors):
                raise UnsupportedModel("operation %s: concatenates something other "
                                       "than layer outputs" % what)
            return self.b.concat(node.name, list(tensors), dim, what)
        if fn is torch.flatten:
            start = args[1] if len(args) > 1 else kwargs.get("start_dim", 0)
            end = args[2] if len(args) > 2 else kwargs.get("end_dim", -1)
            if start != 1 or end != -1:
                raise UnsupportedModel("operation %s: only flatten(x, 1) is supported"
                                       % what)
            return self.b.flatten(node.name, args[0])
        if fn in (F.relu, torch.relu) and len(args) == 1:
            return self.b.unary(node.name, "relu", args[0])
        if fn is F.hardtanh or fn is F.hardsigmoid:
            raise UnsupportedModel("operation %s: use the module form (nn.%s)"
                                   % (what, "Hardtanh" if fn is F.hardtanh else
                                      "Hardsigmoid"))
        raise UnsupportedModel("operation %s is not supported (docs/NNImport.md lists "
                               "what is)" % what)

    # ----------------------------------------------------------------- trace
    def run(self):
        torch = self.torch
        try:
            graph = torch.fx.symbolic_trace(self.module).graph
        except Exception as e:
            raise UnsupportedModel("unum.nn.from_torch: torch.fx cannot trace %s: %s"
                                   % (type(self.module).__name__, e)) from None
        values = {}

        def arg(a):
            if isinstance(a, torch.fx.Node):
                return values[a.name]
            if isinstance(a, (list, tuple)):
                return type(a)(arg(v) for v in a)
            return a

        placeholders = [n for n in graph.nodes if n.op == "placeholder"]
        if len(placeholders) != 1:
            raise UnsupportedModel("unum.nn.from_torch: the module must take exactly one "
                                   "input (it takes %d)" % len(placeholders))
        for node in graph.nodes:
            args = [arg(a) for a in node.args]
            kwargs = {k: arg(v) for k, v in node.kwargs.items()}
            if node.op == "placeholder":
                values[node.name] = self.b.input(node.name, self.input_shape,
                                                 self.rank3)
            elif node.op == "call_module":
                values[node.name] = self.module_node(node, self.modules[node.target], args)
            elif node.op in ("call_function", "call_method"):
                values[node.name] = self.function_node(node, args, kwargs)
            elif node.op == "output":
                if not isinstance(args[0], Value):
                    raise UnsupportedModel("unum.nn.from_torch: the module must return "
                                           "one tensor")
                self.b.output("output", args[0])
            else:
                raise UnsupportedModel("unum.nn.from_torch: '%s' (%s) is not supported"
                                       % (node.name, node.op))
        return self.b.model()


def from_torch(module, example_input, name=None):
    """The model JSON (a dict) of `module` for inputs shaped like
    `example_input` ([N, C, L]; the JSON input is [L, C])."""
    torch = require("torch", "unum.nn.from_torch", "python3-torch")
    require("torch.fx", "unum.nn.from_torch", "python3-torch")
    if not isinstance(module, torch.nn.Module):
        raise TypeError("unum.nn.from_torch: module must be a torch.nn.Module")
    return _Importer(torch, module, example_input, name).run()
