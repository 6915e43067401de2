#!/usr/bin/python3
"""Writes the malformed and unsupported ONNX models of the import error tests, and expected.tsv:
one line per file, `FILE<TAB>TEXT`, where TEXT must appear in the importer's error message.
Uses Debian's python3-onnx; the files are committed, so the tests need no Python."""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.dirname(os.path.abspath(__file__))
expected = []


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, "bad", inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m.SerializeToString()


def write(name, data, text):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    expected.append((name, text))


def relu_model(**kw):
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [f32("x", [2, 3])], [f32("y", [2, 3])], **kw)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def attr(name, value, kind):
    a = helper.make_attribute(name, value)
    a.type = kind
    return a


def main():
    n = helper.make_node
    good = relu_model()
    write("truncated.onnx", good[: len(good) // 2], "truncated or corrupt")
    write("garbage.onnx", b"\xff\xfe this is not a protobuf \x00\x01" * 4, "not a valid ONNX model")
    write("empty.onnx", b"", "the file is empty")
    write("no_graph.onnx", helper.make_model(helper.make_graph([], "g", [], [])).SerializeToString()[:0] + b"\x08\x08",
          "has no graph")
    write("cycle.onnx", model([n("Relu", ["b"], ["a"], name="first"), n("Relu", ["a"], ["b"], name="second")],
                              [f32("x", [2])], [f32("a", [2])]), "cycle")
    write("missing_initializer.onnx", model([n("Add", ["x", "w"], ["y"], name="add_w")], [f32("x", [2])], [f32("y", [2])]),
          "input 'w' is not a graph input, an initializer or a node output")
    write("dynamic_dim.onnx", model([n("Relu", ["x"], ["y"], name="relu")], [f32("x", ["batch", 3])], [f32("y", ["batch", 3])]),
          "dynamic dimension 'batch'")
    write("no_shape.onnx", model([n("Relu", ["x"], ["y"], name="relu")],
                                 [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)], [f32("y", [2])]),
          "no static shape")
    write("unknown_op.onnx", model([n("FancyOp", ["x"], ["y"], name="fancy")], [f32("x", [2])], [f32("y", [2])]),
          "unsupported op 'FancyOp'")
    write("custom_domain.onnx", model([n("Relu", ["x"], ["y"], name="relu", domain="com.example")], [f32("x", [2])],
                                      [f32("y", [2])]), "unsupported op 'com.example.Relu'")
    write("unclaimed_op.onnx", model([n("Sin", ["x"], ["y"], name="sine")], [f32("x", [2])], [f32("y", [2])]),
          "unsupported op 'Sin'")
    concat = n("Concat", ["x", "x"], ["y"], name="concat_float_axis")
    concat.attribute.append(attr("axis", 1.0, 1))  # FLOAT where INT is required
    write("wrong_attr_type.onnx", model([concat], [f32("x", [2, 3])], [f32("y", [2, 6])]),
          "attribute 'axis' has type FLOAT, expected INT")
    softmax = n("Softmax", ["x"], ["y"], name="softmax_string_axis")
    softmax.attribute.append(attr("axis", b"last", 3))
    write("wrong_attr_type_string.onnx", model([softmax], [f32("x", [2, 3])], [f32("y", [2, 3])]),
          "attribute 'axis' has type STRING, expected INT")
    write("opset_too_old.onnx", relu_model(opset=9), "opset 9 is not supported")
    write("opset_too_new.onnx", relu_model(opset=19), "opset 19 is not supported")
    write("axis_out_of_range.onnx", model([n("Softmax", ["x"], ["y"], name="sm", axis=3)], [f32("x", [2, 3])],
                                          [f32("y", [2, 3])]), "axis 3 is out of range for a rank-2 input")
    write("broadcast_mismatch.onnx", model([n("Add", ["x", "z"], ["y"], name="add")], [f32("x", [2, 3]), f32("z", [4, 5])],
                                           [f32("y", [2, 3])]), "do not broadcast")
    write("matmul_mismatch.onnx", model([n("MatMul", ["x", "z"], ["y"], name="mm")], [f32("x", [2, 3]), f32("z", [4, 5])],
                                        [f32("y", [2, 5])]), "matmul inner dimensions differ")
    write("int_input.onnx", model([n("Relu", ["x"], ["y"], name="relu")],
                                  [helper.make_tensor_value_info("x", TensorProto.INT64, [2])], [f32("y", [2])]),
          "only f32 run-time inputs are supported")
    write("runtime_cast_to_int.onnx", model([n("Cast", ["x"], ["i"], name="to_int", to=TensorProto.INT64),
                                             n("Reshape", ["x", "i"], ["y"], name="reshape")], [f32("x", [2])], [f32("y", [2])]),
          "casting a run-time tensor to i64 is not supported")
    write("defined_twice.onnx", model([n("Relu", ["x"], ["y"], name="a"), n("Abs", ["x"], ["y"], name="b")], [f32("x", [2])],
                                      [f32("y", [2])]), "value 'y' is defined twice")
    write("output_never_computed.onnx", model([n("Relu", ["x"], ["y"], name="relu")], [f32("x", [2])], [f32("z", [2])]),
          "graph output 'z' is never computed")
    bad_raw = helper.make_tensor("w", TensorProto.FLOAT, [1], b"\x00\x00\x80\x3f", raw=True)
    bad_raw.dims[0] = 4  # 1 float stored, 4 declared
    write("raw_data_short.onnx", model([n("Add", ["x", "w"], ["y"], name="add")], [f32("x", [4])], [f32("y", [4])], [bad_raw]),
          "raw data holds 4 bytes, expected 16")
    external = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
    external.data_location = TensorProto.EXTERNAL
    write("external_data.onnx", model([n("Add", ["x", "w"], ["y"], name="add")], [f32("x", [2])], [f32("y", [2])], [external]),
          "external tensor data is not supported")
    write("conv_3d.onnx", model([n("Conv", ["x", "w"], ["y"], name="conv3d")], [f32("x", [1, 1, 4, 4, 4])], [f32("y", [1])],
                                [numpy_helper.from_array(np.ones((1, 1, 2, 2, 2), np.float32), "w")]),
          "only 1-D and 2-D convolution")
    write("pad_reflect.onnx", model([n("Pad", ["x", "pads"], ["y"], name="pad", mode="reflect")], [f32("x", [2, 3])],
                                    [f32("y", [4, 5])], [ints("pads", [1, 1, 1, 1])]), "mode 'reflect' is not supported")
    write("training_dropout.onnx", model([n("Dropout", ["x", "", "train"], ["y"], name="drop")], [f32("x", [2])], [f32("y", [2])],
                                         [numpy_helper.from_array(np.array(True), "train")]), "training_mode=true")
    write("split_uneven.onnx", model([n("Split", ["x"], ["a", "b"], name="split")], [f32("x", [5])], [f32("a", [2]), f32("b", [3])]),
          "does not split evenly")
    write("reshape_wrong_size.onnx", model([n("Reshape", ["x", "s"], ["y"], name="reshape")], [f32("x", [2, 3])], [f32("y", [4, 4])],
                                           [ints("s", [4, 4])]), "cannot reshape [2,3] to [4,4]")
    write("runtime_shape_input.onnx", model([n("Reshape", ["x", "s"], ["y"], name="reshape")], [f32("x", [2, 3]), f32("s", [2])],
                                            [f32("y", [3, 2])]), "must be a constant")
    write("declared_output_mismatch.onnx", model([n("Relu", ["x"], ["y"], name="relu")], [f32("x", [2, 3])], [f32("y", [3, 3])]),
          "graph output 'y' is declared [3,3] but computes [2,3]")
    # Hostile sizes: each must be refused before any arithmetic can overflow or memory run out.
    write("expand_negative.onnx", model([n("Expand", ["x", "s"], ["y"], name="expand")], [f32("x", [1])], [f32("y", [5])],
                                        [ints("s", [-5])]), "negative extent")
    write("tile_huge.onnx", model([n("Tile", ["x", "r"], ["y"], name="tile")], [f32("x", [2])], [f32("y", [2])],
                                  [ints("r", [1 << 40])]), "repeat count 1099511627776 is out of range")
    write("huge_input.onnx", model([n("Relu", ["x"], ["y"], name="relu")], [f32("x", [1 << 30, 1 << 30, 1 << 30])],
                                   [f32("y", [1])]), "too large")
    write("conv_huge_pads.onnx", model([n("Conv", ["x", "w"], ["y"], name="conv", pads=[1 << 40] * 4)],
                                       [f32("x", [1, 1, 4, 4])], [f32("y", [1])],
                                       [numpy_helper.from_array(np.ones((1, 1, 2, 2), np.float32), "w")]),
          "window pads must be in [0, 2^20]")
    # A Range of 5 * 10^7 elements from three scalars: folding it took 3.2 s and 2.5 GB before an error (issue #19).
    scalar = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.float32), name)
    write("range_huge.onnx", model([n("Range", ["start", "limit", "delta"], ["r"], name="range"),
                                    n("Add", ["x", "r"], ["y"], name="add")],
                                   [f32("x", [1])], [f32("y", [50000000])],
                                   [scalar("start", 0.0), scalar("limit", 5e7), scalar("delta", 1.0)]),
          "Range would hold 50000000 elements, over the limit of 16777216 (kMaxFoldedElements)")
    # Pads whose blocks alone hold 2^31 elements: 22 s and 17 GB before an error (found by fuzz_onnx_import).
    write("pad_huge.onnx", model([n("Pad", ["x", "pads"], ["y"], name="pad")], [f32("x", [2, 3])], [f32("y", [2, 3])],
                                 [ints("pads", [0, 1 << 30, 0, 1 << 30])]),
          "the padded result would have more than 2^31 elements (kMaxTensorElements)")
    with open(os.path.join(OUT, "expected.tsv"), "w") as f:
        for name, text in expected:
            f.write(f"{name}\t{text}\n")


if __name__ == "__main__":
    main()
