#!/usr/bin/env python3
"""`qlower quantize --weight-type int4` against ONNX Runtime's MatMulNBits quantizer
(tools/nbits.py) on the decoder-only transformer of tools/real_models/make_decoder.py.

    int4_accuracy.py --qlower PATH [--blocks 32,128]

For each block size, both quantize the same float model; ONNX Runtime runs the float
model and both quantized ones on the same token sequences, and the error of each
against the float logits is the relative L2 over all of them. qlower's must be no larger
than ONNX Runtime's symmetric quantizer's (the same format: 4-bit codes, zero point 8)
and than its asymmetric one's (a zero point per block). qlower's model must also run in
qlower and match ONNX Runtime on it (bound 1e-4: both dequantize to the same floats and
multiply in f32).
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
from qlower_tools.real_models import make_decoder
from qlower_tools import nbits
from qlower_tools import ort_oracle

SEQUENCES = [(1, 1), (2, 9), (3, 33), (4, 64)]  # (seed, length)
RUN_BOUND = 1e-4


def rel_l2(got, want):
    return float(np.linalg.norm(got - want) / np.linalg.norm(want))


def logits(model, feeds):
    return np.concatenate([ort_oracle.run(model, f)["logits"].ravel() for f in feeds])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    ap.add_argument("--blocks", default="32,128")
    args = ap.parse_args()
    float_model = make_decoder.build()
    feeds = [{"input_ids": np.random.default_rng(seed).integers(0, make_decoder.VOCAB, (1, n))
              .astype(np.int64)} for seed, n in SEQUENCES]
    want = logits(float_model, feeds)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "decoder.onnx")
        onnx.save(float_model, source)
        for block in [int(b) for b in args.blocks.split(",")]:
            ours = os.path.join(tmp, f"int4_{block}.onnx")
            subprocess.run([args.qlower, "quantize", source, "-o", ours, "--weight-type", "int4",
                            "--block-size", str(block)], check=True)
            ours_model = onnx.load(ours)
            errors = {"qlower": rel_l2(logits(ours_model, feeds), want)}
            for symmetric in (True, False):
                ort_model = nbits.quantize_matmuls(float_model, block, symmetric, 0)
                name = "ORT symmetric" if symmetric else "ORT asymmetric"
                errors[name] = rel_l2(logits(ort_model, feeds), want)
            print(f"block {block}: relative L2 against the float logits: "
                  + ", ".join(f"{k} {v:.4f}" for k, v in errors.items()))
            for name in ("ORT symmetric", "ORT asymmetric"):
                if errors["qlower"] > errors[name]:
                    failures.append(f"block {block}: qlower {errors['qlower']:.4f} > {name} "
                                    f"{errors[name]:.4f}")
            # qlower runs its own model like ONNX Runtime does.
            ids = os.path.join(tmp, "ids.npy")
            np.save(ids, feeds[1]["input_ids"])
            out = os.path.join(tmp, "out")
            subprocess.run([args.qlower, "run", ours, "-i", f"input_ids={ids}", "--out-dir", out],
                           check=True)
            got = np.load(os.path.join(out, "logits.npy"))
            err = rel_l2(got, ort_oracle.run(ours_model, feeds[1])["logits"])
            if err > RUN_BOUND:
                failures.append(f"block {block}: qlower run vs ORT {err:.2e} > {RUN_BOUND}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
