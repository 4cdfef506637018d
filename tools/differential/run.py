#!/usr/bin/env python3
"""Differential tests: random quantized ONNX models run by ONNX Runtime and by qlower.

    run.py --qlower PATH [--cases N] [--seed S] [--family NAME] [--jobs J] [--keep]

Each case builds a random model with `onnx.helper`, runs it with ONNX Runtime
(CPUExecutionProvider) and with `qlower run`, and compares every graph output:

- integer outputs: same dtype and shape, equal on at least 99.9 % of the elements and never
  more than 1 apart (requantization may round a tie differently);
- float outputs: |qlower - ort| <= 1e-4 * |ort| + 1e-5 * max(1, max |ort|), NaN equal to NaN
  (the absolute part scales with the output so that float sums in another order pass).

Families, in a fixed rotation so that every seed covers them all:

- qlinearconv: QLinearConv, uint8 and int8 activations, int8 and uint8 weights (ONNX
  Runtime has no int8-activation/uint8-weight kernel), per-tensor and per-channel weight
  scales with distinct per-channel zero points, groups and depthwise, strides, dilations,
  asymmetric pads, auto_pad SAME_UPPER/SAME_LOWER/VALID (ONNX Runtime refuses SAME with
  dilation), 1-D/2-D/3-D, batch > 1, with and without int32 bias;
- qdq_conv: float input -> QuantizeLinear -> DequantizeLinear -> Conv whose weight is a float
  initializer behind QuantizeLinear(axis=0)/DequantizeLinear(axis=0), then Relu;
- qdq_matmul: the same with MatMul, the weight quantized per column (axis=1);
- dynamic_matmul: DynamicQuantizeLinear + MatMulInteger + Cast + Mul rescale, as ONNX
  Runtime's dynamic quantization writes it;
- dynamic_conv: DynamicQuantizeLinear + ConvInteger + Cast + Mul rescale (per-tensor or
  per-channel weight scales) + optional per-channel bias Add, the convolution form of the same;
- roundtrip: one case in 4, of every family, is also compiled with
  `qlower MODEL --emit fused -o X.mlir` and with `--emit backend`, and run from each
  .mlir, which must give outputs identical to running the .onnx (which `qlower run`
  compiles to the backend form);
- unfused: every qlinearconv, qdq_conv and qdq_matmul case is also compiled with
  `qlower MODEL --emit torch -o X.mlir` (no fuse-quantized-ops) and run from the .mlir, which
  must give outputs byte-identical to the fused .onnx run: fusion never changes a result.

Prints per-family counts and a final line `N passed, M failed`; exits 1 on any failure, and
keeps the failing cases (model, inputs, ONNX Runtime's and qlower's outputs, repro.sh) in a
temporary directory it names. This script is a test oracle; the product never runs it.
"""

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from qlower_tools import ort_oracle
from qlower_tools.differential import int_reference

# The family of case i is ROTATION[i % len(ROTATION)].
ROTATION = [
    "qlinearconv", "qdq_conv", "qlinearconv", "dynamic_matmul", "qlinearconv", "qlinearmatmul",
    "qdq_matmul", "qlinearconv", "dynamic_matmul", "convinteger", "qlinearconv", "qdq_conv",
    "matmulinteger", "dynamic_conv",
]
FAMILIES = ["qlinearconv", "qdq_conv", "qdq_matmul", "dynamic_matmul", "qlinearmatmul", "matmulinteger",
            "convinteger", "dynamic_conv", "roundtrip", "unfused"]
# Families whose convolutions and matmuls `fuse-quantized-ops` rewrites.
UNFUSED_FAMILIES = {"qlinearconv", "qdq_conv", "qdq_matmul"}
ROUNDTRIP_EVERY = 4


