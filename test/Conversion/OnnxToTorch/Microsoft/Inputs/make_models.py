#!/usr/bin/env python3
"""Writes the .onnx inputs of the com.microsoft lit tests next to this script.

    .venv/bin/python test/Conversion/OnnxToTorch/Microsoft/Inputs/make_models.py
"""

import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))


def unknown_ops():
    """A com.microsoft op qlower has no rule for, and an op of a domain it does not know."""
    s = helper.make_tensor("s", TensorProto.FLOAT, [], [0.1])
    z = helper.make_tensor("z", TensorProto.UINT8, [], [128])
    nodes = [
        helper.make_node("QLinearReduceMean", ["x", "s", "z", "s", "z"], ["m"],
                         domain="com.microsoft", name="qmean"),
        helper.make_node("Frobnicate", ["m"], ["y"], domain="ai.example", name="frob"),
    ]
    graph = helper.make_graph(
        nodes, "unknown_ops", [helper.make_tensor_value_info("x", TensorProto.UINT8, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [2, 3])], [s, z])
    model = helper.make_model(graph, producer_name="qlower-tests", opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1),
        helper.make_opsetid("ai.example", 3)])
    model.ir_version = 10
    return model


if __name__ == "__main__":
    onnx.save(unknown_ops(), os.path.join(HERE, "unknown_ops.onnx"))
