#!/usr/bin/env python3
"""ONNX Runtime's attention contrib ops against ONNX Runtime (tools/ort_oracle.py) and a
float64 numpy reference, through `qlower run`: RotaryEmbedding (3-D and 4-D input, split
halves and interleaved, partial rotary, position ids per token or one offset),
MultiHeadAttention (self and cross attention, bias, key padding masks of both forms,
unidirectional, attention bias, a past key/value cache) and GroupQueryAttention (prompt
and decode steps over a cache, rotary in both layouts, packed QKV, local window, softcap,
explicit scale), Attention (masks as lengths and 0/1, unidirectional, a past, uneven
qkv_hidden_sizes), QAttention and EmbedLayerNormalization.

    attention.py --qlower PATH [--seed S]

Each case is one node over float32 inputs. Bound: relative L2 over each output, 1e-5
against the float64 reference and against ONNX Runtime (both compute in f32; summation
orders and the exp differ).
"""

import argparse
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

from qlower_tools import ort_oracle, qlower_cli

BOUND = 1e-5
MS = "com.microsoft"
ELEM = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int32): TensorProto.INT32,
        np.dtype(np.int64): TensorProto.INT64, np.dtype(np.uint8): TensorProto.UINT8,
        np.dtype(np.int8): TensorProto.INT8}


def rel_l2(got, want):
    want = np.asarray(want, np.float64)
    return float(np.linalg.norm(np.asarray(got, np.float64) - want) / max(np.linalg.norm(want), 1e-30))


def node_model(op, inputs, outputs, attrs, out_types=None):
    """One com.microsoft node; `inputs` maps names to arrays ("" leaves an input out)."""
    out_types = out_types or {}
    names = [n if not n.startswith("_") else "" for n in inputs]
    node = helper.make_node(op, names, outputs, name="n", domain=MS, **attrs)
    graph = helper.make_graph(
        [node], "attention",
        [helper.make_tensor_value_info(n, ELEM[v.dtype], list(v.shape))
         for n, v in inputs.items() if not n.startswith("_")],
        [helper.make_tensor_value_info(o, ELEM[np.dtype(out_types.get(o, np.float32))], None)
         for o in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid(MS, 1)])
    model.ir_version = 8
    return model


# ---- float64 reference ----

def rotate(x, pos, cos, sin, interleaved):
    """x [..., S, H] with pos broadcasting against [..., S]."""
    half = cos.shape[1]
    r = 2 * half
    c, s = cos[pos], sin[pos]          # [..., S, half]
    out = x.copy()
    if interleaved:
        x1, x2 = x[..., 0:r:2], x[..., 1:r:2]
        out[..., 0:r:2] = x1 * c - x2 * s
        out[..., 1:r:2] = x2 * c + x1 * s
    else:
        x1, x2 = x[..., :half], x[..., half:r]
        out[..., :half] = x1 * c - x2 * s
        out[..., half:r] = x2 * c + x1 * s
    return out


def heads(x, n):
    b, s, d = x.shape
    return x.reshape(b, s, n, d // n).transpose(0, 2, 1, 3)


def merge(x):
    b, n, s, h = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, s, n * h)


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def attend(q, k, v, scale, additive=None, allowed=None, softcap=0.0):
    group = q.shape[1] // k.shape[1]
    k = np.repeat(k, group, axis=1)
    v = np.repeat(v, group, axis=1)
    scores = q @ k.transpose(0, 1, 3, 2) * scale
    if softcap > 0:
        scores = softcap * np.tanh(scores / softcap)
    if additive is not None:
        scores = scores + additive
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    return merge(softmax(scores) @ v)


# ---- cases ----