def round_trips(index: int) -> bool:
    """Every ROUNDTRIP_EVERY-th case, shifted by one each rotation so every family gets some."""
    return (index + index // len(ROTATION)) % ROUNDTRIP_EVERY == 0
QLOWER_TIMEOUT = 300

ONNX_TYPE = {"uint8": TensorProto.UINT8, "int8": TensorProto.INT8}
NP_TYPE = {"uint8": np.uint8, "int8": np.int8}


def qrange(dtype: str):
    info = np.iinfo(NP_TYPE[dtype])
    return int(info.min), int(info.max)


def make_model(nodes, inputs, outputs, initializers, opset):
    graph = helper.make_graph(nodes, "differential", inputs, outputs, initializers)
    opsets = [helper.make_opsetid("", opset)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="qlower-differential")
    model.ir_version = helper.find_min_ir_version_for(opsets)
    # Declare the outputs' shapes, as exporters do: ONNX's shape inference knows them.
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    known = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    for out in model.graph.output:
        if out.name in known and known[out.name].type.tensor_type.HasField("shape"):
            out.type.CopyFrom(known[out.name].type)
    onnx.checker.check_model(model, full_check=True)
    return model


def init(name, value):
    return numpy_helper.from_array(np.asarray(value), name)


# ---------------------------------------------------------------------------------------
# Convolution geometry shared by the QLinearConv and QDQ Conv families.


def conv_geometry(rng, dims, max_channels=8, allow_auto_pad=True):
    kind = rng.choice(["plain", "plain", "grouped", "depthwise"])
    if kind == "plain":
        group, c, m = 1, int(rng.integers(1, max_channels + 1)), int(rng.integers(1, max_channels + 1))
    elif kind == "grouped":
        group = int(rng.integers(2, 4))
        c = group * int(rng.integers(1, 4))
        m = group * int(rng.integers(1, 4))
    else:
        c = int(rng.integers(2, max_channels + 1))
        group = c
        m = c * int(rng.choice([1, 1, 2]))
    max_k = {1: 5, 2: 3, 3: 3}[dims]
    kernel = [int(rng.integers(1, max_k + 1)) for _ in range(dims)]
    modes = ["explicit", "explicit", "none", "SAME_UPPER", "SAME_LOWER", "VALID"]
    pad_mode = str(rng.choice(modes if allow_auto_pad else ["explicit", "explicit", "none"]))
    strides = [int(rng.choice([1, 1, 2, 3])) for _ in range(dims)]
    if pad_mode.startswith("SAME"):
        dilations = [1] * dims  # ONNX Runtime refuses SAME_* with dilation
    else:
        dilations = [int(rng.choice([1, 1, 2])) for _ in range(dims)]
    effective = [d * (k - 1) + 1 for d, k in zip(dilations, kernel)]
    grow = {1: 12, 2: 7, 3: 3}[dims]
    spatial = [int(rng.integers(e, e + grow + 1)) for e in effective]
    attrs = {"kernel_shape": kernel, "strides": strides, "dilations": dilations}
    if group != 1:
        attrs["group"] = group
    pads = None
    if pad_mode == "explicit":
        pads = [int(rng.integers(0, e)) for e in effective] + [int(rng.integers(0, e)) for e in effective]
        attrs["pads"] = pads
    elif pad_mode != "none":
        attrs["auto_pad"] = pad_mode
    batch = int(rng.integers(1, 4))
    desc = (f"{dims}-D N={batch} C={c} M={m} group={group}{' (depthwise)' if kind == 'depthwise' else ''} "
            f"k={kernel} strides={strides} dilations={dilations} "
            f"{'pads=' + str(pads) if pads else 'auto_pad=' + pad_mode if pad_mode != 'explicit' else ''}")
    return {
        "dims": dims, "group": group, "c": c, "m": m, "kernel": kernel, "batch": batch,
        "spatial": spatial, "attrs": attrs, "desc": desc.strip(),
    }


def random_zero_points(rng, dtype, count, distinct):
    lo, hi = qrange(dtype)
    if not distinct:
        return np.full(count, 0 if dtype == "int8" else 128, NP_TYPE[dtype])
    mid = 0 if dtype == "int8" else 128
    pool = np.arange(mid - 40, mid + 41)
    pool = pool[(pool >= lo) & (pool <= hi)]
    return rng.choice(pool, size=count, replace=count > len(pool)).astype(NP_TYPE[dtype])


def weight_params(rng, w_type, channels, per_channel, distinct):
    """Weight scales in [0.002, 0.02) and zero points: one per output channel (or column),
    or one for the tensor."""
    if per_channel:
        return (rng.uniform(0.002, 0.02, channels).astype(np.float32),
                random_zero_points(rng, w_type, channels, distinct))
    return np.float32(rng.uniform(0.002, 0.02)), random_zero_points(rng, w_type, 1, distinct)[0]


def output_scale(k, in_scale, w_scale):
    """The accumulator's typical size for `k` products of values about 74 from their zero
    points, and a y_scale that puts the output at about a third of the integer range, so
    some of it saturates."""
    acc_std = np.sqrt(k) * 74.0 * 74.0
    return acc_std, np.float32(acc_std * float(in_scale) * float(np.mean(w_scale)) / 40.0)


# ---------------------------------------------------------------------------------------
# Families. Each returns (model, feeds, description).


def gen_qlinearconv(rng):
    dims = int(rng.choice([1, 2, 2, 2, 3]))
    g = conv_geometry(rng, dims)
    x_type = str(rng.choice(["uint8", "int8"]))
    # ONNX Runtime's QLinearConv has u8u8, u8s8 and s8s8 kernels, no s8u8.
    w_type = "int8" if x_type == "int8" else str(rng.choice(["int8", "uint8"]))
    per_channel = bool(rng.random() < 0.6)
    distinct = bool(rng.random() < 0.75)
    with_bias = bool(rng.random() < 0.5)
    m, cg = g["m"], g["c"] // g["group"]

    x_lo, x_hi = qrange(x_type)
    w_lo, w_hi = qrange(w_type)
    x_shape = [g["batch"], g["c"]] + g["spatial"]
    w_shape = [m, cg] + g["kernel"]
    x = rng.integers(x_lo, x_hi + 1, x_shape).astype(NP_TYPE[x_type])
    w = rng.integers(w_lo, w_hi + 1, w_shape).astype(NP_TYPE[w_type])
    x_scale = np.float32(rng.uniform(0.005, 0.05))
    # Zero points sit near the middle of the data, as calibrated ones do; now and then
    # anywhere, which shifts the accumulators and saturates much of the output.
    x_mid = (x_lo + x_hi + 1) // 2
    if rng.random() < 0.8:
        x_zp = NP_TYPE[x_type](x_mid + rng.integers(-40, 41))
    else:
        x_zp = NP_TYPE[x_type](rng.integers(x_lo, x_hi + 1))
    w_scale, w_zp = weight_params(rng, w_type, m, per_channel, distinct)
    acc_std, y_scale = output_scale(cg * int(np.prod(g["kernel"])), x_scale, w_scale)
    y_zp = NP_TYPE[x_type](rng.integers(x_lo // 2, x_hi // 2 + 1))

    names = ["x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point"]
    inits = [init("x_scale", x_scale), init("x_zero_point", x_zp), init("w", w), init("w_scale", w_scale),
             init("w_zero_point", w_zp), init("y_scale", y_scale), init("y_zero_point", y_zp)]
    if with_bias:
        bias = rng.integers(-int(2 * acc_std), int(2 * acc_std) + 1, m).astype(np.int32)
        inits.append(init("B", bias))
        names.append("B")
    node = helper.make_node("QLinearConv", names, ["y"], name="qconv", **g["attrs"])
    opset = int(rng.choice([10, 13, 21]))
    model = make_model(
        [node], [helper.make_tensor_value_info("x", ONNX_TYPE[x_type], x_shape)],
        [helper.make_tensor_value_info("y", ONNX_TYPE[x_type], None)], inits, opset)
    zp_desc = "distinct zp" if distinct else "uniform zp"
    desc = (f"QLinearConv opset {opset} x={x_type} w={w_type} "
            f"{'per-channel ' + zp_desc if per_channel else 'per-tensor'} "
            f"{'bias ' if with_bias else ''}{g['desc']}")
    return model, {"x": x}, desc


def quant_params(values, dtype, axis, symmetric):
    """Scales and zero points that cover `values` (per slice along `axis`, or all if None)."""
    qmin, qmax = qrange(dtype)
    if axis is None:
        lo = np.array([min(0.0, float(values.min()))])
        hi = np.array([max(0.0, float(values.max()))])
    else:
        moved = np.moveaxis(values, axis, 0).reshape(values.shape[axis], -1)
        lo = np.minimum(0.0, moved.min(axis=1))
        hi = np.maximum(0.0, moved.max(axis=1))
    if symmetric:
        bound = np.maximum(np.abs(lo), np.abs(hi))
        scale = np.maximum(bound / ((qmax - qmin) / 2.0), 1e-6).astype(np.float32)
        zp = np.full(len(scale), 0 if dtype == "int8" else 128)
    else:
        scale = np.maximum((hi - lo) / (qmax - qmin), 1e-6).astype(np.float32)
        zp = np.clip(np.round(qmin - lo / scale), qmin, qmax)
    zp = zp.astype(NP_TYPE[dtype])
    if axis is None:
        return scale[0], zp[0]
    return scale, zp


def qdq_input(rng, x_shape, act_type):
    """A float input, its per-tensor quantization parameters, and the Q/DQ nodes."""
    lo = -float(rng.uniform(0.0, 2.0))
    hi = float(rng.uniform(0.5, 3.0))
    # A little outside the range too, so that QuantizeLinear saturates.
    x = rng.uniform(lo * 1.1, hi * 1.1, x_shape).astype(np.float32)
    x_scale, x_zp = quant_params(np.array([lo, hi], np.float32), act_type, None, symmetric=False)
    inits = [init("x_scale", x_scale), init("x_zero_point", x_zp)]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero_point"], ["x_q"], name="x_quant"),
        helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zero_point"], ["x_dq"], name="x_dequant"),
    ]
    return x, inits, nodes


def qdq_weight(rng, w, w_type, axis, symmetric):
    w_scale, w_zp = quant_params(w, w_type, axis, symmetric)
    if not symmetric and w_type == "int8":
        # Asymmetric int8 weights: make the per-channel zero points distinct where the
        # data leave them equal.
        w_zp = np.clip(w_zp.astype(np.int64) + np.arange(len(w_zp)) % 7, -128, 127).astype(np.int8)
    inits = [init("w", w), init("w_scale", w_scale), init("w_zero_point", w_zp)]
    nodes = [
        helper.make_node("QuantizeLinear", ["w", "w_scale", "w_zero_point"], ["w_q"], name="w_quant", axis=axis),
        helper.make_node("DequantizeLinear", ["w_q", "w_scale", "w_zero_point"], ["w_dq"], name="w_dequant",
                         axis=axis),
    ]
    return inits, nodes


def gen_qdq_conv(rng):
    dims = int(rng.choice([1, 2, 2]))
    g = conv_geometry(rng, dims)
    act_type = str(rng.choice(["uint8", "int8"]))
    w_type = str(rng.choice(["int8", "int8", "uint8"]))
    symmetric = bool(rng.random() < 0.5)
    with_bias = bool(rng.random() < 0.6)
    expose_q = bool(rng.random() < 0.5)
    m, cg = g["m"], g["c"] // g["group"]
    x_shape = [g["batch"], g["c"]] + g["spatial"]
    x, inits, nodes = qdq_input(rng, x_shape, act_type)
    w = (rng.normal(0.0, 0.3, [m, cg] + g["kernel"]) * rng.uniform(0.2, 2.0, [m] + [1] * (dims + 1)))
    w_inits, w_nodes = qdq_weight(rng, w.astype(np.float32), w_type, 0, symmetric)
    inits += w_inits
    nodes += w_nodes
    conv_inputs = ["x_dq", "w_dq"]
    if with_bias:
        inits.append(init("B", rng.normal(0.0, 0.5, m).astype(np.float32)))
        conv_inputs.append("B")
    nodes.append(helper.make_node("Conv", conv_inputs, ["conv"], name="conv", **g["attrs"]))
    nodes.append(helper.make_node("Relu", ["conv"], ["y"], name="relu"))
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    if expose_q:
        outputs.append(helper.make_tensor_value_info("x_q", ONNX_TYPE[act_type], None))
    opset = int(rng.choice([13, 19, 21]))
    model = make_model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)], outputs,
                       inits, opset)
    desc = (f"QDQ Conv+Relu opset {opset} act={act_type} w={w_type} per-channel axis=0 "
            f"{'symmetric' if symmetric else 'asymmetric'} {'bias ' if with_bias else ''}"
            f"{'(x_q exposed) ' if expose_q else ''}{g['desc']}")
    return model, {"x": x}, desc


