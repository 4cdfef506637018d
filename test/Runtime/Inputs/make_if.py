"""Generates the ONNX If models of the If lit tests (Import/if_*.test, Runtime/if_*.test)
and ONNX Runtime's outputs for them.

Run with the test venv's Python (`.venv/bin/python`); the files are written next to
this script and are committed, so the test suite needs no Python. Rerun after changing
it and review the diff.

`if_nested.onnx`: an If on a run-time condition `c` whose branches read outer values
by name (the input `x`, the outer node's `w`), have their own initializer and Constant
node, and, in the then branch, a nested If on `k` that reads values two scopes up.
The second output's shape differs between the branches ([2,1] and [1,1]), so the If's
type is their join, [?,1]. Inputs are small integers: every float result is exact.
"""

import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))


def vi(name, dtype, shape):
    return h.make_tensor_value_info(name, dtype, shape)


def if_nested():
    inner_then = h.make_graph(
        [h.make_node("Relu", ["t1"], ["inner_relu"])],
        "inner_then",
        [],
        [vi("inner_relu", T.FLOAT, [2, 3])],
    )
    inner_else = h.make_graph(
        [h.make_node("Neg", ["x"], ["inner_neg"])],
        "inner_else",
        [],
        [vi("inner_neg", T.FLOAT, [2, 3])],
    )
    then_g = h.make_graph(
        [
            h.make_node("Add", ["w", "b"], ["t1"]),
            h.make_node("If", ["k"], ["nested"], name="inner_if", then_branch=inner_then, else_branch=inner_else),
            h.make_node("Mul", ["nested", "t1"], ["then_y"]),
            h.make_node("ReduceSum", ["t1", "axis1"], ["then_z"], keepdims=1),
        ],
        "then",
        [],
        [vi("then_y", T.FLOAT, [2, 3]), vi("then_z", T.FLOAT, [2, 1])],
        [
            nh.from_array(np.array([1, -2, 3], np.float32), "b"),
            nh.from_array(np.array([1], np.int64), "axis1"),
        ],
    )
    else_g = h.make_graph(
        [
            h.make_node("Constant", [], ["ten"], value=nh.from_array(np.array([10], np.float32))),
            h.make_node("Sub", ["w", "ten"], ["else_y"]),
            h.make_node("ReduceSum", ["x"], ["else_z"], keepdims=1),
        ],
        "else",
        [],
        [vi("else_y", T.FLOAT, [2, 3]), vi("else_z", T.FLOAT, [1, 1])],
    )
    nodes = [
        h.make_node("Mul", ["x", "two"], ["w"]),
        h.make_node("If", ["c"], ["y", "z"], name="outer_if", then_branch=then_g, else_branch=else_g),
    ]
    g = h.make_graph(
        nodes,
        "if_nested",
        [vi("c", T.BOOL, []), vi("k", T.BOOL, []), vi("x", T.FLOAT, [2, 3])],
        [vi("y", T.FLOAT, [2, 3]), vi("z", T.FLOAT, [None, 1])],
        [nh.from_array(np.array(2, np.float32), "two")],
    )
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)], producer_name="qlower-tests", ir_version=8)
    onnx.checker.check_model(m, full_check=True)
    path = os.path.join(HERE, "if_nested.onnx")
    onnx.save(m, path)

    x = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
    np.save(os.path.join(HERE, "if_nested_x.npy"), x)
    for flag in (True, False):
        np.save(os.path.join(HERE, f"if_nested_{str(flag).lower()}.npy"), np.array(flag))
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for c in (True, False):
        for k in (True, False):
            y, z = session.run(None, {"c": np.array(c), "k": np.array(k), "x": x})
            tag = f"{str(c).lower()}_{str(k).lower()}"
            np.save(os.path.join(HERE, f"if_nested_y.{tag}.npy"), y)
            np.save(os.path.join(HERE, f"if_nested_z.{tag}.npy"), z)


def if_shape_condition():
    """An If whose condition depends on shapes alone (`squeeze(0)` as exporters write
    it): the import knows it and imports the taken branch in place. The other branch
    squeezes a dimension of size 2, which would be invalid if it were imported."""
    then_g = h.make_graph(
        [h.make_node("Squeeze", ["x", "axis0"], ["squeezed"])],
        "then",
        [],
        [vi("squeezed", T.FLOAT, [3])],
    )
    else_g = h.make_graph(
        [h.make_node("Identity", ["x"], ["same"])],
        "else",
        [],
        [vi("same", T.FLOAT, [2, 3])],
    )
    nodes = [
        h.make_node("Shape", ["x"], ["shape"]),
        h.make_node("Gather", ["shape", "zero"], ["dim0"], axis=0),
        h.make_node("Equal", ["dim0", "one"], ["is_one"]),
        h.make_node("If", ["is_one"], ["y"], name="squeeze_if", then_branch=then_g, else_branch=else_g),
    ]
    g = h.make_graph(
        nodes,
        "if_shape_condition",
        [vi("x", T.FLOAT, [2, 3])],
        [vi("y", T.FLOAT, [2, 3])],
        [
            nh.from_array(np.array(0, np.int64), "zero"),
            nh.from_array(np.array(1, np.int64), "one"),
            nh.from_array(np.array([0], np.int64), "axis0"),
        ],
    )
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)], producer_name="qlower-tests", ir_version=8)
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(HERE, "if_shape_condition.onnx"))