def f32(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def caches(rng, positions, half):
    theta = rng.uniform(0.01, 1.0, half)
    angles = np.arange(positions)[:, None] * theta[None]
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def rotary_cases(rng):
    b, s, n, h = 2, 5, 4, 8
    for interleaved in (0, 1):
        cos, sin = caches(rng, 16, h // 2)
        x = f32(rng, b, s, n * h)
        pos = rng.integers(0, 16, (b, s)).astype(np.int64)
        want = merge(rotate(heads(x.astype(np.float64), n), pos[:, None], cos, sin, interleaved))
        yield (f"rotary 3-D interleaved={interleaved}", "RotaryEmbedding",
               {"x": x, "pos": pos, "cos": cos, "sin": sin}, {"y": want},
               {"interleaved": interleaved, "num_heads": n})
        x4 = f32(rng, b, n, s, h)
        offset = np.array([3], np.int64)
        pos4 = (3 + np.arange(s))[None, None]
        want4 = rotate(x4.astype(np.float64), pos4, cos, sin, interleaved)
        yield (f"rotary 4-D offset interleaved={interleaved}", "RotaryEmbedding",
               {"x": x4, "pos": offset, "cos": cos, "sin": sin}, {"y": want4},
               {"interleaved": interleaved})
    cos, sin = caches(rng, 16, 2)
    x = f32(rng, b, s, n * h)
    pos = rng.integers(0, 16, (b, s)).astype(np.int64)
    want = merge(rotate(heads(x.astype(np.float64), n), pos[:, None], cos, sin, 0))
    yield ("rotary partial", "RotaryEmbedding", {"x": x, "pos": pos, "cos": cos, "sin": sin},
           {"y": want}, {"num_heads": n, "rotary_embedding_dim": 4})


def mha_cases(rng):
    b, s, n, h = 2, 5, 4, 8
    d = n * h
    scale = 1 / np.sqrt(h)
    q, k, v = f32(rng, b, s, d), f32(rng, b, s, d), f32(rng, b, s, d)
    Q, K, V = (heads(t.astype(np.float64), n) for t in (q, k, v))
    yield ("mha self", "MultiHeadAttention", {"q": q, "k": k, "v": v},
           {"y": attend(Q, K, V, scale)}, {"num_heads": n})
    bias = f32(rng, 3 * d)
    Qb, Kb, Vb = (heads(t.astype(np.float64) + bias[i * d:(i + 1) * d], n) for i, t in enumerate((q, k, v)))
    yield ("mha bias", "MultiHeadAttention", {"q": q, "k": k, "v": v, "bias": bias},
           {"y": attend(Qb, Kb, Vb, scale)}, {"num_heads": n})
    mask = np.ones((b, s), np.int32)
    mask[1, 3:] = 0
    additive = np.where(mask[:, None, None, :] == 0, -10000.0, 0.0)
    yield ("mha padding mask", "MultiHeadAttention",
           {"q": q, "k": k, "v": v, "_bias": bias, "mask": mask},
           {"y": attend(Q, K, V, scale, additive)}, {"num_heads": n})
    causal = np.where(np.tril(np.ones((s, s)))[None, None] == 0, -10000.0, 0.0)
    yield ("mha unidirectional", "MultiHeadAttention", {"q": q, "k": k, "v": v},
           {"y": attend(Q, K, V, scale, causal)}, {"num_heads": n, "unidirectional": 1})
    attn_bias = f32(rng, 1, n, s, s)
    yield ("mha attention bias", "MultiHeadAttention",
           {"q": q, "k": k, "v": v, "_bias": bias, "_mask": mask, "ab": attn_bias},
           {"y": attend(Q, K, V, 0.3, attn_bias)}, {"num_heads": n, "scale": 0.3})
    p = 3
    pk, pv = f32(rng, b, n, p, h), f32(rng, b, n, p, h)
    Kp, Vp = np.concatenate([pk, K], 2), np.concatenate([pv, V], 2)
    yield ("mha past", "MultiHeadAttention",
           {"q": q, "k": k, "v": v, "_bias": bias, "_mask": mask, "_ab": attn_bias, "pk": pk, "pv": pv},
           {"y": attend(Q, Kp, Vp, scale), "present_k": Kp, "present_v": Vp}, {"num_heads": n})
    kx, vx = f32(rng, b, 7, d), f32(rng, b, 7, d)
    Kx, Vx = heads(kx.astype(np.float64), n), heads(vx.astype(np.float64), n)
    lengths = np.array([7, 4], np.int32)
    pad = np.where(np.arange(7)[None, None, None, :] >= lengths[:, None, None, None], -10000.0, 0.0)
    yield ("mha cross lengths", "MultiHeadAttention", {"q": q, "k": kx, "v": vx, "_bias": bias, "mask": lengths},
           {"y": attend(Q, Kx, Vx, scale, pad)}, {"num_heads": n})


def gqa_inputs(rng, b, s, past, n, kv, h, cos, packed):
    q, k, v = f32(rng, b, s, n * h), f32(rng, b, s, kv * h), f32(rng, b, s, kv * h)
    pk, pv = f32(rng, b, kv, past, h), f32(rng, b, kv, past, h)
    seqlens = np.full(b, past + s - 1, np.int32)
    total = np.array([past + s], np.int32)
    feeds = {}
    if packed:
        feeds["q"] = np.concatenate([q, k, v], -1)
        feeds["_k"], feeds["_v"] = k, v
    else:
        feeds.update({"q": q, "k": k, "v": v})
    feeds.update({"pk": pk, "pv": pv, "seqlens": seqlens, "total": total})
    if cos is not None:
        feeds["cos"], feeds["sin"] = cos
    return feeds, (q, k, v, pk, pv)


def gqa_reference(tensors, n, kv, h, past, rotary=None, interleaved=0, window=-1, softcap=0.0, scale=None):
    q, k, v, pk, pv = (t.astype(np.float64) for t in tensors)
    s = q.shape[1]
    Q, K, V = heads(q, n), heads(k, kv), heads(v, kv)
    positions = past + np.arange(s)
    if rotary is not None:
        cos, sin = rotary
        Q = rotate(Q, positions[None, None], cos, sin, interleaved)
        K = rotate(K, positions[None, None], cos, sin, interleaved)
    Kp, Vp = np.concatenate([pk, K], 2), np.concatenate([pv, V], 2)
    j = np.arange(past + s)[None, :]
    allowed = j <= positions[:, None]
    if window > 0:
        allowed &= j > positions[:, None] - window   # the window counts the query's own key
    y = attend(Q, Kp, Vp, scale or 1 / np.sqrt(h), allowed=allowed[None, None], softcap=softcap)
    return {"y": y, "present_k": Kp, "present_v": Vp}


def gqa_cases(rng):
    b, n, kv, h = 2, 4, 2, 16   # ONNX Runtime's kernel takes head sizes that are multiples of 16
    cos = caches(rng, 32, h // 2)
    for s, past in ((5, 0), (1, 5), (6, 9)):
        if s > 1 and past > 0:
            b_case = 1   # ONNX Runtime takes a prompt after a past for batch 1 only
        else:
            b_case = b
        feeds, t = gqa_inputs(rng, b_case, s, past, n, kv, h, None, False)
        yield (f"gqa s={s} past={past}", "GroupQueryAttention", feeds,
               gqa_reference(t, n, kv, h, past), {"num_heads": n, "kv_num_heads": kv})
    for interleaved in (0, 1):
        feeds, t = gqa_inputs(rng, b, 1, 7, n, kv, h, cos, False)
        yield (f"gqa rotary interleaved={interleaved} decode", "GroupQueryAttention", feeds,
               gqa_reference(t, n, kv, h, 7, cos, interleaved),
               {"num_heads": n, "kv_num_heads": kv, "do_rotary": 1, "rotary_interleaved": interleaved})
    feeds, t = gqa_inputs(rng, b, 6, 0, n, kv, h, cos, True)
    yield ("gqa packed rotary prompt", "GroupQueryAttention", feeds,
           gqa_reference(t, n, kv, h, 0, cos), {"num_heads": n, "kv_num_heads": kv, "do_rotary": 1})
    feeds, t = gqa_inputs(rng, b, 7, 0, n, kv, h, None, False)
    yield ("gqa local window", "GroupQueryAttention", feeds,
           gqa_reference(t, n, kv, h, 0, window=2),
           {"num_heads": n, "kv_num_heads": kv, "local_window_size": 2})
    feeds, t = gqa_inputs(rng, b, 1, 4, n, kv, h, None, False)
    yield ("gqa softcap scale", "GroupQueryAttention", feeds,
           gqa_reference(t, n, kv, h, 4, softcap=3.0, scale=0.5),
           {"num_heads": n, "kv_num_heads": kv, "softcap": 3.0, "scale": 0.5})
    feeds, t = gqa_inputs(rng, b, 4, 0, 4, 4, h, None, False)
    yield ("gqa as mha", "GroupQueryAttention", feeds, gqa_reference(t, 4, 4, h, 0),
           {"num_heads": 4, "kv_num_heads": 4})


def packed_cases(rng):
    """com.microsoft Attention (one projection for Q, K and V) and QAttention."""
    b, s, n, h = 2, 5, 4, 8
    d = n * h
    scale = 1 / np.sqrt(h)
    x = f32(rng, b, s, d)
    w = f32(rng, d, 3 * d, scale=d ** -0.5)
    bias = f32(rng, 3 * d, scale=0.1)

    def reference(x, w, bias, sizes=(d, d, d), additive=None, past=None):
        qkv = x.astype(np.float64) @ w + bias
        dq, dk, _ = sizes
        Q, K, V = heads(qkv[..., :dq], n), heads(qkv[..., dq:dq + dk], n), heads(qkv[..., dq + dk:], n)
        if past is not None:
            K, V = np.concatenate([past[0], K], 2), np.concatenate([past[1], V], 2)
        present = np.stack([K, V]) if K.shape == V.shape else None
        return attend(Q, K, V, 1 / np.sqrt(dq // n), additive), present

    y, _ = reference(x, w, bias)
    yield ("attention", "Attention", {"x": x, "w": w, "b": bias}, {"y": y}, {"num_heads": n})
    mask = np.ones((b, s), np.int32)
    mask[0, 4:] = 0
    mask[1, 2:] = 0
    pad = np.where(mask[:, None, None, :] == 0, -10000.0, 0.0)
    y, _ = reference(x, w, bias, additive=pad)
    yield ("attention 2-D mask", "Attention", {"x": x, "w": w, "b": bias, "m": mask}, {"y": y},
           {"num_heads": n})
    lengths = mask.sum(1).astype(np.int32)
    yield ("attention lengths", "Attention", {"x": x, "w": w, "b": bias, "m": lengths}, {"y": y},
           {"num_heads": n})
    causal = np.where(np.tril(np.ones((s, s)))[None, None] == 0, -10000.0, 0.0)
    y, _ = reference(x, w, bias, additive=causal)
    yield ("attention unidirectional", "Attention", {"x": x, "w": w, "b": bias}, {"y": y},
           {"num_heads": n, "unidirectional": 1})
    past = f32(rng, 2, b, n, 3, h)
    y, present = reference(x, w, bias, past=past)
    yield ("attention past", "Attention", {"x": x, "w": w, "b": bias, "_m": mask, "past": past},
           {"y": y, "present": present}, {"num_heads": n})
    w2 = f32(rng, d, 2 * d + 16, scale=d ** -0.5)
    b2 = f32(rng, 2 * d + 16, scale=0.1)
    y, _ = reference(x, w2, b2, sizes=(d, d, 16))
    yield ("attention qkv_hidden_sizes", "Attention", {"x": x, "w": w2, "b": b2}, {"y": y},
           {"num_heads": n, "qkv_hidden_sizes": [d, d, 16]})
    xq = rng.integers(0, 256, (b, s, d)).astype(np.uint8)
    wq = rng.integers(-127, 128, (d, 3 * d)).astype(np.int8)
    x_scale, w_scale = np.float32(0.02), np.float32(0.004)
    x_zp, w_zp = np.uint8(131), np.int8(0)
    xf = (xq.astype(np.float64) - 131) * float(x_scale)
    wf = wq.astype(np.float64) * float(w_scale)
    y, _ = reference(xf, wf, bias, additive=pad)
    yield ("qattention", "QAttention",
           {"x": xq, "w": wq, "b": bias, "xs": np.array(x_scale), "ws": np.array(w_scale), "m": mask,
            "xz": np.array(x_zp), "wz": np.array(w_zp)}, {"y": y}, {"num_heads": n})


def embed_cases(rng):
    b, s, hid, vocab = 2, 5, 32, 50
    ids = rng.integers(0, vocab, (b, s)).astype(np.int32)
    segments = rng.integers(0, 2, (b, s)).astype(np.int32)
    word, pos, seg = f32(rng, vocab, hid), f32(rng, 16, hid), f32(rng, 2, hid)
    gamma, beta = f32(rng, hid), f32(rng, hid)
    mask = np.ones((b, s), np.int32)
    mask[1, 3:] = 0
    total = word[ids].astype(np.float64) + pos[np.arange(s)][None] + seg[segments]
    mean = total.mean(-1, keepdims=True)
    norm = (total - mean) / np.sqrt(((total - mean) ** 2).mean(-1, keepdims=True) + 1e-12)
    y = norm * gamma + beta
    yield ("embed layer norm", "EmbedLayerNormalization",
           {"ids": ids, "seg_ids": segments, "word": word, "pos": pos, "seg": seg, "gamma": gamma,
            "beta": beta, "mask": mask},
           {"y": y, "mask_index": mask.sum(1).astype(np.int32), "sum": total}, {})
    total = word[ids].astype(np.float64) + pos[np.arange(s)][None]
    mean = total.mean(-1, keepdims=True)
    norm = (total - mean) / np.sqrt(((total - mean) ** 2).mean(-1, keepdims=True) + 1e-5)
    yield ("embed layer norm, no segments", "EmbedLayerNormalization",
           {"ids": ids, "_s": segments, "word": word, "pos": pos, "_g": seg, "gamma": gamma,
            "beta": beta}, {"y": norm * gamma + beta, "mask_index": np.zeros(b, np.int32)},
           {"epsilon": 1e-5})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    failures, total = [], 0
    every = (list(rotary_cases(rng)) + list(mha_cases(rng)) + list(gqa_cases(rng))
             + list(packed_cases(rng)) + list(embed_cases(rng)))
    with tempfile.TemporaryDirectory() as tmp:
        for name, op, inputs, refs, attrs in every:
            total += 1
            outputs = list(refs)
            model = node_model(op, inputs, outputs, attrs,
                               {o: r.dtype for o, r in refs.items() if r.dtype != np.float64})
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
                e_ref = rel_l2(got[o], want)
                e_ort = rel_l2(got[o], ort[o])
                e_ort_ref = rel_l2(ort[o], want)
                exact = np.issubdtype(want.dtype, np.integer)
                if exact and not (np.array_equal(got[o], want) and np.array_equal(got[o], ort[o])):
                    failures.append(f"{name} output {o}: {got[o]} vs reference {want}, ORT {ort[o]}")
                elif got[o].shape != want.shape or e_ref > BOUND or e_ort > BOUND:
                    failures.append(f"{name} output {o}: shape {got[o].shape} vs {want.shape}, "
                                    f"rel L2 vs reference {e_ref:.2e}, vs ORT {e_ort:.2e} "
                                    f"(ORT vs reference {e_ort_ref:.2e})")
    for f in failures:
        print("FAIL", f)
    failed = len({f.split(':')[0].split(' output')[0] for f in failures})
    print(f"{total - failed}/{total} attention op cases agree with ONNX Runtime and the reference")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
