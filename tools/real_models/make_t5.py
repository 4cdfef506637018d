#!/usr/bin/env python3
"""A small T5-style encoder built from ONNX ops, for the real-model test.

    make_t5.py OUT.onnx [--dynamic OUT_DYNAMIC.onnx] [--v1.1]

No PyPI package ships a quantized T5 encoder small enough to test with, so this builds one
with onnx.helper and fixed random weights (seed 0): 2 layers, d_model 64, 4 heads, d_ff 128,
vocabulary 256. It has what makes T5 hard to lower, all computed in the graph from the
run-time sequence length:
- relative position buckets (bidirectional, 32 buckets, max distance 128): Shape -> Range ->
  Sub, then the log-spaced bucket arithmetic with Abs/Greater/Less/Log/Div/Min/Where;
- the position bias sliced to the last `seq` query rows with a Slice whose starts and ends
  are computed lengths, as T5's exported encoders do;
- attention without scaling (T5's), behind an additive padding mask of float32's lowest
  value made from `attention_mask`;
- RMSNorm (Pow/ReduceMean/Add/Sqrt/Div/Mul) and a ReLU feed-forward.

`--v1.1` writes a T5 v1.1-sized encoder instead (4 layers, d_model 256, 4 heads, d_ff 1024)
whose feed-forward is v1.1's gated GELU in its tanh form, as exported:
`0.5·h·(1 + tanh(√(2/π)·(h + 0.044715·Pow(h, 3)))) · (x·wi_1)` with h = x·wi_0.

Inputs: `input_ids` int64 [1, seq] and `attention_mask` int64 [1, seq], `seq` unknown at
compile time. Output: `last_hidden_state` float32 [1, seq, 64].

`--dynamic` also writes the model quantized by ONNX Runtime's `quantize_dynamic` (int8
weights); the real-model harness makes that form itself from OUT.onnx.
"""

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

VOCAB = 256
BUCKETS, MAX_DISTANCE = 32, 128
EPS = 1e-6
OPSET = 17


class Config:
    """The encoder's sizes and feed-forward: T5's (ReLU) or v1.1's (gated tanh GELU)."""

    def __init__(self, v11=False):
        self.layers, self.d_model, self.heads, self.d_ff = (4, 256, 4, 1024) if v11 else (2, 64, 4, 128)
        self.d_head = self.d_model // self.heads
        self.gated_gelu = v11


