"""Generates the models, inputs and ONNX Runtime outputs of the Runtime lit tests on sizes
known only at run time (dynamic_*.test, runtime_value_errors.test).

Run with the test venv's Python: `.venv/bin/python test/Runtime/Inputs/make_dynamic.py`.
Inputs hold small integers, so every float sum is exact and qlower's outputs equal ONNX
Runtime's byte for byte (the tests compare them with `cmp`).
"""

import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
from qlower_tools import ort_oracle

LENGTHS = [1, 7, 300]


def path(name):
    return os.path.join(HERE, name)


def const(name, values, dtype=np.int64):
    return nh.from_array(np.array(values, dtype), name)


def save(graph, name):
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], producer_name="qlower-tests",
                     ir_version=8)
    onnx.checker.check_model(m)
    onnx.save(m, path(name))
    return m


def sequence_model():
    """x [1, 8, L] with L unknown: the shape arithmetic of real models (Shape, Gather,
    Range, Expand, ConstantOfShape, Tile, Reshape, Slice, Pad, Unsqueeze, Squeeze, Split and
    Resize on computed values) and SAME strided convolution and pools, whose pads depend
    on L."""
    rng = np.random.default_rng(15)
    w = rng.integers(-2, 3, (8, 8, 3)).astype(np.float32)
    nodes = [
        h.make_node("Shape", ["x"], ["shape"], name="shape"),
        h.make_node("Gather", ["shape", "two"], ["len"], name="len", axis=0),
        h.make_node("Range", ["zero", "len", "one"], ["pos"], name="range"),
        h.make_node("Cast", ["pos"], ["pos_f"], name="pos_float", to=T.FLOAT),
        h.make_node("Unsqueeze", ["pos_f", "axes01"], ["pos_3d"], name="pos_3d"),
        h.make_node("Expand", ["pos_3d", "shape"], ["pos_x"], name="expand"),
        h.make_node("Add", ["x", "pos_x"], ["y_expand"], name="add_pos"),
        h.make_node("Conv", ["x", "w"], ["y_conv"], name="conv_same", auto_pad="SAME_UPPER",
                    strides=[2]),
        h.make_node("Unsqueeze", ["len", "axes0"], ["len_1d"], name="len_1d"),
        h.make_node("Concat", ["one_eight", "len_1d"], ["fill_shape"], name="fill_shape", axis=0),
        h.make_node("ConstantOfShape", ["fill_shape"], ["threes"], name="fill",
                    value=nh.from_array(np.array([3.0], np.float32), "v")),
        h.make_node("Mul", ["x", "threes"], ["y_fill"], name="mul_fill"),
        h.make_node("Sub", ["len", "len"], ["nothing"], name="nothing"),
        h.make_node("Add", ["nothing", "two"], ["two_rt"], name="two_rt"),
        h.make_node("Unsqueeze", ["two_rt", "axes0"], ["two_1d"], name="two_1d"),
        h.make_node("Concat", ["ones2", "two_1d"], ["repeats"], name="repeats", axis=0),
        h.make_node("Tile", ["x", "repeats"], ["y_tile"], name="tile"),
        h.make_node("Concat", ["one_1d", "len_1d", "eight_1d"], ["rows"], name="rows", axis=0),
        h.make_node("Reshape", ["x", "rows"], ["y_reshape"], name="reshape"),
        h.make_node("Sub", ["len", "one"], ["len_m1"], name="len_m1"),
        h.make_node("Unsqueeze", ["len_m1", "axes0"], ["end_1d"], name="end_1d"),
        h.make_node("Slice", ["x", "zero_1d", "end_1d", "axes2"], ["y_slice"], name="slice"),
        h.make_node("Concat", ["zeros5", "len_1d"], ["pads"], name="pads", axis=0),
        h.make_node("Pad", ["x", "pads"], ["y_pad"], name="pad"),
        h.make_node("Div", ["len", "two"], ["half"], name="half"),
        h.make_node("Sub", ["len", "half"], ["rest"], name="rest"),
        h.make_node("Unsqueeze", ["half", "axes0"], ["half_1d"], name="half_1d"),
        h.make_node("Unsqueeze", ["rest", "axes0"], ["rest_1d"], name="rest_1d"),
        h.make_node("Concat", ["rest_1d", "half_1d"], ["parts"], name="parts", axis=0),
        h.make_node("Split", ["x", "parts"], ["y_split_a", "y_split_b"], name="split", axis=2),
        h.make_node("Mul", ["len", "two"], ["twice"], name="twice"),
        h.make_node("Unsqueeze", ["twice", "axes0"], ["twice_1d"], name="twice_1d"),
        h.make_node("Concat", ["one_eight", "twice_1d"], ["sizes"], name="sizes", axis=0),
        h.make_node("Resize", ["x", "", "", "sizes"], ["y_resize"], name="resize", mode="nearest"),
        h.make_node("MaxPool", ["x"], ["y_maxpool"], name="maxpool_same", auto_pad="SAME_UPPER",
                    kernel_shape=[4], strides=[3]),
        # Counting the padding keeps every average one division, as ORT's, so the bytes
        # match; the other form is tested in Conversion/OnnxToTorch/A-F/averagepool.mlir.
        h.make_node("AveragePool", ["x"], ["y_avgpool"], name="avgpool_same",
                    auto_pad="SAME_LOWER", kernel_shape=[3], strides=[2], count_include_pad=1),
        # Unsqueeze and Squeeze axes computed at run time: 3, as (L - L) + 3.
        h.make_node("Add", ["nothing", "three"], ["three_rt"], name="three_rt"),
        h.make_node("Unsqueeze", ["three_rt", "axes0"], ["axes_rt"], name="axes_rt"),
        h.make_node("Unsqueeze", ["x", "axes_rt"], ["x_4d"], name="unsqueeze_rt"),
        h.make_node("Squeeze", ["x_4d", "axes_rt"], ["y_squeeze"], name="squeeze_rt"),
        # Two run-time axes, one negative and out of order: [3, -5] puts 1s at 3 and 0.
        h.make_node("Concat", ["axes_rt", "minus_five"], ["axes_rt2"], name="axes_rt2", axis=0),
        h.make_node("Unsqueeze", ["x", "axes_rt2"], ["y_unsqueeze2"], name="unsqueeze_rt2"),
    ]
    inits = [
        const("two", 2), const("zero", 0), const("one", 1), const("axes01", [0, 1]),
        const("axes0", [0]), const("one_eight", [1, 8]), const("ones2", [1, 1]),
        const("one_1d", [1]), const("eight_1d", [8]), const("zero_1d", [0]), const("axes2", [2]),
        const("zeros5", [0, 0, 0, 0, 0]), nh.from_array(w, "w"),
    ]
    inits += [const("three", 3), const("minus_five", [-5])]
    ranks = {"y_reshape": [1, "L", 8], "y_unsqueeze2": [1, 1, 8, 1, "L"]}
    outs = ["y_expand", "y_conv", "y_fill", "y_tile", "y_reshape", "y_slice", "y_pad", "y_squeeze",
            "y_split_a", "y_split_b", "y_resize", "y_maxpool", "y_avgpool", "y_unsqueeze2"]
    g = h.make_graph(nodes, "dynamic_sequence",
                     [h.make_tensor_value_info("x", T.FLOAT, [1, 8, "L"])],
                     [h.make_tensor_value_info(o, T.FLOAT, ranks.get(o, [1, 8, f"{o}_len"]))
                      for o in outs], inits)
    m = save(g, "dynamic_sequence.onnx")
    for n in LENGTHS:
        x = rng.integers(-4, 5, (1, 8, n)).astype(np.float32)
        np.save(path(f"dynamic_sequence_x.L{n}.npy"), x)
        got = ort_oracle.run(m, {"x": x})
        for name in outs:
            np.save(path(f"dynamic_sequence_{name}.L{n}.npy"), got[name])