def gen_qdq_matmul(rng):
    rank = int(rng.choice([2, 3]))
    rows, k, n = int(rng.integers(1, 17)), int(rng.integers(1, 33)), int(rng.integers(1, 17))
    x_shape = ([int(rng.integers(1, 4))] if rank == 3 else []) + [rows, k]
    act_type = str(rng.choice(["uint8", "int8"]))
    w_type = str(rng.choice(["int8", "int8", "uint8"]))
    symmetric = bool(rng.random() < 0.5)
    with_bias = bool(rng.random() < 0.5)
    with_relu = bool(rng.random() < 0.5)
    x, inits, nodes = qdq_input(rng, x_shape, act_type)
    w = (rng.normal(0.0, 0.3, [k, n]) * rng.uniform(0.2, 2.0, [1, n])).astype(np.float32)
    w_inits, w_nodes = qdq_weight(rng, w, w_type, 1, symmetric)
    inits += w_inits
    nodes += w_nodes
    nodes.append(helper.make_node("MatMul", ["x_dq", "w_dq"], ["mm"], name="matmul"))
    last = "mm"
    if with_bias:
        inits.append(init("bias", rng.normal(0.0, 0.5, n).astype(np.float32)))
        nodes.append(helper.make_node("Add", [last, "bias"], ["biased"], name="add_bias"))
        last = "biased"
    if with_relu:
        nodes.append(helper.make_node("Relu", [last], ["relu"], name="relu"))
        last = "relu"
    nodes.append(helper.make_node("Identity", [last], ["y"], name="out"))
    opset = int(rng.choice([13, 19, 21]))
    model = make_model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits, opset)
    desc = (f"QDQ MatMul opset {opset} act={act_type} w={w_type} per-column axis=1 "
            f"{'symmetric' if symmetric else 'asymmetric'} x={x_shape} w=[{k}, {n}]"
            f"{' +bias' if with_bias else ''}{' +relu' if with_relu else ''}")
    return model, {"x": x}, desc


