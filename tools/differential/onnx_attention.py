#!/usr/bin/env python3
"""ONNX's own Attention and RotaryEmbedding (opsets 23 and 24) against ONNX Runtime
(tools/ort_oracle.py) and a float64 numpy reference, through `qlower run`:
Attention with 3-D and 4-D inputs, grouped key/value heads, bool and float masks of
ranks 2 to 4, is_causal (with and without a past), scale, softcap and a past key/value
with the present outputs, the fourth output (qk_matmul_output) in each of its four
modes, and an external cache's nonpad_kv_seqlen (with and without is_causal and a
mask). The sliding windows of opset 25 are not here: ONNX Runtime 1.31 refuses them
(the ONNX conformance cases cover them); RotaryEmbedding with 3-D and 4-D input, split halves and
interleaved, partial rotation, and with and without position_ids.

    onnx_attention.py --qlower PATH [--seed S]

Each case is one node over float32 inputs. Bound: relative L2 over each output, 1e-5
against the float64 reference and against ONNX Runtime.
"""

import argparse
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

from qlower_tools import ort_oracle, qlower_cli
from qlower_tools.differential.attention import caches, f32, heads, merge, rel_l2, softmax

BOUND = 1e-5
ELEM = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64,
        np.dtype(np.bool_): TensorProto.BOOL}


def node_model(op, inputs, outputs, attrs, opset=23):
    """One node of `opset`; `inputs` maps names to arrays (a name starting with "_"
    leaves that input out, as does an output name starting with "_")."""
    names = [n if not n.startswith("_") else "" for n in inputs]
    node = helper.make_node(op, names, [o if not o.startswith("_") else "" for o in outputs],
                            name="n", **attrs)
    graph = helper.make_graph(
        [node], "onnx_attention",
        [helper.make_tensor_value_info(n, ELEM[v.dtype], list(v.shape))
         for n, v in inputs.items() if not n.startswith("_")],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None)
         for o in outputs if not o.startswith("_")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


# ---- float64 reference ----

