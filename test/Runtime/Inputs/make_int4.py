"""Generates the model, inputs and expected outputs of Runtime/int4_io.test: INT4 and
UINT4 values as graph inputs and outputs, and a blocked UINT4 weight read by a MatMul.

Run with the test venv's Python: `.venv/bin/python test/Runtime/Inputs/make_int4.py`.
ONNX Runtime's Python API cannot bind 4-bit inputs or outputs, so the expected outputs
are the ONNX formulas in numpy; the scales are powers of two and every value a small
integer multiple of them, so each float result is exact and compared byte for byte.
(tools/differential/quant_formats.py checks 4-bit models against ONNX Runtime.)
"""

import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    w = (np.arange(24).reshape(6, 4) * 5 % 16).astype(np.uint8)
    w_scale = np.array([[0.5, 0.25, 1.0, 2.0], [0.125, 0.5, 0.25, 1.0]], np.float32)
    w_zp = np.array([[8, 3, 0, 15], [1, 7, 9, 4]], np.uint8)
    nodes = [
        # An INT4 input, dequantized per tensor (scale 0.5, zero point -1).
        h.make_node("DequantizeLinear", ["q", "q_scale", "q_zp"], ["dq"], name="dq"),
        # A float input quantized to an INT4 output, saturating at [-8, 7].
        h.make_node("QuantizeLinear", ["f", "q_scale", "q_zp"], ["q_out"], name="quant"),
        # The float input times a UINT4 weight in blocks of 4 rows (the last one of 2).
        h.make_node("DequantizeLinear", ["w", "w_scale", "w_zp"], ["wf"], name="dq_w",
                    axis=0, block_size=4),
        h.make_node("MatMul", ["f", "wf"], ["mm"], name="mm"),
    ]
    graph = h.make_graph(
        nodes, "int4_io",
        [h.make_tensor_value_info("q", T.INT4, [2, 3]),
         h.make_tensor_value_info("f", T.FLOAT, [2, 6])],
        [h.make_tensor_value_info("dq", T.FLOAT, [2, 3]),
         h.make_tensor_value_info("q_out", T.INT4, [2, 6]),
         h.make_tensor_value_info("mm", T.FLOAT, [2, 4])],
        [nh.from_array(np.array(0.5, np.float32), "q_scale"),
         h.make_tensor("q_zp", T.INT4, [], [-1]),
         h.make_tensor("w", T.UINT4, w.shape, w.ravel().tolist()),
         nh.from_array(w_scale, "w_scale"),
         h.make_tensor("w_zp", T.UINT4, w_zp.shape, w_zp.ravel().tolist())])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 21)])
    model.ir_version = 10
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, "int4_io.onnx"))

    q = np.array([[-8, -1, 0], [3, 6, 7]], np.int8)
    f = np.array([[-9.0, -4.5, -0.25, 0.75, 3.0, 9.5], [1.0, 2.0, -2.0, 0.5, -1.5, 4.0]],
                 np.float32)
    np.save(os.path.join(HERE, "int4_q.npy"), q)
    np.save(os.path.join(HERE, "int4_q_out_of_range.npy"), np.array([[9, 0, 0], [0, 0, 0]], np.int8))
    np.save(os.path.join(HERE, "int4_f.npy"), f)
    qpb = h.make_tensor("q", T.INT4, q.shape, q.ravel().tolist())
    with open(os.path.join(HERE, "int4_q.pb"), "wb") as out:
        out.write(qpb.SerializeToString())

    dq = ((q.astype(np.float32) + 1) * 0.5).astype(np.float32)
    # Round half to even: -0.25 / 0.5 = -0.5 -> -0 and 0.75 / 0.5 = 1.5 -> 2.
    q_out = np.clip(np.round(f / 0.5) - 1, -8, 7).astype(np.int8)
    scale = np.repeat(w_scale, 4, axis=0)[:6]
    zp = np.repeat(w_zp, 4, axis=0)[:6]
    wf = ((w.astype(np.float32) - zp.astype(np.float32)) * scale).astype(np.float32)
    mm = (f.astype(np.float64) @ wf.astype(np.float64)).astype(np.float32)
    for name, value in [("dq", dq), ("q_out", q_out), ("mm", mm)]:
        np.save(os.path.join(HERE, f"int4_y_{name}.npy"), value)


if __name__ == "__main__":
    main()