class Builder:
    """Collects nodes and initializers; every name it makes is unique."""

    def __init__(self, seed, cfg=None):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0
        self.cfg = cfg or Config()

    def name(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def const(self, value, hint="c"):
        name = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def weight(self, shape, std, hint):
        return self.const(self.rng.normal(0.0, std, shape).astype(np.float32), hint)

    def op(self, op_type, inputs, hint=None, **attrs):
        out = self.name(hint or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out


def rms_norm(b, x, hint):
    # T5's layer norm: scale only, no mean subtraction, no bias.
    weight = b.const(b.rng.uniform(0.8, 1.2, [b.cfg.d_model]).astype(np.float32), f"{hint}_weight")
    variance = b.op("ReduceMean", [b.op("Pow", [x, b.const(np.float32(2.0))])], axes=[-1], keepdims=1)
    norm = b.op("Div", [x, b.op("Sqrt", [b.op("Add", [variance, b.const(np.float32(EPS))])])])
    return b.op("Mul", [norm, weight], hint)


def position_buckets(b, seq_1d):
    """[seq, seq] int64 bucket of (key position - query position), T5's bidirectional rule."""
    seq = b.op("Squeeze", [seq_1d, b.const(np.array([0], np.int64))])
    positions = b.op("Range", [b.const(np.int64(0)), seq, b.const(np.int64(1))], "positions")
    keys = b.op("Unsqueeze", [positions, b.const(np.array([0], np.int64))])
    queries = b.op("Unsqueeze", [positions, b.const(np.array([1], np.int64))])
    relative = b.op("Sub", [keys, queries], "relative_position")
    half = BUCKETS // 2
    max_exact = half // 2
    # Keys after the query use the upper half of the buckets.
    after = b.op("Cast", [b.op("Greater", [relative, b.const(np.int64(0))])], to=TensorProto.INT64)
    base = b.op("Mul", [after, b.const(np.int64(half))])
    distance = b.op("Abs", [relative])
    small = b.op("Less", [distance, b.const(np.int64(max_exact))])
    # Log-spaced buckets for the far distances. The distance is clamped to max_exact first
    # so that log never sees 0: those entries take the `small` branch anyway.
    far = b.op("Cast", [b.op("Max", [distance, b.const(np.int64(max_exact))])], to=TensorProto.FLOAT)
    scaled = b.op("Div", [b.op("Log", [b.op("Div", [far, b.const(np.float32(max_exact))])]),
                          b.const(np.float32(np.log(MAX_DISTANCE / max_exact)))])
    offset = b.op("Cast", [b.op("Mul", [scaled, b.const(np.float32(half - max_exact))])], to=TensorProto.INT64)
    large = b.op("Min", [b.op("Add", [offset, b.const(np.int64(max_exact))]), b.const(np.int64(half - 1))])
    return b.op("Add", [base, b.op("Where", [small, distance, large])], "buckets")


def attention(b, x, bias, layer):
    D_MODEL, HEADS, D_HEAD = b.cfg.d_model, b.cfg.heads, b.cfg.d_head

    def heads(t):
        # [1, seq, d_model] -> [1, heads, seq, d_head]
        t = b.op("Reshape", [t, b.const(np.array([1, -1, HEADS, D_HEAD], np.int64))])
        return b.op("Transpose", [t], perm=[0, 2, 1, 3])

    std = D_MODEL ** -0.5
    q = heads(b.op("MatMul", [x, b.weight([D_MODEL, D_MODEL], std, f"l{layer}_q")]))
    k = heads(b.op("MatMul", [x, b.weight([D_MODEL, D_MODEL], std, f"l{layer}_k")]))
    v = heads(b.op("MatMul", [x, b.weight([D_MODEL, D_MODEL], std, f"l{layer}_v")]))
    # T5 does not scale the scores by 1/sqrt(d_head).
    scores = b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 1, 3, 2])], f"l{layer}_scores")
    probs = b.op("Softmax", [b.op("Add", [scores, bias])], f"l{layer}_probs", axis=-1)
    context = b.op("Transpose", [b.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
    context = b.op("Reshape", [context, b.const(np.array([1, -1, D_MODEL], np.int64))])
    return b.op("MatMul", [context, b.weight([D_MODEL, D_MODEL], std, f"l{layer}_o")], f"l{layer}_attn")


def feed_forward(b, x, layer):
    D_MODEL, D_FF = b.cfg.d_model, b.cfg.d_ff
    if b.cfg.gated_gelu:
        h = b.op("MatMul", [x, b.weight([D_MODEL, D_FF], D_MODEL ** -0.5, f"l{layer}_wi_0")])
        cube = b.op("Pow", [h, b.const(np.float32(3.0))])
        inner = b.op("Mul", [b.op("Add", [h, b.op("Mul", [cube, b.const(np.float32(0.044715))])]),
                             b.const(np.float32(np.sqrt(2.0 / np.pi)))])
        half = b.op("Mul", [h, b.const(np.float32(0.5))])
        gelu = b.op("Mul", [half, b.op("Add", [b.op("Tanh", [inner]), b.const(np.float32(1.0))])], f"l{layer}_gelu")
        linear = b.op("MatMul", [x, b.weight([D_MODEL, D_FF], D_MODEL ** -0.5, f"l{layer}_wi_1")])
        hidden = b.op("Mul", [gelu, linear], f"l{layer}_gated")
    else:
        hidden = b.op("Relu", [b.op("MatMul", [x, b.weight([D_MODEL, D_FF], D_MODEL ** -0.5, f"l{layer}_wi")])])
    return b.op("MatMul", [hidden, b.weight([D_FF, D_MODEL], D_FF ** -0.5, f"l{layer}_wo")], f"l{layer}_ffn")


def build(seed=0, v11=False):
    b = Builder(seed, Config(v11))
    D_MODEL, HEADS = b.cfg.d_model, b.cfg.heads
    seq_1d = b.op("Slice", [b.op("Shape", ["input_ids"]), b.const(np.array([1], np.int64)),
                            b.const(np.array([2], np.int64))], "seq")

    # Position bias [1, heads, seq, seq], shared by the layers as in T5.
    table = b.weight([BUCKETS, HEADS], 0.5, "relative_attention_bias")
    bias = b.op("Gather", [table, position_buckets(b, seq_1d)])
    bias = b.op("Unsqueeze", [b.op("Transpose", [bias], perm=[2, 0, 1]), b.const(np.array([0], np.int64))])
    # T5 keeps the last `seq` query rows of the bias (they are all of them here, but the
    # bounds are run-time values): starts = -seq, ends = seq + 0 on axis 2.
    bias = b.op("Slice", [bias, b.op("Neg", [seq_1d]), b.op("Add", [seq_1d, b.const(np.array([0], np.int64))]),
                          b.const(np.array([2], np.int64))], "position_bias")

    # Padding mask: 0 where attended, float32's lowest value where padded; [1, 1, 1, seq].
    # The mask is first cut to the sequence length (a Slice whose end is a run-time value).
    mask = b.op("Slice", [b.op("Cast", ["attention_mask"], to=TensorProto.FLOAT),
                          b.const(np.array([0], np.int64)), seq_1d, b.const(np.array([1], np.int64))])
    padded = b.op("Sub", [b.const(np.float32(1.0)), mask])
    additive = b.op("Mul", [padded, b.const(np.float32(np.finfo(np.float32).min))])
    additive = b.op("Unsqueeze", [additive, b.const(np.array([1, 2], np.int64))], "mask")
    bias = b.op("Add", [bias, additive], "attention_bias")

    x = b.op("Gather", [b.weight([VOCAB, D_MODEL], 1.0, "embed_tokens"), "input_ids"], "embeddings")
    for layer in range(b.cfg.layers):
        x = b.op("Add", [x, attention(b, rms_norm(b, x, f"l{layer}_ln0"), bias, layer)])
        x = b.op("Add", [x, feed_forward(b, rms_norm(b, x, f"l{layer}_ln1"), layer)])
    out = rms_norm(b, x, "final_layer_norm")
    b.nodes.append(helper.make_node("Identity", [out], ["last_hidden_state"], name="output"))

    graph = helper.make_graph(
        b.nodes, "t5_style_encoder",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "seq"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, "seq"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [1, "seq", D_MODEL])],
        b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="qlower tools/real_models/make_t5.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--dynamic", help="also write the model quantized by quantize_dynamic here")
    parser.add_argument("--v1.1", dest="v11", action="store_true",
                        help="T5 v1.1's sizes and gated tanh-GELU feed-forward")
    args = parser.parse_args()
    onnx.save(build(v11=args.v11), args.out)
    if args.dynamic:
        from onnxruntime.quantization import QuantType, quantize_dynamic
        quantize_dynamic(args.out, args.dynamic, weight_type=QuantType.QInt8)


if __name__ == "__main__":
    main()
