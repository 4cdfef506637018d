#!/usr/bin/env python3
"""`qlower quantize` against ONNX Runtime's own quantizer: accuracy against the float model.

    quantizer_accuracy.py --qlower PATH [--models a,b] [--cache DIR] [--threads N]
                          [--calibrate-method minmax,percentile,entropy,distribution|all]
                          [--extras]

For each model of `manifest.py` that has a static quantized form (`qdq` among its forms):
1. the same calibration samples (`CALIBRATION` generated inputs, the manifest's fills)
   go to both quantizers, as `.npz` files to `qlower quantize --mode static --per-channel`
   and through a CalibrationDataReader to ONNX Runtime's `quantize_static` (QDQ,
   per-channel, int8 weights, uint8 activations, MinMax), both told to quantize the same
   op types (`OP_TYPES`; ONNX Runtime's default list is longer, and a model with fewer
   quantized ops would be more accurate for that reason alone). qlower gets the model as
   shipped, and converts one older than opset 13 itself (its weights must come out per
   channel, `check_per_channel`); ONNX Runtime gets onnx's version_converter's opset-13
   model, without which it would quantize per tensor. (ppocr-cls keeps its weights in
   Constant nodes, which ONNX Runtime's quantizer quantizes per tensor as activations
   even at opset 13; qlower lifts them to initializers.)
2. qlower's model runs with `qlower run`, ONNX Runtime's in ONNX Runtime (exact mode,
   tools/ort_oracle.py), on `HELD_OUT` other generated inputs;
3. each is compared with the float model's output (ONNX Runtime): relative L2 over all
   float outputs, averaged over the held-out inputs.

qlower passes on a model when its error is at most `RATIO` x ONNX Runtime's + `SLACK`.
Both quantizers take MinMax ranges of the same tensors over the same samples, so the
integer grids differ only where the two round a scale, a zero point or a bias
differently; such a difference moves a few activations by one quantization step, which
changes the error by a few percent of itself, not by tens of percent. 10% covers that;
a worse choice (a per-tensor weight, a clipped range, a badly rounded bias) costs far
more. `SLACK` keeps the rule meaningful when both errors are tiny.

`--calibrate-method` (default minmax; `all` for the four) compares the two quantizers
method for method: qlower's `--calibrate-method M` against ORT's `CalibrationMethod.M`,
the same samples. `--extras` adds qlower's own choices (EXTRAS: the mse range search,
least-squares weight scales, bias correction, symmetric activations), each compared
with ONNX Runtime's best method on that model (all four are run then). `--models` may
also name a model without a `qdq` form (a transformer such as t5-encoder).

Prints one line per (model, method) with both errors and their ratio, then a Markdown
table (model, method, qlower error, ORT error, ratio) with the geometric mean of the
ratios, method for method and for the extras, then `N passed, M failed`; exits 1 when
qlower's quantizer is worse on a model. A test oracle: the product never runs it.
"""

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx

from qlower_tools.real_models import manifest
from qlower_tools import ort_oracle
from qlower_tools.real_models import run as harness

CALIBRATION = 4      # samples, seeds 100..103 (the seeds run.py calibrates its forms with)
HELD_OUT = 2         # inputs, seeds 300..301: none of them seen by calibration
OP_TYPES = ["Conv", "MatMul", "Gemm"]
RATIO, SLACK = 1.1, 1e-4
ORT_METHODS = ["minmax", "percentile", "entropy", "distribution"]
# qlower's own choices: its flags, compared with ONNX Runtime's best method.
EXTRAS = {
    "mse": ["--calibrate-method", "mse"],
    "minmax+weight-mse": ["--weight-range", "mse"],
    "minmax+bias-corr": ["--bias-correction"],
    "mse+weight-mse": ["--calibrate-method", "mse", "--weight-range", "mse"],
    "mse+weight-mse+bias-corr": ["--calibrate-method", "mse", "--weight-range", "mse",
                                 "--bias-correction"],
    "minmax+act-symmetric": ["--activation-symmetric"],
}