def attention_reference(q, k, v, mask=None, past=None, causal=False, scale=None,
                        softcap=0.0, q_heads=None, kv_heads=None, nonpad=None, qk_mode=None):
    """Y and the present K/V; with `qk_mode`, also the fourth output: the scaled scores
    (0), soft-capped (1), plus mask with -inf where a key is removed (2), or the
    weights (3). `nonpad` (per batch) is an external cache's valid lengths."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    three_d = q.ndim == 3
    if three_d:
        q, k, v = heads(q, q_heads), heads(k, kv_heads), heads(v, kv_heads)
    past_length = 0
    if past is not None:
        past_length = past[0].shape[2]
        k = np.concatenate([past[0].astype(np.float64), k], axis=2)
        v = np.concatenate([past[1].astype(np.float64), v], axis=2)
    present = (k, v)
    group = q.shape[1] // k.shape[1]
    kk, vv = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    scale = 1 / np.sqrt(q.shape[3]) if scale is None else scale
    scores = q @ kk.transpose(0, 1, 3, 2) * scale
    stages = [scores]
    if softcap > 0:
        scores = softcap * np.tanh(scores / softcap)
    stages.append(scores)
    s, t = scores.shape[-2:]
    allowed = np.ones((1, 1, s, t), bool)
    # The query block's absolute start: the past length, or nonpad - S per batch.
    start = past_length if nonpad is None else (nonpad - s).reshape(-1, 1, 1, 1)
    if causal:
        allowed = np.arange(t) <= np.arange(s)[:, None] + start
    if nonpad is not None:
        allowed = allowed & (np.arange(t) < nonpad.reshape(-1, 1, 1, 1))
    if mask is not None and mask.dtype == np.bool_:
        allowed = allowed & mask
    elif mask is not None:
        scores = scores + mask
    scores = np.where(allowed, scores, -np.inf)
    stages.append(scores)
    with np.errstate(invalid="ignore"):  # a query with no key: NaN, then zeros
        weights = softmax(scores)
    weights = np.where(allowed.any(-1, keepdims=True), weights, 0.0)
    stages.append(weights)
    y = weights @ vv
    y = merge(y) if three_d else y
    if qk_mode is None:
        return y, present
    return y, present, stages[qk_mode]


def rotary_reference(x, cos, sin, pos=None, interleaved=0, rotary_dim=0, num_heads=0):
    x = x.astype(np.float64)
    three_d = x.ndim == 3
    # [B, S, N, H]
    xs = x.reshape(x.shape[0], x.shape[1], num_heads, -1) if three_d else x.transpose(0, 2, 1, 3)
    if pos is not None:
        cos, sin = cos[pos], sin[pos]
    c, s = cos[:, :, None, :].astype(np.float64), sin[:, :, None, :].astype(np.float64)
    r = rotary_dim or xs.shape[-1]
    out = xs.copy()
    if interleaved:
        x1, x2 = xs[..., 0:r:2], xs[..., 1:r:2]
        out[..., 0:r:2], out[..., 1:r:2] = x1 * c - x2 * s, x2 * c + x1 * s
    else:
        x1, x2 = xs[..., :r // 2], xs[..., r // 2:r]
        out[..., :r // 2], out[..., r // 2:r] = x1 * c - x2 * s, x2 * c + x1 * s
    return out.reshape(x.shape) if three_d else out.transpose(0, 2, 1, 3)


# ---- cases ----

def attention_cases(rng):
    b, s, l, p, h = 2, 4, 6, 5, 8
    for nq, nkv in ((3, 3), (6, 2)):
        q, k, v = f32(rng, b, nq, s, h), f32(rng, b, nkv, l, h), f32(rng, b, nkv, l, 10)
        y, _ = attention_reference(q, k, v)
        yield f"attention 4-D {nq}/{nkv} heads", "Attention", {"Q": q, "K": k, "V": v}, {"Y": y}, {}
        y, _ = attention_reference(q, k, v, causal=True, scale=0.1, softcap=2.0)
        yield (f"attention 4-D {nq}/{nkv} causal scale softcap", "Attention",
               {"Q": q, "K": k, "V": v}, {"Y": y}, {"is_causal": 1, "scale": 0.1, "softcap": 2.0})
        for shape in ((s, l), (b, 1, s, l), (b, nq, s, l), (1, s, l)):
            mask = f32(rng, *shape)
            y, _ = attention_reference(q, k, v, mask=mask)
            yield (f"attention 4-D {nq}/{nkv} float mask {shape}", "Attention",
                   {"Q": q, "K": k, "V": v, "attn_mask": mask}, {"Y": y}, {})
        bool_mask = rng.random((b, 1, s, l)) < 0.7
        bool_mask[0, 0, 1] = False  # one query with no key: zeros
        y, _ = attention_reference(q, k, v, mask=bool_mask, causal=True)
        yield (f"attention 4-D {nq}/{nkv} bool mask causal", "Attention",
               {"Q": q, "K": k, "V": v, "attn_mask": bool_mask}, {"Y": y}, {"is_causal": 1})
        q3, k3, v3 = f32(rng, b, s, nq * h), f32(rng, b, s, nkv * h), f32(rng, b, s, nkv * h)
        pk, pv = f32(rng, b, nkv, p, h), f32(rng, b, nkv, p, h)
        mask = f32(rng, s, p + s)
        y, (ck, cv) = attention_reference(q3, k3, v3, mask=mask, past=(pk, pv), causal=True,
                                          q_heads=nq, kv_heads=nkv)
        yield (f"attention 3-D {nq}/{nkv} past mask causal", "Attention",
               {"Q": q3, "K": k3, "V": v3, "attn_mask": mask, "past_key": pk, "past_value": pv},
               {"Y": y, "present_key": ck, "present_value": cv},
               {"q_num_heads": nq, "kv_num_heads": nkv, "is_causal": 1})


def extension_cases(rng):
    """The fourth output in each mode (opset 23) and an external cache's valid lengths
    (nonpad_kv_seqlen, opset 24)."""
    b, s, l, h = 2, 4, 6, 8
    for nq, nkv in ((3, 3), (4, 2)):
        q, k, v = f32(rng, b, nq, s, h), f32(rng, b, nkv, l, h), f32(rng, b, nkv, l, 10)
        bool_mask = rng.random((s, l)) < 0.7
        bool_mask[:, 0] = True  # every query keeps a key: no -inf row to compare
        float_mask = f32(rng, b, 1, s, l)
        for mode in range(4):
            for mask, tag in ((bool_mask, "bool"), (float_mask, "float")):
                attrs = {"qk_matmul_output_mode": mode, "softcap": 3.0}
                y, _, qk = attention_reference(q, k, v, mask=mask, causal=False, softcap=3.0,
                                               qk_mode=mode)
                yield (f"attention {nq}/{nkv} qk_matmul_output mode {mode} {tag} mask",
                       "Attention", {"Q": q, "K": k, "V": v, "attn_mask": mask},
                       {"Y": y, "_pk": None, "_pv": None, "qk_matmul_output": qk}, attrs, 23)
        nonpad = np.array([l, 3], np.int64)
        for causal in (0, 1):
            y, _ = attention_reference(q, k, v, causal=bool(causal), nonpad=nonpad)
            yield (f"attention {nq}/{nkv} nonpad_kv_seqlen causal={causal}", "Attention",
                   {"Q": q, "K": k, "V": v, "_m": None, "_pk": None, "_pv": None,
                    "nonpad_kv_seqlen": nonpad}, {"Y": y}, {"is_causal": causal}, 24)
        y, _ = attention_reference(q, k, v, mask=float_mask, causal=True, nonpad=nonpad)
        yield (f"attention {nq}/{nkv} nonpad_kv_seqlen float mask causal", "Attention",
               {"Q": q, "K": k, "V": v, "attn_mask": float_mask, "_pk": None, "_pv": None,
                "nonpad_kv_seqlen": nonpad}, {"Y": y}, {"is_causal": 1}, 24)


def rotary_cases(rng):
    b, n, s, h = 2, 4, 5, 8
    for interleaved in (0, 1):
        for rotary_dim in (0, 4):
            half = (rotary_dim or h) // 2
            cos, sin = caches(rng, 16, half)
            pos = rng.integers(0, 16, (b, s)).astype(np.int64)
            attrs = {"interleaved": interleaved, "rotary_embedding_dim": rotary_dim}
            tag = f"interleaved={interleaved} rotary_dim={rotary_dim}"
            x4 = f32(rng, b, n, s, h)
            yield (f"rotary 4-D {tag}", "RotaryEmbedding",
                   {"input": x4, "cos_cache": cos, "sin_cache": sin, "position_ids": pos},
                   {"output": rotary_reference(x4, cos, sin, pos, interleaved, rotary_dim)}, attrs)
            x3 = f32(rng, b, s, n * h)
            yield (f"rotary 3-D {tag}", "RotaryEmbedding",
                   {"input": x3, "cos_cache": cos, "sin_cache": sin, "position_ids": pos},
                   {"output": rotary_reference(x3, cos, sin, pos, interleaved, rotary_dim, n)},
                   dict(attrs, num_heads=n))
            cos_b, sin_b = np.ascontiguousarray(cos[pos]), np.ascontiguousarray(sin[pos])
            yield (f"rotary 4-D without position_ids {tag}", "RotaryEmbedding",
                   {"input": x4, "cos_cache": cos_b, "sin_cache": sin_b},
                   {"output": rotary_reference(x4, cos_b, sin_b, None, interleaved, rotary_dim)},
                   attrs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    failures, total, worst, worst_abs = [], 0, 0.0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        cases = list(attention_cases(rng)) + list(extension_cases(rng)) + list(rotary_cases(rng))
        for name, op, inputs, refs, attrs, *opset in cases:
            total += 1
            model = node_model(op, inputs, list(refs), attrs, *opset)
            refs = {o: want for o, want in refs.items() if not o.startswith("_")}
            outputs = list(refs)
            feeds = {k: v for k, v in inputs.items() if not k.startswith("_")}
            path = os.path.join(tmp, "m.onnx")
            onnx.save(model, path)
            got, err = qlower_cli.run(args.qlower, path, feeds, outputs, tmp, threads=1, timeout=120)
            if got is None:
                failures.append(f"{name}: qlower failed: {err}")
                continue
            try:
                ort = ort_oracle.run(model, feeds)
            except Exception as e:  # noqa: BLE001  (a case ONNX Runtime refuses is a bad case)
                failures.append(f"{name}: ONNX Runtime failed: {e}")
                continue
            for o, want in refs.items():
                if got[o].shape == want.shape == ort[o].shape and np.isneginf(want).any():
                    # Keys a bool mask removes: -inf in the spec and in qlower, the
                    # lowest finite float in ONNX Runtime; the rest compares as usual.
                    removed = np.isneginf(want)
                    if not (np.isneginf(got[o][removed]).all()
                            and (ort[o][removed] <= np.finfo(np.float32).min).all()):
                        failures.append(f"{name} output {o}: removed keys are not -inf")
                    got[o], want, ort[o] = (np.where(removed, 0, x) for x in (got[o], want, ort[o]))
                e_ref, e_ort = rel_l2(got[o], want), rel_l2(got[o], ort[o])
                worst = max(worst, e_ref, e_ort)
                if got[o].shape == ort[o].shape:
                    worst_abs = max(worst_abs, float(np.abs(got[o] - ort[o]).max()))
                if got[o].shape != want.shape or e_ref > BOUND or e_ort > BOUND:
                    failures.append(f"{name} output {o}: shape {got[o].shape} vs {want.shape}, "
                                    f"rel L2 vs reference {e_ref:.2e}, vs ORT {e_ort:.2e} "
                                    f"(ORT vs reference {rel_l2(ort[o], want):.2e})")
    for f in failures:
        print("FAIL", f)
    failed = len({f.split(':')[0].split(' output')[0] for f in failures})
    print(f"{total - failed}/{total} ONNX Attention/RotaryEmbedding cases agree with ONNX Runtime "
          f"and the reference (worst relative L2 {worst:.2e}, "
          f"largest absolute difference from ONNX Runtime {worst_abs:.2e})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