def gen_dynamic_matmul(rng):
    rank = int(rng.choice([2, 3]))
    rows, k, n = int(rng.integers(1, 17)), int(rng.integers(1, 33)), int(rng.integers(1, 17))
    x_shape = ([int(rng.integers(1, 4))] if rank == 3 else []) + [rows, k]
    w_type = str(rng.choice(["int8", "int8", "uint8"]))
    per_column = bool(rng.random() < 0.5)
    distinct = bool(rng.random() < 0.6)
    with_bias = bool(rng.random() < 0.5)
    expose = bool(rng.random() < 0.5)
    x = (rng.normal(0.0, 1.0, x_shape) * rng.uniform(0.1, 3.0) + rng.uniform(-0.5, 0.5)).astype(np.float32)
    w_lo, w_hi = qrange(w_type)
    w = rng.integers(w_lo, w_hi + 1, [k, n]).astype(NP_TYPE[w_type])
    if per_column:
        w_scale = rng.uniform(0.001, 0.02, n).astype(np.float32)
        w_zp = random_zero_points(rng, w_type, n, distinct)
    else:
        w_scale = np.float32(rng.uniform(0.001, 0.02))
        w_zp = random_zero_points(rng, w_type, 1, distinct)[0]
    inits = [init("w", w), init("w_scale", w_scale), init("w_zero_point", w_zp)]
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["x_q", "x_scale", "x_zero_point"], name="dql"),
        helper.make_node("MatMulInteger", ["x_q", "w", "x_zero_point", "w_zero_point"], ["acc"], name="mmi"),
        helper.make_node("Cast", ["acc"], ["acc_f"], name="cast", to=TensorProto.FLOAT),
        helper.make_node("Mul", ["x_scale", "w_scale"], ["scale"], name="scale_mul"),
        helper.make_node("Mul", ["acc_f", "scale"], ["scaled"], name="rescale"),
    ]
    last = "scaled"
    if with_bias:
        inits.append(init("bias", rng.normal(0.0, 0.5, n).astype(np.float32)))
        nodes.append(helper.make_node("Add", [last, "bias"], ["biased"], name="add_bias"))
        last = "biased"
    nodes.append(helper.make_node("Identity", [last], ["y"], name="out"))
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    if expose:
        outputs += [
            helper.make_tensor_value_info("x_q", TensorProto.UINT8, None),
            helper.make_tensor_value_info("x_scale", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("x_zero_point", TensorProto.UINT8, None),
            helper.make_tensor_value_info("acc", TensorProto.INT32, None),
        ]
    opset = int(rng.choice([11, 13, 21]))
    model = make_model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)], outputs,
                       inits, opset)
    zp_desc = "distinct zp" if distinct else "uniform zp"
    desc = (f"DynamicQuantizeLinear+MatMulInteger opset {opset} w={w_type} "
            f"{'per-column ' + zp_desc if per_column else 'per-tensor'} x={x_shape} w=[{k}, {n}]"
            f"{' +bias' if with_bias else ''}{' (intermediates exposed)' if expose else ''}")
    return model, {"x": x}, desc


