"""Seed corpora for the cargo-fuzz targets, generated from the test suite (nothing binary
is committed under fuzz/).

Usage: python3 tools/fuzz/make_corpus.py [--qlower target/debug/qlower] OUT_DIR

- OUT_DIR/onnx_import: every .onnx file under test/ and examples/.
- OUT_DIR/mlir_plan: every .mlir test file, split at `// -----` like --split-input-file
  does, plus the fused form of each model that compiles (what `qlower run x.mlir` reads),
  when a qlower binary is at hand.
- OUT_DIR/run_model: a few short byte strings; the target reads any input as a model
  description, so the fuzzer grows this corpus by itself.
"""

import argparse
import glob
import hashlib
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def put(directory, data):
    os.makedirs(directory, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--qlower", default=os.path.join(REPO, "target", "debug", "qlower"))
    parser.add_argument("out")
    args = parser.parse_args()
    models = sorted(
        glob.glob(os.path.join(REPO, "test", "**", "*.onnx"), recursive=True)
        + glob.glob(os.path.join(REPO, "examples", "*.onnx"))
    )
    # The seeds stay small so that each execution is quick.
    models = [m for m in models if 0 < os.path.getsize(m) <= 1 << 20]
    for m in models:
        put(os.path.join(args.out, "onnx_import"), open(m, "rb").read())
    mlir_dir = os.path.join(args.out, "mlir_plan")
    for path in glob.glob(os.path.join(REPO, "test", "**", "*.mlir"), recursive=True):
        text = open(path, encoding="utf-8").read()
        for part in text.split("// -----"):
            if part.strip():
                put(mlir_dir, part.encode())
    if os.access(args.qlower, os.X_OK):
        for m in models:
            r = subprocess.run(
                [args.qlower, m, "--emit", "fused"], capture_output=True, timeout=60
            )
            if r.returncode == 0:
                put(mlir_dir, r.stdout)
    for seed in [b"", b"\x00" * 8, bytes(range(64)), b"\x0a" * 32, b"\x0c\x04" * 40]:
        put(os.path.join(args.out, "run_model"), seed)
    counts = {t: len(os.listdir(os.path.join(args.out, t))) for t in sorted(os.listdir(args.out))}
    print("seed corpora:", ", ".join(f"{t} {n}" for t, n in counts.items()), file=sys.stderr)


if __name__ == "__main__":
    main()
