"""Generates the float models and calibration samples of the `qlower quantize` lit tests.

Run with the test venv's Python (`.venv/bin/python`); the files are written next to
this script and committed, so the lit tests need no Python. Review the diff after a rerun.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.default_rng(3)


def save(nodes, name, inputs, outputs, inits):
    g = h.make_graph(nodes, name, inputs, outputs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
    m.ir_version = 10
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(HERE, name + ".onnx"))


def weight(name, shape):
    return nh.from_array(RNG.standard_normal(shape).astype(np.float32), name)


# A MatMul whose weight is also a graph output, then a Gemm with a bias.
save(
    [
        h.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
        h.make_node("Relu", ["m"], ["r"], name="relu"),
        h.make_node("Gemm", ["r", "w2", "b2"], ["y"], name="gemm"),
    ],
    "mlp",
    [h.make_tensor_value_info("x", T.FLOAT, [2, 8])],
    [h.make_tensor_value_info("y", T.FLOAT, [2, 3]), h.make_tensor_value_info("w", T.FLOAT, [8, 4])],
    [weight("w", [8, 4]), weight("w2", [4, 3]), weight("b2", [3])],
)

# Nothing with a float weight: only a Relu.
save(
    [h.make_node("Relu", ["x"], ["y"], name="relu")],
    "no_weights",
    [h.make_tensor_value_info("x", T.FLOAT, [2, 8])],
    [h.make_tensor_value_info("y", T.FLOAT, [2, 8])],
    [],
)

for folder, arrays in [
    ("calib_ok", {"x": RNG.standard_normal([2, 8]).astype(np.float32)}),
    ("calib_missing_input", {"z": RNG.standard_normal([2, 8]).astype(np.float32)}),
    ("calib_nan", {"x": np.full([2, 8], np.nan, dtype=np.float32)}),
]:
    os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    np.savez(os.path.join(HERE, folder, "sample0.npz"), **arrays)

# For `qlower compare` against a model that takes other inputs: the mlp's graph with a
# batch of 4 (the same names, so the tensors match, but not the input's shape).
mlp = onnx.load(os.path.join(HERE, "mlp.onnx"))
mlp.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 4
mlp.graph.output[0].type.tensor_type.shape.dim[0].dim_value = 4
onnx.checker.check_model(mlp)
onnx.save(mlp, os.path.join(HERE, "mlp_batch4.onnx"))

# Four samples off zero mean: `--bias-correction auto` leaves one out at a time, so it
# needs two or more, and a mean away from zero gives the correction something to do.
os.makedirs(os.path.join(HERE, "calib_four"), exist_ok=True)
for i in range(4):
    x = (RNG.standard_normal([2, 8]) + 1.0).astype(np.float32)
    np.savez(os.path.join(HERE, "calib_four", f"sample{i}.npz"), x=x)