def calibration_samples(model):
    return [harness.make_inputs(model, 100 + i) for i in range(CALIBRATION)]


def held_out_inputs(model):
    return [harness.make_inputs(model, 300 + i) for i in range(HELD_OUT)]


def quantize_with_qlower(args, source, samples, work, flags):
    folder = os.path.join(os.path.dirname(work), "calibration")
    if not os.path.isdir(folder):
        os.makedirs(folder)
        for i, feeds in enumerate(samples):
            np.savez(os.path.join(folder, f"sample{i}.npz"), **feeds)
    out = os.path.join(work, "qlower.onnx")
    subprocess.run([args.qlower, "quantize", source, "-o", out, "--mode", "static", "--per-channel",
                    "--calibration", folder, "--op-types", ",".join(OP_TYPES), *flags],
                   check=True, capture_output=True, text=True, timeout=3600)
    return out


def at_opset_13(source, work):
    """ONNX Runtime's input: the model converted to opset 13 by onnx's version_converter
    when older. Per-channel DequantizeLinear needs its `axis` (opset 13), and given the
    older model ONNX Runtime's quantizer quietly quantizes per tensor, a weaker baseline.
    qlower gets the model as shipped: `qlower quantize --per-channel` converts it itself
    (`opset_upgrade`), and `check_per_channel` holds it to that."""
    opset = next((o.version for o in onnx.load(source, load_external_data=False).opset_import
                  if o.domain in ("", "ai.onnx")), 13)
    if opset >= 13:
        return source
    from onnx import version_converter
    upgraded = os.path.join(work, "opset13.onnx")
    onnx.save(version_converter.convert_version(onnx.load(source), 13), upgraded)
    return upgraded


def default_opset(model):
    return next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)


def check_per_channel(path):
    """None when qlower's model imports opset 13 or newer and every weight's
    DequantizeLinear (one reading an initializer with more than one dimension) has `axis`
    (per channel); otherwise what is wrong."""
    model = onnx.load(path, load_external_data=False)
    if default_opset(model) < 13:
        return f"qlower's model imports opset {default_opset(model)}"
    inits = {t.name: t for t in model.graph.initializer}
    weights = [n for n in model.graph.node if n.op_type == "DequantizeLinear"
               and n.input[0] in inits and len(inits[n.input[0]].dims) > 1]
    if not weights:
        return "qlower's model has no weight DequantizeLinear"
    per_tensor = [n.name or n.output[0] for n in weights
                  if not any(a.name == "axis" for a in n.attribute)]
    if per_tensor:
        return f"{len(per_tensor)} weight DequantizeLinear without axis, e.g. {per_tensor[0]}"
    return None


def quantize_with_ort(source, samples, work, method):
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat,
                                          QuantType, quantize_static)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.samples = iter(samples)

        def get_next(self):
            return next(self.samples, None)

    out = os.path.join(work, f"ort-{method}.onnx")
    ort_method = {"minmax": CalibrationMethod.MinMax, "percentile": CalibrationMethod.Percentile,
                  "entropy": CalibrationMethod.Entropy,
                  "distribution": CalibrationMethod.Distribution}[method]
    # ORT's calibrators write their augmented model into the working folder.
    source = os.path.abspath(source)
    cwd = os.getcwd()
    os.chdir(work)
    try:
        quantize_static(source, out, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        calibrate_method=ort_method, op_types_to_quantize=OP_TYPES)
    finally:
        os.chdir(cwd)
    return out