def gen_qlinearmatmul(rng):
    rank = int(rng.choice([2, 3]))
    rows, k, n = int(rng.integers(1, 17)), int(rng.integers(1, 65)), int(rng.integers(1, 33))
    a_shape = ([int(rng.integers(1, 4))] if rank == 3 else []) + [rows, k]
    a_type = str(rng.choice(["uint8", "int8"]))
    # ONNX Runtime's QLinearMatMul has u8u8, u8s8 and s8s8 kernels, no s8u8.
    b_type = "int8" if a_type == "int8" else str(rng.choice(["int8", "uint8"]))
    per_column = bool(rng.random() < 0.5)
    distinct = bool(rng.random() < 0.7)
    a_lo, a_hi = qrange(a_type)
    b_lo, b_hi = qrange(b_type)
    a = rng.integers(a_lo, a_hi + 1, a_shape).astype(NP_TYPE[a_type])
    b = rng.integers(b_lo, b_hi + 1, [k, n]).astype(NP_TYPE[b_type])
    a_scale = np.float32(rng.uniform(0.005, 0.05))
    a_zp = NP_TYPE[a_type]((a_lo + a_hi + 1) // 2 + rng.integers(-40, 41))
    b_scale, b_zp = weight_params(rng, b_type, n, per_column, distinct)
    _, y_scale = output_scale(k, a_scale, b_scale)
    y_zp = NP_TYPE[a_type](rng.integers(a_lo // 2, a_hi // 2 + 1))
    inits = [init("a_scale", a_scale), init("a_zero_point", a_zp), init("b", b), init("b_scale", b_scale),
             init("b_zero_point", b_zp), init("y_scale", y_scale), init("y_zero_point", y_zp)]
    names = ["a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"]
    node = helper.make_node("QLinearMatMul", names, ["y"], name="qmatmul")
    opset = int(rng.choice([10, 13, 21]))
    model = make_model(
        [node], [helper.make_tensor_value_info("a", ONNX_TYPE[a_type], a_shape)],
        [helper.make_tensor_value_info("y", ONNX_TYPE[a_type], None)], inits, opset)
    desc = (f"QLinearMatMul opset {opset} a={a_type} b={b_type} "
            f"{'per-column' if per_column else 'per-tensor'} a={a_shape} b=[{k}, {n}]")
    return model, {"a": a}, desc


def gen_matmulinteger(rng):
    rank = int(rng.choice([2, 3, 4]))
    rows, k, n = int(rng.integers(1, 17)), int(rng.integers(1, 65)), int(rng.integers(1, 33))
    batch = [int(rng.integers(1, 3)) for _ in range(rank - 2)]
    a_shape = batch + [rows, k]
    a_type = str(rng.choice(["uint8", "int8"]))
    b_type = str(rng.choice(["int8", "uint8"]))
    per_column = bool(rng.random() < 0.5)
    a_lo, a_hi = qrange(a_type)
    b_lo, b_hi = qrange(b_type)
    a = rng.integers(a_lo, a_hi + 1, a_shape).astype(NP_TYPE[a_type])
    b = rng.integers(b_lo, b_hi + 1, [k, n]).astype(NP_TYPE[b_type])
    a_zp = NP_TYPE[a_type](rng.integers(a_lo, a_hi + 1))
    b_zp = random_zero_points(rng, b_type, n if per_column else 1, True)
    if not per_column:
        b_zp = b_zp[0]
    inits = [init("b", b), init("a_zero_point", a_zp), init("b_zero_point", b_zp)]
    node = helper.make_node("MatMulInteger", ["a", "b", "a_zero_point", "b_zero_point"], ["y"], name="mmi")
    opset = int(rng.choice([10, 13, 21]))
    model = make_model(
        [node], [helper.make_tensor_value_info("a", ONNX_TYPE[a_type], a_shape)],
        [helper.make_tensor_value_info("y", TensorProto.INT32, None)], inits, opset)
    desc = (f"MatMulInteger opset {opset} a={a_type} b={b_type} "
            f"{'per-column zp' if per_column else 'scalar zp'} a={a_shape} b=[{k}, {n}]")
    return model, {"a": a}, desc


def gen_convinteger(rng):
    dims = int(rng.choice([1, 2, 2, 3]))
    g = conv_geometry(rng, dims)
    x_type = str(rng.choice(["uint8", "int8"]))
    w_type = str(rng.choice(["uint8", "int8"]))
    m, cg = g["m"], g["c"] // g["group"]
    x_lo, x_hi = qrange(x_type)
    w_lo, w_hi = qrange(w_type)
    x_shape = [g["batch"], g["c"]] + g["spatial"]
    x = rng.integers(x_lo, x_hi + 1, x_shape).astype(NP_TYPE[x_type])
    w = rng.integers(w_lo, w_hi + 1, [m, cg] + g["kernel"]).astype(NP_TYPE[w_type])
    x_zp = NP_TYPE[x_type](rng.integers(x_lo, x_hi + 1))
    w_zp = random_zero_points(rng, w_type, 1, True)[0]
    inits = [init("w", w), init("x_zero_point", x_zp), init("w_zero_point", w_zp)]
    node = helper.make_node("ConvInteger", ["x", "w", "x_zero_point", "w_zero_point"], ["y"], name="convi",
                            **g["attrs"])
    opset = int(rng.choice([10, 13, 21]))
    model = make_model(
        [node], [helper.make_tensor_value_info("x", ONNX_TYPE[x_type], x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.INT32, None)], inits, opset)
    desc = f"ConvInteger opset {opset} x={x_type} w={w_type} {g['desc']}"
    return model, {"x": x}, desc


def gen_dynamic_conv(rng):
    dims = int(rng.choice([1, 2, 2, 3]))
    g = conv_geometry(rng, dims)
    w_type = str(rng.choice(["int8", "int8", "uint8"]))
    m, cg = g["m"], g["c"] // g["group"]
    per_channel = bool(rng.random() < 0.5)
    with_bias = bool(rng.random() < 0.5)
    x_shape = [g["batch"], g["c"]] + g["spatial"]
    x = (rng.normal(0.0, 1.0, x_shape) * rng.uniform(0.1, 3.0) + rng.uniform(-0.5, 0.5)).astype(np.float32)
    w_lo, w_hi = qrange(w_type)
    w = rng.integers(w_lo, w_hi + 1, [m, cg] + g["kernel"]).astype(NP_TYPE[w_type])
    w_zp = random_zero_points(rng, w_type, 1, True)[0]
    # Per-channel scales and the bias broadcast along the output's channel axis.
    channel_shape = [m] + [1] * dims
    if per_channel:
        w_scale = rng.uniform(0.001, 0.02, channel_shape).astype(np.float32)
    else:
        w_scale = np.float32(rng.uniform(0.001, 0.02))
    inits = [init("w", w), init("w_scale", w_scale), init("w_zero_point", w_zp)]
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["x_q", "x_scale", "x_zero_point"], name="dql"),
        helper.make_node("ConvInteger", ["x_q", "w", "x_zero_point", "w_zero_point"], ["acc"], name="convi",
                         **g["attrs"]),
        helper.make_node("Cast", ["acc"], ["acc_f"], name="cast", to=TensorProto.FLOAT),
        helper.make_node("Mul", ["x_scale", "w_scale"], ["scale"], name="scale_mul"),
        helper.make_node("Mul", ["acc_f", "scale"], ["scaled"], name="rescale"),
    ]
    last = "scaled"
    if with_bias:
        inits.append(init("bias", rng.normal(0.0, 0.5, [1] + channel_shape).astype(np.float32)))
        nodes.append(helper.make_node("Add", [last, "bias"], ["biased"], name="add_bias"))
        last = "biased"
    nodes.append(helper.make_node("Identity", [last], ["y"], name="out"))
    opset = int(rng.choice([11, 13, 21]))
    model = make_model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits, opset)
    desc = (f"DynamicQuantizeLinear+ConvInteger opset {opset} w={w_type} "
            f"{'per-channel' if per_channel else 'per-tensor'} scale {g['desc']}{' +bias' if with_bias else ''}")
    return model, {"x": x}, desc


