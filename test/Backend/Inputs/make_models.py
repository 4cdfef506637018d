#!/usr/bin/env python3
"""Writes the QOperator models of the --emit backend round trip: the `cnn` and `mlp`
float models of tools/differential/qoperator_models.py, quantized by ONNX Runtime's
quantize_static, with one random float input each.

    .venv/bin/python test/Backend/Inputs/make_models.py
"""

import os
import tempfile

import numpy as np
import onnx
from onnxruntime.quantization import QuantType

HERE = os.path.dirname(os.path.abspath(__file__))
from qlower_tools.differential import qoperator_models
MODELS = [
    ("cnn_pt_quint8", qoperator_models.cnn, False, QuantType.QUInt8),
    ("cnn_pc_qint8", qoperator_models.cnn, True, QuantType.QInt8),
    ("mlp_pc_quint8", qoperator_models.mlp, True, QuantType.QUInt8),
]


def main():
    rng = np.random.default_rng(14)
    with tempfile.TemporaryDirectory() as work:
        for stem, build, per_channel, activation in MODELS:
            model, shape = build(rng)
            q = qoperator_models.quantize(work, stem, model, shape, rng, per_channel, activation)
            onnx.save(q, os.path.join(HERE, f"{stem}.onnx"))
            x = rng.normal(size=shape).astype(np.float32)
            np.save(os.path.join(HERE, f"{stem}_x.npy"), x)


if __name__ == "__main__":
    main()
