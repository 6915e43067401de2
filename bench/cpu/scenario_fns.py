"""The benchmark's scenarios written by hand in PyTorch's and JAX's own APIs (part of bench/cpu; not a test).

`describe(path)` reads a scenario's .onnx file, recognises its pattern of operators and returns a Spec:
the pattern's kind plus every shape-, axis-, epsilon- and constant-valued parameter, all read from the
file, so the hand-written versions compute exactly what the model does. `torch_fn(spec)` and
`jax_fn(spec)` build a function of the graph's inputs (in graph order) that returns a tuple of its
outputs (in graph order), written the way a user of that framework would (fused library calls such as
layer_norm or gelu where the framework has them). A pattern not listed here raises Unsupported, and
the benchmark reports the peer as skipped for that scenario with that reason.
"""
import math
from dataclasses import dataclass, field

import numpy as np


class Unsupported(Exception):
    """The scenario's operator pattern has no hand-written version."""


@dataclass
class Spec:
    kind: str
    inputs: list            # graph input names, in order (initializers excluded)
    input_shapes: dict      # name -> list of ints
    outputs: list           # graph output names, in order
    p: dict = field(default_factory=dict)  # the pattern's parameters, read from the file


class _Graph:
    """Read access to a loaded ONNX graph: constants, attributes, nodes by operator type."""

    def __init__(self, model):
        from onnx import numpy_helper
        self.nodes = list(model.graph.node)
        self.consts = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        for n in self.nodes:  # Constant nodes count as constants too
            if n.op_type == "Constant":
                self.consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
        self.nodes = [n for n in self.nodes if n.op_type != "Constant"]

    def ops(self):
        return tuple(n.op_type for n in self.nodes)

    def attr(self, node, name, default=None):
        from onnx import helper
        for a in node.attribute:
            if a.name == name:
                return helper.get_attribute_value(a)
        return default

    def const(self, name):
        return self.consts.get(name)

    def scalar(self, name):
        c = self.const(name)
        if c is None or c.size != 1:
            raise Unsupported(f"expected a scalar constant for '{name}'")
        return float(c.reshape(()))

    def one_const(self, node):
        """The single constant operand of a binary node (and the other operand's name)."""
        a, b = node.input[0], node.input[1]
        if self.const(b) is not None:
            return self.const(b), a
        if self.const(a) is not None:
            return self.const(a), b
        raise Unsupported(f"{node.op_type} node '{node.name}' has no constant operand")

    def axes(self, node):
        """Reduction axes: the `axes` attribute (opset < 18) or the second input (ReduceSum >= 13)."""
        ax = self.attr(node, "axes")
        if ax is None and len(node.input) > 1 and node.input[1]:
            ax = self.const(node.input[1])
        if ax is None:
            raise Unsupported(f"{node.op_type} without constant axes")
        return [int(v) for v in np.asarray(ax).reshape(-1)]


def _layernorm_params(g, node):
    gamma, beta = g.const(node.input[1]), g.const(node.input[2]) if len(node.input) > 2 else None
    if gamma is None:
        raise Unsupported("LayerNormalization scale is not a constant")
    return {"axis": int(g.attr(node, "axis", -1)), "eps": float(g.attr(node, "epsilon", 1e-5)), "gamma": gamma, "beta": beta}


def _p_softmax(g, spec):
    return {"axis": int(g.attr(g.nodes[0], "axis", -1))}


def _p_layernorm(g, spec):
    return _layernorm_params(g, g.nodes[0])


def _p_bias_residual_layernorm(g, spec):
    first, second, ln = g.nodes
    bias, h = g.one_const(first)
    residual = second.input[1] if second.input[0] == first.output[0] else second.input[0]
    if residual not in spec.inputs or h not in spec.inputs:
        raise Unsupported("the two Adds do not read graph inputs as expected")
    return {"h": h, "residual": residual, "bias": bias, **_layernorm_params(g, ln)}


def _p_rmsnorm(g, spec):
    pow_, mean, add, _sqrt, _div, mul = g.nodes
    exponent, _ = g.one_const(pow_)
    if float(exponent.reshape(())) != 2.0:
        raise Unsupported("RMSNorm pattern with an exponent other than 2")
    eps, _ = g.one_const(add)
    gamma, _ = g.one_const(mul)
    return {"axes": g.axes(mean), "eps": float(eps.reshape(())), "gamma": gamma}