def error_models():
    """Values that are wrong only at run time, each in a node the error must name."""
    # A Reshape to [3, L]: the data has L * 2 elements.
    nodes = [
        h.make_node("Shape", ["x"], ["shape"], name="shape"),
        h.make_node("Gather", ["shape", "one"], ["len"], name="len", axis=0),
        h.make_node("Unsqueeze", ["len", "axes0"], ["len_1d"], name="len_1d"),
        h.make_node("Concat", ["three", "len_1d"], ["target"], name="target", axis=0),
        h.make_node("Reshape", ["x", "target"], ["y"], name="bad_reshape"),
    ]
    inits = [const("one", 1), const("axes0", [0]), const("three", [3])]
    g = h.make_graph(nodes, "reshape_mismatch", [h.make_tensor_value_info("x", T.FLOAT, [2, "L"])],
                     [h.make_tensor_value_info("y", T.FLOAT, [3, "L"])], inits)
    save(g, "reshape_mismatch.onnx")
    np.save(path("x_2x5.npy"), np.arange(10, dtype=np.float32).reshape(2, 5))

    # A Slice whose step is an input: 0 is refused.
    nodes = [h.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"], name="bad_slice")]
    inits = [const("starts", [0]), const("ends", [4]), const("axes", [1])]
    g = h.make_graph(nodes, "slice_step", [h.make_tensor_value_info("x", T.FLOAT, [2, "L"]),
                                            h.make_tensor_value_info("steps", T.INT64, [1])],
                     [h.make_tensor_value_info("y", T.FLOAT, [2, "n"])], inits)
    save(g, "slice_step.onnx")
    np.save(path("step_0.npy"), np.array([0], np.int64))

    # A Range whose delta is an input: 0 never reaches the limit.
    nodes = [h.make_node("Range", ["start", "limit", "delta"], ["y"], name="bad_range")]
    g = h.make_graph(nodes, "range_delta", [h.make_tensor_value_info("delta", T.INT64, [])],
                     [h.make_tensor_value_info("y", T.INT64, ["n"])],
                     [const("start", 0), const("limit", 5)])
    save(g, "range_delta.onnx")
    np.save(path("delta_0.npy"), np.array(0, np.int64))

    # A ConstantOfShape whose shape is an input: a negative size is refused.
    nodes = [h.make_node("ConstantOfShape", ["shape"], ["y"], name="bad_fill")]
    g = h.make_graph(nodes, "fill_negative", [h.make_tensor_value_info("shape", T.INT64, [2])],
                     [h.make_tensor_value_info("y", T.FLOAT, ["a", "b"])])
    save(g, "fill_negative.onnx")
    np.save(path("shape_neg.npy"), np.array([2, -3], np.int64))

    # A Pad (opset 18) whose axes are an input: an axis outside [-rank, rank) is refused.
    nodes = [h.make_node("Pad", ["x", "pads", "", "axes"], ["y"], name="bad_pad_axes")]
    g = h.make_graph(nodes, "pad_axes", [h.make_tensor_value_info("x", T.FLOAT, [2, "L"]),
                                          h.make_tensor_value_info("axes", T.INT64, [1])],
                     [h.make_tensor_value_info("y", T.FLOAT, ["a", "b"])], [const("pads", [1, 2])])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 18)], producer_name="qlower-tests",
                     ir_version=8)
    onnx.checker.check_model(m)
    onnx.save(m, path("pad_axes.onnx"))
    np.save(path("axis_2.npy"), np.array([2], np.int64))
    np.save(path("axis_neg1.npy"), np.array([-1], np.int64))
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    np.save(path("pad_axes_y.npy"), np.pad(x, ((0, 0), (1, 2))))


def main():
    sequence_model()
    error_models()


if __name__ == "__main__":
    main()
