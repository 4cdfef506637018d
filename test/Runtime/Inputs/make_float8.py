"""Generates the model, input and ONNX Runtime outputs of Runtime/float8.test:
QuantizeLinear to each float8 format (saturating and not, per tensor and per axis)
and DequantizeLinear back, on values that reach every boundary (ties, subnormals,
the largest finite values and past them, infinities, NaN, -0).

Run with the test venv's Python: `.venv/bin/python test/Runtime/Inputs/make_float8.py`.
ONNX Runtime's Python API returns no float8 arrays, so each float8 output is also cast
to FLOAT in the graph (exact: every float8 value is an f32), and those are compared.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
from qlower_tools import ort_oracle

FORMATS = {"e4m3fn": T.FLOAT8E4M3FN, "e4m3fnuz": T.FLOAT8E4M3FNUZ,
           "e5m2": T.FLOAT8E5M2, "e5m2fnuz": T.FLOAT8E5M2FNUZ}


def main():
    nodes, inits, outs = [], [], []
    inits.append(nh.from_array(np.array(0.5, np.float32), "scale"))
    inits.append(nh.from_array(np.array([0.5, 1.0, 2.0], np.float32), "scales"))
    for name, code in FORMATS.items():
        zp = h.make_tensor(f"zp_{name}", code, [], [0.0])
        zps = h.make_tensor(f"zps_{name}", code, [3], [0.0, 0.0, 0.0])
        inits += [zp, zps]
        for sat in (1, 0):
            q = f"q_{name}_sat{sat}"
            nodes.append(h.make_node("QuantizeLinear", ["x", "scale", f"zp_{name}"], [q],
                                     name=q, saturate=sat))
            outs.append(h.make_tensor_value_info(q, code, [2, 3, 8]))
        q = f"q_{name}_axis"
        nodes.append(h.make_node("QuantizeLinear", ["x", "scales", f"zps_{name}"], [q],
                                 name=q, axis=1))
        outs.append(h.make_tensor_value_info(q, code, [2, 3, 8]))
        for q in (f"q_{name}_sat1", f"q_{name}_sat0", f"q_{name}_axis"):
            nodes.append(h.make_node("Cast", [q], [f"{q}_f32"], name=f"{q}_f32", to=T.FLOAT))
            outs.append(h.make_tensor_value_info(f"{q}_f32", T.FLOAT, [2, 3, 8]))
        y = f"y_{name}_axis"
        nodes.append(h.make_node("DequantizeLinear", [q, "scales", f"zps_{name}"], [y],
                                 name=y, axis=1))
        outs.append(h.make_tensor_value_info(y, T.FLOAT, [2, 3, 8]))
    g = h.make_graph(nodes, "float8", [h.make_tensor_value_info("x", T.FLOAT, [2, 3, 8])],
                     outs, inits)
    model = h.make_model(g, opset_imports=[h.make_opsetid("", 19)])
    model.ir_version = 9
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, "float8.onnx"))

    # Doubled by the 0.5 scale, halved by 2.0: ties between neighbours of each format,
    # subnormals of each, the largest finite values and just past them.
    edges = [1.0625, 1.1875, 1.125, 1.375, 2.0 ** -10, 1.5 * 2.0 ** -10, 2.0 ** -17,
             1.5 * 2.0 ** -17, 2.0 ** -8, 224.0, 232.0, 240.0, 123.0, 448.0, 464.0,
             465.0, 28672.0, 30720.0, 1e6, -1e6, np.inf, -np.inf, np.nan, -0.0]
    edges = np.array(edges, np.float32) / 2  # before the x / 0.5 of the middle channel
    x = np.concatenate([edges, -edges]).reshape(2, 3, 8).astype(np.float32)
    np.save(os.path.join(HERE, "float8_x.npy"), x)
    names = [o.name for o in outs if o.type.tensor_type.elem_type == T.FLOAT]
    got = ort_oracle.session(model, threads=1).run(names, {"x": x})
    for name, v in zip(names, got):
        np.save(os.path.join(HERE, f"float8_{name}.npy"), v)


if __name__ == "__main__":
    main()