def run_qlower(args, path, inputs, work):
    """qlower's outputs for each input: the model compiled once, the .mlir run per input."""
    mlir = os.path.join(work, "qlower.mlir")
    subprocess.run([args.qlower, path, "-o", mlir], check=True, capture_output=True, text=True,
                   timeout=1800)
    results = []
    for i, feeds in enumerate(inputs):
        case = os.path.join(work, f"input{i}")
        os.makedirs(case, exist_ok=True)
        cmd = [args.qlower, "run", mlir, "--out-dir", os.path.join(case, "out"),
               "--threads", str(args.threads)]
        for name, value in feeds.items():
            f = os.path.join(case, f"{name}.npy")
            np.save(f, value)
            cmd += ["-i", f"{name}={f}"]
        subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=1800)
        results.append(lambda name, case=case: np.load(
            os.path.join(case, "out", name.replace("/", "_").replace("\\", "_") + ".npy")))
    return results


def error_against(reference, outputs):
    """Relative L2 of all float outputs together, averaged over the inputs."""
    errors = []
    for want, got in zip(reference, outputs):
        names = [n for n, v in want.items() if np.issubdtype(v.dtype, np.floating)]
        w = np.concatenate([want[n].astype(np.float64).ravel() for n in names])
        g = np.concatenate([np.asarray(got(n), np.float64).ravel() for n in names])
        errors.append(harness.relative_l2(g, w))
    return float(np.mean(errors))


def compare(args, model, work, methods, extras):
    """Rows (model, method, qlower error, ORT error, ratio, against, passed, note) for one
    model: each method against ORT's same method, each extra against ORT's best."""
    source = harness.fetch(model, args.cache)
    quantizable = at_opset_13(source, work)
    samples = calibration_samples(model)
    inputs = held_out_inputs(model)
    reference = [ort_oracle.run(source, feeds, threads=args.threads) for feeds in inputs]
    ort_errors = {}
    for method in (ORT_METHODS if extras else methods):
        start = time.perf_counter()
        try:
            theirs = quantize_with_ort(quantizable, samples, work, method)
        except Exception as e:  # a method ORT refuses on this model: no comparison for it
            ort_errors[method] = (None, f"ORT {method}: {harness.first_line(str(e))}")
            continue
        seconds = time.perf_counter() - start
        runs = [ort_oracle.run(theirs, feeds, threads=args.threads) for feeds in inputs]
        ort_errors[method] = (error_against(reference, [lambda n, r=r: r[n] for r in runs]),
                              f"{seconds:.1f} s")
    variants = [(m, ["--calibrate-method", m], m) for m in methods]
    known = {m: e for m, (e, _) in ort_errors.items() if e is not None}
    best = min(known, key=known.get) if known else None
    variants += [(name, flags, best) for name, flags in EXTRAS.items()] if extras else []
    rows = []
    for name, flags, against in variants:
        folder = os.path.join(work, name)
        os.makedirs(folder, exist_ok=True)
        start = time.perf_counter()
        try:
            ours = quantize_with_qlower(args, source, samples, folder, flags)
            seconds = time.perf_counter() - start
            ours_err = error_against(reference, run_qlower(args, ours, inputs, folder))
        except subprocess.CalledProcessError as e:
            rows.append((model.name, name, None, None, None, against, False,
                         f"{e.cmd[1]}: {harness.first_line(e.stderr or '')}"))
            continue
        wrong = check_per_channel(ours)
        if wrong:
            rows.append((model.name, name, ours_err, None, None, against, False, wrong))
            continue
        # qlower's model must run in ONNX Runtime too, and as accurately.
        ours_ort = [ort_oracle.run(ours, feeds, threads=args.threads) for feeds in inputs]
        ours_ort_err = error_against(reference, [lambda n, r=r: r[n] for r in ours_ort])
        theirs_err, note = ort_errors.get(against, (None, "no ORT result"))
        if theirs_err is None:
            rows.append((model.name, name, ours_err, None, None, against, False, note))
            continue
        bound = RATIO * theirs_err + SLACK
        passed = ours_err <= bound and ours_ort_err <= bound
        ratio = ours_err / theirs_err if theirs_err > 0 else float("inf")
        upgraded = " (opset converted by qlower)" if default_opset(onnx.load(source, load_external_data=False)) < 13 else ""
        rows.append((model.name, name, ours_err, theirs_err, ratio, against, passed,
                     f"qlower {seconds:.1f} s, in ONNX Runtime {ours_ort_err:.3e}{upgraded}, ORT {note}"))
    return rows


