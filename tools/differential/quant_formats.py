#!/usr/bin/env python3
"""QuantizeLinear and DequantizeLinear in the formats beyond per-tensor and per-axis
8-bit, through ONNX Runtime (tools/ort_oracle.py, exact mode), a numpy reference of the
ONNX formulas, and `qlower run`:

- blocked (opset 21 `block_size`): uint8, int8, int16 and uint16, every axis, block
  sizes that do and do not divide the axis (a last partial block);
- 16-bit (INT16, UINT16), per tensor and per axis, with zero points across the range;
- a blocked int8 weight read by a MatMul, the weight-only form of LLM checkpoints.

    quant_formats.py --qlower PATH [--cases N] [--seed S]

Every result must equal the reference byte for byte, and ONNX Runtime's too (ORT
refuses a blocked scale of one element, taking it for per-tensor; those cases are
checked against the reference alone). The MatMul
model runs ORT with graph optimizations off: with them on, ORT rewrites a blocked
DequantizeLinear feeding a MatMul into its MatMulNBits kernel, which quantizes the
activations to 8 bits (an approximation the ONNX graph does not ask for).
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import ort_oracle  # noqa: E402  (tools/ort_oracle.py)

ORT_REFUSED = []

TYPES = {
    "uint8": (TensorProto.UINT8, np.uint8),
    "int8": (TensorProto.INT8, np.int8),
    "uint16": (TensorProto.UINT16, np.uint16),
    "int16": (TensorProto.INT16, np.int16),
}


def expand(p, axis, block, length):
    """Blocked parameters repeated to one per element along `axis`."""
    if block == 0:
        return p
    return np.repeat(p, block, axis=axis).take(range(length), axis=axis)


def broadcastable(p, rank, axis, block):
    """Per-axis parameters reshaped to broadcast along `axis`; others as they are."""
    if block or p.ndim == 0 or p.size == 1:
        return p.reshape(()) if not block and p.size == 1 else p
    shape = [1] * rank
    shape[axis] = p.size
    return p.reshape(shape)


def reference_dq(x, s, z, axis, block):
    s = broadcastable(expand(s, axis, block, x.shape[axis]), x.ndim, axis, block)
    z = broadcastable(expand(z, axis, block, x.shape[axis]), x.ndim, axis, block)
    return ((x.astype(np.float32) - z.astype(np.float32)) * s).astype(np.float32)


def reference_q(x, s, z, axis, block, dtype):
    s = broadcastable(expand(s, axis, block, x.shape[axis]), x.ndim, axis, block)
    z = broadcastable(expand(z, axis, block, x.shape[axis]), x.ndim, axis, block)
    info = np.iinfo(dtype)
    q = np.round(x / s) + z.astype(np.float32)
    return np.clip(q, info.min, info.max).astype(dtype)


def model(op, shape, axis, block, elem, s, z):
    attrs = {"axis": axis}
    if block:
        attrs["block_size"] = block
    float_info = helper.make_tensor_value_info
    x_type = elem if op == "DequantizeLinear" else TensorProto.FLOAT
    y_type = TensorProto.FLOAT if op == "DequantizeLinear" else elem
    g = helper.make_graph(
        [helper.make_node(op, ["x", "s", "z"], ["y"], name="q", **attrs)], "g",
        [float_info("x", x_type, list(shape))], [float_info("y", y_type, list(shape))],
        [numpy_helper.from_array(s, "s"), numpy_helper.from_array(z, "z")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)])
    m.ir_version = 10
    return m


def run_qlower(qlower, path, feeds, tmp):
    cli = [qlower, "run", path, "--out-dir", os.path.join(tmp, "out")]
    for name, value in feeds.items():
        f = os.path.join(tmp, f"{name}.npy")
        np.save(f, value)
        cli += ["-i", f"{name}={f}"]
    r = subprocess.run(cli, capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr.strip()
    return np.load(os.path.join(tmp, "out", "y.npy")), None


def random_case(rng):
    rank = int(rng.integers(1, 4))
    shape = [int(d) for d in rng.integers(1, 7, rank)]
    axis = int(rng.integers(-rank, rank))
    a = axis % rank
    kind = rng.choice(["blocked", "per-axis", "per-tensor"])
    name = str(rng.choice(list(TYPES) if kind == "blocked" else ["uint16", "int16"]))
    elem, dtype = TYPES[name]
    block = int(rng.integers(1, shape[a] + 2)) if kind == "blocked" else 0
    if kind == "blocked":
        pshape = list(shape)
        pshape[a] = -(-shape[a] // block)
    elif kind == "per-axis":
        pshape = [shape[a]]
    else:
        pshape = []
    info = np.iinfo(dtype)
    s = (rng.random(pshape) * 0.2 + 0.01).astype(np.float32)
    z = rng.integers(info.min, int(info.max) + 1, pshape).astype(dtype)
    return kind, name, shape, axis, block, elem, dtype, s, z


def check_case(args, rng, tmp, i):
    kind, name, shape, axis, block, elem, dtype, s, z = random_case(rng)
    a = axis % len(shape)
    failures = []
    for op in ("DequantizeLinear", "QuantizeLinear"):
        info = np.iinfo(dtype)
        if op == "DequantizeLinear":
            x = rng.integers(info.min, int(info.max) + 1, shape).astype(dtype)
            want = reference_dq(x, s, z, a, block)
        else:
            span = float(s.max()) * (int(info.max) - int(info.min))
            x = (rng.standard_normal(shape) * span / 4).astype(np.float32)
            want = reference_q(x, s, z, a, block, dtype)
        path = os.path.join(tmp, f"case{i}_{op}.onnx")
        onnx.save(model(op, shape, axis, block, elem, s, z), path)
        label = f"{op} {kind} {name} shape {shape} axis {axis} block {block}"
        got, err = run_qlower(args.qlower, path, {"x": x}, tmp)
        if err:
            failures.append(f"{label}: qlower failed: {err}")
            continue
        try:
            ref = ort_oracle.session(path).run(None, {"x": x})[0]
            if not np.array_equal(ref, want):
                failures.append(f"{label}: ONNX Runtime differs from the reference")
        except Exception as e:  # noqa: BLE001  (ORT's refusals are its own)
            # ORT takes a one-element blocked scale for per-tensor and refuses it; the
            # spec allows it, and the reference still judges qlower.
            if not (block and s.size == 1):
                failures.append(f"{label}: ONNX Runtime failed: {e}")
            ORT_REFUSED.append(label)
        if got.dtype != want.dtype or not np.array_equal(got, want):
            failures.append(f"{label}: qlower differs from the reference")
    return failures


def check_blocked_matmul(args, rng, tmp):
    w = rng.integers(-128, 128, (96, 24)).astype(np.int8)
    s = (rng.random((3, 24)) * 0.05 + 0.001).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("DequantizeLinear", ["w", "s"], ["wf"], axis=0, block_size=32),
         helper.make_node("MatMul", ["x", "wf"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 96])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5, 24])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(s, "s")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)])
    m.ir_version = 10
    path = os.path.join(tmp, "blocked_matmul.onnx")
    onnx.save(m, path)
    x = rng.standard_normal((5, 96)).astype(np.float32)
    got, err = run_qlower(args.qlower, path, {"x": x}, tmp)
    if err:
        return [f"blocked MatMul: qlower failed: {err}"]
    level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    ref = ort_oracle.session(path, level=level).run(None, {"x": x})[0]
    err = float(np.linalg.norm(got - ref) / np.linalg.norm(ref))
    print(f"blocked int8 MatMul (block 32): relative L2 against ORT {err:.2e}")
    return [] if err <= 1e-6 else [f"blocked MatMul: relative L2 {err:.2e} over 1e-6"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.cases):
            failures += check_case(args, rng, tmp, i)
        failures += check_blocked_matmul(args, rng, tmp)
    for f in failures:
        print("FAIL", f)
    if ORT_REFUSED:
        print(f"{len(ORT_REFUSED)} blocked cases with one block ONNX Runtime refuses, "
              "checked against the reference alone")
    print(f"{args.cases} cases (Q and DQ each), {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
