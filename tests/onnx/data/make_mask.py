#!/usr/bin/python3
"""Writes mask.onnx: a causal mask built the way exporters build it (Range, Unsqueeze, comparisons,
Not/And/Or/Xor on constants), applied with Where to a run-time input; plus input/expected .pb files."""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.dirname(os.path.abspath(__file__))
n = helper.make_node
S = 6
x = np.random.default_rng(3).standard_normal((S, S)).astype(np.float32)
i = np.arange(S)[:, None]
j = np.arange(S)[None, :]
keep = ~(j > i)                                   # causal: j <= i
keep = (keep & (j >= 0)) | ((i == 0) & (j == 0))  # no-ops that exercise And, Or, Equal, GreaterOrEqual
keep = keep ^ np.zeros_like(keep)                 # and Xor
expected = np.where(keep, x, np.float32(-1e9)).astype(np.float32)
nodes = [
    n("Range", ["zero", "len", "one"], ["r"], name="range"),
    n("Unsqueeze", ["r", "ax1"], ["ri"], name="rows"),
    n("Unsqueeze", ["r", "ax0"], ["rj"], name="cols"),
    n("Greater", ["rj", "ri"], ["future"], name="future"),
    n("Not", ["future"], ["past"], name="past"),
    n("GreaterOrEqual", ["rj", "zero"], ["nonneg"], name="nonneg"),
    n("And", ["past", "nonneg"], ["a"], name="and"),
    n("Equal", ["ri", "zero"], ["r0"], name="row0"),
    n("Equal", ["rj", "zero"], ["c0"], name="col0"),
    n("And", ["r0", "c0"], ["origin"], name="origin"),
    n("Or", ["a", "origin"], ["o"], name="or"),
    n("Less", ["ri", "zero"], ["never"], name="never"),
    n("Xor", ["o", "never"], ["keep"], name="xor"),
    n("Where", ["keep", "x", "masked"], ["y"], name="where"),
]
inits = [numpy_helper.from_array(np.array(v, dtype=np.int64), k) for k, v in
         (("zero", 0), ("len", S), ("one", 1), ("ax0", [0]), ("ax1", [1]))]
inits.append(numpy_helper.from_array(np.array(-1e9, dtype=np.float32), "masked"))
graph = helper.make_graph(nodes, "mask", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [S, S])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [S, S])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
with open(os.path.join(OUT, "mask.onnx"), "wb") as f:
    f.write(model.SerializeToString())
for name, array in (("mask_input.pb", x), ("mask_output.pb", expected)):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(numpy_helper.from_array(array, name[5:-3]).SerializeToString())
