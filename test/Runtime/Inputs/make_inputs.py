"""Generates the tensor files and models the Runtime lit tests read.

Run with the test venv's Python: `.venv/bin/python test/Runtime/Inputs/make_inputs.py`.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(HERE, name)


def main():
    # A model whose lowering needs only QuantizeLinear / DequantizeLinear kernels.
    nodes = [
        h.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="quantize"),
        h.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], name="dequantize"),
    ]
    inits = [nh.from_array(np.array(0.5, np.float32), "s"), nh.from_array(np.array(10, np.uint8), "z")]
    g = h.make_graph(nodes, "qdq_roundtrip", [h.make_tensor_value_info("x", T.FLOAT, [2, 3])],
                     [h.make_tensor_value_info("q", T.UINT8, [2, 3]), h.make_tensor_value_info("y", T.FLOAT, [2, 3])], inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 19)], producer_name="qlower-tests", ir_version=10)
    onnx.checker.check_model(m)
    onnx.save(m, path("qdq_roundtrip.onnx"))

    # Graph outputs that are not plain results: a Softmax output that an Identity also
    # returns (both name one value), and a Constant node's output.
    nodes = [
        h.make_node("Softmax", ["x"], ["probs"], name="softmax", axis=-1),
        h.make_node("Identity", ["probs"], ["probs_copy"], name="copy"),
        h.make_node("Constant", [], ["zero_point"], name="zp",
                    value=nh.from_array(np.array([3, 5], np.int8), "zp_value")),
    ]
    g = h.make_graph(nodes, "shared_outputs", [h.make_tensor_value_info("x", T.FLOAT, [2, 3])],
                     [h.make_tensor_value_info("probs", T.FLOAT, [2, 3]),
                      h.make_tensor_value_info("probs_copy", T.FLOAT, [2, 3]),
                      h.make_tensor_value_info("zero_point", T.INT8, [2])])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 19)], producer_name="qlower-tests", ir_version=10)
    onnx.checker.check_model(m)
    onnx.save(m, path("shared_outputs.onnx"))

    # A declared input of 10^12 elements: random inputs for it must be refused, not allocated.
    huge = h.make_graph([h.make_node("Relu", ["x"], ["y"], name="relu")], "huge",
                        [h.make_tensor_value_info("x", T.FLOAT, [100000, 100000, 100])],
                        [h.make_tensor_value_info("y", T.FLOAT, [100000, 100000, 100])])
    onnx.save(h.make_model(huge, opset_imports=[h.make_opsetid("", 19)], ir_version=10), path("huge_input.onnx"))

    # Values at .5 boundaries check round-half-to-even; 200 and -100 saturate.
    x = np.array([[0.25, 0.75, 1.25], [-3.0, 200.0, -100.0]], np.float32)
    np.save(path("x.npy"), x)
    with open(path("x.pb"), "wb") as f:
        f.write(nh.from_array(x, "x").SerializeToString())
    np.save(path("x_f64.npy"), x.astype(np.float64))
    np.save(path("x_wrong_shape.npy"), np.zeros((3, 2), np.float32))
    np.save(path("x_fortran.npy"), np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
    np.save(path("x_complex.npy"), np.zeros((2, 3), np.complex64))
    with open(path("x_bad_header.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'")
    # A header whose shape's element count overflows 64 bits; no data follows.
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path("x_overflow.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
    data = nh.from_array(x, "x").SerializeToString()
    with open(path("x_truncated.pb"), "wb") as f:
        f.write(data[: len(data) // 2])


if __name__ == "__main__":
    main()
