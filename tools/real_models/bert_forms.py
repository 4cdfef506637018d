#!/usr/bin/env python3
"""A BERT/MiniLM-class sentence encoder (make_bert.py) in the forms it is deployed in,
each compiled once and run at several batch sizes and sequence lengths, against ONNX
Runtime in exact mode (tools/ort_oracle.py).

    bert_forms.py --qlower PATH [--forms a,b]

Forms:
- `float`: as exported;
- `int8-weights`: every projection weight int8 behind Cast and Mul, as some packages ship;
- `dynamic`: ONNX Runtime's `quantize_dynamic` of the float model;
- `qdq`: ONNX Runtime's `quantize_static` (QDQ, per-channel int8 weights, uint8
  activations, 4 calibration inputs);
- `ort-optimized`: ONNX Runtime's transformer optimizer (model_type bert), which fuses
  EmbedLayerNormalization, SkipLayerNormalization and BiasGelu;
- `ort-optimized-dynamic`: that, then `quantize_dynamic`, as ONNX Runtime documents
  deploying BERT.
Each form is compiled once (`qlower MODEL -o model.mlir`, batch and sequence unknown) and
the `.mlir` run at (batch, sequence) = (1, 5), (3, 128) and (2, 17), the later sequences
padded (the mask's tail zero), so the mean pooling and the GatherND last-token pooling see
different lengths per batch. Bounds, relative L2 over each output: 1e-4 for the float
forms, 1e-3 for QDQ, 1e-2 for the dynamic ones (whose scales come from run-time ranges,
see manifest.py). Exits 1 on any failure.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

from qlower_tools.real_models import make_bert
from qlower_tools import ort_oracle, qlower_cli

SHAPES = [(1, 5), (3, 128), (2, 17)]
BOUNDS = {"float": 1e-4, "int8-weights": 1e-4, "ort-optimized": 1e-4, "qdq": 1e-3,
          "dynamic": 1e-2, "ort-optimized-dynamic": 1e-2}
OUTPUTS = ["last_hidden_state", "sentence_embedding", "last_token"]


def inputs(rng, batch, seq):
    mask = np.ones((batch, seq), np.int64)
    for b in range(1, batch):
        mask[b, seq - (seq * b) // (batch + 1):] = 0
    return {"input_ids": rng.integers(0, make_bert.VOCAB, (batch, seq)).astype(np.int64),
            "attention_mask": mask,
            "token_type_ids": (rng.random((batch, seq)) < 0.3).astype(np.int64)}


def make_form(form, work):
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_dynamic, quantize_static)
    float_path = os.path.join(work, "float.onnx")
    onnx.save(make_bert.Encoder(False).build(), float_path)
    if form == "float":
        return float_path
    path = os.path.join(work, f"{form}.onnx")
    if form == "int8-weights":
        onnx.save(make_bert.Encoder(True).build(), path)
        return path
    source = float_path
    if form.startswith("ort-optimized"):
        from onnxruntime.transformers import optimizer
        optimized = optimizer.optimize_model(float_path, model_type="bert", num_heads=make_bert.HEADS,
                                             hidden_size=make_bert.HIDDEN, opt_level=0)
        source = os.path.join(work, "optimized.onnx")
        optimized.save_model_to_file(source)
        if form == "ort-optimized":
            return source
    if form.endswith("dynamic"):
        quantize_dynamic(source, path, weight_type=QuantType.QInt8,
                         extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
        return path
    if form == "qdq":
        rng = np.random.default_rng(100)
        samples = [inputs(rng, 2, 24) for _ in range(4)]

        class Reader(CalibrationDataReader):
            def __init__(self):
                self.it = iter(samples)

            def get_next(self):
                return next(self.it, None)

        quantize_static(source, path, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        op_types_to_quantize=["MatMul", "Gemm"],
                        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
        return path
    raise ValueError(f"unknown form {form!r}")


def rel_l2(got, want):
    want = np.asarray(want, np.float64)
    return float(np.linalg.norm(np.asarray(got, np.float64) - want) / max(np.linalg.norm(want), 1e-30))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    ap.add_argument("--forms", default=",".join(BOUNDS))
    args = ap.parse_args()
    failures, runs = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for form in args.forms.split(","):
            path = make_form(form, tmp)
            model = onnx.load(path)
            ops = sorted({n.op_type for n in model.graph.node if n.domain == "com.microsoft"})
            mlir = os.path.join(tmp, f"{form}.mlir")
            r = subprocess.run([args.qlower, path, "-o", mlir], stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                failures.append(f"{form}: compile failed: {r.stderr.strip()}")
                print(f"FAIL {form:22s} compile: {r.stderr.strip()}")
                continue
            rng = np.random.default_rng(7)
            for batch, seq in SHAPES:
                runs += 1
                feeds = inputs(rng, batch, seq)
                got, err = qlower_cli.run(args.qlower, mlir, feeds, OUTPUTS, tmp, timeout=600)
                if got is None:
                    failures.append(f"{form} at ({batch}, {seq}): {err}")
                    print(f"FAIL {form:22s} ({batch}, {seq:3d}): {err}")
                    continue
                want = ort_oracle.run(model, feeds)
                worst = max(rel_l2(got[o], want[o]) for o in OUTPUTS)
                ok = worst <= BOUNDS[form] and all(got[o].shape == want[o].shape for o in OUTPUTS)
                print(f"{'ok  ' if ok else 'FAIL'} {form:22s} (batch {batch}, seq {seq:3d}): worst "
                      f"relative L2 {worst:.2e} (bound {BOUNDS[form]:.0e})"
                      + (f"; com.microsoft ops: {', '.join(ops)}" if ops and batch == 1 else ""))
                if not ok:
                    failures.append(f"{form} at ({batch}, {seq}): {worst:.2e}")
    print(f"{runs - len(failures)} of {runs} runs passed, one compile per form")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
