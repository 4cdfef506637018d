#!/usr/bin/env python3
"""Downstream compilers take qlower's output for them (`--target`) for whole models.

    compilers.py --qlower QLOWER [--iree-bin DIR] [--torch-mlir-opt PATH] [--resnet]
                 [--real-models CACHE [--all-real-forms]] [--only SUBSTRING] [--work DIR]

For every end-to-end model of the suite (the repository's test models, the QOperator CNN
and MLP models of `tools/differential/qoperator_models.py` quantized by ONNX Runtime, the
ResNet-18-shaped model of `make_resnet18.py` in QOperator and QDQ form, a dynamic
MatMulInteger model and a per-axis QuantizeLinear/DequantizeLinear pair; with
`--real-models CACHE`, real models of `tools/real_models/manifest.py`, see
`real_model_cases.py`):

1. `qlower MODEL --target torch-mlir` and `qlower MODEL --target iree` (the torch form
   with the workarounds of `transforms/downstream/` for each compiler);
2. torch-mlir: `torch-mlir-opt --torch-function-to-torch-backend-pipeline
   --torch-backend-to-linalg-on-tensors-backend-pipeline` must reach linalg on the first;
3. IREE: on the second, `iree-compile --iree-input-type=torch --iree-hal-target-device=local
   --iree-hal-local-target-device-backends=llvm-cpu`, then `iree-run-module` on random
   inputs; its outputs must equal `qlower run`'s within one quantization step (a real
   model's float outputs: within its form's relative L2 bound). IREE's integers are
   signless (uint8 comes back as int8), so integer outputs are compared as the bit
   patterns of qlower's type.

IREE is a test-only dependency that `tools/setup.sh` installs into the test venv; if it is
missing this script fails (it never skips). Prints one table row per model and exits 1 if
any model fails. A test driver, not part of the product.
"""

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

from qlower_tools.differential import qoperator_models
from qlower_tools.differential import run as differential

from qlower_tools.downstream import real_model_cases

TIMEOUT = 900

# The repository's end-to-end models (hostile and error-path inputs are not models).
REPO_MODELS = [
    "examples/quantized_conv.onnx",
    "test/Backend/Inputs/cnn_pt_quint8.onnx",
    "test/Backend/Inputs/cnn_pc_qint8.onnx",
    "test/Backend/Inputs/mlp_pc_quint8.onnx",
    "test/Transforms/Inputs/qdq_cnn.onnx",
    "test/Transforms/Inputs/qat_conv_const.onnx",
    "test/Transforms/Inputs/bias_add_reshape.onnx",
    "test/Transforms/Inputs/dynamic_quant_const.onnx",
    "test/Runtime/Inputs/qdq_roundtrip.onnx",
    "test/Runtime/Inputs/shared_outputs.onnx",
    "test/Import/Inputs/qdq_per_axis.onnx",
    "test/Import/Inputs/qlinearconv_per_channel.onnx",
    "test/CLI/Inputs/quantize/mlp.onnx",
]

# Models that are known not to compile, with the error they must still fail with (so a
# fix downstream is noticed: the model then passes and must leave this list).
KNOWN_FAILURES = {
    # (dynamic_quant_const, a returned uint8 constant that torch-mlir folded back into a
    # literal it typed si8, left this list when the torch form began returning such
    # constants as int_repr(quantize_per_tensor(...)): transforms/returned_uint8.rs.)
}

NP_OF = {
    TensorProto.FLOAT: np.float32,
    TensorProto.UINT8: np.uint8,
    TensorProto.INT8: np.int8,
    TensorProto.INT32: np.int32,
    TensorProto.INT64: np.int64,
}


