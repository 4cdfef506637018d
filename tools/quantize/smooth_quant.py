#!/usr/bin/env python3
"""`qlower quantize --smooth-quant` and MatMul+Add `--bias-correction` on transformer
encoders: error against the float model, and the smoothing's exactness in float.

    smooth_quant.py --qlower PATH [--models bert,bert-outliers,t5-encoder,t5-v1.1-encoder]
                    [--cache DIR]

Models: `bert`, the BERT/MiniLM-class encoder of tools/real_models/make_bert.py (random
weights, seed 0); `bert-outliers`, the same with a few channels of every
LayerNormalization's scale and bias multiplied by 30, the outlier channels that trained
transformers grow and that SmoothQuant is for; and the manifest's T5 encoders (made by
make_t5.py into the model cache).

Each is quantized statically, per channel, uint8 activations, int8 weights, MatMul/Gemm/
Conv (as quantizer_accuracy.py does), on `CALIBRATION` generated samples, by
- qlower plain (bias correction chosen automatically, printed); qlower
  --bias-correction off; qlower --smooth-quant (α chosen by calibration, printed); qlower
  --smooth-quant --smooth-quant-alpha 0.5; qlower --bias-correction;
- ONNX Runtime's quantize_static plain, and with extra_options SmoothQuant=True (which
  needs neural-compressor; when it is missing the row says so).
Every quantized model runs in ONNX Runtime on `HELD_OUT` other inputs, and its error is
the relative L2 of all float outputs against the float model, averaged.

Checks (exit 1 when one fails), on bert and bert-outliers:
- the smoothed float model (`--save-smoothed`, before quantization) gives the float
  model's outputs within 1e-5 relative L2: the transform is exact in float;
- --smooth-quant's error is at most `RATIO` x the plain error: smoothing does not raise
  it (α is chosen on the calibration samples, the error measured on held-out ones);
- --bias-correction changes the constant bias Added after each MatMul.
A test oracle: the product never runs it.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

from qlower_tools import ort_oracle
from qlower_tools.real_models import manifest
from qlower_tools.real_models import run as harness

CALIBRATION, HELD_OUT = 8, 4
LENGTH = 16
OP_TYPES = ["Conv", "MatMul", "Gemm"]
RATIO = 1.02
FLOAT_EXACT = 1e-5
OUTLIER_CHANNELS, OUTLIER_GAIN = [3, 17, 40, 58], 30.0
HERE = os.path.dirname(os.path.abspath(__file__))
BERT_INPUTS = {"input_ids": ("int64", [1, "seq"], "tokens:1000"),
               "attention_mask": ("int64", [1, "seq"], "mask"),
               "token_type_ids": ("int64", [1, "seq"], "zeros")}


def bert_inputs(seed):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, 1000, [1, LENGTH]).astype(np.int64)
    mask = np.ones([1, LENGTH], np.int64)
    mask[:, LENGTH - LENGTH // 4:] = 0
    types = np.zeros([1, LENGTH], np.int64)
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


def make_bert(work, outliers):
    path = os.path.join(work, "bert.onnx")
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(HERE, "..", "real_models", "make_bert.py"),
                        path], check=True, timeout=600)
    if not outliers:
        return path
    model = onnx.load(path)
    inits = {t.name: t for t in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type != "LayerNormalization":
            continue
        for name in node.input[1:3]:
            t = inits.get(name)
            if t is None:
                continue
            v = numpy_helper.to_array(t).copy()
            v[OUTLIER_CHANNELS] *= OUTLIER_GAIN
            t.CopyFrom(numpy_helper.from_array(v.astype(np.float32), name))
    out = os.path.join(work, "bert-outliers.onnx")
    onnx.save(model, out)
    return out


def relative_l2(reference, outputs):
    errors = []
    for want, got in zip(reference, outputs):
        names = [n for n, v in want.items() if np.issubdtype(v.dtype, np.floating)]
        w = np.concatenate([want[n].astype(np.float64).ravel() for n in names])
        g = np.concatenate([np.asarray(got[n], np.float64).ravel() for n in names])
        errors.append(harness.relative_l2(g, w))
    return float(np.mean(errors))


def qlower_quantize(args, source, folder, out, flags):
    done = subprocess.run([args.qlower, "quantize", source, "-o", out, "--mode", "static",
                           "--per-channel", "--calibration", folder,
                           "--op-types", ",".join(OP_TYPES), *flags],
                          capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"qlower quantize {' '.join(flags)}: {done.stderr.strip()}")
    chosen = [line for line in done.stderr.splitlines()
              if "--smooth-quant:" in line or "bias correction:" in line]
    return "; ".join(re.sub(r"^qlower quantize: (--smooth-quant: )?", "", c) for c in chosen)


def ort_quantize(source, samples, out, smooth):
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.samples = iter(samples)

        def get_next(self):
            return next(self.samples, None)

    extra = {"SmoothQuant": True} if smooth else {}
    cwd = os.getcwd()
    os.chdir(os.path.dirname(out))
    try:
        quantize_static(os.path.abspath(source), out, Reader(), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8, op_types_to_quantize=OP_TYPES,
                        extra_options=extra)
    finally:
        os.chdir(cwd)


def added_biases(source):
    """The names of the constants Added to a MatMul's output in the float model."""
    model = onnx.load(source)
    inits = {t.name for t in model.graph.initializer}
    matmul_out = {n.output[0] for n in model.graph.node if n.op_type == "MatMul"}
    return {b for n in model.graph.node if n.op_type == "Add" and len(n.input) == 2
            for a, b in (n.input, n.input[::-1]) if a in matmul_out and b in inits}