def _p_gelu(g, spec):
    div, _erf, add, _mul, mul2 = g.nodes
    c = {"div": g.scalar(div.input[1]), "add": float(g.one_const(add)[0].reshape(())), "mul": float(g.one_const(mul2)[0].reshape(()))}
    c["exact"] = (abs(c["div"] - math.sqrt(2.0)) < 1e-6 and c["add"] == 1.0 and c["mul"] == 0.5)
    return c


def _p_silu(g, spec):
    return {}


def _p_reduce_sum(g, spec):
    node = g.nodes[0]
    return {"axes": g.axes(node), "keepdims": bool(g.attr(node, "keepdims", 1))}


def _p_channel_shuffle(g, spec):
    concat, reshape1, transpose, reshape2, split = g.nodes
    sizes = g.const(split.input[1]) if len(split.input) > 1 and split.input[1] else None
    if sizes is None:
        sizes = g.attr(split, "split")
    if sizes is None:
        raise Unsupported("Split without constant sizes")
    return {"concat_axis": int(g.attr(concat, "axis")), "shape1": [int(v) for v in g.const(reshape1.input[1])],
            "perm": [int(v) for v in g.attr(transpose, "perm")], "shape2": [int(v) for v in g.const(reshape2.input[1])],
            "split_axis": int(g.attr(split, "axis", 0)), "sizes": [int(v) for v in np.asarray(sizes).reshape(-1)]}


def _p_conv_silu(g, spec):
    conv = g.nodes[0]
    w = g.const(conv.input[1])
    b = g.const(conv.input[2]) if len(conv.input) > 2 and conv.input[2] else None
    if w is None or w.ndim != 4:
        raise Unsupported("Conv pattern other than a 2-D convolution with constant weights")
    if g.attr(conv, "auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise Unsupported("Conv with auto_pad")
    return {"w": w, "b": b, "group": int(g.attr(conv, "group", 1)), "pads": [int(v) for v in g.attr(conv, "pads", [0, 0, 0, 0])],
            "strides": [int(v) for v in g.attr(conv, "strides", [1, 1])],
            "dilations": [int(v) for v in g.attr(conv, "dilations", [1, 1])]}


PATTERNS = {
    ("Softmax",): ("softmax", _p_softmax),
    ("LayerNormalization",): ("layernorm", _p_layernorm),
    ("Add", "Add", "LayerNormalization"): ("bias_residual_layernorm", _p_bias_residual_layernorm),
    ("Pow", "ReduceMean", "Add", "Sqrt", "Div", "Mul"): ("rmsnorm", _p_rmsnorm),
    ("Div", "Erf", "Add", "Mul", "Mul"): ("gelu", _p_gelu),
    ("Sigmoid", "Mul"): ("silu", _p_silu),
    ("ReduceSum",): ("reduce_sum", _p_reduce_sum),
    ("Concat", "Reshape", "Transpose", "Reshape", "Split"): ("channel_shuffle", _p_channel_shuffle),
    ("Conv", "Sigmoid", "Mul"): ("conv_silu", _p_conv_silu),
}


def describe(path):
    """The Spec of the model at `path`; raises Unsupported for a pattern without a hand-written version."""
    import onnx
    model = onnx.load(path)
    g = _Graph(model)
    consts = set(g.consts)
    inputs = [i.name for i in model.graph.input if i.name not in consts]
    shapes = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input if i.name not in consts}
    spec = Spec("", inputs, shapes, [o.name for o in model.graph.output])
    if g.ops() not in PATTERNS:
        raise Unsupported(f"no hand-written version of the operator pattern {'-'.join(g.ops())}")
    spec.kind, params = PATTERNS[g.ops()]
    spec.p = params(g, spec)
    return spec


# ---------------------------------------------------------------------------------------------- PyTorch


