"""The model-JSON builder shared by the importers (unum.nn_torch,
unum.nn_onnx): PyTorch/ONNX layers in, docs/NNJson.md nodes out.

Layout. PyTorch and ONNX activations are [N, C, L] (or [N, F] after a
flatten); the IR's are [L, C] with N = 1 (the weights are shared by the
batch), so a [N, C, L] value is the JSON tensor [L, C] and a [N, F] value
the JSON tensor [1, F]. A flatten orders features channel-major in PyTorch
(c * L + l) and position-major in the IR (l * C + c): every value carries
that permutation (`perm[ir_index] = framework_index`, None for the
identity), and the linear or batch norm that reads permuted features gets
its weights permuted, so every number agrees with the framework's.
"""
import numpy as np

from .errors import UnumError


class UnsupportedModel(UnumError, ValueError):
    """The model uses a layer, an operation or an argument that the model
    JSON cannot express; the message names the layer."""


def require(module, user, debian):
    """Imports `module` (a framework) or says which Debian package has it."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise UnsupportedModel("%s needs %s (Debian: %s): %s"
                               % (user, module.split(".")[0], debian, e)) from None


class Value:
    """One activation: its JSON node, its IR shape [L, C], whether the
    framework sees it as [N, C, L] (rank 3) or [N, F] (rank 2), and the
    feature permutation of a flattened value."""

    def __init__(self, name, shape, rank3, perm=None):
        self.name, self.shape, self.rank3, self.perm = name, list(shape), rank3, perm


def _list(a):
    return np.asarray(a, dtype=np.float64).tolist()


def torch_order(output, length, channels):
    """A flattened [L, C] output, position-major as the IR computes it
    (`l * C + c`), in the framework's channel-major order (`c * L + l`)."""
    return np.asarray(output).reshape(length, channels).T.reshape(-1)