def float_initializers(path, names):
    model = onnx.load(path)
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer if t.name in names}


def evaluate(args, name, source, samples, inputs, work, checked):
    failures = []
    folder = os.path.join(work, "calibration")
    os.makedirs(folder, exist_ok=True)
    for i, feeds in enumerate(samples):
        np.savez(os.path.join(folder, f"sample{i}.npz"), **feeds)
    reference = [ort_oracle.run(source, feeds) for feeds in inputs]

    def error_of(path):
        return relative_l2(reference, [ort_oracle.run(path, feeds) for feeds in inputs])

    rows = {}
    variants = {"qlower": [], "qlower --bias-correction off": ["--bias-correction", "off"],
                "qlower --smooth-quant": ["--smooth-quant", "--save-smoothed",
                                                         os.path.join(work, "smoothed.onnx")],
                "qlower --smooth-quant α=0.5": ["--smooth-quant", "--smooth-quant-alpha", "0.5"],
                "qlower --bias-correction": ["--bias-correction"]}
    for label, flags in variants.items():
        out = os.path.join(work, re.sub(r"[^a-z0-9]+", "_", label) + ".onnx")
        note = qlower_quantize(args, source, folder, out, flags)
        rows[label] = (error_of(out), note)
        if label == "qlower --bias-correction":
            names = added_biases(source)
            plain = float_initializers(source, names)
            corrected = float_initializers(out, names)
            changed = sum(k in corrected and not np.array_equal(v, corrected[k])
                          for k, v in plain.items())
            rows[label] = (rows[label][0], f"{changed} of {len(names)} MatMul+Add biases corrected")
            if checked and changed == 0:
                failures.append(f"{name}: --bias-correction corrected no MatMul+Add bias")
    smoothed = os.path.join(work, "smoothed.onnx")
    if os.path.exists(smoothed):
        exact = error_of(smoothed)
        rows["smoothed float model"] = (exact, "before quantization, against the float model")
        if checked and not exact <= FLOAT_EXACT:
            failures.append(f"{name}: the smoothed float model differs by {exact:.3e} "
                            f"(> {FLOAT_EXACT})")
    for label, smooth in (("ORT quantize_static", False), ("ORT SmoothQuant=True", True)):
        out = os.path.join(work, "ort-smooth.onnx" if smooth else "ort.onnx")
        try:
            ort_quantize(source, samples, out, smooth)
            rows[label] = (error_of(out), "")
        except Exception as e:  # SmoothQuant needs neural-compressor
            rows[label] = (None, harness.first_line(f"{type(e).__name__}: {e}"))
    plain, smooth = rows["qlower"][0], rows["qlower --smooth-quant"][0]
    if checked and not smooth <= RATIO * plain:
        failures.append(f"{name}: --smooth-quant raised the error from {plain:.3e} to {smooth:.3e}")
    for label, (err, note) in rows.items():
        shown = "-" if err is None else f"{err:.3e}"
        print(f"{name:<16} {label:<28} {shown:>10}  {note}", flush=True)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qlower", required=True)
    parser.add_argument("--models", default="bert,bert-outliers")
    parser.add_argument("--cache", default=os.environ.get(
        "QLOWER_MODEL_CACHE", os.path.join(harness.REPO, "target", "real_models")))
    args = parser.parse_args()
    args.qlower = os.path.abspath(args.qlower)
    print(f"relative L2 against the float model over {HELD_OUT} held-out inputs; "
          f"{CALIBRATION} calibration samples; static per-channel u8/i8 {','.join(OP_TYPES)}")
    failures = []
    with tempfile.TemporaryDirectory(prefix="qlower-smooth-quant-") as root:
        for name in args.models.split(","):
            work = os.path.join(root, name)
            os.makedirs(work)
            if name in ("bert", "bert-outliers"):
                source = make_bert(root, name == "bert-outliers")
                samples = [bert_inputs(100 + i) for i in range(CALIBRATION)]
                inputs = [bert_inputs(300 + i) for i in range(HELD_OUT)]
                checked = True
            else:
                model = next(m for m in manifest.MODELS if m.name == name)
                source = harness.fetch(model, args.cache)
                samples = [harness.make_inputs(model, 100 + i) for i in range(CALIBRATION)]
                inputs = [harness.make_inputs(model, 300 + i) for i in range(HELD_OUT)]
                checked = False
            failures += evaluate(args, name, source, samples, inputs, work, checked)
    for f in failures:
        print("FAIL", f)
    print("ok" if not failures else f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
