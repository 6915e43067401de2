#!/usr/bin/python3
"""Writes the bundled ONNX scenarios (scenarios/*.onnx) with onnx.helper; see scenarios/README.md.

Uses Debian's python3-onnx and numpy only (no network, no model hub). Initializers come from a
fixed seed, so the files are reproducible: `scenarios/make_scenarios.py` rewrites them in place.
"""
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
OUT = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20240601)


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def weight(name, shape, scale=0.1):
    return init(name, (rng.standard_normal(shape) * scale).astype(np.float32))


def ints(name, values):
    return init(name, np.array(values, dtype=np.int64))


def scalar(name, value):
    return init(name, np.array(value, dtype=np.float32))


def save(name, nodes, inputs, outputs, inits):
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="gir-scenarios")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def shufflenet():
    n = helper.make_node
    nodes = [
        n("Concat", ["x0", "x1"], ["c"], name="concat", axis=1),
        n("Reshape", ["c", "shape5"], ["r"], name="reshape_groups"),
        n("Transpose", ["r"], ["t"], name="shuffle", perm=[0, 2, 1, 3, 4]),
        n("Reshape", ["t", "shape4"], ["s"], name="reshape_back"),
        n("Split", ["s", "halves"], ["y0", "y1"], name="split", axis=1),
    ]
    inits = [ints("shape5", [1, 2, 116, 28, 28]), ints("shape4", [1, 232, 28, 28]), ints("halves", [116, 116])]
    save("shufflenet", nodes, [f32("x0", [1, 116, 28, 28]), f32("x1", [1, 116, 28, 28])],
         [f32("y0", [1, 116, 28, 28]), f32("y1", [1, 116, 28, 28])], inits)


def efficientnet():
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w_expand"], ["e"], name="pointwise_expand"),
        n("Conv", ["e", "w_dw", "b_dw"], ["d"], name="depthwise", group=256, pads=[1, 1, 1, 1]),
        n("Sigmoid", ["d"], ["sig"], name="silu_sigmoid"),
        n("Mul", ["d", "sig"], ["a"], name="silu_mul"),
        n("Conv", ["a", "w_project"], ["y"], name="pointwise_project"),
    ]
    inits = [weight("w_expand", [256, 64, 1, 1]), weight("w_dw", [256, 1, 3, 3]), weight("b_dw", [256]),
             weight("w_project", [64, 256, 1, 1])]
    save("efficientnet", nodes, [f32("x", [1, 64, 28, 28])], [f32("y", [1, 64, 28, 28])], inits)


def layer_norm_nodes(x, out, prefix, width):
    inits = [weight(prefix + "_gamma", [width], 1.0), weight(prefix + "_beta", [width])]
    node = helper.make_node("LayerNormalization", [x, prefix + "_gamma", prefix + "_beta"], [out], name=prefix,
                            axis=-1, epsilon=1e-5)
    return [node], inits


def layernorm():
    nodes, inits = layer_norm_nodes("x", "y", "ln", 768)
    save("layernorm", nodes, [f32("x", [64, 768])], [f32("y", [64, 768])], inits)


def rmsnorm_nodes():
    """LLaMA-style RMSNorm of x into y, as exporters write it; reads two, eps and gamma."""
    n = helper.make_node
    return [
        n("Pow", ["x", "two"], ["sq"], name="square"),
        n("ReduceMean", ["sq"], ["ms"], name="mean_square", axes=[-1], keepdims=1),
        n("Add", ["ms", "eps"], ["mse"], name="add_eps"),
        n("Sqrt", ["mse"], ["rms"], name="rms"),
        n("Div", ["x", "rms"], ["xn"], name="normalize"),
        n("Mul", ["xn", "gamma"], ["y"], name="scale"),
    ]


def rmsnorm():
    nodes = rmsnorm_nodes()
    inits = [scalar("two", 2.0), scalar("eps", 1e-6), weight("gamma", [768], 1.0)]
    save("rmsnorm", nodes, [f32("x", [64, 768])], [f32("y", [64, 768])], inits)


def softmax():
    node = helper.make_node("Softmax", ["x"], ["y"], name="softmax", axis=-1)
    save("softmax", [node], [f32("x", [64, 1024])], [f32("y", [64, 1024])], [])


def silu():
    n = helper.make_node
    nodes = [n("Sigmoid", ["x"], ["s"], name="sigmoid"), n("Mul", ["x", "s"], ["y"], name="mul")]
    save("silu", nodes, [f32("x", [64, 1024])], [f32("y", [64, 1024])], [])