class Builder:
    def __init__(self, name):
        self.name = name
        self.nodes, self.edges, self.used = [], [], set()

    def _node(self, name, type_, inputs, **fields):
        base = str(name) or type_
        name, k = base, 1
        while name in self.used:
            k += 1
            name = "%s_%d" % (base, k)
        self.used.add(name)
        self.nodes.append(dict({"name": name, "type": type_}, **fields))
        for v in inputs:
            self.edges.append({"src": v.name, "dst": name})
        return name

    def _needs_rank3(self, x, layer):
        if not x.rank3:
            raise UnsupportedModel("%s: needs a [N, C, L] input, not the [N, F] "
                                   "output of a flatten or linear" % layer)

    def model(self):
        return {"name": self.name, "nodes": self.nodes, "edges": self.edges}

    # --------------------------------------------------------------- nodes
    def input(self, name, shape, rank3=True):
        return Value(self._node(name, "input", [], shape=list(shape)), shape, rank3)

    def output(self, name, x):
        self._node(name, "output", [x])

    def conv1d(self, name, x, weight, bias, stride, padding, groups, layer,
               padding_value=0.0):
        """weight [out, in/groups, K]; padding an int, "same" or "valid"."""
        self._needs_rank3(x, layer)
        weight = np.asarray(weight, dtype=np.float64)
        out_ch, _, k = weight.shape
        length, channels = x.shape
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise UnsupportedModel("%s: padding=%r is not supported" % (layer, padding))
            lo = hi = 0
            if padding == "same":
                lo, hi = (k - 1) // 2, k - 1 - (k - 1) // 2
        else:
            lo = hi = int(padding)
        if channels != weight.shape[1] * groups:
            raise UnsupportedModel("%s: expects %d input channels, gets %d"
                                   % (layer, weight.shape[1] * groups, channels))
        if length + lo + hi < k:
            raise UnsupportedModel("%s: kernel %d is longer than its padded input (%d)"
                                   % (layer, k, length + lo + hi))
        fields = dict(in_channels=channels, out_channels=out_ch, kernel_size=k,
                      stride=int(stride), padding=padding, groups=int(groups),
                      weight=_list(weight))
        if padding_value:
            fields["padding_value"] = float(padding_value)
        if bias is not None:
            fields["bias"] = _list(bias)
        out = [(length + lo + hi - k) // int(stride) + 1, out_ch]
        return Value(self._node(name, "conv1d", [x], **fields), out, True)

    def linear(self, name, x, weight, bias, layer):
        """weight [out, in], applied to the features of a [N, F] value."""
        if x.rank3:
            raise UnsupportedModel("%s: a linear layer on a [N, C, L] tensor acts "
                                   "along L; flatten first (the IR's linear reads "
                                   "channels)" % layer)
        weight = np.asarray(weight, dtype=np.float64)
        if weight.shape[1] != x.shape[1]:
            raise UnsupportedModel("%s: expects %d input features, gets %d"
                                   % (layer, weight.shape[1], x.shape[1]))
        if x.perm is not None:
            weight = weight[:, x.perm]
        fields = dict(in_features=weight.shape[1], out_features=weight.shape[0],
                      weight=_list(weight))
        if bias is not None:
            fields["bias"] = _list(bias)
        return Value(self._node(name, "linear", [x], **fields),
                     [x.shape[0], weight.shape[0]], False)

    def unary(self, name, type_, x, **fields):
        return Value(self._node(name, type_, [x], **fields), x.shape, x.rank3, x.perm)

    def batchnorm(self, name, x, gamma, beta, mean, var, eps, layer):
        params = [np.asarray(p, dtype=np.float64) for p in (gamma, beta, mean, var)]
        if len(params[0]) != x.shape[1]:
            raise UnsupportedModel("%s: has %d features, its input %d"
                                   % (layer, len(params[0]), x.shape[1]))
        if x.perm is not None:
            params = [p[x.perm] for p in params]
        gamma, beta, mean, var = (_list(p) for p in params)
        return Value(self._node(name, "batchnorm1d", [x], num_features=x.shape[1],
                                weight=gamma, bias=beta, running_mean=mean,
                                running_var=var, eps=float(eps)),
                     x.shape, x.rank3, x.perm)

    def pool(self, name, type_, x, kernel, stride, padding, layer, **fields):
        self._needs_rank3(x, layer)
        kernel, stride, padding = int(kernel), int(stride), int(padding)
        if padding * 2 > kernel:
            raise UnsupportedModel("%s: padding %d is more than half the kernel (%d)"
                                   % (layer, padding, kernel))
        length = x.shape[0] + 2 * padding
        if length < kernel:
            raise UnsupportedModel("%s: kernel %d is longer than its padded input (%d)"
                                   % (layer, kernel, length))
        out = [(length - kernel) // stride + 1, x.shape[1]]
        return Value(self._node(name, type_, [x], kernel_size=kernel, stride=stride,
                                padding=padding, **fields), out, True)

    def flatten(self, name, x):
        if not x.rank3:
            return x  # [N, F] stays [N, F]
        length, channels = x.shape
        perm = None
        if length > 1 and channels > 1:
            l, c = np.meshgrid(np.arange(length), np.arange(channels), indexing="ij")
            perm = (c * length + l).reshape(-1)
        return Value(self._node(name, "flatten", [x]), [1, length * channels], False,
                     perm)

    def add(self, name, a, b, layer):
        if a.shape != b.shape or a.rank3 != b.rank3:
            raise UnsupportedModel("%s: adds tensors of different shapes (%s and %s)"
                                   % (layer, a.shape, b.shape))
        if not _same_perm(a.perm, b.perm):
            raise UnsupportedModel("%s: adds a flattened [N, C, L] tensor to features "
                                   "in another order" % layer)
        return Value(self._node(name, "add", [a, b]), a.shape, a.rank3, a.perm)

    def concat(self, name, values, dim, layer):
        if len(values) < 2:
            if len(values) == 1:
                return values[0]
            raise UnsupportedModel("%s: concatenates nothing" % layer)
        rank3 = values[0].rank3
        if any(v.rank3 != rank3 for v in values):
            raise UnsupportedModel("%s: concatenates tensors of different ranks" % layer)
        rank = 3 if rank3 else 2
        dim = dim + rank if dim < 0 else dim
        if dim == 1:
            axis = "channels"
        elif dim == 2 and rank3:
            axis = "length"
        else:
            raise UnsupportedModel("%s: concatenation along dimension %d is not "
                                   "supported (only channels, or length of [N, C, L])"
                                   % (layer, dim))
        other = 0 if axis == "channels" else 1
        if any(v.shape[other] != values[0].shape[other] for v in values):
            raise UnsupportedModel("%s: concatenates tensors of shapes %s"
                                   % (layer, [v.shape for v in values]))
        along = 1 - other
        shape = list(values[0].shape)
        shape[along] = sum(v.shape[along] for v in values)
        perm = None
        if any(v.perm is not None for v in values):
            parts, offset = [], 0
            for v in values:
                n = v.shape[1]
                parts.append((v.perm if v.perm is not None else np.arange(n)) + offset)
                offset += n
            perm = np.concatenate(parts)
        fields = {"axis": axis} if axis != "channels" else {}
        return Value(self._node(name, "concat", values, **fields), shape, rank3, perm)


def _same_perm(a, b):
    if a is None or b is None:
        return a is None and b is None
    return np.array_equal(a, b)
