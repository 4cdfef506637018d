"""`qlower run` from the test scripts: the feeds saved as `.npy` files, the named outputs
read back. One place for the command line the differential and real-model scripts use."""

import os
import subprocess

import numpy as np


def run(qlower, model, feeds, outputs, work, threads=None, timeout=None):
    """`qlower run MODEL` (an `.onnx` or `.mlir` path) on `feeds` (name → array), files kept
    in `work`: `({output: array}, "")`, or `(None, qlower's stderr)` when it fails."""
    out = os.path.join(work, "out")
    cmd = [qlower, "run", model, "--out-dir", out]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    for name, value in feeds.items():
        path = os.path.join(work, f"{name}.npy")
        np.save(path, value)
        cmd += ["-i", f"{name}={path}"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    if r.returncode != 0:
        return None, r.stderr.strip()
    return {o: np.load(os.path.join(out, f"{o}.npy")) for o in outputs}, ""