def gelu_nodes(x, out, prefix):
    n = helper.make_node
    nodes = [
        n("Div", [x, prefix + "_sqrt2"], [prefix + "_xs"], name=prefix + "_div"),
        n("Erf", [prefix + "_xs"], [prefix + "_erf"], name=prefix + "_erf"),
        n("Add", [prefix + "_erf", prefix + "_one"], [prefix + "_erf1"], name=prefix + "_add"),
        n("Mul", [x, prefix + "_erf1"], [prefix + "_m"], name=prefix + "_mul"),
        n("Mul", [prefix + "_m", prefix + "_half"], [out], name=prefix + "_half_mul"),
    ]
    inits = [scalar(prefix + "_sqrt2", math.sqrt(2.0)), scalar(prefix + "_one", 1.0), scalar(prefix + "_half", 0.5)]
    return nodes, inits


def gelu():
    nodes, inits = gelu_nodes("x", "y", "gelu")
    save("gelu", nodes, [f32("x", [64, 1024])], [f32("y", [64, 1024])], inits)


def bert_bias_residual_layernorm():
    n = helper.make_node
    nodes = [n("Add", ["h", "bias"], ["hb"], name="bias_add"), n("Add", ["hb", "residual"], ["sum"], name="residual_add")]
    ln, ln_inits = layer_norm_nodes("sum", "y", "ln", 768)
    save("bert_bias_residual_layernorm", nodes + ln, [f32("h", [128, 768]), f32("residual", [128, 768])],
         [f32("y", [128, 768])], [weight("bias", [768])] + ln_inits)


def heads(x, out, prefix, seq, nheads, dhead):
    """[1, seq, nheads*dhead] -> [1, nheads, seq, dhead]"""
    n = helper.make_node
    return [n("Reshape", [x, prefix + "_shape"], [prefix + "_r"], name=prefix + "_split_heads"),
            n("Transpose", [prefix + "_r"], [out], name=prefix + "_to_heads", perm=[0, 2, 1, 3])], \
           [ints(prefix + "_shape", [1, seq, nheads, dhead])]


def gpt2_decode_attention():
    n = helper.make_node
    hidden, nheads, dhead, past = 256, 4, 64, 128
    nodes, inits = [], []
    for name in ("q", "k", "v"):
        nodes.append(n("MatMul", ["x", "w" + name], [name + "_proj"], name=name + "_proj"))
        inits.append(weight("w" + name, [hidden, hidden], 0.05))
        hn, hi = heads(name + "_proj", name + "_heads", name, 1, nheads, dhead)
        nodes += hn
        inits += hi
    nodes += [
        n("Concat", ["k_cache", "k_heads"], ["k_all"], name="append_k", axis=2),
        n("Concat", ["v_cache", "v_heads"], ["v_all"], name="append_v", axis=2),
        n("Transpose", ["k_all"], ["k_t"], name="k_transpose", perm=[0, 1, 3, 2]),
        n("MatMul", ["q_heads", "k_t"], ["scores"], name="qk"),
        n("Div", ["scores", "scale"], ["scaled"], name="scale"),
        n("Softmax", ["scaled"], ["probs"], name="softmax", axis=-1),
        n("MatMul", ["probs", "v_all"], ["ctx"], name="pv"),
        n("Transpose", ["ctx"], ["ctx_t"], name="merge_heads", perm=[0, 2, 1, 3]),
        n("Reshape", ["ctx_t", "merged_shape"], ["ctx_m"], name="merge_reshape"),
        n("MatMul", ["ctx_m", "wo"], ["y"], name="out_proj"),
    ]
    inits += [scalar("scale", math.sqrt(dhead)), ints("merged_shape", [1, 1, hidden]), weight("wo", [hidden, hidden], 0.05)]
    cache = [1, nheads, past, dhead]
    save("gpt2_decode_attention", nodes, [f32("x", [1, 1, hidden]), f32("k_cache", cache), f32("v_cache", cache)],
         [f32("y", [1, 1, hidden]), f32("k_all", [1, nheads, past + 1, dhead]), f32("v_all", [1, nheads, past + 1, dhead])],
         inits)


def row_reduction():
    node = helper.make_node("ReduceSum", ["x", "axes"], ["y"], name="row_sum", keepdims=0)
    save("row_reduction", [node], [f32("x", [256, 1024])], [f32("y", [256])], [ints("axes", [1])])


def column_reduction():
    node = helper.make_node("ReduceSum", ["x", "axes"], ["y"], name="column_sum", keepdims=0)
    save("column_reduction", [node], [f32("x", [1024, 256])], [f32("y", [256])], [ints("axes", [0])])


def transpose_reduce():
    n = helper.make_node
    nodes = [n("Transpose", ["x"], ["t"], name="transpose", perm=[1, 0]),
             n("ReduceMax", ["t"], ["y"], name="row_max", axes=[1], keepdims=0)]
    save("transpose_reduce", nodes, [f32("x", [256, 512])], [f32("y", [512])], [])