GENERATORS = {
    "qlinearconv": gen_qlinearconv,
    "qdq_conv": gen_qdq_conv,
    "qdq_matmul": gen_qdq_matmul,
    "dynamic_matmul": gen_dynamic_matmul,
    "qlinearmatmul": gen_qlinearmatmul,
    "matmulinteger": gen_matmulinteger,
    "convinteger": gen_convinteger,
    "dynamic_conv": gen_dynamic_conv,
}


# ---------------------------------------------------------------------------------------
# Running and comparing.


def run_ort(model, feeds):
    """ONNX Runtime's outputs by name, and a note when its optimizer had to be turned down.

    ONNX Runtime's extended graph optimizations refuse some valid QDQ models (its MatMul+Add
    to Gemm rewrite inserts a QuantizeLinear whose output_dtype contradicts its zero
    point); such a model is run again with the basic optimizations only.
    """
    note = None
    for level in (ort.GraphOptimizationLevel.ORT_ENABLE_ALL, ort.GraphOptimizationLevel.ORT_ENABLE_BASIC):
        try:
            session = ort_oracle.session(model, exact=True, threads=1, level=level)
        except Exception as e:
            if level == ort.GraphOptimizationLevel.ORT_ENABLE_BASIC:
                raise
            note = f"ONNX Runtime run with basic optimizations: the full set refused it ({str(e).splitlines()[0][:160]})"
            continue
        names = [o.name for o in session.get_outputs()]
        return dict(zip(names, session.run(names, feeds))), note
    raise AssertionError("unreachable")


def qlower_run(qlower, model_path, feeds_paths, out_dir):
    cmd = [qlower, "run", model_path]
    for name, path in feeds_paths.items():
        cmd += ["-i", f"{name}={path}"]
    cmd += ["--out-dir", out_dir, "--threads", "1"]
    return cmd, run_cmd(cmd)


def run_cmd(cmd):
    """None on success, else a short message."""
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=QLOWER_TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"timed out after {QLOWER_TIMEOUT} s"
    if proc.returncode == 0:
        return None
    lines = [l for l in proc.stderr.splitlines() if l.startswith("error") or "panicked" in l]
    if not lines:
        lines = [l for l in proc.stderr.splitlines() if l.strip()][:3]
    how = f"exit {proc.returncode}" if proc.returncode > 0 else f"killed by signal {-proc.returncode}"
    return f"{how}: {' | '.join(lines[:3]) or '(no message)'}"


def compare(name, got, want):
    """(error or None, number of integer elements off by one)."""
    if got.dtype != want.dtype:
        return f"output '{name}': dtype {got.dtype}, ONNX Runtime {want.dtype}", 0
    if got.shape != want.shape:
        return f"output '{name}': shape {list(got.shape)}, ONNX Runtime {list(want.shape)}", 0
    if got.size == 0:
        return None, 0
    if np.issubdtype(want.dtype, np.integer) or want.dtype == np.bool_:
        diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
        bad = int((diff > 0).sum())
        if bad == 0:
            return None, 0
        agree = 1.0 - bad / diff.size
        worst = int(diff.max())
        if worst <= 1 and agree >= 0.999:
            return None, bad
        first = np.unravel_index(int(np.argmax(diff > 0)), diff.shape)
        return (f"output '{name}': {bad} of {diff.size} elements differ ({100 * agree:.2f} % agree, need 99.9 %), "
                f"max |diff| {worst}; first at {list(map(int, first))}: qlower {got[first]}, "
                f"ONNX Runtime {want[first]}"), bad
    g, w = got.astype(np.float64), want.astype(np.float64)
    finite = w[np.isfinite(w)]
    atol = 1e-5 * max(1.0, float(np.abs(finite).max()) if finite.size else 1.0)
    ok = (np.abs(g - w) <= 1e-4 * np.abs(w) + atol) | (np.isnan(g) & np.isnan(w)) | (g == w)
    if ok.all():
        return None, 0
    bad = int((~ok).sum())
    rel = np.abs(g - w) / np.maximum(np.abs(w), 1e-30)
    first = np.unravel_index(int(np.argmax(~ok)), ok.shape)
    return (f"output '{name}': {bad} of {ok.size} elements differ beyond rtol 1e-4, atol {atol:.1e} "
            f"(max |diff| {float(np.nanmax(np.abs(g - w))):.3e}, max rel {float(np.nanmax(rel)):.3e}); "
            f"first at {list(map(int, first))}: qlower {float(got[first])!r}, ONNX Runtime {float(want[first])!r}"), 0


