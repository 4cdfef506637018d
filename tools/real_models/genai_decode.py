#!/usr/bin/env python3
"""Greedy decoding of the int4 GenAI-form decoder (make_genai_decoder.py) through qlower,
step for step against ONNX Runtime.

    genai_decode.py --qlower PATH [--tokens N] [--prompt-length P] [--batch B]

The model is built, then compiled once (`qlower MODEL -o model.mlir`); every step runs that
`.mlir` with `qlower run`:
1. prefill: the prompt (P random tokens, seed 0), an all-ones attention mask and an empty
   cache (past length 0);
2. N − 1 decode steps: the token just chosen, the mask one longer, and the present
   key/value of the step before fed back as the past (past length P, P + 1, ...).
At every step ONNX Runtime (exact mode, tools/ort_oracle.py) runs on the same inputs, and
qlower's logits and present keys/values must equal its outputs within float rounding
(relative L2 ≤ 1e-4). Each side also decodes on its own, feeding back its own choices;
the two token sequences are printed side by side and must be the same. Exits 1 on any
difference. A test oracle: the product never runs it.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

from qlower_tools.real_models import make_genai_decoder as maker
from qlower_tools import ort_oracle, qlower_cli

BOUND = 1e-4


def rel_l2(got, want):
    want = np.asarray(want, np.float64)
    return float(np.linalg.norm(np.asarray(got, np.float64) - want) / max(np.linalg.norm(want), 1e-30))


def cache_names():
    return [(f"past_key_values.{i}.{k}", f"present.{i}.{k}")
            for i in range(maker.LAYERS) for k in ("key", "value")]


def feeds_for(tokens, total, past):
    batch = tokens.shape[0]
    feeds = {"input_ids": tokens.astype(np.int64),
             "attention_mask": np.ones((batch, total), np.int64)}
    for (past_name, present_name) in cache_names():
        feeds[past_name] = past[present_name]
    return feeds


def empty_cache(batch):
    shape = (batch, maker.KV_HEADS, 0, maker.HEAD)
    return {present: np.zeros(shape, np.float32) for _, present in cache_names()}


def run_qlower(qlower, mlir, feeds, outputs, tmp):
    got, err = qlower_cli.run(qlower, mlir, feeds, outputs, tmp, timeout=300)
    if got is None:
        raise RuntimeError(f"qlower run failed: {err}")
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    ap.add_argument("--tokens", type=int, default=8)
    ap.add_argument("--prompt-length", type=int, default=7)
    ap.add_argument("--batch", type=int, default=1)
    args = ap.parse_args()
    model = maker.nbits.quantize_matmuls(maker.build(), 32, symmetric=True)
    outputs = ["logits"] + [present for _, present in cache_names()]
    prompt = np.random.default_rng(0).integers(0, maker.VOCAB, (args.batch, args.prompt_length))
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        path, mlir = os.path.join(tmp, "decoder.onnx"), os.path.join(tmp, "decoder.mlir")
        onnx.save(model, path)
        r = subprocess.run([args.qlower, path, "-o", mlir], stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            print(f"FAIL qlower could not compile the decoder: {r.stderr.strip()}")
            return 1
        session = ort_oracle.exact_session(model)

        def ort_run(feeds):
            return dict(zip(outputs, session.run(outputs, feeds)))

        # qlower's own greedy decoding, each step checked against ORT on the same inputs.
        tokens, past, chosen = prompt, empty_cache(args.batch), []
        for step in range(args.tokens):
            total = args.prompt_length + step
            feeds = feeds_for(tokens, total, past)
            got = run_qlower(args.qlower, mlir, feeds, outputs, tmp)
            want = ort_run(feeds)
            worst = max(rel_l2(got[o], want[o]) for o in outputs)
            shapes_ok = all(got[o].shape == want[o].shape for o in outputs)
            kind = "prefill" if step == 0 else "decode "
            print(f"step {step} {kind} past {total - tokens.shape[1]:3d}: worst relative L2 of "
                  f"logits and present K/V {worst:.2e}")
            if worst > BOUND or not shapes_ok:
                failures.append(f"step {step}: relative L2 {worst:.2e} (bound {BOUND:.0e}), "
                                f"shapes {'ok' if shapes_ok else 'differ'}")
            tokens = got["logits"][:, -1].argmax(-1)[:, None]
            chosen.append(tokens[:, 0])
            past = got

        # ONNX Runtime's own greedy decoding.
        tokens, past, reference = prompt, empty_cache(args.batch), []
        for step in range(args.tokens):
            want = ort_run(feeds_for(tokens, args.prompt_length + step, past))
            tokens = want["logits"][:, -1].argmax(-1)[:, None]
            reference.append(tokens[:, 0])
            past = want
    ours, theirs = np.stack(chosen, 1), np.stack(reference, 1)
    for b in range(args.batch):
        print(f"batch {b}: qlower {ours[b].tolist()}")
        print(f"batch {b}: ORT    {theirs[b].tolist()}")
    if not np.array_equal(ours, theirs):
        failures.append("the greedy token sequences differ")
    for f in failures:
        print("FAIL", f)
    print("greedy decoding agrees with ONNX Runtime" if not failures else "greedy decoding disagrees")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
