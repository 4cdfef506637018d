#!/usr/bin/env python3
"""The int4 MatMul: qlower's `qlower.matmul_nbits` (codes kept packed, unpacked inside
the GEMM) against ONNX Runtime's MatMulNBits, and both against the float MatMul, in
speed and in the weight bytes each keeps.

    .venv/bin/python tools/bench/nbits.py [--qlower target/release/qlower]
        [--k 2048] [--n 2048] [--block 32] [--rows 1,128] [--threads 1] [--iterations 30]

The weight ([K, N], random normal) is quantized by ONNX Runtime's MatMulNBits quantizer
(tools/nbits.py: 4-bit, symmetric, block `--block`); ONNX Runtime runs it at accuracy
levels 0 (f32 compute) and 4 (A quantized to int8 per block). qlower computes in f32 at
every level. Times are medians of `--iterations` runs, the same thread count for both
(`qlower bench --threads`, ORT's intra-op threads). Memory: the bytes of the constants
qlower's plan keeps (`qlower bench`'s `constant_bytes`), for the int4 model and the
float one; and the initializer bytes of each model file.
This is a benchmark, never a test: it asserts nothing about time.
"""

import argparse
import json
import os
import subprocess
import tempfile
import time

import numpy as np
import onnx
from onnx import helper

from qlower_tools import nbits
from qlower_tools import ort_oracle
from qlower_tools.differential.matmul_nbits import float_matmul


def set_level(model, level):
    model = onnx.ModelProto.FromString(model.SerializeToString())
    for node in model.graph.node:
        if node.op_type == "MatMulNBits":
            kept = [a for a in node.attribute if a.name != "accuracy_level"]
            del node.attribute[:]
            node.attribute.extend(kept)
            if level:
                node.attribute.append(helper.make_attribute("accuracy_level", level))
    return model


def ort_ms(model, feeds, threads, iterations):
    s = ort_oracle.session(model, exact=False, threads=threads)
    for _ in range(3):
        s.run(None, feeds)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        s.run(None, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))


def qlower_bench(qlower, path, a_path, threads, iterations):
    out = subprocess.run([qlower, "bench", path, "-i", f"a={a_path}", "--json", "--threads",
                          str(threads), "--iterations", str(iterations)],
                         check=True, capture_output=True, text=True).stdout
    j = json.loads(out.strip().splitlines()[-1])
    return j["median_ms"], j["constant_bytes"]


def initializer_bytes(model):
    return sum(len(t.raw_data) or t.ByteSize() for t in model.graph.initializer)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", default="target/release/qlower")
    ap.add_argument("--k", type=int, default=2048)
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--block", type=int, default=32)
    ap.add_argument("--rows", default="1,128")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=30)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    w = rng.standard_normal((args.k, args.n)).astype(np.float32)
    print(f"{ort_oracle.cpu_name()}; K={args.k} N={args.n} block={args.block}, "
          f"{args.threads} thread(s), qlower {args.qlower}")
    print("| M | qlower int4 (ms) | ORT int4 level 0 (ms) | ORT int4 level 4 (ms) "
          "| qlower float (ms) | ORT float (ms) | qlower plan bytes int4 / float |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for m in [int(r) for r in args.rows.split(",")]:
            fm = float_matmul([m, args.k], w)
            q = nbits.quantize_matmuls(fm, args.block, True, 0)
            paths = {}
            for name, model in (("float", fm), ("int4", q)):
                paths[name] = os.path.join(tmp, f"{name}_{m}.onnx")
                onnx.save(model, paths[name])
            a = rng.standard_normal((m, args.k)).astype(np.float32)
            a_path = os.path.join(tmp, "a.npy")
            np.save(a_path, a)
            feeds = {"a": a}
            q_ms, q_bytes = qlower_bench(args.qlower, paths["int4"], a_path, args.threads,
                                         args.iterations)
            f_ms, f_bytes = qlower_bench(args.qlower, paths["float"], a_path, args.threads,
                                         args.iterations)
            o0 = ort_ms(set_level(q, 0), feeds, args.threads, args.iterations)
            o4 = ort_ms(set_level(q, 4), feeds, args.threads, args.iterations)
            of = ort_ms(fm, feeds, args.threads, args.iterations)
            print(f"| {m} | {q_ms:.3f} | {o0:.3f} | {o4:.3f} | {f_ms:.3f} | {of:.3f} "
                  f"| {q_bytes} / {f_bytes} ({f_bytes / q_bytes:.1f}x less) |")
        print(f"model files' initializer bytes: int4 {initializer_bytes(q)}, "
              f"float {initializer_bytes(fm)}")


if __name__ == "__main__":
    main()