def per_axis_pair(dtype):
    """A per-axis QuantizeLinear/DequantizeLinear pair on a run-time activation."""
    scales = np.array([0.02, 0.05, 0.1], np.float32)
    zps = np.array({np.int8: [-3, 0, 7], np.uint8: [120, 128, 135],
                    np.int32: [0, 0, 0]}[dtype], dtype)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=1, name="q"),
        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=1, name="dq"),
    ]
    graph = helper.make_graph(
        nodes, "per_axis_pair",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4, 4])],
        [numpy_helper.from_array(scales, "s"), numpy_helper.from_array(zps, "z")])
    # ONNX quantizes to int32 from opset 21.
    opset = 21 if dtype == np.int32 else 13
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10 if dtype == np.int32 else 8
    return model


def recurrent_model(rng, op, direction, with_bias=True, with_states=True, lengths=None,
                    peepholes=False, **attributes):
    """One ONNX LSTM or GRU (T=6, B=2, I=5, H=4; `lengths`: constant sequence_lens;
    batch first with `layout=1`): its torch form is a torch.prim.Loop per direction
    (transforms/expand_recurrent/)."""
    d = 2 if direction == "bidirectional" else 1
    hidden, size = 4, 5
    gates = 4 if op == "LSTM" else 3
    batch_first = attributes.get("layout", 0) == 1
    weights = {
        "W": rng.normal(0.0, 0.5, (d, gates * hidden, size)),
        "R": rng.normal(0.0, 0.5, (d, gates * hidden, hidden)),
        "B": rng.normal(0.0, 0.5, (d, 2 * gates * hidden)),
    }
    inits = [numpy_helper.from_array(v.astype(np.float32), n) for n, v in weights.items()
             if with_bias or n != "B"]
    states = ["h0", "c0"] if op == "LSTM" else ["h0"]
    outputs = ["y", "y_h", "y_c"] if op == "LSTM" else ["y", "y_h"]
    inputs = ["x", "W", "R", "B" if with_bias else ""]
    x_shape = [2, 6, size] if batch_first else [6, 2, size]
    state_shape = [2, d, hidden] if batch_first else [d, 2, hidden]
    graph_inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)]
    if lengths is not None:
        inits.append(numpy_helper.from_array(np.asarray(lengths, np.int32), "lengths"))
    inputs.append("lengths" if lengths is not None else "")
    if with_states:
        inputs += states
        graph_inputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, state_shape)
                         for n in states]
    if peepholes:
        inputs += [""] * (7 - len(inputs)) + ["P"]
        inits.append(numpy_helper.from_array(
            rng.normal(0.0, 0.5, (d, 3 * hidden)).astype(np.float32), "P"))
    while inputs[-1] == "":
        inputs.pop()
    node = helper.make_node(op, inputs, outputs, hidden_size=hidden, direction=direction,
                            name=op.lower(), **attributes)
    graph = helper.make_graph(
        [node], f"{op.lower()}_{direction}", graph_inputs,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    return model


def dynamic_lstm_model(rng, direction, wtype, per_direction, with_states=True, lengths=None,
                       peepholes=False):
    """One com.microsoft DynamicQuantizeLSTM (T=6, B=2, I=5, H=4), weights `wtype` with a
    scale and zero point per direction or per tensor: its torch form is a torch.prim.Loop
    per direction that quantizes H at each step (expand_recurrent/dynamic_quant.rs)."""
    d = 2 if direction == "bidirectional" else 1
    hidden, size = 4, 5
    lo, hi = (-128, 127) if wtype == np.int8 else (0, 255)
    scale_shape = [d] if per_direction else []
    zp = rng.integers(-3, 4, scale_shape) if wtype == np.int8 else rng.integers(120, 136, scale_shape)
    inits = {
        "W": rng.integers(lo, hi + 1, (d, size, 4 * hidden)).astype(wtype),
        "R": rng.integers(lo, hi + 1, (d, hidden, 4 * hidden)).astype(wtype),
        "B": rng.normal(0.0, 0.5, (d, 8 * hidden)).astype(np.float32),
        "W_scale": rng.uniform(0.002, 0.01, scale_shape).astype(np.float32),
        "W_zero_point": np.asarray(zp, dtype=wtype),
        "R_scale": rng.uniform(0.002, 0.01, scale_shape).astype(np.float32),
        "R_zero_point": np.asarray(zp, dtype=wtype),
    }
    if lengths is not None:
        inits["lengths"] = np.asarray(lengths, np.int32)
    if peepholes:
        inits["P"] = rng.normal(0.0, 0.5, (d, 3 * hidden)).astype(np.float32)
    graph_inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6, 2, size])]
    inputs = ["x", "W", "R", "B", "lengths" if lengths is not None else "",
              "h0" if with_states else "", "c0" if with_states else "", "P" if peepholes else "",
              "W_scale", "W_zero_point", "R_scale", "R_zero_point"]
    if with_states:
        graph_inputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, [d, 2, hidden])
                         for n in ("h0", "c0")]
    outputs = ["y", "y_h", "y_c"]
    node = helper.make_node("DynamicQuantizeLSTM", inputs, outputs, domain="com.microsoft",
                            hidden_size=hidden, direction=direction, name="lstm")
    graph = helper.make_graph(
        [node], f"dynamic_lstm_{direction}", graph_inputs,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        [numpy_helper.from_array(v, n) for n, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return model


def models(work, resnet, real_cache, every_real_form):
    """(label, path, inputs, bound) of every model to compile: `inputs` maps input names
    to arrays (None: random ones), `bound` is a real model's relative L2 bound (None:
    one quantization step)."""
    out = [(os.path.splitext(os.path.basename(p))[0], os.path.join(REPO, p), None, None)
           for p in REPO_MODELS]
    rng = np.random.default_rng(1)
    generated = [(label, m) for label, m, _ in qoperator_models.quantized_models(rng, work, resnet)]
    generated.append(("dynamic_matmulinteger", differential.gen_dynamic_matmul(rng)[0]))
    generated.append(("qdq_conv", differential.gen_qdq_conv(rng)[0]))
    generated.append(("per_axis_pair_int8", per_axis_pair(np.int8)))
    generated.append(("per_axis_pair_uint8", per_axis_pair(np.uint8)))
    generated.append(("per_axis_pair_int32", per_axis_pair(np.int32)))
    generated.append(("lstm_forward", recurrent_model(rng, "LSTM", "forward")))
    generated.append(("lstm_bidirectional", recurrent_model(rng, "LSTM", "bidirectional")))
    generated.append(("lstm_reverse_bare", recurrent_model(rng, "LSTM", "reverse", False, False)))
    generated.append(("gru_forward", recurrent_model(rng, "GRU", "forward")))
    generated.append(("gru_bidirectional_linear_before_reset",
                      recurrent_model(rng, "GRU", "bidirectional", linear_before_reset=1)))
    generated.append(("lstm_bidirectional_lengths_peepholes_clip_input_forget",
                      recurrent_model(rng, "LSTM", "bidirectional", lengths=[4, 6],
                                      peepholes=True, clip=1.5, input_forget=1)))
    generated.append(("lstm_batch_first_activations",
                      recurrent_model(rng, "LSTM", "forward", layout=1,
                                      activations=["HardSigmoid", "LeakyRelu", "Softplus"],
                                      activation_alpha=[0.3, 0.1], activation_beta=[0.4])))
    generated.append(("gru_reverse_lengths_activations",
                      recurrent_model(rng, "GRU", "reverse", lengths=[3, 6],
                                      activations=["Sigmoid", "Elu"], activation_alpha=[0.7])))
    generated.append(("gru_bidirectional_activations",
                      recurrent_model(rng, "GRU", "bidirectional", linear_before_reset=1,
                                      activations=["Affine", "ScaledTanh", "Sigmoid", "Softsign"],
                                      activation_alpha=[0.2, 0.9], activation_beta=[0.5, 1.1])))
    generated.append(("lstm_reverse_thresholded_relu",
                      recurrent_model(rng, "LSTM", "reverse",
                                      activations=["Sigmoid", "ThresholdedRelu", "Relu"],
                                      activation_alpha=[0.1])))
    generated.append(("dynamic_lstm_bidirectional_int8",
                      dynamic_lstm_model(rng, "bidirectional", np.int8, True)))
    generated.append(("dynamic_lstm_reverse_uint8_bare",
                      dynamic_lstm_model(rng, "reverse", np.uint8, False, False)))
    generated.append(("dynamic_lstm_lengths_peepholes",
                      dynamic_lstm_model(rng, "bidirectional", np.int8, True, lengths=[5, 2],
                                         peepholes=True)))
    for label, model in generated:
        path = os.path.join(work, f"{label}.onnx")
        onnx.save(model, path)
        out.append((label, path, None, None))
    if real_cache:
        out += real_model_cases.cases(real_cache, every_real_form, work)
    return out


def saved_inputs(inputs, work, label):
    """The given input arrays as .npy files, in order: (name, .npy path)."""
    feeds = []
    for i, (name, value) in enumerate(inputs.items()):
        path = os.path.join(work, f"{label}.in{i}.npy")
        np.save(path, value)
        feeds.append((name, path))
    return feeds


def random_inputs(model_path, work, label, rng):
    """Random run-time inputs for the model's graph inputs, in order: (name, .npy path)."""
    model = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    feeds = []
    for i, inp in enumerate(x for x in model.graph.input if x.name not in inits):
        t = inp.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else 1 for d in t.shape.dim]
        dtype = NP_OF.get(t.elem_type)
        if dtype is None:
            raise RuntimeError(f"input {inp.name}: element type {t.elem_type} has no generator")
        if np.issubdtype(dtype, np.floating):
            value = rng.normal(0.0, 1.0, dims).astype(dtype)
        else:
            info = np.iinfo(dtype)
            value = rng.integers(max(info.min, -128), min(info.max, 255) + 1, dims).astype(dtype)
        path = os.path.join(work, f"{label}.in{i}.npy")
        np.save(path, value)
        feeds.append((inp.name, path))
    return feeds


def step_of(model_path):
    """One quantization step of the model's float results: the largest per-tensor scale
    the model quantizes or dequantizes with (an upper bound on any one step), or None for
    a model without quantization parameters."""
    model = onnx.load(model_path, load_external_data=False)
    scales = []
    for init in model.graph.initializer:
        if "scale" in init.name and init.data_type == TensorProto.FLOAT:
            a = numpy_helper.to_array(init)
            if a.size == 1:
                scales.append(float(a.reshape(-1)[0]))
    for node in model.graph.node:
        if node.op_type == "DynamicQuantizeLinear":
            # Its scale is computed at run time: (max - min) / 255 of a normal sample.
            scales.append(16.0 / 255.0)
    return max(scales) if scales else None


def run(cmd):
    """(ok, the first error line of stderr)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {TIMEOUT}s"
    if p.returncode != 0:
        lines = [ln for ln in p.stderr.splitlines() if "error" in ln] or p.stderr.splitlines()
        return False, (lines[0] if lines else f"exit {p.returncode}")[:300]
    return True, ""


def output_file(q_dir, name):
    """Where `qlower run` writes output `name` (path separators become '_')."""
    return os.path.join(q_dir, name.replace("/", "_").replace("\\", "_") + ".npy")


def compare_real(model_path, q_dir, iree_outs, bound, sensitivity):
    """A real model's outputs against qlower's: integers within one step (as qlower's
    type); float outputs within `bound` relative L2, or, for an output a DequantizeLinear
    writes (through ops in MOVERS), within one of its steps.

    IREE computes the convolutions and matmuls of dequantized tensors in f32 where qlower
    accumulates exactly in int32 (and sums floats in another order): an activation on a
    rounding boundary lands one step away and later layers carry that step on. A deep
    detector turns any such move into a relative L2 change of about 1e-2 (ONNX Runtime
    against itself, manifest.py), so when the bound is not met the bound becomes twice
    `sensitivity()`: how far qlower's own outputs move when every input element moves by
    one ulp. Returns a description of the worst difference; raises on a mismatch."""
    model = onnx.load(model_path, load_external_data=False)
    names = [o.name for o in model.graph.output]
    if len(names) != len(iree_outs):
        raise AssertionError(f"{len(names)} outputs but IREE wrote {len(iree_outs)}")
    own = real_model_cases.dequantized_outputs(model)
    steps, worst_l2, moved = None, None, None
    for name, path in zip(names, iree_outs):
        want = np.load(output_file(q_dir, name))
        got = np.load(path)
        if got.shape != want.shape:
            raise AssertionError(f"{name}: IREE shape {got.shape}, qlower {want.shape}")
        if np.issubdtype(want.dtype, np.integer):
            got = got.view(want.dtype)
            d = float(np.abs(got.astype(np.int64) - want.astype(np.int64)).max(initial=0))
            if d > 1:
                raise AssertionError(f"{name}: integers differ by {d:.0f}")
            steps = max(steps or 0.0, d)
            continue
        if np.isnan(got).any() != np.isnan(want).any():
            raise AssertionError(f"{name}: NaN in one result only")
        err = real_model_cases.relative_l2(got, want)
        d = None
        if name in own:
            diff = np.abs(got.astype(np.float64) - want.astype(np.float64)).max(initial=0)
            d = float(diff) / own[name]
            steps = max(steps or 0.0, d)
        if not (err <= bound or (d is not None and d <= 1.0 + 1e-3)):
            if moved is None:
                moved = sensitivity()
                bound = max(bound, 2.0 * moved)
            if not err <= bound:
                what = f"relative L2 {err:.2e} over {bound:.1e}"
                raise AssertionError(f"{name}: {what}" + ("" if d is None else f", {d:.3g} steps"))
        worst_l2 = max(worst_l2 or 0.0, err)
    parts = [] if steps is None else [f"{steps:.3g} steps"]
    if worst_l2 is not None:
        parts.append(f"rel. L2 {worst_l2:.2e} (bound {bound:.1e}"
                     + ("" if moved is None else f": qlower's one-ulp sensitivity {moved:.1e}")
                     + ")")
    return ", ".join(parts)


def qlower_sensitivity(args, path, inputs, q_dir, work, label):
    """The largest relative L2 change of `qlower run`'s float outputs when every float
    input element moves by one ulp up or down at random (two draws), against its outputs
    in `q_dir`."""
    worst = 0.0
    for seed in range(2):
        rng = np.random.default_rng(seed)
        cmd = [args.qlower, "run", path, "--out-dir", f"{q_dir}.nudged", "--threads", "1"]
        for i, (name, value) in enumerate(inputs.items()):
            if np.issubdtype(value.dtype, np.floating):
                step = rng.choice([-1.0, 1.0], value.shape) * np.finfo(value.dtype).eps
                value = (value * (1.0 + step)).astype(value.dtype)
            f = os.path.join(work, f"{label}.nudged{i}.npy")
            np.save(f, value)
            cmd += ["-i", f"{name}={f}"]
        ok, err = run(cmd)
        if not ok:
            raise AssertionError(f"qlower run on nudged inputs failed: {err}")
        for name in os.listdir(q_dir):
            want = np.load(os.path.join(q_dir, name))
            if np.issubdtype(want.dtype, np.floating):
                moved = np.load(os.path.join(f"{q_dir}.nudged", name))
                worst = max(worst, real_model_cases.relative_l2(moved, want))
    return worst


def compare(label, model_path, mlir, q_dir, iree_outs):
    """The largest difference over every output, in units of the output's integer type or
    of one quantization step for float outputs; raises on a mismatch."""
    names = [o.name for o in onnx.load(model_path, load_external_data=False).graph.output]
    if len(names) != len(iree_outs):
        raise AssertionError(f"{len(names)} outputs but IREE wrote {len(iree_outs)}")
    model = onnx.load(model_path, load_external_data=False)
    # An output a DequantizeLinear writes is measured in its own step; others in the
    # largest step of the model.
    own = qoperator_models.dequantize_params(model)
    step = step_of(model_path)
    worst = 0.0
    for name, path in zip(names, iree_outs):
        want = np.load(output_file(q_dir, name))
        got = np.load(path)
        if got.shape != want.shape:
            raise AssertionError(f"{name}: IREE shape {got.shape}, qlower {want.shape}")
        if np.issubdtype(want.dtype, np.integer):
            if got.dtype.itemsize != want.dtype.itemsize:
                raise AssertionError(f"{name}: IREE {got.dtype}, qlower {want.dtype}")
            got = got.view(want.dtype)  # signless integers: the same bits
            diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
            d, limit = float(diff.max(initial=0)), 1.0
        else:
            diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
            if name in own:
                unit = float(own[name][0])
            elif step is not None:
                unit = step
            else:
                unit = 1e-5 * max(1.0, float(np.abs(want).max(initial=0)))
            d, limit = float(diff.max(initial=0)) / unit, 1.0 + 1e-3
            if np.isnan(got).any() != np.isnan(want).any():
                raise AssertionError(f"{name}: NaN in one result only")
        if d > limit:
            raise AssertionError(f"{name}: max difference {d:.3g} steps")
        worst = max(worst, d)
    return worst


def cpu_seconds():
    """CPU time the children of this process have used so far (user + system)."""
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def one(args, work, label, path, inputs, bound, rng):
    """(torch-mlir result, IREE result, max difference, ok)."""
    for_torch_mlir = os.path.join(work, f"{label}.torch-mlir.mlir")
    ok, err = run([args.qlower, path, "--target", "torch-mlir", "-o", for_torch_mlir])
    if not ok:
        return f"qlower failed: {err}", "-", "-", False
    mlir = os.path.join(work, f"{label}.iree.mlir")
    ok, err = run([args.qlower, path, "--target", "iree", "-o", mlir])
    if not ok:
        return f"qlower failed: {err}", "-", "-", False
    ok, err = run([args.torch_mlir_opt, "--torch-function-to-torch-backend-pipeline",
                   "--torch-backend-to-linalg-on-tensors-backend-pipeline", for_torch_mlir,
                   "-o", os.path.join(work, f"{label}.linalg.mlir")])
    torch_mlir = "linalg" if ok else f"FAILED: {err}"
    all_ok = ok
    vmfb = os.path.join(work, f"{label}.vmfb")
    start = cpu_seconds()
    ok, err = run([os.path.join(args.iree_bin, "iree-compile"), "--iree-input-type=torch",
                   "--iree-hal-target-device=local",
                   "--iree-hal-local-target-device-backends=llvm-cpu", mlir, "-o", vmfb])
    compiled = f"compile {cpu_seconds() - start:.0f} CPU s"
    if not ok:
        return torch_mlir, f"compile FAILED: {err}", "-", False
    if inputs is None:
        feeds = random_inputs(path, work, label, rng)
    else:
        feeds = saved_inputs(inputs, work, label)
    q_dir = os.path.join(work, f"{label}.qlower")
    cmd = [args.qlower, "run", path, "--out-dir", q_dir, "--threads", "1"]
    for name, f in feeds:
        cmd += ["-i", f"{name}={f}"]
    ok, err = run(cmd)
    if not ok:
        return torch_mlir, f"qlower run FAILED: {err}", "-", False
    with open(mlir) as f:
        # A graph name that is not an identifier is a quoted symbol (`@"paddle-onnx"`).
        m = re.search(r'func\.func @("[^"]+"|[\w$.-]+)\(', f.read())
    if m is None:
        return torch_mlir, "no function in the output", "-", False
    function = m.group(1).strip('"')
    outputs = onnx.load(path, load_external_data=False).graph.output
    iree_outs = [os.path.join(work, f"{label}.iree{i}.npy") for i in range(len(outputs))]
    cmd = [os.path.join(args.iree_bin, "iree-run-module"), f"--module={vmfb}",
           "--device=local-task", f"--function={function}"]
    cmd += [f"--input=@{f}" for _, f in feeds]
    cmd += [f"--output=@{f}" for f in iree_outs]
    ok, err = run(cmd)
    if not ok:
        return torch_mlir, f"run FAILED: {err}", "-", False
    try:
        if bound is None:
            worst = f"{compare(label, path, mlir, q_dir, iree_outs):.3g}"
        else:
            worst = compare_real(path, q_dir, iree_outs, bound,
                                 lambda: qlower_sensitivity(args, path, inputs, q_dir, work, label))
    except AssertionError as e:
        return torch_mlir, f"runs, DIFFERS: {e}", "-", False
    finally:
        # A whole network's module and linalg form are large and the disk is not; the
        # torch form, the inputs and the outputs stay (with --work) to look into.
        for f in [vmfb, os.path.join(work, f"{label}.linalg.mlir")]:
            if os.path.exists(f):
                os.remove(f)
    return torch_mlir, f"runs, equal ({compiled})", worst, all_ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    ap.add_argument("--iree-bin",
                    default=os.environ.get("QLOWER_IREE_BIN", os.path.join(REPO, ".venv", "bin")),
                    help="the directory holding iree-compile and iree-run-module "
                         "(default $QLOWER_IREE_BIN, else the test venv's)")
    ap.add_argument("--torch-mlir-opt", default=os.path.join(REPO, ".venv", "bin", "torch-mlir-opt"))
    ap.add_argument("--resnet", action="store_true", help="add the ResNet-18-shaped models")
    ap.add_argument("--real-models", metavar="CACHE",
                    help="add the real models of tools/real_models/manifest.py chosen in "
                         "real_model_cases.DEFAULT, fetched into (or read from) CACHE")
    ap.add_argument("--all-real-forms", action="store_true",
                    help="with --real-models: every (model, form) pair of the manifest")
    ap.add_argument("--only", help="only models whose label contains this")
    ap.add_argument("--work", help="keep the files in this directory")
    args = ap.parse_args()
    for tool in ("iree-compile", "iree-run-module"):
        if shutil.which(os.path.join(args.iree_bin, tool)) is None:
            print(f"FAIL: {tool} is not in {args.iree_bin}: run tools/setup.sh "
                  "(it installs iree-base-compiler and iree-base-runtime into the test venv)")
            return 1
    work = args.work or tempfile.mkdtemp(prefix="qlower-downstream-")
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(7)
    failures = known_failures = 0
    rows = []
    for label, path, inputs, bound in models(work, args.resnet, args.real_models,
                                             args.all_real_forms):
        if args.only and args.only not in label:
            continue
        torch_mlir, iree, diff, ok = one(args, work, label, path, inputs, bound, rng)
        known = KNOWN_FAILURES.get(label)
        if known is not None:
            if ok:
                ok = False
                iree += " (listed in KNOWN_FAILURES: remove it)"
            elif known in torch_mlir or known in iree:
                ok = True
                known_failures += 1
                torch_mlir, iree = f"known failure: {torch_mlir}", f"known failure: {iree}"
        failures += not ok
        rows.append((label, torch_mlir, iree, diff))
        print(f"| {label} | {torch_mlir} | {iree} | {diff} |", flush=True)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    passed = len(rows) - failures - known_failures
    print(f"{passed} of {len(rows)} models compile with torch-mlir and IREE and IREE equals "
          f"qlower run; {known_failures} known failures (KNOWN_FAILURES); {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
