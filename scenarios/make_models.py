#!/usr/bin/python3
"""Writes full-model ONNX files with real architectures and random weights into OUTDIR.

    scenarios/make_models.py [--weights-as-inputs] OUTDIR [NAME...]

ShuffleNetV2 x1.0, EfficientNet-B0, a small ViT, a BERT-like encoder and GPT-2 attention decode
steps (batch 1 and 8, KV cache of 512): the layer structure and every shape of the published
models, batch norms folded into the convolutions as exporters do, weights from a fixed seed. The
files are 10-60 MB, so they are made where they are used (bench_search, the scale tests) and never
committed. Debian's python3-onnx and numpy only; no network, no model hub (docs/scale.md).

--weights-as-inputs makes every weight a graph input instead of an initializer: the file is then a few
kB with every activation at its real size, which is how scenarios/models/bert_encoder.onnx, the app's
full-model example, is bundled (`scenarios/make_models.py --weights-as-inputs scenarios/models
bert_encoder`).
"""
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class Model:
    """A graph under construction: nodes, initializers, unique names."""

    weights_as_inputs = False  # set by --weights-as-inputs for every model

    def __init__(self, name, seed):
        self.name, self.nodes, self.inits, self.count = name, [], [], 0
        self.weight_inputs = []
        self.rng = np.random.default_rng(seed)

    def fresh(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def weight(self, shape, scale=None):
        scale = scale if scale is not None else 1.0 / math.sqrt(max(1, int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]))
        name = self.fresh("w")
        if Model.weights_as_inputs:
            self.weight_inputs.append(f32(name, list(shape)))
            return name
        self.inits.append(numpy_helper.from_array((self.rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def const(self, values, dtype=np.int64):
        name = self.fresh("c")
        self.inits.append(numpy_helper.from_array(np.array(values, dtype=dtype), name))
        return name

    def op(self, kind, inputs, **attrs):
        out = self.fresh(kind.lower())
        self.nodes.append(helper.make_node(kind, inputs, [out], name=out, **attrs))
        return out

    def ops(self, kind, inputs, outputs, **attrs):
        outs = [self.fresh(kind.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(kind, inputs, outs, name=outs[0], **attrs))
        return outs

    def save(self, outdir, inputs, outputs):
        graph = helper.make_graph(self.nodes, self.name, inputs + self.weight_inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="gir-models")
        model.ir_version = 8
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(outdir, self.name + ".onnx"))


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


# ---- convolutional networks ----

def conv(m, x, cin, cout, k, stride=1, group=1, bias=True):
    w = m.weight([cout, cin // group, k, k])
    inputs = [x, w] + ([m.weight([cout], 0.1)] if bias else [])
    pad = (k - 1) // 2
    return m.op("Conv", inputs, kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4, group=group)


def relu(m, x):
    return m.op("Relu", [x])


def silu(m, x):
    return m.op("Mul", [x, m.op("Sigmoid", [x])])


def channel_shuffle(m, x, channels, hw):
    r = m.op("Reshape", [x, m.const([1, 2, channels // 2, hw, hw])])
    t = m.op("Transpose", [r], perm=[0, 2, 1, 3, 4])
    return m.op("Reshape", [t, m.const([1, channels, hw, hw])])


def shufflenet_unit(m, x, cin, cout, hw, stride):
    half = cout // 2
    if stride == 1:
        x1, x2 = m.ops("Split", [x, m.const([half, half])], 2, axis=1)
        b = relu(m, conv(m, x2, half, half, 1))
        b = conv(m, b, half, half, 3, 1, group=half)
        b = relu(m, conv(m, b, half, half, 1))
        out_hw = hw
    else:
        x1 = conv(m, x, cin, cin, 3, 2, group=cin)
        x1 = relu(m, conv(m, x1, cin, half, 1))
        b = relu(m, conv(m, x, cin, half, 1))
        b = conv(m, b, half, half, 3, 2, group=half)
        b = relu(m, conv(m, b, half, half, 1))
        out_hw = hw // 2
    c = m.op("Concat", [x1, b], axis=1)
    return channel_shuffle(m, c, cout, out_hw), out_hw


def shufflenet_v2(outdir):
    m = Model("shufflenet_v2_x1_0", 1)
    x = relu(m, conv(m, "input", 3, 24, 3, 2))
    x = m.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin, hw = 24, 56
    for cout, repeats in ((116, 4), (232, 8), (464, 4)):
        for i in range(repeats):
            x, hw = shufflenet_unit(m, x, cin, cout, hw, 2 if i == 0 else 1)
            cin = cout
    x = relu(m, conv(m, x, 464, 1024, 1))
    x = m.op("GlobalAveragePool", [x])
    x = m.op("Flatten", [x])
    y = m.op("Gemm", [x, m.weight([1000, 1024]), m.weight([1000], 0.1)], transB=1)
    m.nodes[-1].output[0] = "logits"
    m.save(outdir, [f32("input", [1, 3, 224, 224])], [f32("logits", [1, 1000])])


def mbconv(m, x, cin, cout, expand, k, stride):
    mid = cin * expand
    h = silu(m, conv(m, x, cin, mid, 1)) if expand != 1 else x
    h = silu(m, conv(m, h, mid, mid, k, stride, group=mid))
    squeeze = max(1, cin // 4)
    s = m.op("GlobalAveragePool", [h])
    s = silu(m, conv(m, s, mid, squeeze, 1))
    s = m.op("Sigmoid", [conv(m, s, squeeze, mid, 1)])
    h = m.op("Mul", [h, s])
    h = conv(m, h, mid, cout, 1)
    return m.op("Add", [h, x]) if stride == 1 and cin == cout else h


def efficientnet_b0(outdir):
    m = Model("efficientnet_b0", 2)
    x = silu(m, conv(m, "input", 3, 32, 3, 2))
    cin = 32
    for expand, k, stride, cout, repeats in ((1, 3, 1, 16, 1), (6, 3, 2, 24, 2), (6, 5, 2, 40, 2), (6, 3, 2, 80, 3),
                                             (6, 5, 1, 112, 3), (6, 5, 2, 192, 4), (6, 3, 1, 320, 1)):
        for i in range(repeats):
            x = mbconv(m, x, cin, cout, expand, k, stride if i == 0 else 1)
            cin = cout
    x = silu(m, conv(m, x, 320, 1280, 1))
    x = m.op("GlobalAveragePool", [x])
    x = m.op("Flatten", [x])
    m.op("Gemm", [x, m.weight([1000, 1280]), m.weight([1000], 0.1)], transB=1)
    m.nodes[-1].output[0] = "logits"
    m.save(outdir, [f32("input", [1, 3, 224, 224])], [f32("logits", [1, 1000])])


# ---- transformers ----

def linear(m, x, cin, cout):
    return m.op("Add", [m.op("MatMul", [x, m.weight([cin, cout])]), m.weight([cout], 0.02)])


def layer_norm(m, x, width):
    return m.op("LayerNormalization", [x, m.weight([width], 1.0), m.weight([width], 0.02)], axis=-1, epsilon=1e-5)


def gelu(m, x):
    e = m.op("Erf", [m.op("Div", [x, m.const(math.sqrt(2.0), np.float32)])])
    return m.op("Mul", [m.op("Mul", [x, m.op("Add", [e, m.const(1.0, np.float32)])]), m.const(0.5, np.float32)])


def to_heads(m, x, batch, seq, heads, dhead):
    r = m.op("Reshape", [x, m.const([batch, seq, heads, dhead])])
    return m.op("Transpose", [r], perm=[0, 2, 1, 3])


def from_heads(m, x, batch, seq, width):
    t = m.op("Transpose", [x], perm=[0, 2, 1, 3])
    return m.op("Reshape", [t, m.const([batch, seq, width])])


def attention(m, x, batch, seq, width, heads, mask=None):
    dhead = width // heads
    q = to_heads(m, linear(m, x, width, width), batch, seq, heads, dhead)
    k = to_heads(m, linear(m, x, width, width), batch, seq, heads, dhead)
    v = to_heads(m, linear(m, x, width, width), batch, seq, heads, dhead)
    s = m.op("Div", [m.op("MatMul", [q, m.op("Transpose", [k], perm=[0, 1, 3, 2])]), m.const(math.sqrt(dhead), np.float32)])
    if mask is not None:
        s = m.op("Add", [s, mask])
    p = m.op("Softmax", [s], axis=-1)
    return linear(m, from_heads(m, m.op("MatMul", [p, v]), batch, seq, width), width, width)


def encoder_layer(m, x, batch, seq, width, heads, mlp, pre_norm, mask=None):
    if pre_norm:  # ViT
        x = m.op("Add", [x, attention(m, layer_norm(m, x, width), batch, seq, width, heads, mask)])
        return m.op("Add", [x, linear(m, gelu(m, linear(m, layer_norm(m, x, width), width, mlp)), mlp, width)])
    x = layer_norm(m, m.op("Add", [x, attention(m, x, batch, seq, width, heads, mask)]), width)  # BERT
    return layer_norm(m, m.op("Add", [x, linear(m, gelu(m, linear(m, x, width, mlp)), mlp, width)]), width)


def vit_small(outdir):
    """ViT-Ti/16 widths (192, 3 heads, MLP 768), 6 layers, 224x224."""
    m = Model("vit_small", 3)
    width, heads, layers, patches = 192, 3, 6, 196
    p = m.op("Conv", ["input", m.weight([width, 3, 16, 16]), m.weight([width], 0.02)], kernel_shape=[16, 16], strides=[16, 16])
    p = m.op("Transpose", [m.op("Reshape", [p, m.const([1, width, patches])])], perm=[0, 2, 1])
    x = m.op("Concat", [m.weight([1, 1, width], 0.02), p], axis=1)
    x = m.op("Add", [x, m.weight([1, patches + 1, width], 0.02)])
    for _ in range(layers):
        x = encoder_layer(m, x, 1, patches + 1, width, heads, 4 * width, pre_norm=True)
    x = layer_norm(m, x, width)
    cls = m.op("Slice", [x, m.const([0]), m.const([1]), m.const([1])])
    cls = m.op("Reshape", [cls, m.const([1, width])])
    m.op("Gemm", [cls, m.weight([1000, width]), m.weight([1000], 0.02)], transB=1)
    m.nodes[-1].output[0] = "logits"
    m.save(outdir, [f32("input", [1, 3, 224, 224])], [f32("logits", [1, 1000])])


def bert_encoder(outdir):
    """BERT-base widths (768, 12 heads, MLP 3072), 2 layers, batch 8, sequence 128, additive mask."""
    m = Model("bert_encoder", 4)
    batch, seq, width, heads = 8, 128, 768, 12
    x = layer_norm(m, "embeddings", width)
    for _ in range(2):
        x = encoder_layer(m, x, batch, seq, width, heads, 4 * width, pre_norm=False, mask="mask")
    m.nodes[-1].output[0] = "hidden"
    m.save(outdir, [f32("embeddings", [batch, seq, width]), f32("mask", [batch, 1, 1, seq])], [f32("hidden", [batch, seq, width])])


def gpt2_decode(outdir, batch):
    """GPT-2 small attention block, one decode step over a KV cache of 512."""
    m = Model(f"gpt2_decode_b{batch}", 5 + batch)
    width, heads, past = 768, 12, 512
    dhead = width // heads
    h = layer_norm(m, "x", width)
    q = to_heads(m, linear(m, h, width, width), batch, 1, heads, dhead)
    k = to_heads(m, linear(m, h, width, width), batch, 1, heads, dhead)
    v = to_heads(m, linear(m, h, width, width), batch, 1, heads, dhead)
    k_all = m.op("Concat", ["k_cache", k], axis=2)
    v_all = m.op("Concat", ["v_cache", v], axis=2)
    s = m.op("Div", [m.op("MatMul", [q, m.op("Transpose", [k_all], perm=[0, 1, 3, 2])]), m.const(math.sqrt(dhead), np.float32)])
    p = m.op("Softmax", [s], axis=-1)
    o = linear(m, from_heads(m, m.op("MatMul", [p, v_all]), batch, 1, width), width, width)
    m.op("Add", ["x", o])
    m.nodes[-1].output[0] = "y"
    for node in m.nodes:
        for i, name in enumerate(node.output):
            if name == k_all:
                node.output[i] = "k_all"
            if name == v_all:
                node.output[i] = "v_all"
        for i, name in enumerate(node.input):
            if name == k_all:
                node.input[i] = "k_all"
            if name == v_all:
                node.input[i] = "v_all"
    cache = [batch, heads, past, dhead]
    m.save(outdir, [f32("x", [batch, 1, width]), f32("k_cache", cache), f32("v_cache", cache)],
           [f32("y", [batch, 1, width]), f32("k_all", [batch, heads, past + 1, dhead]), f32("v_all", [batch, heads, past + 1, dhead])])


MODELS = {
    "shufflenet_v2_x1_0": shufflenet_v2,
    "efficientnet_b0": efficientnet_b0,
    "vit_small": vit_small,
    "bert_encoder": bert_encoder,
    "gpt2_decode_b1": lambda d: gpt2_decode(d, 1),
    "gpt2_decode_b8": lambda d: gpt2_decode(d, 8),
}


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "--weights-as-inputs":
        Model.weights_as_inputs = True
        args = args[1:]
    if not args:
        sys.exit(__doc__)
    outdir = args[0]
    os.makedirs(outdir, exist_ok=True)
    for name in args[1:] or MODELS:
        if name not in MODELS:
            sys.exit(f"unknown model '{name}' (expected one of {', '.join(MODELS)})")
        MODELS[name](outdir)
        print("wrote", os.path.join(outdir, name + ".onnx"), file=sys.stderr)
