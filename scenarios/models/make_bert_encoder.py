#!/usr/bin/python3
"""Writes bert_encoder.onnx: a BERT-base-shaped encoder (batch 8, sequence 128, hidden 768, 12 heads,
FFN 3072) of LAYERS post-LayerNorm layers, written the way exporters write BERT: MatMul + Add for each
projection, heads split and merged with Reshape + Transpose, scaled scores plus an additive attention
mask, Softmax, GELU in its erf form, residual Add + LayerNormalization. The weights are graph inputs,
not initializers, so the file stays a few kB (BERT-base's 85 M parameters per 12 layers would be
340 MB); every activation is at its real size (the attention scores are 8x12x128x128 = 6.3 MB).
The app's and `gir plan`'s full-model example (issue #18)."""
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BATCH, SEQ, HIDDEN, HEADS, FFN = 8, 128, 768, 12, 3072
DHEAD = HIDDEN // HEADS
LAYERS = int(sys.argv[1]) if len(sys.argv) > 1 else 2

nodes, inits, inputs = [], [], []


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def weight_input(name, shape):
    inputs.append(f32(name, shape))
    return name


def const(name, values, dtype=np.float32):
    inits.append(numpy_helper.from_array(np.array(values, dtype=dtype), name))
    return name


def node(op, ins, outs, name, **attrs):
    nodes.append(helper.make_node(op, ins, outs, name=name, **attrs))
    return outs[0]


def linear(x, p, fan_in, fan_out):
    mm = node("MatMul", [x, weight_input(p + "_w", [fan_in, fan_out])], [p + "_mm"], p + "_matmul")
    return node("Add", [mm, weight_input(p + "_b", [fan_out])], [p + "_out"], p + "_bias")


def split_heads(x, p):
    r = node("Reshape", [x, const(p + "_split_shape", [BATCH, SEQ, HEADS, DHEAD], np.int64)], [p + "_split"], p + "_split")
    return node("Transpose", [r], [p + "_heads"], p + "_heads", perm=[0, 2, 1, 3])


def layer(x, i):
    p = "l%d" % i
    q = split_heads(linear(x, p + "_q", HIDDEN, HIDDEN), p + "_q")
    k = split_heads(linear(x, p + "_k", HIDDEN, HIDDEN), p + "_k")
    v = split_heads(linear(x, p + "_v", HIDDEN, HIDDEN), p + "_v")
    kt = node("Transpose", [k], [p + "_kt"], p + "_k_transpose", perm=[0, 1, 3, 2])
    scores = node("MatMul", [q, kt], [p + "_scores"], p + "_qk")
    scaled = node("Div", [scores, const(p + "_scale", math.sqrt(DHEAD))], [p + "_scaled"], p + "_scale")
    masked = node("Add", [scaled, "attention_bias"], [p + "_masked"], p + "_mask_add")
    probs = node("Softmax", [masked], [p + "_probs"], p + "_softmax", axis=-1)
    ctx = node("MatMul", [probs, v], [p + "_ctx"], p + "_pv")
    ctx_t = node("Transpose", [ctx], [p + "_ctx_t"], p + "_merge_heads", perm=[0, 2, 1, 3])
    merged = node("Reshape", [ctx_t, const(p + "_merge_shape", [BATCH, SEQ, HIDDEN], np.int64)], [p + "_merged"], p + "_merge")
    attn = linear(merged, p + "_o", HIDDEN, HIDDEN)
    res1 = node("Add", [x, attn], [p + "_res1"], p + "_residual1")
    ln1 = node("LayerNormalization", [res1, weight_input(p + "_ln1_g", [HIDDEN]), weight_input(p + "_ln1_b", [HIDDEN])],
               [p + "_ln1"], p + "_ln1", axis=-1, epsilon=1e-12)
    up = linear(ln1, p + "_ffn1", HIDDEN, FFN)
    # GELU, erf form: 0.5 * x * (1 + erf(x / sqrt(2))).
    e = node("Erf", [node("Div", [up, const(p + "_sqrt2", math.sqrt(2.0))], [p + "_gelu_div"], p + "_gelu_div")], [p + "_erf"], p + "_erf")
    g = node("Mul", [node("Mul", [up, node("Add", [e, const(p + "_one", 1.0)], [p + "_erf1"], p + "_erf_add")], [p + "_gx"], p + "_gelu_mul"),
                     const(p + "_half", 0.5)], [p + "_gelu"], p + "_gelu_half")
    down = linear(g, p + "_ffn2", FFN, HIDDEN)
    res2 = node("Add", [ln1, down], [p + "_res2"], p + "_residual2")
    return node("LayerNormalization", [res2, weight_input(p + "_ln2_g", [HIDDEN]), weight_input(p + "_ln2_b", [HIDDEN])],
                [p + "_ln2"], p + "_ln2", axis=-1, epsilon=1e-12)


inputs.append(f32("hidden", [BATCH, SEQ, HIDDEN]))
inputs.append(f32("attention_bias", [BATCH, 1, 1, SEQ]))  # 0 where attended, -10000 where masked
x = "hidden"
for i in range(LAYERS):
    x = layer(x, i)
graph = helper.make_graph(nodes, "bert_encoder", inputs, [f32(x, [BATCH, SEQ, HIDDEN])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="make_bert_encoder.py")
onnx.checker.check_model(model, full_check=True)
onnx.save(model, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bert_encoder.onnx"))
