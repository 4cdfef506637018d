"""Generates examples/quantized_conv.onnx, the model the README compiles.

A float input is quantized to uint8, convolved by QLinearConv with per-channel int8
weights whose zero points differ per channel and an int32 bias, dequantized, and
passed through Relu: the shape of a real quantized CNN's first layer.
Run with the test venv's Python: `.venv/bin/python examples/make_example.py`.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

rng = np.random.RandomState(42)
c_in, c_out = 3, 8
inits = [
    nh.from_array(np.array(0.0078125, np.float32), "x_scale"),
    nh.from_array(np.array(128, np.uint8), "x_zero_point"),
    nh.from_array(rng.randint(-127, 128, (c_out, c_in, 3, 3)).astype(np.int8), "w"),
    nh.from_array((rng.rand(c_out) * 0.01 + 0.001).astype(np.float32), "w_scale"),
    nh.from_array(rng.randint(-3, 4, c_out).astype(np.int8), "w_zero_point"),
    nh.from_array(np.array(0.05, np.float32), "y_scale"),
    nh.from_array(np.array(0, np.uint8), "y_zero_point"),
    nh.from_array(rng.randint(-500, 500, c_out).astype(np.int32), "bias"),
]
nodes = [
    h.make_node("QuantizeLinear", ["input", "x_scale", "x_zero_point"], ["x_q"], name="quantize_input"),
    h.make_node(
        "QLinearConv",
        ["x_q", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point", "bias"],
        ["y_q"],
        name="conv1",
        kernel_shape=[3, 3],
        pads=[1, 1, 1, 1],
        strides=[2, 2],
    ),
    h.make_node("DequantizeLinear", ["y_q", "y_scale", "y_zero_point"], ["y"], name="dequantize_output"),
    h.make_node("Relu", ["y"], ["output"], name="relu"),
]
graph = h.make_graph(
    nodes,
    "quantized_conv",
    [h.make_tensor_value_info("input", T.FLOAT, [1, c_in, 32, 32])],
    [h.make_tensor_value_info("output", T.FLOAT, [1, c_out, 16, 16])],
    inits,
)
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 19)], producer_name="qlower-example", ir_version=10)
onnx.checker.check_model(model, full_check=True)
onnx.save(model, os.path.join(os.path.dirname(os.path.abspath(__file__)), "quantized_conv.onnx"))
