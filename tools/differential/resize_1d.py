#!/usr/bin/env python3
"""Linear and cubic Resize of 3-D (N, C, L) data, as audio and 1-D feature models use it,
against ONNX Runtime (tools/ort_oracle.py) through `qlower run`: every coordinate
transformation but tf_crop_and_resize, upsampling and downsampling by scales and by
sizes, antialias (opset 18), cubic_coeff_a and exclude_outside.

    resize_1d.py --qlower PATH [--seed S]

Bound: 1e-5 relative L2 per case (both compute in f32; the filters' weights are summed
in other orders). ONNX Runtime has no cubic Resize of 3-D data ("'Cubic' mode only
supports 2-D inputs or 4-D inputs"): the cubic cases are held to its 4-D cubic Resize of
the same rows as (N, C, 1, L), whose one row along the new axis is kept as it is.
"""

import argparse
import itertools
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from qlower_tools import ort_oracle

BOUND = 1e-5
COORDS = ["half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "half_pixel_symmetric"]


def model(shape, mode, coord, scales=None, sizes=None, **attrs):
    inits = [numpy_helper.from_array(np.zeros(0, np.float32), "roi")]
    ins = ["x", "roi"]
    if scales is not None:
        inits.append(numpy_helper.from_array(np.array(scales, np.float32), "scales"))
        ins.append("scales")
    else:
        inits.append(numpy_helper.from_array(np.zeros(0, np.float32), "scales"))
        inits.append(numpy_helper.from_array(np.array(sizes, np.int64), "sizes"))
        ins += ["scales", "sizes"]
    node = helper.make_node("Resize", ins, ["y"], name="resize", mode=mode,
                            coordinate_transformation_mode=coord, **attrs)
    graph = helper.make_graph([node], "resize_1d",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    return m


def widened(target):
    """The 4-D target of (N, C, 1, L) for a 3-D one."""
    return {k: v[:2] + [1.0 if k == "scales" else 1] + v[2:] for k, v in target.items()}


def cases():
    """(name, model, its ONNX Runtime oracle model, the oracle's input shape)."""
    shape = [2, 3, 11]
    for mode, coord in itertools.product(["linear", "cubic"], COORDS):
        for target in [{"scales": [1.0, 1.0, 2.0]}, {"scales": [1.0, 1.0, 0.5]}, {"sizes": [2, 3, 7]}]:
            extra = [{}]
            if mode == "cubic":
                extra.append({"cubic_coeff_a": -0.5, "exclude_outside": 1})
            if target.get("scales") == [1.0, 1.0, 0.5] and coord == "half_pixel":
                extra.append({"antialias": 1})
            for attrs in extra:
                name = f"{mode} {coord} {target} {attrs}"
                m = model(shape, mode, coord, **target, **attrs)
                if mode == "cubic":
                    oracle = model(shape[:2] + [1] + shape[2:], mode, coord, **widened(target), **attrs)
                    yield name, m, oracle, shape
                else:
                    yield name, m, m, shape


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    failures, total = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, m, oracle, shape in cases():
            total += 1
            path, xin, out = (os.path.join(tmp, f) for f in ["m.onnx", "x.npy", "out"])
            onnx.save(m, path)
            x = rng.standard_normal(shape).astype(np.float32)
            np.save(xin, x)
            r = subprocess.run([args.qlower, "run", path, "-i", f"x={xin}", "--out-dir", out,
                                "--threads", "1"], capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                failures.append(f"{name}: qlower failed: {r.stderr.strip()}")
                continue
            got = np.load(os.path.join(out, "y.npy"))
            if oracle is m:
                want = ort_oracle.run(m, {"x": x})["y"]
            else:
                wide = ort_oracle.run(oracle, {"x": x[:, :, None, :]})["y"]
                want = wide[:, :, 0, :]
            err = float(np.linalg.norm(got.astype(np.float64) - want) / max(np.linalg.norm(want), 1e-30))
            if got.shape != want.shape or err > BOUND:
                failures.append(f"{name}: shape {got.shape} vs {want.shape}, rel L2 {err:.2e}")
    for f in failures:
        print("FAIL", f)
    print(f"{total - len(failures)} passed, {len(failures)} failed (3-D linear and cubic Resize)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
