#!/usr/bin/env python3
"""A small decoder-only transformer (GPT/Llama-style) built from ONNX ops, for the
real-model test of weight-only int4 (MatMulNBits) quantization.

    make_decoder.py OUT.onnx

No package ships an LLM small enough to test with, so this builds one with onnx.helper
and fixed random weights (seed 0): 2 layers, d_model 128, 4 heads, d_ff 256,
vocabulary 512, at most 64 positions. It has the parts an exported decoder has:
- token embedding (Gather) plus a learned position embedding gathered with a Range
  over the run-time sequence length;
- a causal mask computed in the graph from that length (Range, Less, Where), added to
  the scaled scores before Softmax;
- pre-norm blocks, RMSNorm (make_t5.py's) before attention and before the MLP, and a
  final LayerNormalization;
- a SiLU-gated MLP (Llama's: down(silu(gate(x)) · up(x))) and an LM head MatMul.

Every projection is a MatMul with a constant 2-D weight, which is what ONNX Runtime's
MatMulNBits quantizer and `qlower quantize --weight-type int4` turn into MatMulNBits.
Input: `input_ids` int64 [1, seq]. Output: `logits` float32 [1, seq, 512].
"""

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper

from qlower_tools.real_models.make_t5 import Builder

LAYERS, D_MODEL, HEADS, D_FF, VOCAB, MAX_POSITIONS = 2, 128, 4, 256, 512, 64
D_HEAD = D_MODEL // HEADS
EPS = 1e-6
OPSET = 17


def rms_norm(b, x, hint):
    weight = b.const(b.rng.uniform(0.8, 1.2, [D_MODEL]).astype(np.float32), f"{hint}_weight")
    variance = b.op("ReduceMean", [b.op("Mul", [x, x])], axes=[-1], keepdims=1)
    norm = b.op("Div", [x, b.op("Sqrt", [b.op("Add", [variance, b.const(np.float32(EPS))])])])
    return b.op("Mul", [norm, weight], hint)


def linear(b, x, k, n, hint):
    return b.op("MatMul", [x, b.weight([k, n], k ** -0.5, hint)], hint)


def causal_mask(b, positions):
    """[seq, seq]: 0 where a query may see a key (key ≤ query), -1e9 elsewhere."""
    keys = b.op("Unsqueeze", [positions, b.const(np.array([0], np.int64))])
    queries = b.op("Unsqueeze", [positions, b.const(np.array([1], np.int64))])
    future = b.op("Less", [queries, keys], "future")
    return b.op("Where", [future, b.const(np.float32(-1e9)), b.const(np.float32(0.0))], "causal_mask")


def attention(b, x, mask, layer):
    def heads(t):
        # [1, seq, d_model] -> [1, heads, seq, d_head]
        t = b.op("Reshape", [t, b.const(np.array([1, -1, HEADS, D_HEAD], np.int64))])
        return b.op("Transpose", [t], perm=[0, 2, 1, 3])

    q = heads(linear(b, x, D_MODEL, D_MODEL, f"l{layer}_q"))
    k = heads(linear(b, x, D_MODEL, D_MODEL, f"l{layer}_k"))
    v = heads(linear(b, x, D_MODEL, D_MODEL, f"l{layer}_v"))
    scores = b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 1, 3, 2])])
    scores = b.op("Mul", [scores, b.const(np.float32(D_HEAD ** -0.5))], f"l{layer}_scores")
    probs = b.op("Softmax", [b.op("Add", [scores, mask])], f"l{layer}_probs", axis=-1)
    context = b.op("Transpose", [b.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
    context = b.op("Reshape", [context, b.const(np.array([1, -1, D_MODEL], np.int64))])
    return linear(b, context, D_MODEL, D_MODEL, f"l{layer}_o")


def mlp(b, x, layer):
    gate = linear(b, x, D_MODEL, D_FF, f"l{layer}_gate")
    silu = b.op("Mul", [gate, b.op("Sigmoid", [gate])])
    up = linear(b, x, D_MODEL, D_FF, f"l{layer}_up")
    return linear(b, b.op("Mul", [silu, up]), D_FF, D_MODEL, f"l{layer}_down")


def build(seed=0):
    b = Builder(seed)
    seq = b.op("Squeeze", [b.op("Slice", [b.op("Shape", ["input_ids"]),
                                          b.const(np.array([1], np.int64)),
                                          b.const(np.array([2], np.int64))]),
                           b.const(np.array([0], np.int64))], "seq")
    positions = b.op("Range", [b.const(np.int64(0)), seq, b.const(np.int64(1))], "positions")
    tokens = b.op("Gather", [b.weight([VOCAB, D_MODEL], 1.0, "embed_tokens"), "input_ids"])
    places = b.op("Gather", [b.weight([MAX_POSITIONS, D_MODEL], 0.5, "embed_positions"), positions])
    x = b.op("Add", [tokens, places], "embeddings")
    mask = causal_mask(b, positions)
    for layer in range(LAYERS):
        x = b.op("Add", [x, attention(b, rms_norm(b, x, f"l{layer}_attn_norm"), mask, layer)])
        x = b.op("Add", [x, mlp(b, rms_norm(b, x, f"l{layer}_mlp_norm"), layer)])
    scale = b.const(b.rng.uniform(0.8, 1.2, [D_MODEL]).astype(np.float32), "final_norm_weight")
    bias = b.const(b.rng.normal(0.0, 0.1, [D_MODEL]).astype(np.float32), "final_norm_bias")
    x = b.op("LayerNormalization", [x, scale, bias], "final_norm", axis=-1, epsilon=EPS)
    logits = linear(b, x, D_MODEL, VOCAB, "lm_head")
    b.nodes.append(helper.make_node("Identity", [logits], ["logits"], name="output"))

    graph = helper.make_graph(
        b.nodes, "decoder_only_transformer",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "seq"])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, "seq", VOCAB])],
        b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="qlower tools/real_models/make_decoder.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    args = ap.parse_args()
    onnx.save(build(), args.out)


if __name__ == "__main__":
    main()
