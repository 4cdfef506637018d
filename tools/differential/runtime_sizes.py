#!/usr/bin/env python3
"""Ops whose lowering reads sizes at run time (issue 32), against ONNX Runtime
(tools/ort_oracle.py): each model has symbolic input dimensions, is compiled ONCE with
`qlower MODEL -o X.mlir`, and that one .mlir runs at two different sizes.

    runtime_sizes.py --qlower PATH [--seed S]

Cases:
- GroupNormalization opset 18 (per-group scale and bias) with an unknown channel count;
- Slice with a negative step over an axis of unknown size (starts and ends past either
  end, negative, and INT_MAX/INT_MIN), at sizes 7, 2 and 1;
- ScatterND with reduction mul, max and min (repeated and negative indices) into data
  of unknown row count;
- linear Resize of 3-D (N, C, L) data by scales and by sizes fed at run time.

Bound: 1e-5 relative L2 per output (both compute in f32, summing in other orders).
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from qlower_tools import ort_oracle, qlower_cli

BOUND = 1e-5


def make(nodes, inputs, inits, opset):
    """`inputs`: (name, shape) of float inputs, or (name, shape, element type)."""
    graph = helper.make_graph(
        nodes, "runtime_sizes",
        [helper.make_tensor_value_info(i[0], i[2] if len(i) > 2 else TensorProto.FLOAT, i[1])
         for i in inputs],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(v, n) for n, v in inits.items()])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def group_norm_18():
    groups = 3
    inits = {"scale": np.array([0.5, -1.25, 2.0], np.float32),
             "bias": np.array([0.1, 0.0, -0.3], np.float32)}
    node = helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"],
                            num_groups=groups, epsilon=1e-3)
    m = make([node], [("x", ["N", "C", "L"])], inits, 18)
    return "GroupNormalization-18, C unknown", m, [[2, 6, 5], [1, 12, 3]]


def slice_reversed(starts, ends, steps):
    def case():
        inits = {"starts": np.array(starts, np.int64), "ends": np.array(ends, np.int64),
                 "axes": np.array([0], np.int64), "steps": np.array(steps, np.int64)}
        node = helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])
        m = make([node], [("x", ["L", 3])], inits, 13)
        return f"Slice [{starts}:{ends}:{steps}], L unknown", m, [[7, 3], [2, 3], [1, 3]]
    return case


def scatter_nd(reduction):
    def case():
        inits = {"indices": np.array([[1], [-1], [1], [0]], np.int64),
                 "updates": np.array([[2.0, -1.0, 0.5], [3.0, 0.25, -4.0], [-1.5, 2.0, 1.0],
                                      [0.0, 7.0, -0.5]], np.float32)}
        node = helper.make_node("ScatterND", ["x", "indices", "updates"], ["y"],
                                reduction=reduction)
        m = make([node], [("x", ["N", 3])], inits, 18)
        return f"ScatterND reduction {reduction}, N unknown", m, [[5, 3], [2, 3]]
    return case


def resize_1d(by):
    """Linear Resize of (N, C, L) by scales or sizes fed at run time (input `t`)."""
    def case():
        inits = {"roi": np.zeros(0, np.float32)}
        if by == "scales":
            ins, t_in = ["x", "roi", "t"], ("t", [3])
            runs = [([1, 2, 9], np.array([1, 1, 2.0], np.float32)),
                    ([2, 3, 4], np.array([1, 1, 0.75], np.float32))]
        else:
            inits["scales"] = np.zeros(0, np.float32)
            ins, t_in = ["x", "roi", "scales", "t"], ("t", [3], TensorProto.INT64)
            runs = [([1, 2, 9], np.array([1, 2, 20], np.int64)),
                    ([2, 3, 4], np.array([2, 3, 3], np.int64))]
        node = helper.make_node("Resize", ins, ["y"], mode="linear")
        m = make([node], [("x", ["N", "C", "L"]), t_in], inits, 13)
        return f"3-D linear Resize by {by} fed at run time", m, runs
    return case


INT_MAX = 2**63 - 1
INT_MIN = -(2**63)

CASES = [group_norm_18,
         slice_reversed([-1], [INT_MIN], [-1]),
         slice_reversed([INT_MAX], [INT_MIN], [-2]),
         slice_reversed([5], [1], [-2]),
         slice_reversed([-2], [-6], [-1]),
         slice_reversed([1], [INT_MAX], [-1]),
         slice_reversed([-100], [0], [-1]),
         scatter_nd("mul"), scatter_nd("max"), scatter_nd("min"),
         resize_1d("scales"), resize_1d("sizes")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    failures, total = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            name, m, shapes = case()
            path, mlir = os.path.join(tmp, "m.onnx"), os.path.join(tmp, "m.mlir")
            onnx.save(m, path)
            r = subprocess.run([args.qlower, path, "-o", mlir], capture_output=True, text=True,
                               timeout=120)
            if r.returncode != 0:
                failures += [f"{name} at {run}: compile failed: {r.stderr.strip()}"
                             for run in shapes]
                total += len(shapes)
                continue
            for run in shapes:
                total += 1
                shape, t = run if isinstance(run, tuple) else (run, None)
                feeds = {"x": rng.standard_normal(shape).astype(np.float32)}
                if t is not None:
                    feeds["t"] = t
                outputs, err = qlower_cli.run(args.qlower, mlir, feeds, ["y"], tmp, threads=1,
                                              timeout=120)
                if outputs is None:
                    failures.append(f"{name} at {shape}: qlower failed: {err}")
                    continue
                got = outputs["y"]
                want = ort_oracle.run(m, feeds)["y"]
                err = float(np.linalg.norm(got.astype(np.float64) - want)
                            / max(np.linalg.norm(want), 1e-30)) if got.shape == want.shape else 1.0
                if got.shape != want.shape or err > BOUND:
                    failures.append(f"{name} at {shape}: shape {got.shape} vs {want.shape}, "
                                    f"rel L2 {err:.2e}")
    for f in failures:
        print("FAIL", f)
    print(f"{total - len(failures)} passed, {len(failures)} failed (ops sized at run time)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
