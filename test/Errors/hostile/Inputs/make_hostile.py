"""Generates the small hostile models that the lit tests in test/Errors/hostile read.

Run with the test venv's Python (`.venv/bin/python test/Errors/hostile/Inputs/make_hostile.py`);
the files are written next to this script and committed, so the suite itself needs no
Python. Each model is valid protobuf and mostly valid ONNX, wrong in exactly one way.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))


def save(m, name):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(m.SerializeToString())


def model(nodes, inputs, outputs, inits=(), opset=19):
    g = h.make_graph(nodes, "hostile", inputs, outputs, list(inits))
    return h.make_model(g, opset_imports=[h.make_opsetid("", opset)], producer_name="qlower-tests", ir_version=10)


def vi(name, dtype, shape):
    return h.make_tensor_value_info(name, dtype, shape)


def quantize(name, scale, zp, axis=None, x_shape=(2, 3)):
    """x (float) -> QuantizeLinear(scale, zp) -> y."""
    attrs = {} if axis is None else {"axis": axis}
    node = h.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q", **attrs)
    ydt = onnx.helper.np_dtype_to_tensor_dtype(zp.dtype)
    m = model([node], [vi("x", T.FLOAT, list(x_shape))], [vi("y", ydt, list(x_shape))],
              [nh.from_array(scale, "s"), nh.from_array(zp, "z")])
    save(m, name)


def qlinearconv(name, w_scale, w_zp, x_zp=np.array(128, np.uint8)):
    """QLinearConv with 4 output channels on a 1x3x8x8 uint8 input."""
    w = np.ones((4, 3, 3, 3), np.int8)
    inits = [
        nh.from_array(np.array(0.02, np.float32), "x_scale"),
        nh.from_array(x_zp, "x_zero_point"),
        nh.from_array(w, "w"),
        nh.from_array(w_scale, "w_scale"),
        nh.from_array(w_zp, "w_zero_point"),
        nh.from_array(np.array(0.05, np.float32), "y_scale"),
        nh.from_array(np.array(100, np.uint8), "y_zero_point"),
    ]
    node = h.make_node(
        "QLinearConv",
        ["x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point"],
        ["y"],
        name="conv1",
    )
    m = model([node], [vi("x", T.UINT8, [1, 3, 8, 8])], [vi("y", T.UINT8, [1, 4, 6, 6])], inits)
    save(m, name)


if __name__ == "__main__":
    zp = np.array(0, np.uint8)
    quantize("scale_zero.onnx", np.array(0.0, np.float32), zp)
    quantize("scale_negative.onnx", np.array(-0.5, np.float32), zp)
    quantize("scale_nan.onnx", np.array(np.nan, np.float32), zp)
    quantize("axis_out_of_range.onnx", np.array([0.1, 0.2, 0.3], np.float32), np.zeros(3, np.uint8), axis=2)

    # DequantizeLinear of a uint8 tensor with an int8 zero point.
    dq = h.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], name="dq")
    save(model([dq], [vi("x", T.UINT8, [2, 3])], [vi("y", T.FLOAT, [2, 3])],
               [nh.from_array(np.array(0.1, np.float32), "s"), nh.from_array(np.array(0, np.int8), "z")]),
         "zero_point_dtype.onnx")

    # Per-channel weight scales with 3 entries for 4 output channels; and a per-channel
    # scale whose element 2 is zero.
    qlinearconv("per_channel_length.onnx", np.full(3, 0.01, np.float32), np.zeros(3, np.int8))
    qlinearconv("per_channel_zero_scale.onnx", np.array([0.01, 0.02, 0.0, 0.04], np.float32), np.zeros(4, np.int8))

    # An initializer declaring 10^12 elements, holding 4 bytes.
    huge = nh.from_array(np.array([1.0], np.float32), "w")
    huge.dims[:] = [1000000, 1000000]
    save(model([h.make_node("Add", ["x", "w"], ["y"], name="add")], [vi("x", T.FLOAT, [1])],
               [vi("y", T.FLOAT, None)], [huge]), "huge_initializer.onnx")

    # A graph input declaring a 10^12-element dimension.
    save(model([h.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", T.FLOAT, [1000000000000])],
               [vi("y", T.FLOAT, [1000000000000])]), "huge_input.onnx")

    # Pad whose constant pads make a result of 10^12 elements (and one of 4 MiB, for a
    # small --max-tensor-bytes): refused at run time before allocating.
    for name, n in (("huge_pad.onnx", 1000000), ("pad_4mib.onnx", 1024)):
        pads = nh.from_array(np.array([0, 0, n - 1, n - 1], np.int64), "pads")
        save(model([h.make_node("Pad", ["x", "pads"], ["y"], name="pad")],
                   [vi("x", T.FLOAT, [1, 1])], [vi("y", T.FLOAT, [n, n])], [pads]), name)
    np.save(os.path.join(HERE, "x_1x1.npy"), np.ones((1, 1), np.float32))

    # A NUL byte in .mlir text (found by the mlir_plan fuzz target: it made melior panic).
    with open(os.path.join(HERE, "nul_byte.mlir"), "wb") as f:
        f.write(b"func.func @f() {\0}\n")

    # Regions nested 300 deep: past the parser's bound (about 5,000 levels overflowed
    # the stack in MLIR's recursive parser).
    n = 300
    with open(os.path.join(HERE, "deep_regions.mlir"), "w") as f:
        f.write("func.func @f() {\n" + '"t.op"() ({\n' * n + '"t.end"() : () -> ()\n' + "}) : () -> ()\n" * n + "return\n}\n")
