#!/usr/bin/python3
"""Writes partial_coverage.onnx: three memory-bound subgraphs on cpu-host, one of each coverage.
Subgraph 0, Exp -> ReduceSum over every axis of 64x8192 -> Div: the GIR planner lowers it (the sum
follows Exp's boxes, one partial per unit), but the eager plan's lone ReduceSum would need a box
holding a whole 8,192-element row (a split reduction cuts only the first reduced dim) over a
register budget of 4,095: GIR, not compared. Subgraph 1, a lone ReduceSum over every axis of
64x8192: no planner lowers it, not GIR. Subgraph 2, Relu -> Sigmoid over 256x1024: covered.
Used by the partial-coverage tests of `gir plan`, search::planModel and the Plans tab (issue #18)."""
import os
import onnx
from onnx import helper as h, TensorProto as T


def vi(name, shape):
    return h.make_tensor_value_info(name, T.FLOAT, shape)


nodes = [h.make_node("Exp", ["x"], ["a"]), h.make_node("ReduceSum", ["a"], ["s"], keepdims=1),
         h.make_node("Div", ["a", "s"], ["y"]), h.make_node("ReduceSum", ["u"], ["t"], keepdims=1),
         h.make_node("Relu", ["z"], ["b"]), h.make_node("Sigmoid", ["b"], ["w"])]
graph = h.make_graph(nodes, "partial_coverage", [vi("x", [64, 8192]), vi("u", [64, 8192]), vi("z", [256, 1024])],
                     [vi("y", [64, 8192]), vi("t", [1, 1]), vi("w", [256, 1024])])
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], producer_name="make_partial_model.py")
onnx.checker.check_model(model)
onnx.save(model, os.path.join(os.path.dirname(os.path.abspath(__file__)), "partial_coverage.onnx"))
