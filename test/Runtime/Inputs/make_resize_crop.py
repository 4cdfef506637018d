"""Generates the model, input and ONNX Runtime outputs of Runtime/resize_crop.test:
Resize with coordinate_transformation_mode tf_crop_and_resize (a constant roi, with
`axes` and without, regions reaching outside the input, an extrapolation_value, and an
axis that keeps its size), in nearest and linear mode.

Run with the test venv's Python: `.venv/bin/python test/Runtime/Inputs/make_resize_crop.py`.
The input holds small integers and every sampled coordinate is a multiple of 1/2, so
linear interpolation is exact and the outputs equal ONNX Runtime's byte for byte.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
from qlower_tools import ort_oracle

OUTS = ["y_linear", "y_nearest", "y_axes", "y_keep"]


def main():
    crop = dict(coordinate_transformation_mode="tf_crop_and_resize")
    nodes = [
        # H: 7 samples of [-0.25, 1.25] of 5 rows (coordinates -1, 0, ..., 5: the first
        # and last outside); W: 3 samples of [0.125, 0.875] of 5 columns (0.5, 2, 3.5).
        h.make_node("Resize", ["x", "roi", "", "sizes"], ["y_linear"], name="crop_linear",
                    mode="linear", extrapolation_value=-7.0, **crop),
        h.make_node("Resize", ["x", "roi", "", "sizes"], ["y_nearest"], name="crop_nearest",
                    mode="nearest", nearest_mode="floor", **crop),
        # Resize-18's axes, listed W first: roi and sizes follow that order.
        h.make_node("Resize", ["x", "roi_wh", "", "sizes_wh"], ["y_axes"], name="crop_axes",
                    mode="linear", axes=[3, 2], **crop),
        # An axis that keeps its size (H, 5 to 5) is not cropped: ONNX Runtime leaves it.
        h.make_node("Resize", ["x", "roi", "", "sizes_keep"], ["y_keep"], name="crop_keep",
                    mode="linear", **crop),
    ]
    inits = [
        nh.from_array(np.array([0, 0, -0.25, 0.125, 1, 1, 1.25, 0.875], np.float32), "roi"),
        nh.from_array(np.array([1, 2, 7, 3], np.int64), "sizes"),
        nh.from_array(np.array([1, 2, 5, 3], np.int64), "sizes_keep"),
        nh.from_array(np.array([0.25, 0.0, 0.75, 0.5], np.float32), "roi_wh"),
        nh.from_array(np.array([3, 3], np.int64), "sizes_wh"),
    ]
    g = h.make_graph(nodes, "resize_crop", [h.make_tensor_value_info("x", T.FLOAT, [1, 2, 5, 5])],
                     [h.make_tensor_value_info("y_linear", T.FLOAT, [1, 2, 7, 3]),
                      h.make_tensor_value_info("y_nearest", T.FLOAT, [1, 2, 7, 3]),
                      h.make_tensor_value_info("y_axes", T.FLOAT, [1, 2, 3, 3]),
                      h.make_tensor_value_info("y_keep", T.FLOAT, [1, 2, 5, 3])], inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 18)], producer_name="qlower-tests",
                     ir_version=8)
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(HERE, "resize_crop.onnx"))
    x = np.random.default_rng(18).integers(-9, 10, (1, 2, 5, 5)).astype(np.float32)
    np.save(os.path.join(HERE, "resize_crop_x.npy"), x)
    got = ort_oracle.run(m, {"x": x})
    for name in OUTS:
        np.save(os.path.join(HERE, f"resize_crop_{name}.npy"), got[name])
        print(name, got[name].shape, got[name][0, 0].tolist())


if __name__ == "__main__":
    main()
