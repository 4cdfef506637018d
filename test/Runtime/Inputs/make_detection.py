"""Generates the model, inputs and ONNX Runtime outputs of Runtime/detection_tail.test:
the layout and post-processing ops of a detector (DepthToSpace, SpaceToDepth,
NonMaxSuppression, NonZero) on sizes known only at run time, whose outputs have as many
rows as the data selects.

Run with the test venv's Python: `.venv/bin/python test/Runtime/Inputs/make_detection.py`.
The boxes are small integers and the scores distinct fractions with a power-of-two denominator, so every IoU and
every score comparison is the same in qlower's f32 and ONNX Runtime's; the tests compare
the outputs byte for byte with `cmp`.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
from qlower_tools import ort_oracle

# (height, width, boxes) of each data set.
SETS = [(2, 3, 6), (5, 4, 40)]
OUTS = ["y_d2s", "y_d2s_crd", "y_s2d", "selected", "picked", "nz"]


def path(name):
    return os.path.join(HERE, name)


def const(name, values, dtype=np.int64):
    return nh.from_array(np.array(values, dtype), name)


def model():
    nodes = [
        h.make_node("DepthToSpace", ["feat"], ["y_d2s"], name="d2s", blocksize=2),
        h.make_node("DepthToSpace", ["feat"], ["y_d2s_crd"], name="d2s_crd", blocksize=2,
                    mode="CRD"),
        h.make_node("SpaceToDepth", ["y_d2s_crd"], ["y_s2d"], name="s2d", blocksize=2),
        h.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "score_min"],
                    ["selected"], name="nms"),
        # The post-processing after NMS: the selected boxes' rows.
        h.make_node("Gather", ["selected", "two"], ["box_index"], name="box_index", axis=1),
        h.make_node("Squeeze", ["boxes", "axes0"], ["boxes_2d"], name="boxes_2d"),
        h.make_node("Gather", ["boxes_2d", "box_index"], ["picked"], name="picked", axis=0),
        h.make_node("Greater", ["scores", "half"], ["confident"], name="confident"),
        h.make_node("NonZero", ["confident"], ["nz"], name="nz"),
    ]
    inits = [
        const("max_out", [3]), nh.from_array(np.array([0.3], np.float32), "iou"),
        nh.from_array(np.array([0.2], np.float32), "score_min"), const("two", 2),
        const("axes0", [0]), nh.from_array(np.array(0.5, np.float32), "half"),
    ]
    inputs = [
        h.make_tensor_value_info("feat", T.FLOAT, [1, 8, "H", "W"]),
        h.make_tensor_value_info("boxes", T.FLOAT, [1, "N", 4]),
        h.make_tensor_value_info("scores", T.FLOAT, [1, 2, "N"]),
    ]
    outputs = [
        h.make_tensor_value_info("y_d2s", T.FLOAT, [1, 2, "H2", "W2"]),
        h.make_tensor_value_info("y_d2s_crd", T.FLOAT, [1, 2, "H2", "W2"]),
        h.make_tensor_value_info("y_s2d", T.FLOAT, [1, 8, "H", "W"]),
        h.make_tensor_value_info("selected", T.INT64, ["k", 3]),
        h.make_tensor_value_info("picked", T.FLOAT, ["k", 4]),
        h.make_tensor_value_info("nz", T.INT64, [3, "z"]),
    ]
    g = h.make_graph(nodes, "detection_tail", inputs, outputs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)], producer_name="qlower-tests",
                     ir_version=8)
    onnx.checker.check_model(m)
    onnx.save(m, path("detection_tail.onnx"))
    return m


def main():
    m = model()
    rng = np.random.default_rng(16)
    for height, width, n in SETS:
        feat = rng.integers(-8, 9, (1, 8, height, width)).astype(np.float32)
        # Corners in either order (ONNX allows flipped boxes), clustered so that some overlap.
        centre = rng.integers(0, 6, (n, 2)) * 4
        size = rng.integers(2, 8, (n, 2))
        a, b = centre, centre + size
        flip = rng.integers(0, 2, (n, 1)).astype(bool)
        y1x1 = np.where(flip, b, a)
        y2x2 = np.where(flip, a, b)
        boxes = np.concatenate([y1x1, y2x2], axis=1)[None].astype(np.float32)
        # Distinct and exact in f32: a power of two as denominator, spread over (0, 1).
        denominator = 2 ** int(np.ceil(np.log2(2 * n + 1)))
        scores = (rng.permutation(2 * n).reshape(1, 2, n) + 1) / denominator
        scores = scores.astype(np.float32)
        feeds = {"feat": feat, "boxes": boxes, "scores": scores}
        for name, value in feeds.items():
            np.save(path(f"detection_{name}.N{n}.npy"), value)
        got = ort_oracle.run(m, feeds)
        for name in OUTS:
            np.save(path(f"detection_{name}.N{n}.npy"), got[name])
            print(name, got[name].shape)


if __name__ == "__main__":
    main()
