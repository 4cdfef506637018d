"""The real models of `tools/real_models/manifest.py` as cases of `compilers.py`.

The models are fetched (or made) and quantized by `tools/real_models/run.py`'s own code,
into the same cache, so a fresh machine downloads them and a machine that ran the
real-model test reuses them. Their inputs are the manifest's (`run.make_inputs`, seed 0,
the entry's first length): random integers would index past an embedding table.

Quantized real models end in float ops (Softmax, Sigmoid, a float head after the last
DequantizeLinear), and IREE, like torch-mlir, computes the convolutions and matmuls of
dequantized tensors in f32 where qlower accumulates exactly in int32: an activation on a
rounding boundary now and then lands one step away, and later layers carry that step on.
That is the situation `manifest.BOUNDS` describes for dynamic quantization, so a
statically quantized form is held to the dynamic bound here (1e-2) rather than to the
1e-3 ONNX Runtime, which sums exactly too, must meet: smart-turn's one output is 8.6e-4
from qlower on an AVX-512 CPU, too close to 1e-3 for another CPU's codegen. So
`compilers.compare_real` holds a real model's float outputs to that relative L2 bound,
or, for an output a DequantizeLinear writes, to one of its steps (a two-class softmax
moved by one step is far over any relative bound). A test driver, not part of the product.
"""

import importlib.util
import os

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# The (model, form, static) cases `cargo test --test downstream` compiles, chosen so the
# test adds a few minutes on two cores (IREE's compile of a whole network takes tens of
# CPU seconds). `static`: the model's dynamic input dimensions are fixed to the shapes it
# runs at (a copy of the model with those graph input dimensions set), for a model whose
# dynamic form IREE 3.13 cannot compile (the README's "Known not to work"). Smart-turn's
# dynamic batch and ddddocr-common's dynamic width needed it until shape inference
# carried shape vectors known in part (import/shape_inference/partial.rs). Left out for time:
# the detectors (ddddocr-det, ppocr-det, yolov8n-320: minutes of IREE compile each;
# YOLOv8n's dynamic form does not compile, and its static QDQ form is 9.7e-3 from qlower
# in relative L2, too near the 1e-2 bound) and the larger forms of ppocr-cls.
# ddddocr-common's LSTM, float or DynamicQuantizeLSTM (its dynamic form and
# ddddocr-common-old), is a torch.prim.Loop in the torch form (expand_recurrent/).
# `--all-real-forms` runs every form of the manifest as shipped or quantized, with its
# dynamic dimensions.
DEFAULT = [
    ("t5-encoder", "float", False),
    ("t5-encoder", "dynamic", False),
    ("ppocr-cls", "qdq", False),
    ("smart-turn-v3.2", "shipped", False),
    ("ddddocr-common", "float", False),
    ("ddddocr-common", "dynamic", False),
    ("ddddocr-common-old", "shipped", False),
]


def _load_run():
    """tools/real_models/run.py as a module (its name clashes with tools/differential/run.py,
    which compilers.py also imports)."""
    path = os.path.join(REPO, "tools", "real_models", "run.py")
    spec = importlib.util.spec_from_file_location("real_models_run", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fixed_shapes(path, inputs, dest):
    """A copy of the model at `path`, written to `dest`, whose graph inputs have the
    static shapes of `inputs` (name -> array)."""
    model = onnx.load(path)
    for graph_input in model.graph.input:
        value = inputs.get(graph_input.name)
        if value is None:
            continue
        dims = graph_input.type.tensor_type.shape.dim
        for dim, size in zip(dims, value.shape):
            dim.ClearField("dim_param")
            dim.dim_value = size
    onnx.save(model, dest)
    return dest


def cases(cache, every_form, work, chosen=None):
    """(label, model path, {input name: array}, relative L2 bound) of each chosen case:
    `chosen` lists (model name, form, static) like DEFAULT (the default), in its order."""
    run = _load_run()
    by_name = {m.name: m for m in run.manifest.MODELS}
    chosen = [(m, f, False) for m in run.manifest.MODELS for f in m.forms] if every_form else [
        (by_name[name], f, static) for name, f, static in (chosen or DEFAULT)]
    out = []
    for model, form, static in chosen:
        source = run.fetch(model, cache)
        path = run.make_form(model, form, source, cache)
        inputs = run.make_inputs(model, 0)
        kind = form if form != "shipped" else f"shipped-{model.shipped}"
        label = f"{model.name}.{form}"
        if static:
            label += ".static"
            path = fixed_shapes(path, inputs, os.path.join(work, f"{label}.onnx"))
        bound = run.manifest.BOUNDS[kind]
        if kind in ("qdq", "qoperator", "shipped-qdq"):
            bound = max(bound, run.manifest.BOUNDS["dynamic"])
        out.append((label, path, inputs, bound))
    return out


def relative_l2(got, want):
    g, w = got.astype(np.float64).ravel(), want.astype(np.float64).ravel()
    norm = np.linalg.norm(w)
    return float(np.linalg.norm(g - w) / norm) if norm > 0 else float(np.linalg.norm(g - w))


# Ops that move values without changing them: an output they write after a
# DequantizeLinear is still on that DequantizeLinear's grid.
MOVERS = {"Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose"}


def dequantized_outputs(model):
    """Output name -> the scale of the per-tensor DequantizeLinear whose values it is
    (directly, or through ops in MOVERS)."""
    inits = {i.name: i for i in model.graph.initializer}
    producer = {out: node for node in model.graph.node for out in node.output}
    found = {}
    for output in model.graph.output:
        node = producer.get(output.name)
        while node is not None and node.op_type in MOVERS:
            node = producer.get(node.input[0])
        if node is None or node.op_type != "DequantizeLinear":
            continue
        scale = inits.get(node.input[1])
        if scale is not None:
            value = numpy_helper.to_array(scale)
            if value.size == 1:
                found[output.name] = float(value.reshape(-1)[0])
    return found
