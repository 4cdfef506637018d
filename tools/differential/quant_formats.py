#!/usr/bin/env python3
"""QuantizeLinear and DequantizeLinear in the formats beyond per-tensor and per-axis
8-bit, through ONNX Runtime (tools/ort_oracle.py, exact mode), a numpy reference of the
ONNX formulas, and `qlower run`:

- blocked (opset 21 `block_size`): uint8, int8, int16 and uint16, every axis, block
  sizes that do and do not divide the axis (a last partial block);
- 16-bit (INT16, UINT16), per tensor and per axis, with zero points across the range;
- a blocked int8 weight read by a MatMul, the weight-only form of LLM checkpoints;
- INT4 and UINT4 (packed two per byte): weights per tensor, per axis and blocked,
  dequantized into a MatMul, and QuantizeLinear -> DequantizeLinear round trips. ORT's
  Python API cannot bind 4-bit graph inputs or outputs, so 4-bit values stay inside
  these models; qlower's own 4-bit outputs (written as int8/uint8 .npy) are checked
  against the reference.

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

from qlower_tools import ort_oracle

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


FOUR_BIT = {"int4": (TensorProto.INT4, np.int8, -8, 7), "uint4": (TensorProto.UINT4, np.uint8, 0, 15)}


def four_bit_params(rng, name, kind, k, n, block):
    """Scale and zero point of a [k, n] weight quantized along axis 0."""
    elem, carrier, lo, hi = FOUR_BIT[name]
    shape = {"per-tensor": [], "per-axis": [k], "blocked": [-(-k // max(block, 1)), n]}[kind]
    s = (rng.random(shape) * 0.05 + 0.001).astype(np.float32)
    z = rng.integers(lo, hi + 1, shape).astype(carrier)
    return s, z


def four_bit_full(p, kind, k, n, block):
    """Parameters of a [k, n] tensor quantized along axis 0, one per element."""
    if kind == "per-axis":
        p = p.reshape(k, 1)
    elif kind == "blocked":
        p = expand(p, 0, block, k)
    return np.broadcast_to(p, (k, n))


def four_bit_dq(q, s, z, kind, block):
    k, n = q.shape
    s, z = four_bit_full(s, kind, k, n, block), four_bit_full(z, kind, k, n, block)
    return ((q.astype(np.float32) - z.astype(np.float32)) * s).astype(np.float32)


def four_bit_attrs(kind, block):
    return {"axis": 0, "block_size": block} if kind == "blocked" else {"axis": 0}


def check_four_bit_matmul(args, rng, tmp, name, kind):
    """DequantizeLinear of a constant 4-bit [k, n] weight feeding a MatMul."""
    elem, carrier, lo, hi = FOUR_BIT[name]
    k, n, block = 40, 12, 16
    w = rng.integers(lo, hi + 1, (k, n)).astype(carrier)
    s, z = four_bit_params(rng, name, kind, k, n, block)
    g = helper.make_graph(
        [helper.make_node("DequantizeLinear", ["w", "s", "z"], ["wf"],
                          **four_bit_attrs(kind, block)),
         helper.make_node("MatMul", ["x", "wf"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, n])],
        [helper.make_tensor("w", elem, w.shape, w.ravel().tolist()),
         numpy_helper.from_array(s, "s"),
         helper.make_tensor("z", elem, z.shape, z.ravel().tolist())])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)])
    m.ir_version = 10
    path = os.path.join(tmp, f"{name}_{kind}_matmul.onnx")
    onnx.save(m, path)
    x = rng.standard_normal((3, k)).astype(np.float32)
    label = f"{name} {kind} DequantizeLinear -> MatMul"
    got, err = run_qlower(args.qlower, path, {"x": x}, tmp)
    if err:
        return [f"{label}: qlower failed: {err}"]
    level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    ref = ort_oracle.session(path, level=level).run(None, {"x": x})[0]
    want = x @ four_bit_dq(w, s, z, kind, block)
    err = float(np.linalg.norm(got - ref) / np.linalg.norm(ref))
    ref_err = float(np.linalg.norm(want - ref) / np.linalg.norm(ref))
    print(f"{label}: relative L2 against ORT {err:.2e}")
    if err > 1e-6 or ref_err > 1e-5:
        return [f"{label}: relative L2 {err:.2e} against ORT ({ref_err:.2e} reference)"]
    return []


def check_four_bit_round_trip(args, rng, tmp, name, kind):
    """QuantizeLinear to 4 bits and back (ORT), and to 4 bits alone (the reference)."""
    elem, carrier, lo, hi = FOUR_BIT[name]
    k, n, block = 6, 5, 4
    s, z = four_bit_params(rng, name, kind, k, n, block)
    x = (rng.standard_normal((k, n)) * float(s.max()) * 6).astype(np.float32)
    fs, fz = four_bit_full(s, kind, k, n, block), four_bit_full(z, kind, k, n, block)
    q = np.clip(np.round(x / fs) + fz.astype(np.float32), lo, hi).astype(carrier)
    failures = []
    for ops in (["QuantizeLinear"], ["QuantizeLinear", "DequantizeLinear"]):
        y_type = elem if len(ops) == 1 else TensorProto.FLOAT
        names = ["x"] + [f"t{i}" for i in range(len(ops) - 1)] + ["y"]
        g = helper.make_graph(
            [helper.make_node(op, [names[i], "s", "z"], [names[i + 1]],
                              **four_bit_attrs(kind, block)) for i, op in enumerate(ops)], "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [k, n])],
            [helper.make_tensor_value_info("y", y_type, [k, n])],
            [numpy_helper.from_array(s, "s"),
             helper.make_tensor("z", elem, z.shape, z.ravel().tolist())])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)])
        m.ir_version = 10
        path = os.path.join(tmp, f"{name}_{kind}_{len(ops)}.onnx")
        onnx.save(m, path)
        label = f"{name} {kind} {' -> '.join(ops)}"
        got, err = run_qlower(args.qlower, path, {"x": x}, tmp)
        if err:
            failures.append(f"{label}: qlower failed: {err}")
            continue
        if len(ops) == 1:
            want = q
        else:
            want = four_bit_dq(q, s, z, kind, block)
            ref = ort_oracle.session(path).run(None, {"x": x})[0]
            if not np.array_equal(ref, want):
                failures.append(f"{label}: ONNX Runtime differs from the reference")
        if got.dtype != want.dtype or not np.array_equal(got, want):
            failures.append(f"{label}: qlower differs from the reference")
    return failures


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
        for name in FOUR_BIT:
            for kind in ("per-tensor", "per-axis", "blocked"):
                failures += check_four_bit_matmul(args, rng, tmp, name, kind)
                failures += check_four_bit_round_trip(args, rng, tmp, name, kind)
    for f in failures:
        print("FAIL", f)
    if ORT_REFUSED:
        print(f"{len(ORT_REFUSED)} blocked cases with one block ONNX Runtime refuses, "
              "checked against the reference alone")
    print(f"{args.cases} cases (Q and DQ each), {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