def if_invalid_branch():
    """An If on a run-time condition whose else branch squeezes axis 0: valid only when
    x has one row. `qlower run` compiles for x's sizes ([2, 3]), where that branch
    cannot be typed; it becomes a branch that stops the run when taken, as ONNX Runtime
    stops, while the then branch runs."""
    then_g = h.make_graph([h.make_node("Relu", ["x"], ["r"])], "then", [], [vi("r", T.FLOAT, [None, 3])])
    else_g = h.make_graph(
        [h.make_node("Squeeze", ["x", "axis0"], ["s"])],
        "else",
        [],
        [vi("s", T.FLOAT, None)],
        [nh.from_array(np.array([0], np.int64), "axis0")],
    )
    node = h.make_node("If", ["c"], ["y"], name="squeeze_rows", then_branch=then_g, else_branch=else_g)
    g = h.make_graph([node], "if_invalid_branch", [vi("c", T.BOOL, []), vi("x", T.FLOAT, ["rows", 3])], [vi("y", T.FLOAT, None)])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)], producer_name="qlower-tests", ir_version=8)
    path = os.path.join(HERE, "if_invalid_branch.onnx")
    onnx.save(m, path)
    x = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
    y = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"c": np.array(True), "x": x})[0]
    np.save(os.path.join(HERE, "if_invalid_branch_y.true.npy"), y)


def if_malformed():
    """Branches whose outputs disagree in element type, a branch reading a name no
    scope defines, and branches with fewer outputs than the If: all refused, naming
    the If."""
    errors = os.path.join(HERE, "..", "..", "Errors", "Inputs")
    then_g = h.make_graph([h.make_node("Identity", ["x"], ["t"])], "then", [], [vi("t", T.FLOAT, [2])])
    else_g = h.make_graph([h.make_node("Cast", ["x"], ["e"], to=T.INT64)], "else", [], [vi("e", T.INT64, [2])])
    node = h.make_node("If", ["c"], ["y"], name="mixed", then_branch=then_g, else_branch=else_g)
    g = h.make_graph([node], "if_dtypes", [vi("c", T.BOOL, []), vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)], ir_version=8)
    onnx.save(m, os.path.join(errors, "if_branch_dtypes.onnx"))

    then_g = h.make_graph([h.make_node("Identity", ["nowhere"], ["t"])], "then", [], [vi("t", T.FLOAT, [2])])
    else_g = h.make_graph([h.make_node("Identity", ["x"], ["e"])], "else", [], [vi("e", T.FLOAT, [2])])
    node = h.make_node("If", ["c"], ["y"], name="dangling", then_branch=then_g, else_branch=else_g)
    g = h.make_graph([node], "if_undefined", [vi("c", T.BOOL, []), vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)], ir_version=8)
    onnx.save(m, os.path.join(errors, "if_branch_undefined.onnx"))

    then_g = h.make_graph([h.make_node("Identity", ["x"], ["t"])], "then", [], [vi("t", T.FLOAT, [2])])
    node = h.make_node("If", ["c"], ["y", "y2"], name="short", then_branch=then_g, else_branch=then_g)
    g = h.make_graph(
        [node], "if_outputs", [vi("c", T.BOOL, []), vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2]), vi("y2", T.FLOAT, [2])]
    )
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)], ir_version=8)
    onnx.save(m, os.path.join(errors, "if_branch_outputs.onnx"))


def if_squeeze_dynamic():
    """`squeeze(0)` as exporters write it, on an input whose first dimension is dynamic:
    the branches' ranks differ, so without sizes the Relu after the If has no rank to
    lower with; `qlower --input-shape x=1x3` or `x=2x3` fixes the size and the branch."""
    then_g = h.make_graph(
        [h.make_node("Squeeze", ["x", "axis0"], ["squeezed"])],
        "then",
        [],
        [vi("squeezed", T.FLOAT, None)],
    )
    else_g = h.make_graph(
        [h.make_node("Identity", ["x"], ["same"])],
        "else",
        [],
        [vi("same", T.FLOAT, None)],
    )
    nodes = [
        h.make_node("Shape", ["x"], ["shape"]),
        h.make_node("Gather", ["shape", "zero"], ["dim0"], axis=0),
        h.make_node("Equal", ["dim0", "one"], ["is_one"]),
        h.make_node("If", ["is_one"], ["y"], name="squeeze_if", then_branch=then_g, else_branch=else_g),
        h.make_node("Relu", ["y"], ["z"], name="relu"),
    ]
    g = h.make_graph(
        nodes,
        "if_squeeze_dynamic",
        [vi("x", T.FLOAT, ["n", 3])],
        [vi("z", T.FLOAT, None)],
        [
            nh.from_array(np.array(0, np.int64), "zero"),
            nh.from_array(np.array(1, np.int64), "one"),
            nh.from_array(np.array([0], np.int64), "axis0"),
        ],
    )
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)], producer_name="qlower-tests", ir_version=8)
    # No check_model: it wants a shape on every output, and these have no rank to give
    # (ONNX Runtime loads and runs the model: its results are [3] and [2, 3]).
    onnx.save(m, os.path.join(HERE, "if_squeeze_dynamic.onnx"))


if __name__ == "__main__":
    if_nested()
    if_shape_condition()
    if_squeeze_dynamic()
    if_invalid_branch()
    if_malformed()
