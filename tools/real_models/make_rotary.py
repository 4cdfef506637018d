#!/usr/bin/env python3
"""One com.microsoft RotaryEmbedding node at an LLM's size, for `qlower --emit backend`
(which shows `qlower.rotary_embedding`) and `qlower bench --profile` of the fused kernel
against the unfused ops, plus the inputs to bench it with.

    make_rotary.py OUT_DIR [--interleaved] [--rank 3|4] [--heads 32] [--head-size 128]
                           [--sequence 512] [--rotary-dim D]

Writes OUT_DIR/rotary.onnx, OUT_DIR/x.npy and OUT_DIR/pos.npy, then e.g.

    qlower bench OUT_DIR/rotary.onnx -i x=OUT_DIR/x.npy -i pos=OUT_DIR/pos.npy --profile

Rank 3 is input [1, S, heads · head_size] with position ids [1, S] (0 ... S − 1); rank 4
is [1, heads, S, head_size] with one position offset (7). The caches hold 4096 positions
of the usual inverse-frequency angles (base 10000). Inputs are random normal (seed 0).
"""

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

POSITIONS = 4096


def build(rank, heads, head_size, sequence, interleaved, rotary_dim):
    half = (rotary_dim or head_size) // 2
    if rank == 3:
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, sequence, heads * head_size])
        pos = helper.make_tensor_value_info("pos", TensorProto.INT64, [1, sequence])
    else:
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, heads, sequence, head_size])
        pos = helper.make_tensor_value_info("pos", TensorProto.INT64, [1])
    angles = np.arange(POSITIONS)[:, None] * (10000.0 ** (-np.arange(half) / half))[None]
    caches = [helper.make_tensor(name, TensorProto.FLOAT, [POSITIONS, half],
                                 f(angles).astype(np.float32).ravel())
              for name, f in (("cos", np.cos), ("sin", np.sin))]
    attrs = {"interleaved": int(interleaved)}
    if rank == 3:
        attrs["num_heads"] = heads
    if rotary_dim:
        attrs["rotary_embedding_dim"] = rotary_dim
    node = helper.make_node("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"],
                            domain="com.microsoft", **attrs)
    graph = helper.make_graph([node], "rotary", [x, pos],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], caches)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--interleaved", action="store_true")
    ap.add_argument("--rank", type=int, choices=(3, 4), default=3)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--head-size", type=int, default=128)
    ap.add_argument("--sequence", type=int, default=512)
    ap.add_argument("--rotary-dim", type=int, default=0, help="0: the whole head")
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    model = build(args.rank, args.heads, args.head_size, args.sequence, args.interleaved,
                  args.rotary_dim)
    onnx.save(model, os.path.join(args.out_dir, "rotary.onnx"))
    rng = np.random.default_rng(0)
    if args.rank == 3:
        x = rng.standard_normal((1, args.sequence, args.heads * args.head_size))
        pos = np.arange(args.sequence, dtype=np.int64)[None]
    else:
        x = rng.standard_normal((1, args.heads, args.sequence, args.head_size))
        pos = np.array([7], np.int64)
    np.save(os.path.join(args.out_dir, "x.npy"), x.astype(np.float32))
    np.save(os.path.join(args.out_dir, "pos.npy"), pos)


if __name__ == "__main__":
    main()
