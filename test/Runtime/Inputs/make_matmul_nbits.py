#!/usr/bin/env python3
"""matmul_nbits.onnx: two com.microsoft MatMulNBits nodes (4-bit with packed zero points
and a partial last block, K=40 in blocks of 32; 8-bit without zero points, with a bias),
with scales that are powers of two and a small-integer input, so every product and sum
is exact in f32 and ONNX Runtime's output (tools/ort_oracle.py) is the only right one,
byte for byte, whatever the summation order."""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
from qlower_tools import ort_oracle

rng = np.random.default_rng(19)
k, n = 40, 5
a = rng.integers(-4, 5, (3, k)).astype(np.float32)
b4 = rng.integers(0, 256, (n, 2, 16)).astype(np.uint8)
s4 = (2.0 ** -rng.integers(1, 4, n * 2)).astype(np.float32)
z4 = rng.integers(0, 256, (n, 1)).astype(np.uint8)
b8 = rng.integers(0, 256, (n, 2, 32)).astype(np.uint8)
s8 = (2.0 ** -rng.integers(2, 5, n * 2)).astype(np.float32)
bias = rng.integers(-8, 9, n).astype(np.float32)
nodes = [
    helper.make_node("MatMulNBits", ["a", "b4", "s4", "z4"], ["y4"], name="nbits4",
                     domain="com.microsoft", K=k, N=n, bits=4, block_size=32),
    helper.make_node("MatMulNBits", ["a", "b8", "s8", "", "", "bias"], ["y8"], name="nbits8",
                     domain="com.microsoft", K=k, N=n, bits=8, block_size=32),
]
graph = helper.make_graph(
    nodes, "matmul_nbits",
    [helper.make_tensor_value_info("a", TensorProto.FLOAT, [3, k])],
    [helper.make_tensor_value_info(y, TensorProto.FLOAT, [3, n]) for y in ("y4", "y8")],
    [numpy_helper.from_array(v, name) for name, v in
     [("b4", b4), ("s4", s4), ("z4", z4), ("b8", b8), ("s8", s8), ("bias", bias)]])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                helper.make_opsetid("com.microsoft", 1)])
model.ir_version = 8
onnx.save(model, os.path.join(HERE, "matmul_nbits.onnx"))
np.save(os.path.join(HERE, "matmul_nbits_a.npy"), a)
out = ort_oracle.run(model, {"a": a})
for name in ("y4", "y8"):
    np.save(os.path.join(HERE, f"matmul_nbits_{name}.npy"), out[name])