def torch_fn(spec, device="cpu"):
    """The scenario in PyTorch (eager ops; torch.compile wraps the same function), its constants on `device`
    (bench/gpu passes "cuda")."""
    import torch
    import torch.nn.functional as F
    p = {k: torch.from_numpy(np.array(v)).to(device) if isinstance(v, np.ndarray) else v for k, v in spec.p.items()}
    k = spec.kind
    if k == "softmax":
        return lambda x: (torch.softmax(x, p["axis"]),)
    if k in ("layernorm", "bias_residual_layernorm"):
        def ln(x):
            return F.layer_norm(x, x.shape[p["axis"]:], p["gamma"], p["beta"], p["eps"])
        if k == "layernorm":
            return lambda x: (ln(x),)
        h, res = spec.inputs.index(p["h"]), spec.inputs.index(p["residual"])
        return lambda *a: (ln(a[h] + p["bias"] + a[res]),)
    if k == "rmsnorm":
        axes = p["axes"]
        rank = len(spec.input_shapes[spec.inputs[0]])
        if hasattr(F, "rms_norm") and [a % rank for a in axes] == [rank - 1]:
            return lambda x: (F.rms_norm(x, x.shape[-1:], p["gamma"], p["eps"]),)
        return lambda x: (x / torch.sqrt((x * x).mean(axes, keepdim=True) + p["eps"]) * p["gamma"],)
    if k == "gelu":
        if p["exact"]:
            return lambda x: (F.gelu(x),)
        return lambda x: (x * (torch.erf(x / p["div"]) + p["add"]) * p["mul"],)
    if k == "silu":
        return lambda x: (F.silu(x),)
    if k == "reduce_sum":
        return lambda x: (x.sum(p["axes"], keepdim=p["keepdims"]),)
    if k == "channel_shuffle":
        def shuffle(*xs):
            s = torch.cat(xs, p["concat_axis"]).reshape(p["shape1"]).permute(p["perm"]).reshape(p["shape2"])
            return tuple(torch.split(s, p["sizes"], p["split_axis"]))
        return shuffle
    if k == "conv_silu":
        t, l, b, r = p["pads"]
        pad = (t, l) if (t, l) == (b, r) else 0
        def conv_silu(x):
            if pad == 0 and any(p["pads"]):
                x = F.pad(x, (l, r, t, b))
            return (F.silu(F.conv2d(x, p["w"], p["b"], p["strides"], pad, p["dilations"], p["group"])),)
        return conv_silu
    raise Unsupported(f"no PyTorch version of {k}")


# ---------------------------------------------------------------------------------------------------- JAX


def jax_fn(spec):
    """The scenario in JAX (jax.numpy / jax.nn / jax.lax); the caller wraps it in jax.jit."""
    import jax
    import jax.numpy as jnp
    p = {k: jnp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in spec.p.items()}
    k = spec.kind
    if k == "softmax":
        return lambda x: (jax.nn.softmax(x, axis=p["axis"]),)
    if k in ("layernorm", "bias_residual_layernorm"):
        def ln(x):
            axes = tuple(range(p["axis"] % x.ndim, x.ndim))
            mean = x.mean(axes, keepdims=True)
            var = jnp.square(x - mean).mean(axes, keepdims=True)
            y = (x - mean) * jax.lax.rsqrt(var + p["eps"]) * p["gamma"]
            return y if p["beta"] is None else y + p["beta"]
        if k == "layernorm":
            return lambda x: (ln(x),)
        h, res = spec.inputs.index(p["h"]), spec.inputs.index(p["residual"])
        return lambda *a: (ln(a[h] + p["bias"] + a[res]),)
    if k == "rmsnorm":
        axes = tuple(p["axes"])
        return lambda x: (x / jnp.sqrt(jnp.mean(x * x, axes, keepdims=True) + p["eps"]) * p["gamma"],)
    if k == "gelu":
        if p["exact"]:
            return lambda x: (jax.nn.gelu(x, approximate=False),)
        return lambda x: (x * (jax.scipy.special.erf(x / p["div"]) + p["add"]) * p["mul"],)
    if k == "silu":
        return lambda x: (jax.nn.silu(x),)
    if k == "reduce_sum":
        return lambda x: (jnp.sum(x, tuple(p["axes"]), keepdims=p["keepdims"]),)
    if k == "channel_shuffle":
        cuts = list(np.cumsum(p["sizes"])[:-1])
        def shuffle(*xs):
            s = jnp.concatenate(xs, p["concat_axis"]).reshape(p["shape1"]).transpose(p["perm"]).reshape(p["shape2"])
            return tuple(jnp.split(s, cuts, p["split_axis"]))
        return shuffle
    if k == "conv_silu":
        t, l, b, r = p["pads"]
        def conv_silu(x):
            y = jax.lax.conv_general_dilated(x, p["w"], p["strides"], [(t, b), (l, r)], rhs_dilation=p["dilations"],
                                             dimension_numbers=("NCHW", "OIHW", "NCHW"), feature_group_count=p["group"])
            if p["b"] is not None:
                y = y + p["b"].reshape(1, -1, 1, 1)
            return (jax.nn.silu(y),)
        return conv_silu
    raise Unsupported(f"no JAX version of {k}")
