#!/usr/bin/env python3
"""com.microsoft GatherBlockQuantized (block-quantized embedding tables, as ONNX Runtime
GenAI writes them for int4 LLMs) through `qlower run`, against ONNX Runtime
(tools/ort_oracle.py) and a numpy reference: uint8 tables of 4-bit (two values a byte,
low nibble first) and 8-bit values, with and without zero points, block sizes 16 and 32,
1-D and 2-D indices. Dequantization is exact arithmetic on both sides, so the results
must be equal up to one float rounding (relative L2 ≤ 1e-6).

    gather_block_quantized.py --qlower PATH
"""

import argparse
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

from qlower_tools import ort_oracle, qlower_cli

BOUND = 1e-6


def unpack(packed, bits):
    if bits == 8:
        return packed.astype(np.int64)
    low, high = packed & 15, packed >> 4
    return np.stack([low, high], -1).reshape(packed.shape[0], -1).astype(np.int64)


def case(rng, bits, block, with_zp, index_shape, rows=10, columns=64):
    per_byte = 8 // bits
    blocks = columns // block
    data = rng.integers(0, 256, (rows, columns // per_byte)).astype(np.uint8)
    scales = rng.uniform(0.01, 0.1, (rows, blocks)).astype(np.float32)
    indices = rng.integers(0, rows, index_shape).astype(np.int64)
    feeds = {"data": data, "indices": indices, "scales": scales}
    if with_zp:
        zp_cols = (blocks + per_byte - 1) // per_byte
        feeds["zero_points"] = rng.integers(0, 256, (rows, zp_cols)).astype(np.uint8)
        zp = unpack(feeds["zero_points"], bits)[:, :blocks]
    else:
        zp = np.full((rows, blocks), 1 << (bits - 1))
    codes = unpack(data, bits).reshape(rows, blocks, block)
    table = ((codes - zp[..., None]) * scales[..., None].astype(np.float64)).reshape(rows, columns)
    want = table[indices]
    node = helper.make_node("GatherBlockQuantized", list(feeds), ["y"], domain="com.microsoft",
                            bits=bits, block_size=block, gather_axis=0, quantize_axis=1)
    elem = {np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int64): TensorProto.INT64,
            np.dtype(np.float32): TensorProto.FLOAT}
    graph = helper.make_graph(
        [node], "gbq", [helper.make_tensor_value_info(n, elem[v.dtype], list(v.shape)) for n, v in feeds.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    name = f"bits {bits}, block {block}, zero points {'given' if with_zp else 'default'}, indices {index_shape}"
    return name, model, feeds, want


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    failures, total = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for bits in (4, 8):
            for block in (16, 32):
                for with_zp in (False, True):
                    for index_shape in ((5,), (2, 3)):
                        total += 1
                        name, model, feeds, want = case(rng, bits, block, with_zp, index_shape)
                        path = os.path.join(tmp, "m.onnx")
                        onnx.save(model, path)
                        out, err = qlower_cli.run(args.qlower, path, feeds, ["y"], tmp)
                        if out is None:
                            failures.append(f"{name}: qlower failed: {err}")
                            continue
                        got = out["y"]
                        ort = ort_oracle.run(model, feeds)["y"]
                        e_ref = np.linalg.norm(got - want) / np.linalg.norm(want)
                        e_ort = np.linalg.norm(got - ort) / np.linalg.norm(ort)
                        if got.shape != want.shape or e_ref > BOUND or e_ort > BOUND:
                            failures.append(f"{name}: shape {got.shape} vs {want.shape}, relative L2 "
                                            f"{e_ref:.2e} vs reference, {e_ort:.2e} vs ORT")
    for f in failures:
        print("FAIL", f)
    print(f"{total - len(failures)}/{total} GatherBlockQuantized cases agree with ONNX Runtime")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
