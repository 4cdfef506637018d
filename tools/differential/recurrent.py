#!/usr/bin/env python3
"""Random recurrent layers through ONNX Runtime (tools/ort_oracle.py, exact mode) and
`qlower run`: ONNX LSTM and GRU in every direction, with and without
sequence_lens, initial states, peepholes, clip, other activations, input_forget and
linear_before_reset, some outputs left out; and com.microsoft DynamicQuantizeLSTM with
int8 or uint8 weights quantized per direction. Every fourth case also prints its
torch form (`--emit torch`), runs the `.mlir`, and must get the same bytes, or, for a
layer the torch form writes as a `torch.prim.Loop` of torch ops (expand_recurrent/),
whose matmuls sum in another order than the fused kernel, agree within the case's bound.

    recurrent.py --qlower PATH [--cases N] [--seed S] [--keep DIR]

Float outputs must agree within a relative L2 error of 1e-5 (the order of float sums
differs). DynamicQuantizeLSTM quantizes X and every H at run time from their ranges, so
a one-ulp difference in H can move one quantized value by a step; its bound is 1e-3.
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

FLOAT_BOUND = 1e-5
DYNAMIC_BOUND = 1e-3

# Activations ONNX Runtime runs, with the alphas/betas they read.
ALTERNATIVES = [
    ("Relu", [], []), ("LeakyRelu", [0.1], []), ("HardSigmoid", [0.3], [0.4]),
    ("ScaledTanh", [0.9], [1.1]), ("Elu", [0.5], []), ("Softsign", [], []),
    ("Softplus", [], []), ("Affine", [0.7], [0.1]), ("ThresholdedRelu", [0.2], []),
]


def init(name, value):
    return numpy_helper.from_array(np.asarray(value), name)


def activations(rng, per_direction, directions):
    """None (the defaults) or explicit functions with their alpha and beta lists."""
    if rng.random() < 0.6:
        return None
    names, alphas, betas = [], [], []
    defaults = ["Sigmoid", "Tanh", "Tanh"][:per_direction]
    for _ in range(directions):
        for k in range(per_direction):
            if rng.random() < 0.5:
                names.append(defaults[k])
            else:
                n, a, b = ALTERNATIVES[rng.integers(len(ALTERNATIVES))]
                names.append(n)
                alphas += a
                betas += b
    return names, alphas, betas


def gen(rng, kind):
    """(model, feeds, description) for one random layer of `kind`."""
    t, b, i, h = (int(rng.integers(1, 6)), int(rng.integers(1, 4)), int(rng.integers(1, 7)),
                  int(rng.integers(1, 7)))
    direction = ["forward", "reverse", "bidirectional"][rng.integers(3)]
    d = 2 if direction == "bidirectional" else 1
    gates = 3 if kind == "gru" else 4
    # ONNX Runtime refuses layout 1 (batch first); the ONNX backend tests
    # (test_lstm_batchwise, test_gru_batchwise) cover it in the conformance suite.
    layout = 0
    x_shape = [b, t, i] if layout else [t, b, i]
    state_shape = [b, d, h] if layout else [d, b, h]
    feeds = {"x": rng.uniform(-1, 1, x_shape).astype(np.float32)}
    inits, names = [], ["x", "w", "r"]
    attrs = {"direction": direction, "hidden_size": h}
    desc = [kind, direction, f"T{t} B{b} I{i} H{h}"]
    if layout:
        attrs["layout"] = 1
        desc.append("layout 1")
    w = rng.uniform(-0.6, 0.6, [d, gates * h, i]).astype(np.float32)
    r = rng.uniform(-0.6, 0.6, [d, gates * h, h]).astype(np.float32)
    if kind == "dynamic_lstm":
        wtype = [np.int8, np.uint8][rng.integers(2)]
        lo, hi = (-128, 127) if wtype == np.int8 else (0, 255)
        for name, shape in (("w", [d, i, gates * h]), ("r", [d, h, gates * h])):
            inits.append(init(name, rng.integers(lo, hi + 1, shape).astype(wtype)))
        desc.append(np.dtype(wtype).name)
    else:
        inits += [init("w", w), init("r", r)]
    optional = []
    if rng.random() < 0.7:
        inits.append(init("bias", rng.uniform(-0.5, 0.5, [d, 2 * gates * h]).astype(np.float32)))
        optional.append("bias")
    else:
        optional.append("")
    if rng.random() < 0.4:
        lens = rng.integers(0 if kind != "dynamic_lstm" else 1, t + 1, [b]).astype(np.int32)
        lens[rng.integers(b)] = t
        feeds["seq"] = lens
        optional.append("seq")
        desc.append(f"sequence_lens {lens.tolist()}")
    else:
        optional.append("")
    states = ["h0"] + (["c0"] if kind != "gru" else [])
    for s in states:
        if rng.random() < 0.5:
            feeds[s] = rng.uniform(-1, 1, state_shape).astype(np.float32)
            optional.append(s)
            desc.append(s)
        else:
            optional.append("")
    if kind != "gru" and rng.random() < 0.3:
        inits.append(init("p", rng.uniform(-0.5, 0.5, [d, 3 * h]).astype(np.float32)))
        optional.append("p")
        desc.append("peepholes")
    if kind != "dynamic_lstm" and rng.random() < 0.25:
        attrs["clip"] = float(rng.uniform(0.2, 2.0))
        desc.append(f"clip {attrs['clip']:.2f}")
    if kind == "gru":
        attrs["linear_before_reset"] = int(rng.integers(2))
        desc.append(f"linear_before_reset {attrs['linear_before_reset']}")
    elif kind == "lstm" and rng.random() < 0.2:
        attrs["input_forget"] = 1
        desc.append("input_forget")
    acts = activations(rng, gates - 1 if kind == "gru" else 3, d) if kind != "dynamic_lstm" else None
    if acts:
        attrs["activations"] = acts[0]
        if acts[1]:
            attrs["activation_alpha"] = acts[1]
        if acts[2]:
            attrs["activation_beta"] = acts[2]
        desc.append("activations " + ",".join(acts[0]))
    while optional and optional[-1] == "":
        optional.pop()
    names += optional
    n_out = 2 if kind == "gru" else 3
    outputs = [f"y{k}" for k in range(n_out)]
    if rng.random() < 0.3:
        outputs[0] = ""  # Y left out
        desc.append("no Y")
    if kind == "dynamic_lstm":
        scale_shape = [d]
        for name, wt in (("w", inits[0]), ("r", inits[1])):
            zp_type = np.int8 if wt.data_type == TensorProto.INT8 else np.uint8
            zp = rng.integers(-3, 4, scale_shape) if zp_type == np.int8 else rng.integers(120, 136, scale_shape)
            inits.append(init(f"{name}_scale", rng.uniform(0.002, 0.01, scale_shape).astype(np.float32)))
            inits.append(init(f"{name}_zp", zp.astype(zp_type)))
        while len(names) < 8:
            names.append("")
        names += ["w_scale", "w_zp", "r_scale", "r_zp"]
        node = helper.make_node("DynamicQuantizeLSTM", names, outputs, domain="com.microsoft", **attrs)
        opsets = [helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)]
    else:
        node = helper.make_node(kind.upper(), names, outputs, **attrs)
        opsets = [helper.make_opsetid("", 14)]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)]
    if "seq" in feeds:
        inputs.append(helper.make_tensor_value_info("seq", TensorProto.INT32, [b]))
    for s in states:
        if s in feeds:
            inputs.append(helper.make_tensor_value_info(s, TensorProto.FLOAT, state_shape))
    y_shape = [b, t, d, h] if layout else [t, d, b, h]
    shapes = [y_shape] + [state_shape] * (n_out - 1)
    outs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, s)
            for o, s in zip(outputs, shapes) if o]
    graph = helper.make_graph([node], "recurrent", inputs, outs, inits)
    model = helper.make_model(graph, opset_imports=opsets, producer_name="qlower-differential")
    model.ir_version = 8
    if kind != "dynamic_lstm":
        onnx.checker.check_model(model)
    return model, feeds, " ".join(desc)


def rel_l2(got, want):
    num = float(np.linalg.norm((got.astype(np.float64) - want.astype(np.float64)).ravel()))
    den = float(np.linalg.norm(want.astype(np.float64).ravel()))
    return num / den if den > 0 else num


def mlir_round_trip(args, case, path, run_cmd, names, bound):
    """The torch form printed to `.mlir` and run must give the same bytes as the model,
    or agree within `bound` when it holds a loop in place of the fused layer."""
    mlir = os.path.join(case, "model.mlir")
    proc = subprocess.run([args.qlower, path, "--emit", "torch", "-o", mlir],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        return f"--emit torch failed: {proc.stderr.strip()[:300]}"
    out = os.path.join(case, "mlir_out")
    cmd = [args.qlower, "run", mlir, "--out-dir", out] + run_cmd[5:]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        return f"qlower run of the .mlir failed: {proc.stderr.strip()[:300]}"
    with open(mlir) as f:
        looped = "torch.prim.Loop" in f.read()
    for name in names:
        a = np.load(os.path.join(case, f"{name}.npy"))
        b = np.load(os.path.join(out, f"{name}.npy"))
        if looped and a.shape == b.shape and rel_l2(b, a) <= bound:
            continue
        if a.tobytes() != b.tobytes():
            return f"{name} from the .mlir differs from the model's"
    return None


def run_case(args, work, index, rng):
    kind = ["lstm", "gru", "dynamic_lstm"][index % 3]
    model, feeds, desc = gen(rng, kind)
    case = os.path.join(work, f"case{index}")
    os.makedirs(case, exist_ok=True)
    path = os.path.join(case, "model.onnx")
    onnx.save(model, path)
    want = ort_oracle.run(model, feeds, threads=1)
    cmd = [args.qlower, "run", path, "--out-dir", case, "--threads", "1"]
    for name, value in feeds.items():
        p = os.path.join(case, f"{name}.npy")
        np.save(p, value)
        cmd += ["-i", f"{name}={p}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        return f"case {index} ({desc}): qlower run failed: {proc.stderr.strip()[:400]}"
    bound = DYNAMIC_BOUND if kind == "dynamic_lstm" else FLOAT_BOUND
    if index % 4 == 0:
        err = mlir_round_trip(args, case, path, cmd, list(want), bound)
        if err:
            return f"case {index} ({desc}): {err}"
    for name, w in want.items():
        got = np.load(os.path.join(case, f"{name}.npy"))
        if got.shape != w.shape:
            return f"case {index} ({desc}): {name} has shape {got.shape}, ONNX Runtime {w.shape}"
        err = rel_l2(got, w)
        if not err <= bound:
            return f"case {index} ({desc}): {name} relative L2 {err:.3g} > {bound}"
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--qlower", required=True)
    parser.add_argument("--cases", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", help="keep the cases in this directory")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        for index in range(args.cases):
            err = run_case(args, work, index, rng)
            if err:
                failures.append(err)
                print("FAIL", err)
    print(f"{args.cases - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
