#!/usr/bin/env python3
"""Shows where ONNX Runtime's default quantized kernels are inexact, and that qlower is not.

    exactness.py --qlower PATH [--seed S]

On x86-64 CPUs without VNNI, ONNX Runtime's default uint8 x int8 kernels add each pair of
products in saturating 16-bit arithmetic (`vpmaddubsw`): 255 * 127 + 255 * 127 does not fit
in an int16. Its session option `session.x64quantprecision=1` switches to exact kernels.
This script runs full-range uint8 x int8 models (a ResNet stem QLinearConv with per-channel
weights and bias, a QLinearMatMul, a MatMulInteger with per-column zero points, and a QDQ
MatMul with asymmetric per-column int8 weights) through:

- the exact int64 NumPy reference (`int_reference.py`), for the single integer ops;
- `qlower run`;
- ONNX Runtime in exact mode, and in its default mode.

It fails when qlower or ONNX Runtime's exact mode differs from the reference (or, for the
QDQ model, qlower from ONNX Runtime's exact mode). On a CPU without VNNI it also fails
unless ONNX Runtime's default mode differs from the reference somewhere: that is the
difference this test exists to show. On a VNNI CPU the default mode is exact too, and the
script says it has nothing to show.

Prints a line per model and a final `N passed, M failed`. A test oracle only.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from qlower_tools import ort_oracle
from qlower_tools.differential import int_reference


def init(name, value):
    return numpy_helper.from_array(np.asarray(value), name)


def model_of(nodes, inputs, outputs, inits, opset=13):
    graph = helper.make_graph(nodes, "exactness", inputs, outputs, inits)
    opsets = [helper.make_opsetid("", opset)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="qlower-exactness")
    model.ir_version = helper.find_min_ir_version_for(opsets)
    # Declare the outputs' shapes, as exporters do.
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    model.graph.output[0].type.CopyFrom(inferred.graph.output[0].type)
    onnx.checker.check_model(model, full_check=True)
    return model


def stem(rng):
    """A ResNet stem: 3->64 channels, 7x7, stride 2, pad 3, per-channel int8 weights over
    their whole range, int32 bias."""
    x = rng.integers(0, 256, [1, 3, 64, 64]).astype(np.uint8)
    w = rng.integers(-128, 128, [64, 3, 7, 7]).astype(np.int8)
    inits = [
        init("x_scale", np.float32(0.02)), init("x_zero_point", np.uint8(128)), init("w", w),
        init("w_scale", rng.uniform(0.001, 0.004, 64).astype(np.float32)),
        init("w_zero_point", np.zeros(64, np.int8)),
        init("y_scale", np.float32(0.05)), init("y_zero_point", np.uint8(128)),
        init("B", rng.integers(-2000, 2000, 64).astype(np.int32)),
    ]
    node = helper.make_node(
        "QLinearConv", ["x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale",
                        "y_zero_point", "B"], ["y"], name="stem", kernel_shape=[7, 7], strides=[2, 2],
        pads=[3, 3, 3, 3])
    model = model_of([node], [helper.make_tensor_value_info("x", TensorProto.UINT8, x.shape)],
                     [helper.make_tensor_value_info("y", TensorProto.UINT8, None)], inits)
    return "QLinearConv stem 1x3x64x64, 64x3x7x7 per-channel int8", model, {"x": x}


def qlinearmatmul(rng):
    a = rng.integers(0, 256, [64, 256]).astype(np.uint8)
    b = rng.integers(-128, 128, [256, 64]).astype(np.int8)
    inits = [
        init("a_scale", np.float32(0.02)), init("a_zero_point", np.uint8(128)), init("b", b),
        init("b_scale", np.float32(0.003)), init("b_zero_point", np.int8(0)),
        init("y_scale", np.float32(0.5)), init("y_zero_point", np.uint8(128)),
    ]
    node = helper.make_node("QLinearMatMul", ["a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point",
                                              "y_scale", "y_zero_point"], ["y"], name="qmatmul")
    model = model_of([node], [helper.make_tensor_value_info("a", TensorProto.UINT8, a.shape)],
                     [helper.make_tensor_value_info("y", TensorProto.UINT8, None)], inits)
    return "QLinearMatMul 64x256 uint8 by 256x64 int8", model, {"a": a}


def matmulinteger(rng):
    a = rng.integers(0, 256, [2, 32, 128]).astype(np.uint8)
    b = rng.integers(-128, 128, [128, 48]).astype(np.int8)
    inits = [init("b", b), init("a_zero_point", np.uint8(131)),
             init("b_zero_point", rng.integers(-20, 21, 48).astype(np.int8))]
    node = helper.make_node("MatMulInteger", ["a", "b", "a_zero_point", "b_zero_point"], ["y"], name="mmi")
    model = model_of([node], [helper.make_tensor_value_info("a", TensorProto.UINT8, a.shape)],
                     [helper.make_tensor_value_info("y", TensorProto.INT32, None)], inits)
    return "MatMulInteger 2x32x128 uint8 by 128x48 int8, per-column zero points", model, {"a": a}


def qdq_matmul(rng):
    """A QDQ MatMul as ONNX Runtime's quantizer writes it, with asymmetric per-column int8
    weights whose quantized values use the whole int8 range."""
    x = rng.uniform(-1.0, 3.0, [16, 96]).astype(np.float32)
    w = rng.normal(0.0, 0.5, [96, 24]).astype(np.float32) + rng.uniform(-0.5, 0.5, [1, 24]).astype(np.float32)
    lo, hi = np.minimum(w.min(axis=0), 0.0), np.maximum(w.max(axis=0), 0.0)
    w_scale = ((hi - lo) / 255.0).astype(np.float32)
    w_zp = np.clip(np.round(-128 - lo / w_scale), -128, 127).astype(np.int8)
    inits = [
        init("x_scale", np.float32(4.0 / 255.0)), init("x_zero_point", np.uint8(64)),
        init("w", w), init("w_scale", w_scale), init("w_zero_point", w_zp),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero_point"], ["x_q"]),
        helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zero_point"], ["x_dq"]),
        helper.make_node("QuantizeLinear", ["w", "w_scale", "w_zero_point"], ["w_q"], axis=1),
        helper.make_node("DequantizeLinear", ["w_q", "w_scale", "w_zero_point"], ["w_dq"], axis=1),
        helper.make_node("MatMul", ["x_dq", "w_dq"], ["y"]),
    ]
    model = model_of(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                     [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    return "QDQ MatMul 16x96 uint8 by 96x24 asymmetric per-column int8", model, {"x": x}


def qlower_run(qlower, work, name, model, feeds):
    path = os.path.join(work, f"{name}.onnx")
    onnx.save(model, path)
    out = os.path.join(work, f"{name}_out")
    cmd = [qlower, "run", path, "--out-dir", out]
    for k, v in feeds.items():
        f = os.path.join(work, f"{name}_{k}.npy")
        np.save(f, v)
        cmd += ["-i", f"{k}={f}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"qlower run failed: {proc.stderr.strip()}")
    return np.load(os.path.join(out, "y.npy"))


def differing(got, want):
    """How many elements differ, and by how much at most (in units of the type)."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return got.size or 1, float("inf")
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    return int((diff > 0).sum()), float(diff.max()) if diff.size else 0.0


