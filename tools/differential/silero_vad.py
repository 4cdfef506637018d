#!/usr/bin/env python3
"""Silero VAD (the `silero-vad` wheel's models) through ONNX Runtime (exact mode,
tools/ort_oracle.py) and `qlower run`. silero_vad.onnx dispatches on its run-time
sample rate `sr` with an If (16 kHz: 512 samples + 64 of context; 8 kHz: 256 + 32),
and inside each branch exported squeezes are Ifs on sizes; the 16k-only models have
those alone. Several chunks run in sequence, each feeding the state the last returned,
as the package's VADIterator does.

    silero_vad.py --qlower PATH --models DIR [--chunks N] [--seed S]

DIR holds the wheel's data folder (`pip download --no-deps silero-vad`, unzipped:
silero_vad/data). Every output must agree within a relative L2 error of 1e-4 (float
models: only the order of float sums differs).
"""

import argparse
import os
import sys
import tempfile

import numpy as np

from qlower_tools import ort_oracle, qlower_cli

BOUND = 1e-4
CASES = [
    ("silero_vad.onnx", 16000, 576),
    ("silero_vad.onnx", 8000, 288),
    ("silero_vad_16k_op15.onnx", 16000, 576),
    ("silero_vad_half.onnx", 16000, 576),
    ("silero_vad_op18_ifless.onnx", 16000, 576),
]


def rel_l2(got, want):
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    return float(np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--qlower", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--chunks", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    failed = 0
    for name, sr, samples in CASES:
        path = os.path.join(args.models, name)
        session = ort_oracle.session(path)
        inputs = {i.name for i in session.get_inputs()}
        outputs = [o.name for o in session.get_outputs()]
        rng = np.random.default_rng(args.seed)
        state = np.zeros((2, 1, 128), np.float32)
        worst = 0.0
        for chunk in range(args.chunks):
            feeds = {
                "input": (rng.standard_normal((1, samples)) * 0.3).astype(np.float32),
                "state": state,
                "sr": np.array(sr, np.int64),
            }
            feeds = {k: v for k, v in feeds.items() if k in inputs}
            want = dict(zip(outputs, session.run(None, feeds)))
            with tempfile.TemporaryDirectory() as work:
                got, err = qlower_cli.run(args.qlower, path, feeds, outputs, work)
            if got is None:
                print(f"FAIL {name} sr={sr} chunk {chunk}: {err}")
                failed += 1
                break
            for o in outputs:
                e = rel_l2(got[o], want[o])
                worst = max(worst, e)
                print(f"{name} sr={sr} chunk {chunk} {o}: relative L2 {e:.2e}")
            state = want["stateN"]
        if worst > BOUND:
            print(f"FAIL {name} sr={sr}: {worst:.2e} > {BOUND}")
            failed += 1
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