def reference_check(model, feeds, got):
    """Compares qlower's output with the exact int64 reference, byte for byte: None when the
    model has no such reference (not one QLinearConv, QLinearMatMul, ConvInteger or
    MatMulInteger node), "pass", or what differs."""
    try:
        ref = int_reference.evaluate(model, feeds)
    except Exception as e:
        return f"the int64 reference failed: {e}"
    if ref is None:
        return None
    name = model.graph.output[0].name
    mine = got[name]
    if mine.dtype != ref.dtype or mine.shape != ref.shape:
        return (f"output '{name}': {mine.dtype}{list(mine.shape)}, the int64 reference "
                f"{ref.dtype}{list(ref.shape)}")
    diff = np.abs(mine.astype(np.int64) - ref.astype(np.int64))
    bad = int((diff > 0).sum())
    if bad == 0:
        return "pass"
    first = np.unravel_index(int(np.argmax(diff > 0)), diff.shape)
    return (f"output '{name}': {bad} of {diff.size} elements differ from the int64 reference, "
            f"max |diff| {int(diff.max())}; first at {list(map(int, first))}: qlower {mine[first]}, "
            f"reference {ref[first]}")


def read_outputs(out_dir, names):
    outputs = {}
    for name in names:
        path = os.path.join(out_dir, f"{name}.npy")
        if not os.path.exists(path):
            return None, f"qlower wrote no {name}.npy"
        outputs[name] = np.load(path)
    return outputs, None


class Result:
    def __init__(self, index, family, desc):
        self.index, self.family, self.desc = index, family, desc
        self.error = None          # the ORT comparison
        self.roundtrip = None      # None: not tried; "pass"; "skip"; or an error
        self.unfused = None        # the same, for the unfused (--emit torch) .mlir
        self.reference = None      # None: no int64 reference for this model; "pass"; or an error
        self.ort_inexact = None    # ONNX Runtime's disagreement, when the int64 reference sides with qlower
        self.off_by_one = 0
        self.ort_note = None       # set when ONNX Runtime ran with basic optimizations
        self.case_dir = None


def run_case(args, work, index):
    family = ROTATION[index % len(ROTATION)] if not args.family else args.family
    rng = np.random.default_rng([args.seed, index])
    case_dir = os.path.join(work, f"case_{index:04d}_{family}")
    os.makedirs(case_dir, exist_ok=True)
    try:
        model, feeds, desc = GENERATORS[family](rng)
    except Exception:
        result = Result(index, family, "(generator failed)")
        result.error = "the generator failed: " + traceback.format_exc().strip().splitlines()[-1]
        result.case_dir = case_dir
        return result
    result = Result(index, family, desc)
    result.case_dir = case_dir
    model_path = os.path.join(case_dir, "model.onnx")
    onnx.save(model, model_path)
    feed_paths = {}
    for j, (name, value) in enumerate(feeds.items()):
        path = os.path.join(case_dir, f"input_{j}.npy")
        np.save(path, value)
        feed_paths[name] = path
    with open(os.path.join(case_dir, "description.txt"), "w") as f:
        f.write(desc + "\n")

    try:
        want, note = run_ort(model, feeds)
        if note:
            result.desc += f" [{note}]"
            result.ort_note = note
    except Exception as e:
        result.error = f"ONNX Runtime refused the model (a generator bug): {str(e).splitlines()[0][:300]}"
        return result
    for name, value in want.items():
        np.save(os.path.join(case_dir, f"ort_{name}.npy"), value)

    out_dir = os.path.join(case_dir, "qlower_out")
    cmd, err = qlower_run(args.qlower, model_path, feed_paths, out_dir)
    with open(os.path.join(case_dir, "repro.sh"), "w") as f:
        f.write("#!/bin/sh\n# " + desc + "\n" + shlex.join(cmd) + "\n")
    if err:
        result.error = f"qlower run: {err}"
        if round_trips(index):
            result.roundtrip = "skip"
        if family in UNFUSED_FAMILIES:
            result.unfused = "skip"
        return result
    got, err = read_outputs(out_dir, want.keys())
    if err:
        result.error = err
    else:
        errors = []
        for name in want:
            e, off = compare(name, got[name], want[name])
            if e:
                errors.append(e)
            else:
                result.off_by_one += off
        result.reference = reference_check(model, feeds, got)
        if result.reference not in (None, "pass"):
            errors.append(result.reference)
        elif errors and result.reference == "pass" and ort_oracle.default_mode_saturates():
            # Two oracles disagree, and the exact one sides with qlower: on this CPU ONNX
            # Runtime's exact mode does not reach every kernel (its int8-to-uint8 weight
            # rewrite skips int8 activations with uint8 weights, and some op versions), so
            # the saturating kernel ran.
            result.ort_inexact = "; ".join(errors)
            errors = []
        if errors:
            result.error = "; ".join(errors)

    if round_trips(index):
        # Both printed forms run as the .onnx does: `fused`, which `qlower run` brings to
        # the backend form itself, and `backend`, which it runs as printed.
        for emit in ("fused", "backend"):
            result.roundtrip = mlir_agrees(args, case_dir, model_path, emit, feed_paths, want, got)
            if result.roundtrip != "pass":
                break
    if family in UNFUSED_FAMILIES:
        result.unfused = mlir_agrees(args, case_dir, model_path, "torch", feed_paths, want, got)
    return result


