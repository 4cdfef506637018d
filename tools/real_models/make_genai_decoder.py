#!/usr/bin/env python3
"""A small int4 decoder-only language model in the form ONNX Runtime GenAI's model
builder writes for the CPU, for the end-to-end test of prefill and decode with a
key/value cache.

    make_genai_decoder.py OUT.onnx [--float]

No package ships an LLM small enough to test with, so this builds one with onnx.helper and
fixed random weights (seed 0): 2 layers, hidden 128, 4 query heads and 2 key/value heads
of 32, MLP 256, vocabulary 512, rotary caches for 256 positions. Its graph is the model
builder's (Llama class):
- inputs `input_ids` int64 [batch, sequence_length], `attention_mask` int64
  [batch, total_sequence_length], and per layer `past_key_values.{i}.key/value` float
  [batch, 2, past_sequence_length, 32]; outputs `logits` and `present.{i}.key/value`;
- `seqlens_k` = ReduceSum(attention_mask) − 1 and `total_sequence_length` =
  Shape(attention_mask)[1], both int32, computed once in the graph;
- token embedding (Gather), then per layer SimplifiedLayerNormalization (the first) or
  SkipSimplifiedLayerNormalization (residual add and norm in one), q/k/v projections,
  com.microsoft GroupQueryAttention with `do_rotary` and the cos/sin caches, the output
  projection, a SkipSimplifiedLayerNormalization, and a SiLU-gated MLP; a final
  SkipSimplifiedLayerNormalization and the LM head;
- every projection a com.microsoft MatMulNBits (4 bits, blocks of 32, symmetric), written
  by ONNX Runtime's own quantizer (`tools/nbits.py`), as the builder does for int4.
`--float` keeps the projections float MatMuls.
"""

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper

from qlower_tools import nbits
from qlower_tools.real_models.make_t5 import Builder

LAYERS, HIDDEN, HEADS, KV_HEADS, HEAD = 2, 128, 4, 2, 32
FF, VOCAB, MAX_POSITIONS, THETA, EPS = 256, 512, 256, 10000.0, 1e-6
MS = "com.microsoft"


def ms_op(b, op_type, inputs, outputs, **attrs):
    b.nodes.append(helper.make_node(op_type, inputs, outputs, name=b.name(op_type), domain=MS, **attrs))
    return outputs


def linear(b, x, k, n, hint):
    return b.op("MatMul", [x, b.weight([k, n], k ** -0.5, hint)], hint)


def norm_weight(b, hint):
    return b.const(b.rng.uniform(0.8, 1.2, [HIDDEN]).astype(np.float32), hint)


def rotary_caches(b):
    inv = 1.0 / THETA ** (np.arange(0, HEAD, 2) / HEAD)
    angles = np.arange(MAX_POSITIONS)[:, None] * inv[None]
    return (b.const(np.cos(angles).astype(np.float32), "cos_cache"),
            b.const(np.sin(angles).astype(np.float32), "sin_cache"))


def build(seed=0):
    b = Builder(seed)
    # The attention mask's bookkeeping, shared by every layer.
    lengths = b.op("ReduceSum", ["attention_mask", b.const(np.array([1], np.int64))], keepdims=0)
    seqlens = b.op("Cast", [b.op("Sub", [lengths, b.const(np.int64(1))])], "seqlens_k",
                   to=TensorProto.INT32)
    total = b.op("Cast", [b.op("Gather", [b.op("Shape", ["attention_mask"]),
                                          b.const(np.int64(1))], axis=0)],
                 "total_seq_len", to=TensorProto.INT32)
    cos, sin = rotary_caches(b)

    x = b.op("Gather", [b.weight([VOCAB, HIDDEN], 1.0, "embed_tokens"), "input_ids"], "embeddings")
    residual = None
    for i in range(LAYERS):
        if residual is None:
            normed = b.name(f"l{i}_input_norm")
            ms_op(b, "SimplifiedLayerNormalization", [x, norm_weight(b, f"l{i}_in_w")], [normed],
                  axis=-1, epsilon=EPS)
            # SimplifiedLayerNormalization is in the default domain in the builder's output.
            b.nodes[-1].domain = ""
            residual = x
        else:
            normed, summed = b.name(f"l{i}_input_norm"), b.name(f"l{i}_residual")
            ms_op(b, "SkipSimplifiedLayerNormalization", [x, residual, norm_weight(b, f"l{i}_in_w")],
                  [normed, "", "", summed], epsilon=EPS)
            residual = summed
        q = linear(b, normed, HIDDEN, HEADS * HEAD, f"l{i}_q_proj")
        k = linear(b, normed, HIDDEN, KV_HEADS * HEAD, f"l{i}_k_proj")
        v = linear(b, normed, HIDDEN, KV_HEADS * HEAD, f"l{i}_v_proj")
        attn = b.name(f"l{i}_attn")
        ms_op(b, "GroupQueryAttention",
              [q, k, v, f"past_key_values.{i}.key", f"past_key_values.{i}.value", seqlens, total,
               cos, sin],
              [attn, f"present.{i}.key", f"present.{i}.value"],
              num_heads=HEADS, kv_num_heads=KV_HEADS, do_rotary=1, rotary_interleaved=0,
              local_window_size=-1, scale=HEAD ** -0.5)
        x = linear(b, attn, HEADS * HEAD, HIDDEN, f"l{i}_o_proj")
        normed, summed = b.name(f"l{i}_post_norm"), b.name(f"l{i}_post_residual")
        ms_op(b, "SkipSimplifiedLayerNormalization", [x, residual, norm_weight(b, f"l{i}_post_w")],
              [normed, "", "", summed], epsilon=EPS)
        residual = summed
        gate = linear(b, normed, HIDDEN, FF, f"l{i}_gate_proj")
        silu = b.op("Mul", [gate, b.op("Sigmoid", [gate])], f"l{i}_act")
        up = linear(b, normed, HIDDEN, FF, f"l{i}_up_proj")
        x = linear(b, b.op("Mul", [silu, up]), FF, HIDDEN, f"l{i}_down_proj")
    final = b.name("final_norm")
    ms_op(b, "SkipSimplifiedLayerNormalization", [x, residual, norm_weight(b, "final_w")],
          [final], epsilon=EPS)
    logits = linear(b, final, HIDDEN, VOCAB, "lm_head")
    b.nodes.append(helper.make_node("Identity", [logits], ["logits"], name="output"))

    cache = ["batch_size", KV_HEADS, "past_sequence_length", HEAD]
    present = ["batch_size", KV_HEADS, "total_sequence_length", HEAD]
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                            ["batch_size", "total_sequence_length"])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                             ["batch_size", "sequence_length", VOCAB])]
    for i in range(LAYERS):
        for kind in ("key", "value"):
            inputs.append(helper.make_tensor_value_info(f"past_key_values.{i}.{kind}", TensorProto.FLOAT, cache))
            outputs.append(helper.make_tensor_value_info(f"present.{i}.{kind}", TensorProto.FLOAT, present))
    graph = helper.make_graph(b.nodes, "genai_decoder", inputs, outputs, b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)],
                              producer_name="qlower tools/real_models/make_genai_decoder.py")
    model.ir_version = 10
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--float", action="store_true", help="keep the projections float MatMuls")
    args = ap.parse_args()
    model = build()
    if not args.float:
        model = nbits.quantize_matmuls(model, 32, symmetric=True)
    onnx.save(model, args.out)


if __name__ == "__main__":
    main()
