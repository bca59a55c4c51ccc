"""unum.grad and unum.value_and_grad: reverse-mode gradients of jitted
functions through AIR's `grad` statement and the air-grad pass (issue 13).

Per signature the function is traced to its AIR function as unum.jit does,
and a second AIR function asks for its gradient:

    function jit_f_grad(%a0: f64[3], %a1: f64[3]) {
      %g0 = grad(jit_f, wrt=[0])(%a0, %a1)
      ret %g0
    }

air-grad replaces the request by the forward computation and its reverse
sweep in ordinary kernels, which air-simplify and air-fuse then fuse like any
code (docs/Air.md#gradients). The call path and the cache are unum.jit's.
"""
import numpy as np

from ._frontend import AIR_DTYPES
from ._jit import JitFunction
from .errors import CompileError


class GradFunction(JitFunction):
    """The gradient (or value and gradient) of a function, per signature."""

    def __init__(self, fn, argnums=0, with_value=False, opt_level=3, dynamic=False):
        if isinstance(fn, GradFunction):
            raise TypeError("unum.grad of a gradient (a higher derivative) is not "
                            "supported from Python yet")
        if isinstance(fn, JitFunction):
            opt_level, dynamic = fn.opt_level, fn.dynamic
            fn = fn.__wrapped__
        super().__init__(fn, opt_level, dynamic)
        if isinstance(argnums, int) and not isinstance(argnums, bool):
            self.argnums, self.single = (argnums,), True
        elif isinstance(argnums, (tuple, list)) and argnums and all(
                isinstance(a, int) and not isinstance(a, bool) for a in argnums):
            self.argnums, self.single = tuple(argnums), False
        else:
            raise TypeError("argnums must be an integer or a non-empty tuple of them")
        self.with_value = with_value

    def __reduce__(self):
        return (GradFunction, (self.__wrapped__, self.argnums[0] if self.single
                               else self.argnums, self.with_value, self.opt_level,
                               self.dynamic))

    def _trace(self, key, dynamic=False):
        text, builder, inputs, outputs, structure = super()._trace(key, dynamic)
        source, fdef = self._info().source, self._info().fdef
        what = "value_and_grad" if self.with_value else "grad"
        if any(isinstance(k, tuple) and k and k[0] == "tuple" for k in key):
            raise source.error(fdef, "unum.%s: tuple arguments are not supported "
                                     "(pass the arrays separately)" % what)
        if not isinstance(structure, int) or outputs[0][1] != () \
                or outputs[0][0].kind != "f":
            raise source.error(fdef, "unum.%s needs a function that returns one "
                                     "floating-point scalar; '%s' returns %s"
                               % (what, self.__name__, _describe_outputs(outputs)))
        n = len(key)
        wrt = []
        for a in self.argnums:
            if not -n <= a < n:
                raise CompileError("unum.%s: argnums %d is out of range for '%s' of %d "
                                   "parameter%s" % (what, a, self.__name__, n,
                                                    "" if n == 1 else "s"))
            a = a + n if a < 0 else a
            if a in wrt:
                raise CompileError("unum.%s: argnums lists %d twice" % (what, a))
            dtype = inputs[a][0]
            if dtype.kind != "f":
                raise source.error(fdef.args.args[a], "unum.%s: parameter '%s' is %s, "
                                   "not floating-point: it has no gradient"
                                   % (what, fdef.args.args[a].arg, dtype))
            wrt.append(a)
        results = ["%%g%d" % i for i in range(len(wrt) + (1 if self.with_value else 0))]
        params = builder.param_list(dynamic)
        lines = text.rstrip("\n").split("\n")
        base = len(lines)
        lines += [
            "function %s_%s(%s) {" % (builder.name, what, params),
            "  %s = %s(%s, wrt=[%s])(%s)" % (
                ", ".join(results), what, builder.name, ", ".join(map(str, wrt)),
                ", ".join(p.name for p in builder.params)),
            "  ret %s" % ", ".join(results),
            "}",
        ]
        builder.origins[base + 2] = (source, fdef)
        builder.name = "%s_%s" % (builder.name, what)
        grads = [inputs[a] for a in wrt]
        new_outputs = ([outputs[0]] if self.with_value else []) + grads
        first = 1 if self.with_value else 0
        g = first if self.single else tuple(range(first, first + len(grads)))
        new_structure = (0, g) if self.with_value else g
        return "\n".join(lines) + "\n", builder, inputs, new_outputs, new_structure


def _describe_outputs(outputs):
    return ", ".join("%s%s" % (AIR_DTYPES[np.dtype(d)], list(s)) for d, s in outputs)


def grad(fn, argnums=0):
    """The gradient of `fn` (a jitted function or a plain one, returning one
    floating-point scalar) with respect to its parameters `argnums` (an int:
    one array of that parameter's shape; a tuple: a tuple of them)."""
    return GradFunction(fn, argnums, with_value=False)


def value_and_grad(fn, argnums=0):
    """(fn's value, its gradient as unum.grad gives it), in one kernel."""
    return GradFunction(fn, argnums, with_value=True)
