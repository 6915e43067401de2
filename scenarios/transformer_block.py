"""One small pre-LayerNorm transformer block (GPT style, causal), written the way exporters write it:
the head merge goes through a Shape -> Gather -> Concat -> Reshape chain that import must fold."""
import math

import numpy as np
from onnx import helper, numpy_helper

SEQ, HIDDEN, HEADS, FFN = 32, 128, 4, 512
DHEAD = HIDDEN // HEADS


def linear(x, out, prefix, fan_in, fan_out, weight):
    n = helper.make_node
    nodes = [n("MatMul", [x, prefix + "_w"], [prefix + "_mm"], name=prefix + "_matmul"),
             n("Add", [prefix + "_mm", prefix + "_b"], [out], name=prefix + "_bias")]
    return nodes, [weight(prefix + "_w", [fan_in, fan_out], 1.0 / math.sqrt(fan_in)), weight(prefix + "_b", [fan_out])]


def attention(n, weight, ints, scalar, heads):
    nodes, inits = [], []
    for name in ("q", "k", "v"):
        ln, li = linear("ln1_out", name + "_proj", name, HIDDEN, HIDDEN, weight)
        hn, hi = heads(name + "_proj", name + "_heads", name, SEQ, HEADS, DHEAD)
        nodes += ln + hn
        inits += li + hi
    causal = np.tril(np.ones((SEQ, SEQ), dtype=bool))
    nodes += [
        n("Transpose", ["k_heads"], ["k_t"], name="k_transpose", perm=[0, 1, 3, 2]),
        n("MatMul", ["q_heads", "k_t"], ["scores"], name="qk"),
        n("Div", ["scores", "attn_scale"], ["scaled"], name="attn_scale_div"),
        n("Where", ["causal_mask", "scaled", "masked_value"], ["masked"], name="causal_mask_where"),
        n("Softmax", ["masked"], ["probs"], name="attn_softmax", axis=-1),
        n("MatMul", ["probs", "v_heads"], ["ctx"], name="pv"),
        n("Transpose", ["ctx"], ["ctx_t"], name="merge_heads", perm=[0, 2, 1, 3]),
        # The exporter's dynamic-shape idiom: [batch, seq] from Shape(x), then the hidden size.
        n("Shape", ["x"], ["x_shape"], name="x_shape"),
        n("Gather", ["x_shape", "batch_seq_idx"], ["batch_seq"], name="gather_batch_seq", axis=0),
        n("Concat", ["batch_seq", "hidden_size"], ["merged_shape"], name="merged_shape_concat", axis=0),
        n("Reshape", ["ctx_t", "merged_shape"], ["ctx_m"], name="merge_reshape"),
    ]
    inits += [scalar("attn_scale", math.sqrt(DHEAD)), numpy_helper.from_array(causal, "causal_mask"),
              scalar("masked_value", -1e9), ints("batch_seq_idx", [0, 1]), ints("hidden_size", [HIDDEN])]
    ln, li = linear("ctx_m", "attn_out", "o", HIDDEN, HIDDEN, weight)
    return nodes + ln, inits + li


def build(save, f32, weight, ints, scalar, layer_norm_nodes, gelu_nodes, heads):
    n = helper.make_node
    nodes, inits = layer_norm_nodes("x", "ln1_out", "ln1", HIDDEN)
    an, ai = attention(n, weight, ints, scalar, heads)
    nodes += an
    inits += ai
    nodes.append(n("Add", ["x", "attn_out"], ["res1"], name="residual1"))
    ln2, ln2i = layer_norm_nodes("res1", "ln2_out", "ln2", HIDDEN)
    up, upi = linear("ln2_out", "ffn_up", "ffn1", HIDDEN, FFN, weight)
    gn, gi = gelu_nodes("ffn_up", "ffn_act", "gelu")
    down, downi = linear("ffn_act", "ffn_down", "ffn2", FFN, HIDDEN, weight)
    nodes += ln2 + up + gn + down + [n("Add", ["res1", "ffn_down"], ["y"], name="residual2")]
    inits += ln2i + upi + gi + downi
    save("transformer_block", nodes, [f32("x", [1, SEQ, HIDDEN])], [f32("y", [1, SEQ, HIDDEN])], inits)