def save_scale(name, nodes, inputs, outputs, inits):
    """The DRAM-scale set (scenarios/scale/): real-model sizes, 16-140 MB of minimal traffic."""
    global OUT
    saved, OUT = OUT, os.path.join(saved_out, "scale")
    os.makedirs(OUT, exist_ok=True)
    try:
        save(name, nodes, inputs, outputs, inits)
    finally:
        OUT = saved


saved_out = OUT


def scale_set():
    global rng
    rng = np.random.default_rng(20261124)  # its own seed: `--scale` alone and the full run write the same files
    n = helper.make_node
    for rows, width in ((8192, 1024), (16384, 2048)):
        nodes, inits = layer_norm_nodes("x", "y", "ln", width)
        save_scale(f"layernorm_{rows}x{width}", nodes, [f32("x", [rows, width])], [f32("y", [rows, width])], inits)
    for shape in ((64, 12, 128, 128), (32, 16, 256, 256)):
        node = n("Softmax", ["x"], ["y"], name="softmax", axis=-1)
        save_scale("softmax_" + "x".join(map(str, shape)), [node], [f32("x", list(shape))], [f32("y", list(shape))], [])
    nodes = [n("Sigmoid", ["x"], ["s"], name="sigmoid"), n("Mul", ["x", "s"], ["y"], name="mul")]
    save_scale("silu_4096x1024", nodes, [f32("x", [4096, 1024])], [f32("y", [4096, 1024])], [])
    nodes, inits = gelu_nodes("x", "y", "gelu")
    save_scale("gelu_4096x1024", nodes, [f32("x", [4096, 1024])], [f32("y", [4096, 1024])], inits)
    save_scale("rmsnorm_2048x4096", rmsnorm_nodes(), [f32("x", [2048, 4096])], [f32("y", [2048, 4096])],
               [scalar("two", 2.0), scalar("eps", 1e-6), weight("gamma", [4096], 1.0)])
    for axis, label in ((1, "rows"), (0, "columns")):
        node = n("ReduceSum", ["x", "axes"], ["y"], name="sum_" + label, keepdims=0)
        save_scale(f"reducesum_{label}_4096x4096", [node], [f32("x", [4096, 4096])], [f32("y", [4096])], [ints("axes", [axis])])
    batch, half = 32, 116
    nodes = [
        n("Concat", ["x0", "x1"], ["c"], name="concat", axis=1),
        n("Reshape", ["c", "shape5"], ["r"], name="reshape_groups"),
        n("Transpose", ["r"], ["t"], name="shuffle", perm=[0, 2, 1, 3, 4]),
        n("Reshape", ["t", "shape4"], ["s"], name="reshape_back"),
        n("Split", ["s", "halves"], ["y0", "y1"], name="split", axis=1),
    ]
    act = [batch, half, 28, 28]
    save_scale("channel_shuffle_b32", nodes, [f32("x0", act), f32("x1", act)], [f32("y0", act), f32("y1", act)],
               [ints("shape5", [batch, 2, half, 28, 28]), ints("shape4", [batch, 2 * half, 28, 28]), ints("halves", [half, half])])
    nodes = [n("Add", ["h", "bias"], ["hb"], name="bias_add"), n("Add", ["hb", "residual"], ["sum"], name="residual_add")]
    ln, ln_inits = layer_norm_nodes("sum", "y", "ln", 768)
    save_scale("bert_bias_residual_layernorm_8x512x768", nodes + ln, [f32("h", [8, 512, 768]), f32("residual", [8, 512, 768])],
               [f32("y", [8, 512, 768])], [weight("bias", [768])] + ln_inits)
    nodes = [
        n("Conv", ["x", "w_dw", "b_dw"], ["d"], name="depthwise", group=96, pads=[1, 1, 1, 1], strides=[2, 2]),
        n("Sigmoid", ["d"], ["sig"], name="silu_sigmoid"),
        n("Mul", ["d", "sig"], ["y"], name="silu_mul"),
    ]
    save_scale("depthwise_silu_b32", nodes, [f32("x", [32, 96, 112, 112])], [f32("y", [32, 96, 56, 56])],
               [weight("w_dw", [96, 1, 3, 3]), weight("b_dw", [96])])


if __name__ == "__main__":
    if sys.argv[1:] == ["--scale"]:
        scale_set()
        sys.exit(0)
    for make in (shufflenet, efficientnet, layernorm, rmsnorm, softmax, silu, gelu, bert_bias_residual_layernorm,
                 gpt2_decode_attention, row_reduction, column_reduction, transpose_reduce):
        make()
    import transformer_block  # noqa: E402  (the longest builder lives in its own file)
    transformer_block.build(save, f32, weight, ints, scalar, layer_norm_nodes, gelu_nodes, heads)
    scale_set()  # last: the bundled scenarios' weights stay as they were
    print("wrote scenarios to", OUT, file=sys.stderr)
