#!/usr/bin/env python3
"""GatherND over sizes known only at run time, against ONNX Runtime
(tools/ort_oracle.py): data and indices with symbolic dimensions, batch_dims 0, 1 and 2,
tuples addressing one to all remaining dimensions, negative indices. Each model is compiled
once (`qlower MODEL -o model.mlir`) and the `.mlir` run at two different sizes with
`qlower run`; the results must equal ONNX Runtime's exactly (GatherND moves values).

    dynamic_gather_nd.py --qlower PATH
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

from qlower_tools import ort_oracle, qlower_cli


def model(data_rank, index_rank, k, batch):
    data = helper.make_tensor_value_info("data", TensorProto.FLOAT, [f"d{i}" for i in range(data_rank)])
    dims = [f"d{i}" for i in range(batch)] + [f"i{i}" for i in range(batch, index_rank - 1)] + [k]
    indices = helper.make_tensor_value_info("indices", TensorProto.INT64, dims)
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    node = helper.make_node("GatherND", ["data", "indices"], ["y"], batch_dims=batch)
    m = helper.make_model(helper.make_graph([node], "g", [data, indices], [out]),
                          opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def feeds(rng, data_rank, index_rank, k, batch, scale):
    shape = [int(rng.integers(2, 4)) + scale for _ in range(data_rank)]
    data = rng.standard_normal(shape).astype(np.float32)
    tuple_dims = [int(rng.integers(1, 4)) + scale for _ in range(batch, index_rank - 1)]
    idx_shape = shape[:batch] + tuple_dims + [k]
    columns = []
    for j in range(k):
        size = shape[batch + j]
        columns.append(rng.integers(-size, size, idx_shape[:-1]))
    return {"data": data, "indices": np.stack(columns, -1).astype(np.int64)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    cases = [(2, 2, 1, 0), (3, 2, 2, 0), (3, 3, 3, 0), (3, 3, 1, 1), (4, 3, 2, 1), (4, 4, 1, 2),
             (3, 4, 1, 0), (2, 2, 2, 0)]
    failures, runs = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for data_rank, index_rank, k, batch in cases:
            name = f"data rank {data_rank}, indices rank {index_rank}, k {k}, batch_dims {batch}"
            m = model(data_rank, index_rank, k, batch)
            path, mlir = os.path.join(tmp, "m.onnx"), os.path.join(tmp, "m.mlir")
            onnx.save(m, path)
            r = subprocess.run([args.qlower, path, "-o", mlir], stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                failures.append(f"{name}: compile failed: {r.stderr.strip()}")
                continue
            for scale in (0, 3):
                runs += 1
                f = feeds(rng, data_rank, index_rank, k, batch, scale)
                out, err = qlower_cli.run(args.qlower, mlir, f, ["y"], tmp)
                if out is None:
                    failures.append(f"{name} at {f['data'].shape}: run failed: {err}")
                    continue
                got = out["y"]
                want = ort_oracle.run(m, f)["y"]
                if got.shape != want.shape or not np.array_equal(got, want):
                    failures.append(f"{name} at {f['data'].shape}: {got.shape} vs ORT {want.shape}")
    for f in failures:
        print("FAIL", f)
    print(f"{runs - len(failures)}/{runs} runs of {len(cases)} GatherND models compiled once "
          f"with run-time sizes equal ONNX Runtime")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
