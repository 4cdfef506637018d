#!/usr/bin/env python3
"""ONNX Runtime's transformer contrib ops against ONNX Runtime (tools/ort_oracle.py) and a
float64 numpy reference, through `qlower run`: Gelu, BiasGelu, FastGelu (with and without
bias), QuickGelu, BiasAdd, SkipLayerNormalization and SkipSimplifiedLayerNormalization
(with bias and beta or not, every optional output), and SimplifiedLayerNormalization
(default and com.microsoft domains, axis -1 and -2).

    transformer_contrib.py --qlower PATH [--seed S]

Each case is one node over [batch, seq, hidden] float32 inputs. Bounds, as relative L2
over each output: 1e-5 against the float64 reference, 1e-5 against ONNX Runtime (both
compute in f32; the summation orders and the erf/tanh approximations differ). Where ONNX
Runtime has no CPU kernel for an op (BiasAdd), it is held to the reference alone.
"""

import argparse
import os
import sys
import tempfile
from math import erf, sqrt

import numpy as np
import onnx
from onnx import TensorProto, helper

from qlower_tools import ort_oracle, qlower_cli

BOUND = 1e-5
MS = "com.microsoft"
verf = np.vectorize(erf)


def rel_l2(got, want):
    want = np.asarray(want, np.float64)
    return float(np.linalg.norm(np.asarray(got, np.float64) - want) / max(np.linalg.norm(want), 1e-30))


def gelu(x):
    return 0.5 * x * (1.0 + verf(x / sqrt(2.0)))


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def layer_norm(s, gamma, beta, eps):
    mean = s.mean(-1, keepdims=True)
    var = ((s - mean) ** 2).mean(-1, keepdims=True)
    inv = 1.0 / np.sqrt(var + eps)
    y = (s - mean) * inv * gamma + (0 if beta is None else beta)
    return y, mean, inv


def rms_norm(s, scale, eps, axis=-1):
    axes = tuple(range(axis % s.ndim, s.ndim))
    inv = 1.0 / np.sqrt((s * s).mean(axes, keepdims=True) + eps)
    return s * inv * scale, inv


def node_model(op, domain, inputs, outputs, attrs=None):
    """One node named `op`; `inputs` maps names to arrays ("" leaves an input out)."""
    names = list(inputs)
    node = helper.make_node(op, names, outputs, name="n", domain=domain, **(attrs or {}))
    graph = helper.make_graph(
        [node], "contrib",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(v.shape))
         for n, v in inputs.items() if n],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs if o])
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    return model


def cases(rng):
    """(name, model, feeds, {output: float64 reference}, ort_has_kernel)."""
    shape = [2, 5, 16]
    r = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    x, skip = r(*shape), r(*shape)
    bias, gamma, beta = r(16), (rng.random(16) + 0.5).astype(np.float32), r(16)
    f = lambda a: a.astype(np.float64)  # noqa: E731
    yield ("Gelu", node_model("Gelu", MS, {"x": x}, ["y"]), {"x": x}, {"y": gelu(f(x))}, True)
    yield ("BiasGelu", node_model("BiasGelu", MS, {"x": x, "b": bias}, ["y"]), {"x": x, "b": bias},
           {"y": gelu(f(x) + f(bias))}, True)
    yield ("FastGelu", node_model("FastGelu", MS, {"x": x}, ["y"]), {"x": x},
           {"y": gelu_tanh(f(x))}, True)
    yield ("FastGelu+bias", node_model("FastGelu", MS, {"x": x, "b": bias}, ["y"]), {"x": x, "b": bias},
           {"y": gelu_tanh(f(x) + f(bias))}, True)
    for alpha in [1.702, 1.0]:
        yield (f"QuickGelu alpha={alpha}", node_model("QuickGelu", MS, {"x": x}, ["y"], {"alpha": alpha}),
               {"x": x}, {"y": f(x) / (1.0 + np.exp(-np.float32(alpha) * f(x)))}, True)
    yield ("BiasAdd", node_model("BiasAdd", MS, {"x": x, "b": bias, "s": skip}, ["y"]),
           {"x": x, "b": bias, "s": skip}, {"y": f(x) + f(bias) + f(skip)}, False)
    for with_beta in [False, True]:
        for with_bias in [False, True]:
            for outs in [["y"], ["y", "mean", "inv", "sum"]]:
                ins = {"x": x, "s": skip, "g": gamma}
                if with_beta or with_bias:
                    ins["beta" if with_beta else ""] = beta
                if with_bias:
                    ins["bias"] = bias
                feeds = {k: v for k, v in ins.items() if k}
                s = f(x) + f(skip) + (f(bias) if with_bias else 0)
                y, mean, inv = layer_norm(s, f(gamma), f(beta) if with_beta else None, 1e-12)
                ref = {"y": y, "mean": mean, "inv": inv, "sum": s}
                yield (f"SkipLayerNormalization beta={with_beta} bias={with_bias} outputs={len(outs)}",
                       node_model("SkipLayerNormalization", MS, ins, outs), feeds,
                       {o: ref[o] for o in outs}, True)
    for with_bias in [False, True]:
        for outs in [["y"], ["y", "", "inv", "sum"]]:
            ins = {"x": x, "s": skip, "g": gamma}
            if with_bias:
                ins["bias"] = bias
            s = f(x) + f(skip) + (f(bias) if with_bias else 0)
            y, inv = rms_norm(s, f(gamma), 1e-12)
            ref = {"y": y, "inv": inv, "sum": s}
            yield (f"SkipSimplifiedLayerNormalization bias={with_bias} outputs={len(outs)}",
                   node_model("SkipSimplifiedLayerNormalization", MS, ins, outs), dict(ins),
                   {o: ref[o] for o in outs if o}, True)
    for domain in ["", MS]:
        for axis in [-1, -2]:
            scale = (rng.random([5, 16] if axis == -2 else [16]) + 0.5).astype(np.float32)
            y, inv = rms_norm(f(x), f(scale), 1e-5, axis)
            yield (f"SimplifiedLayerNormalization domain={domain or 'onnx'} axis={axis}",
                   node_model("SimplifiedLayerNormalization", domain, {"x": x, "scale": scale},
                              ["y", "inv"], {"axis": axis}),
                   {"x": x, "scale": scale}, {"y": y, "inv": inv}, domain == "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    failures, total, reference_only = [], 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for name, model, feeds, refs, ort_kernel in cases(rng):
            total += 1
            path = os.path.join(tmp, "m.onnx")
            onnx.save(model, path)
            got, err = qlower_cli.run(args.qlower, path, feeds, list(refs), tmp, threads=1, timeout=120)
            if got is None:
                failures.append(f"{name}: qlower failed: {err}")
                continue
            ort = ort_oracle.run(model, feeds) if ort_kernel else None
            if ort is None:
                reference_only.append(name)
            for o, want in refs.items():
                e_ref = rel_l2(got[o], want)
                e_ort = rel_l2(got[o], ort[o]) if ort is not None else 0.0
                shape_ok = got[o].shape == want.shape
                if not shape_ok or e_ref > BOUND or e_ort > BOUND:
                    failures.append(f"{name} output {o}: shape {got[o].shape} vs {want.shape}, "
                                    f"rel L2 vs reference {e_ref:.2e}, vs ORT {e_ort:.2e}")
    for f in failures:
        print("FAIL", f)
    print(f"{total - len({f.split(':')[0].split(' output')[0] for f in failures})}/{total} contrib op "
          f"cases agree ({len(reference_only)} without an ONNX Runtime CPU kernel, checked "
          f"against the reference alone: {', '.join(reference_only)})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