def table(rows, methods):
    """The Markdown table of every row, and the geometric means of the ratios."""
    lines = ["| model | method | qlower error | ORT error (method) | ratio |",
             "|---|---|---|---|---|"]
    for name, method, ours, theirs, ratio, against, _, note in rows:
        fmt = lambda v: "-" if v is None else f"{v:.3e}"  # noqa: E731
        lines.append(f"| {name} | {method} | {fmt(ours)} | {fmt(theirs)} ({against}) | "
                     f"{'-' if ratio is None else f'{ratio:.3f}'} |")
    for label, chosen in (("method for method", [r for r in rows if r[1] in methods]),
                          ("qlower extras vs ORT's best", [r for r in rows if r[1] not in methods])):
        ratios = [r[4] for r in chosen if r[4] is not None and 0 < r[4] < float("inf")]
        if ratios:
            geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            worst = max(ratios)
            lines.append(f"\ngeometric mean of the ratios, {label}: {geomean:.3f} "
                         f"({len(ratios)} comparisons, worst {worst:.3f})")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qlower", required=True)
    parser.add_argument("--models", help="comma-separated model names (default: every one with a qdq form)")
    parser.add_argument("--cache", default=os.environ.get("QLOWER_MODEL_CACHE",
                                                          os.path.join(harness.REPO, "target", "real_models")))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--calibrate-method", default="minmax",
                        help="comma-separated methods compared method for method, or `all` "
                             f"({','.join(ORT_METHODS)})")
    parser.add_argument("--extras", action="store_true",
                        help="also qlower's own choices against ORT's best method: "
                             + ", ".join(EXTRAS))
    args = parser.parse_args()
    args.qlower = os.path.abspath(args.qlower)
    wanted = set(args.models.split(",")) if args.models else None
    methods = ORT_METHODS if args.calibrate_method == "all" else args.calibrate_method.split(",")
    unknown = [m for m in methods if m not in ORT_METHODS]
    if unknown:
        parser.error(f"--calibrate-method: unknown {unknown} (ONNX Runtime has {ORT_METHODS})")
    print(f"quantizer accuracy against the float model: {CALIBRATION} calibration samples, "
          f"{HELD_OUT} held-out inputs, op types {','.join(OP_TYPES)}; "
          f"qlower must be within {RATIO} x ONNX Runtime's error + {SLACK:.0e}", flush=True)
    passed = failed = 0
    all_rows = []
    for model in manifest.MODELS:
        chosen = model.name in wanted if wanted else "qdq" in model.forms
        if not chosen:
            continue
        with tempfile.TemporaryDirectory(prefix="qlower-quantizer-accuracy-") as work:
            try:
                rows = compare(args, model, work, methods, args.extras)
            except subprocess.CalledProcessError as e:
                rows = [(model.name, "-", None, None, None, "-", False,
                         f"{e.cmd[1]}: {harness.first_line(e.stderr or '')}")]
            except Exception as e:
                rows = [(model.name, "-", None, None, None, "-", False,
                         harness.harness_failure(e, args.cache, work))]
        for name, method, ours, theirs, ratio, against, ok, note in rows:
            passed += ok
            failed += not ok
            fmt = lambda v: "-" if v is None else f"{v:.3e}"  # noqa: E731
            print(f"{'ok  ' if ok else 'FAIL'} {name:<20} {method:<26} qlower {fmt(ours)}, "
                  f"ONNX Runtime ({against}) {fmt(theirs)}: ratio "
                  f"{'-' if ratio is None else f'{ratio:.3f}'} ({note})", flush=True)
        all_rows += rows
    print()
    print(table(all_rows, methods))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
