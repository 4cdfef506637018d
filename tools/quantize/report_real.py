"""`qlower quantize --report` on a real model of tools/real_models/manifest.py, then
`--keep-16bit` of the tensors it suggests, each model's error against the float model
measured by ONNX Runtime (exact mode) on held-out inputs. A demonstration, not a test:
it prints the report's worst rows and the errors before and after.

The float model comes from the real-model cache (`run.py`'s `pip download --no-deps`
into target/real_models, or its maker script). Calibration and held-out samples are the
manifest's generated inputs; a detector's scene is added to both, as run.py calibrates.

With --verify, the report checks its 16-bit suggestions (`--verify-suggestions`) and
the model is quantized again with the verified list.

Usage: report_real.py --qlower PATH --model yolov8n-320 [--verify] [--cache DIR] [--out DIR]
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
from qlower_tools.real_models import detectors
from qlower_tools.real_models import manifest
from qlower_tools import ort_oracle
from qlower_tools.real_models import run as real_models


def samples(model, cache, seeds):
    out = [real_models.make_inputs(model, s) for s in seeds]
    if model.detector:
        scene = detectors.scene(model.detector, cache)
        out[0] = {next(iter(model.inputs)): scene}
        # A dimmer copy, so the held-out scene is not the calibration one.
        if seeds[0] >= 200:
            out[0] = {next(iter(model.inputs)): (scene * 0.8).astype(np.float32)}
    return out


def rel_l2(pairs):
    num = sum(float(np.sum((a.astype(np.float64) - b) ** 2)) for a, b in pairs)
    den = sum(float(np.sum(a.astype(np.float64) ** 2)) for a, _ in pairs)
    return (num / den) ** 0.5


def quantize(args, src, dst, report, *flags):
    cmd = [args.qlower, "quantize", src, "-o", dst, "--mode", "static", "--per-channel",
           "--calibration", os.path.join(args.out, "calib"), f"--report={report}", *flags]
    print("$", " ".join(cmd[1:]), flush=True)
    subprocess.run(cmd, check=True)
    with open(report) as f:
        return f.read()


def suggested(report_text, flag):
    """The names of the report's last `--FLAG` line (the verified list, when there is one)."""
    found = []
    for line in report_text.splitlines():
        if line.strip().startswith(f"--{flag} "):
            found = line.strip().split(" ", 1)[1].split(",")
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    ap.add_argument("--model", default="yolov8n-320")
    ap.add_argument("--cache", default=os.path.join(os.path.dirname(TOOLS), "target", "real_models"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--calibration", type=int, default=4)
    ap.add_argument("--held-out", type=int, default=4)
    ap.add_argument("--rows", type=int, default=15)
    ap.add_argument("--verify", action="store_true", help="--verify-suggestions, and act on its list")
    args = ap.parse_args()
    args.out = args.out or os.path.join("target", "report_real", args.model)
    os.makedirs(os.path.join(args.out, "calib"), exist_ok=True)
    model = next(m for m in manifest.MODELS if m.name == args.model)
    src = real_models.fetch(model, args.cache)
    opset = next(o.version for o in onnx.load(src, load_external_data=False).opset_import if o.domain in ("", "ai.onnx"))
    if opset < 13:  # --per-channel needs DequantizeLinear's axis (opset 13)
        from onnx import version_converter
        upgraded = os.path.join(args.out, "float.opset13.onnx")
        onnx.save(version_converter.convert_version(onnx.load(src), 13), upgraded)
        src = upgraded
    for i, s in enumerate(samples(model, args.cache, list(range(100, 100 + args.calibration)))):
        np.savez(os.path.join(args.out, "calib", f"s{i:03}.npz"), **s)
    held_out = samples(model, args.cache, list(range(200, 200 + args.held_out)))

    q8 = os.path.join(args.out, "u8.onnx")
    text = quantize(args, src, q8, os.path.join(args.out, "report.u8.txt"),
                    *(["--verify-suggestions"] if args.verify else []))
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("quantized tensors"))
    print("\n".join(lines[:head + 2 + args.rows]))
    print("  ...")
    tail = next(i for i, line in enumerate(lines) if line.startswith("suggestions"))
    print("\n".join(lines[tail:]))
    keep = suggested(text, "keep-16bit")
    keep_float = suggested(text, "keep-float")
    if not keep and not keep_float:
        print("no suggestion: nothing to compare")
        return 0
    q16 = os.path.join(args.out, "keep16.onnx")
    flags = []
    if keep:
        flags += ["--keep-16bit", ",".join(keep)]
    if keep_float:
        flags += ["--keep-float", ",".join(keep_float)]
    text16 = quantize(args, src, q16, os.path.join(args.out, "report.keep16.txt"), *flags)
    out16 = text16.split("model outputs:")[1].split("\n\n")[0]
    print("model outputs after acting on the suggestions (qlower's SQNR):" + out16)

    names = [o.name for o in onnx.load(src, load_external_data=False).graph.output]
    base = [ort_oracle.run(src, s) for s in held_out]
    for label, path in (("uint8", q8), ("suggested kept", q16)):
        got = [ort_oracle.run(path, s) for s in held_out]
        errs = ", ".join(f"{n}: {rel_l2([(b[n], g[n]) for b, g in zip(base, got)]):.4f}" for n in names)
        print(f"ONNX Runtime, held-out inputs, relative L2 error against the float model, {label}: {errs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