def describe(count, worst, size, float_output):
    if count == 0:
        return "equal"
    unit = "" if float_output else " steps"
    return f"{count} of {size} differ ({100.0 * count / size:.1f} %), max {worst:.4g}{unit}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qlower", required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    saturates = ort_oracle.default_mode_saturates()
    print(f"exactness: {ort_oracle.cpu_name()}; ONNX Runtime default mode vs exact mode "
          f"({'='.join(ort_oracle.EXACT_MODE)})", flush=True)
    passed = failed = 0
    default_wrong = 0
    with tempfile.TemporaryDirectory(prefix="qlower-exactness-") as work:
        for make in (stem, qlinearmatmul, matmulinteger, qdq_matmul):
            label, model, feeds = make(rng)
            name = make.__name__
            exact = ort_oracle.run(model, feeds, exact=True, threads=1)["y"]
            default = ort_oracle.run(model, feeds, exact=False, threads=1)["y"]
            try:
                mine = qlower_run(args.qlower, work, name, model, feeds)
            except RuntimeError as e:
                print(f"FAIL {label}: {e}")
                failed += 1
                continue
            reference = int_reference.evaluate(model, feeds)
            truth, truth_name = (exact, "ORT exact") if reference is None else (reference, "int64 reference")
            float_output = truth.dtype.kind == "f"
            q_bad, q_worst = differing(mine, truth)
            e_bad, e_worst = differing(exact, truth)
            d_bad, d_worst = differing(default, truth)
            if float_output:
                # qlower and ORT add the dequantized products in a different order: equal
                # within float rounding is equal here; the saturation errors are far larger.
                tolerance = 1e-5 * max(1.0, float(np.abs(truth).max()))
                q_bad = int((np.abs(mine - truth) > tolerance).sum())
                d_bad = int((np.abs(default - truth) > tolerance).sum())
            default_wrong += d_bad > 0
            ok = q_bad == 0 and e_bad == 0
            size = truth.size
            print(f"{'ok  ' if ok else 'FAIL'} {label}: against the {truth_name}, "
                  f"qlower {describe(q_bad, q_worst, size, float_output)}; "
                  f"ORT exact {describe(e_bad, e_worst, size, float_output)}; "
                  f"ORT default {describe(d_bad, d_worst, size, float_output)}", flush=True)
            passed += ok
            failed += not ok
    if not saturates:
        print("ONNX Runtime's default uint8 x int8 kernels are exact on this CPU (it has VNNI), so "
              f"there is no difference to show ({default_wrong} of 4 models differed in default mode)")
    elif default_wrong == 0:
        print("FAIL ONNX Runtime's default mode saturates on this CPU, so it was expected to differ from the "
              "exact result on at least one full-range model, and did not")
        failed += 1
    else:
        print(f"ONNX Runtime's default mode saturates on this CPU: it is wrong on {default_wrong} of 4 models; "
              "qlower and ONNX Runtime's exact mode are exact")
        passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