def mlir_agrees(args, case_dir, model_path, emit, feed_paths, want, got):
    """Compiles the model with `--emit EMIT`, runs the .mlir, and compares its outputs byte
    for byte with the .onnx run's: "pass", "skip" (the .onnx run failed) or an error."""
    mlir = os.path.join(case_dir, f"model.{emit}.mlir")
    err = run_cmd([args.qlower, model_path, "--emit", emit, "-o", mlir])
    if err:
        return f"qlower {os.path.basename(model_path)} --emit {emit} -o {os.path.basename(mlir)}: {err}"
    rt_dir = os.path.join(case_dir, f"qlower_{emit}_mlir_out")
    _, err = qlower_run(args.qlower, mlir, feed_paths, rt_dir)
    if err:
        return f"qlower run {os.path.basename(mlir)}: {err}"
    if got is None:
        return "skip"
    rt, err = read_outputs(rt_dir, want.keys())
    if err:
        return err
    diffs = [n for n in want
             if rt[n].dtype != got[n].dtype or rt[n].shape != got[n].shape
             or rt[n].tobytes() != got[n].tobytes()]
    return f"outputs {diffs} of the --emit {emit} .mlir run differ from the .onnx run" if diffs else "pass"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qlower", required=True, help="the qlower binary")
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--family", choices=sorted(GENERATORS), help="generate only this family")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--keep", action="store_true", help="keep every case, not only failing ones")
    parser.add_argument("--examples", type=int, default=2, help="cases shown per cause of failure")
    args = parser.parse_args()
    args.qlower = os.path.abspath(args.qlower)

    work = tempfile.mkdtemp(prefix="qlower-differential-")
    print(f"differential: {args.cases} cases, seed {args.seed}, qlower {args.qlower}, "
          f"onnxruntime {ort.__version__}, onnx {onnx.__version__}"
          f"; ONNX Runtime in exact mode ({'='.join(ort_oracle.EXACT_MODE)}) on {ort_oracle.cpu_name()}",
          flush=True)
    lock = threading.Lock()
    results = []

    def one(i):
        try:
            r = run_case(args, work, i)
        except Exception:
            family = args.family or ROTATION[i % len(ROTATION)]
            r = Result(i, family, "(the harness failed on this case)")
            r.error = "the harness failed: " + traceback.format_exc().strip().splitlines()[-1]
            r.case_dir = os.path.join(work, f"case_{i:04d}_{family}")
        with lock:
            results.append(r)
        return r

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(one, range(args.cases)))
    results.sort(key=lambda r: r.index)

    counts = {f: [0, 0, 0] for f in FAMILIES}  # passed, failed, skipped
    off_by_one = {f: 0 for f in FAMILIES}
    failures = []
    for r in results:
        c = counts[r.family]
        if r.error:
            c[1] += 1
            failures.append((r, r.error))
        else:
            c[0] += 1
        off_by_one[r.family] += r.off_by_one
        for check, outcome in (("roundtrip", r.roundtrip), ("unfused", r.unfused)):
            if outcome is None:
                continue
            rc = counts[check]
            if outcome == "pass":
                rc[0] += 1
            elif outcome == "skip":
                rc[2] += 1
            else:
                rc[1] += 1
                failures.append((r, f"{check}: {outcome}"))

    # Failures grouped by cause, so that the cause of many shows once, with a few examples.
    groups = {}
    for r, e in failures:
        cause = "values differ from ONNX Runtime" if "elements differ" in e else e.split("; ")[0]
        groups.setdefault((r.family, cause[:300]), []).append((r, e))
    if groups:
        print("\nfailures by cause:")
        for (family, cause), items in sorted(groups.items(), key=lambda kv: (kv[0][0], -len(kv[1]))):
            idx = [r.index for r, _ in items]
            print(f"  [{family}] {len(items)} x {cause}")
            print(f"      cases {', '.join(map(str, idx[:12]))}{', ...' if len(idx) > 12 else ''}")
            for r, e in items[:args.examples]:
                print(f"      e.g. case {r.index}: {r.desc}")
                if e != cause:
                    print(f"           {e}")
                print(f"           {r.case_dir}")

    print("\nby family:")
    for f in FAMILIES:
        passed, failed, skipped = counts[f]
        if passed + failed + skipped == 0:
            continue
        extra = []
        if skipped:
            extra.append(f"{skipped} skipped: the .onnx run failed")
        if off_by_one[f]:
            extra.append(f"{off_by_one[f]} integer elements off by one, within tolerance")
        print(f"  {f:<15} {passed:>4} passed, {failed:>4} failed" + (f"  ({'; '.join(extra)})" if extra else ""))

    checked = [r for r in results if r.reference is not None]
    if checked:
        equal = sum(1 for r in checked if r.reference == "pass")
        print(f"  int64 reference: {equal} of {len(checked)} single-op QLinearConv/QLinearMatMul/"
              f"ConvInteger/MatMulInteger cases equal byte for byte")

    inexact = [r for r in results if r.ort_inexact]
    if inexact:
        print(f"  ONNX Runtime was inexact even in exact mode on {len(inexact)} cases, where qlower equals the "
              f"int64 reference (its default kernels saturate on this CPU); e.g.")
        for r in inexact[:args.examples]:
            print(f"      case {r.index}: {r.desc}\n           ONNX Runtime: {r.ort_inexact[:300]}")

    turned_down = [r.index for r in results if r.ort_note]
    if turned_down:
        print(f"  ({len(turned_down)} cases ran ONNX Runtime with basic optimizations only, because its "
              f"full optimizer refused them: cases {', '.join(map(str, turned_down[:12]))})")

    keep = {r.case_dir for r, _ in failures}
    if not args.keep:
        for r in results:
            if r.case_dir not in keep:
                shutil.rmtree(r.case_dir, ignore_errors=True)
    if keep or args.keep:
        print(f"\n{'all cases' if args.keep else 'failing cases'} saved under {work} "
              "(model.onnx, input_*.npy, ort_*.npy, qlower_out/, repro.sh)")
    else:
        shutil.rmtree(work, ignore_errors=True)

    total_passed = sum(c[0] for c in counts.values())
    total_failed = sum(c[1] for c in counts.values())
    print(f"{total_passed} passed, {total_failed} failed")
    return 1 if total_failed else 0


if __name__ == "__main__":
    sys.exit(main())
