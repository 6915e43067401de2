#!/usr/bin/python3
"""Writes conv1d.onnx (1-D strided, padded, dilated, grouped Conv + 1-D AveragePool) and its
input/expected output as TensorProto files, the output computed here with numpy loops."""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)
x = rng.standard_normal((2, 4, 11)).astype(np.float32)
w = rng.standard_normal((6, 2, 3)).astype(np.float32)  # group 2: 2 input channels per group
b = rng.standard_normal(6).astype(np.float32)
stride, pad, dil = 2, 1, 2


def conv1d(x, w, b):
    n, c, length = x.shape
    co, cig, k = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad)))
    out_len = (length + 2 * pad - (k - 1) * dil - 1) // stride + 1
    y = np.zeros((n, co, out_len))
    for o in range(co):
        g = o // (co // 2)
        for t in range(out_len):
            window = xp[:, g * cig:(g + 1) * cig, t * stride:t * stride + (k - 1) * dil + 1:dil]
            y[:, o, t] = (window * w[o]).sum(axis=(1, 2)) + b[o]
    return y


def avgpool1d(y):  # kernel 2, stride 1, no padding
    return (y[:, :, :-1] + y[:, :, 1:]) / 2


expected = avgpool1d(conv1d(x, w, b)).astype(np.float32)
nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv1d", strides=[stride], pads=[pad, pad],
                          dilations=[dil], group=2),
         helper.make_node("AveragePool", ["c"], ["y"], name="pool1d", kernel_shape=[2])]
graph = helper.make_graph(nodes, "conv1d", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, expected.shape)],
                          [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
with open(os.path.join(OUT, "conv1d.onnx"), "wb") as f:
    f.write(model.SerializeToString())
for name, array in (("conv1d_input.pb", x), ("conv1d_output.pb", expected)):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(numpy_helper.from_array(array, name.split("_")[1][:-3]).SerializeToString())
