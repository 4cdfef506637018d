#!/usr/bin/env python3
"""Differential tests of ONNX Runtime's QOperator format (com.microsoft quantized ops).

    qoperator.py --qlower PATH [--seed S] [--per-op N] [--resnet]

Five families:

- ops: one model per com.microsoft op (QLinearAdd, QLinearMul, QLinearSigmoid,
  QLinearLeakyRelu, QLinearSoftmax, QLinearGlobalAveragePool, QLinearAveragePool,
  QLinearConcat, QGemm, DynamicQuantizeMatMul, MatMulIntegerToFloat) with random shapes,
  scales, zero points and attributes, written with `onnx.helper`;
- all pairs: QLinearAdd and QLinearMul on every pair of 8-bit values (65,536 elements,
  broadcast or not), and the QDQ form Q/DQ -> Add/Mul -> Q/DQ, which ONNX Runtime fuses
  into them, with scales that put many results within float32 rounding of a rounding
  tie, and Q/DQ -> Add -> Relu (or Clip) -> Q/DQ with the output's zero point at the
  type's lowest value, whose Relu or Clip ONNX Runtime drops before fusing;
- exact: QLinearAveragePool and QLinearGlobalAveragePool whose output scale and zero
  point equal the input's, as quantizers write them, which puts many averages on an
  exact .5; QLinearSoftmax with any logits, y_scale (1/256, and 1/255 as QDQ models
  carry) and zero point;
- quantized: small float CNN and MLP models quantized by ONNX Runtime's
  `quantize_static(..., quant_format=QuantFormat.QOperator)`, calibrated on random data;
  with --resnet also the ResNet-18-shaped model of `make_resnet18.py` (224x224, 1000
  classes), quantized to QOperator and to QDQ (per-channel). Each of these is also
  printed with `qlower --emit backend` and run from the .mlir, which must give the .onnx
  run's outputs byte for byte.

Each model is run by ONNX Runtime and by `qlower run`, and every output compared:

- quantized (8-bit) outputs: at most 1 apart, on at most 0.1 % of the elements (the
  issue's contract for QOperator models). qlower computes QLinearConv, QLinearMatMul,
  QLinearAdd, QLinearMul, the average pools and QLinearSoftmax with ONNX Runtime's own
  integer and float32 arithmetic (see `lib/kernels/quantized/qlinear*.rs`), so those
  agree exactly, and the all-pairs and exact families demand that: no element may
  differ. The other ops compute the float op on dequantized values and round once;
  ONNX Runtime reads QLinearSigmoid/LeakyRelu from a 256-entry table filled by its own
  float kernels, which could put a value within float rounding of a .5 tie on the
  other side. None was seen in these tests, nor on the ResNet-18 model, whose every
  element agrees;
- float outputs: |qlower - ort| <= 1e-4 * |ort| + 1e-5 * max(1, max |ort|): ONNX Runtime
  accumulates in int32 and scales once, qlower multiplies dequantized floats.

Prints per-family counts and `N passed, M failed`; exits 1 on any failure. A test
oracle; the product never runs it.
"""

import argparse
import logging
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from qlower_tools import ort_oracle

MS = "com.microsoft"
NP = {TensorProto.UINT8: np.uint8, TensorProto.INT8: np.int8, TensorProto.FLOAT: np.float32}


def model_of(nodes, inputs, outputs, inits, opset=17):
    g = helper.make_graph(nodes, "g", inputs, outputs, inits)
    m = helper.make_model(
        g, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid(MS, 1)])
    m.ir_version = 10
    return m


def qinfo(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def rand_q(rng, dtype, shape):
    lo, hi = (0, 255) if dtype == TensorProto.UINT8 else (-128, 127)
    return rng.integers(lo, hi + 1, size=shape).astype(NP[dtype])


def params(rng, prefix, dtype, scale=None):
    """(scale, zero point) initializers named <prefix>_scale, <prefix>_zero_point."""
    s = np.float32(scale if scale is not None else rng.uniform(0.005, 0.05))
    lo, hi = (0, 255) if dtype == TensorProto.UINT8 else (-128, 127)
    z = np.array(rng.integers(lo + 30, hi - 30), dtype=NP[dtype])
    return [numpy_helper.from_array(np.array(s, np.float32), f"{prefix}_scale"),
            numpy_helper.from_array(z, f"{prefix}_zero_point")]


def qdtype(rng):
    return TensorProto.UINT8 if rng.random() < 0.5 else TensorProto.INT8


def gen_unary(rng, op):
    dt = qdtype(rng)
    shape = [int(d) for d in rng.integers(1, 6, size=rng.integers(2, 5))]
    attrs = {}
    if op == "QLinearLeakyRelu":
        attrs["alpha"] = float(rng.choice([0.01, 0.1, 0.2]))
    if op == "QLinearSoftmax":
        attrs["axis"] = -1
        attrs["opset"] = 13
    if op == "QLinearSoftmax":
        # As ONNX Runtime's quantizer writes them: y_scale 1/256, zero point 0 (UINT8) or
        # -128 (INT8), with every probability well below 1: at least two elements along
        # the axis, and logits less than 4 apart (`gen_softmax_any` covers the rest).
        shape[-1] = max(shape[-1], 2)
        x_scale = float(rng.uniform(0.002, 0.015))
        inits = params(rng, "x", dt, x_scale) + [
            numpy_helper.from_array(np.array(1.0 / 256, np.float32), "y_scale"),
            numpy_helper.from_array(
                np.array(0 if dt == TensorProto.UINT8 else -128, NP[dt]), "y_zero_point")]
    else:
        yscale = 1.0 / 256 if op == "QLinearSigmoid" else None
        inits = params(rng, "x", dt) + params(rng, "y", dt, yscale)
    node = helper.make_node(op, ["X", "x_scale", "x_zero_point", "y_scale", "y_zero_point"],
                            ["Y"], domain=MS, **attrs)
    m = model_of([node], [qinfo("X", dt, shape)], [qinfo("Y", dt, None)], inits)
    return m, {"X": rand_q(rng, dt, shape)}


def gen_binary(rng, op):
    dt = qdtype(rng)
    shape = [int(d) for d in rng.integers(1, 6, size=rng.integers(1, 5))]
    b_shape = list(shape)
    for i in range(len(b_shape)):
        if rng.random() < 0.3:
            b_shape[i] = 1
    if rng.random() < 0.3:
        b_shape = b_shape[1:] or [1]
    inits = params(rng, "a", dt) + params(rng, "b", dt) + params(rng, "c", dt)
    node = helper.make_node(op, ["A", "a_scale", "a_zero_point", "B", "b_scale", "b_zero_point",
                                 "c_scale", "c_zero_point"], ["C"], domain=MS)
    m = model_of([node], [qinfo("A", dt, shape), qinfo("B", dt, b_shape)], [qinfo("C", dt, None)],
                 inits)
    return m, {"A": rand_q(rng, dt, shape), "B": rand_q(rng, dt, b_shape)}


def gen_global_pool(rng, _op):
    dt = qdtype(rng)
    channels_last = int(rng.integers(0, 2))
    n, c, h, w = [int(v) for v in rng.integers(1, 7, size=4)]
    shape = [n, h, w, c] if channels_last else [n, c, h, w]
    inits = params(rng, "x", dt) + params(rng, "y", dt)
    node = helper.make_node("QLinearGlobalAveragePool",
                            ["X", "x_scale", "x_zero_point", "y_scale", "y_zero_point"], ["Y"],
                            domain=MS, channels_last=channels_last)
    m = model_of([node], [qinfo("X", dt, shape)], [qinfo("Y", dt, None)], inits)
    return m, {"X": rand_q(rng, dt, shape)}


def gen_average_pool(rng, _op):
    dt = qdtype(rng)
    channels_last = int(rng.integers(0, 2))
    k = [int(v) for v in rng.integers(1, 4, size=2)]
    s = [int(v) for v in rng.integers(1, 3, size=2)]
    p = [int(rng.integers(0, k[i % 2] // 2 + 1)) for i in range(4)]
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 5))
    h, w = int(rng.integers(k[0] + 1, 9)), int(rng.integers(k[1] + 1, 9))
    shape = [n, h, w, c] if channels_last else [n, c, h, w]
    ceil_mode = int(rng.integers(0, 2))
    # ONNX Runtime's QLinearAveragePool divides a ceil_mode window that runs past the end
    # padding differently from its own float AveragePool (which qlower follows) when the
    # padding is counted: that combination is left out.
    count_include_pad = 0 if ceil_mode else int(rng.integers(0, 2))
    inits = params(rng, "x", dt) + params(rng, "y", dt)
    node = helper.make_node("QLinearAveragePool",
                            ["X", "x_scale", "x_zero_point", "y_scale", "y_zero_point"], ["Y"],
                            domain=MS, channels_last=channels_last, kernel_shape=k, strides=s,
                            pads=p, ceil_mode=ceil_mode, count_include_pad=count_include_pad)
    m = model_of([node], [qinfo("X", dt, shape)], [qinfo("Y", dt, None)], inits)
    return m, {"X": rand_q(rng, dt, shape)}


def gen_concat(rng, _op):
    dt = qdtype(rng)
    rank = int(rng.integers(1, 5))
    base = [int(d) for d in rng.integers(1, 5, size=rank)]
    axis = int(rng.integers(-rank, rank))
    count = int(rng.integers(1, 4))
    inits = params(rng, "y", dt)
    inputs, feeds, names = [], {}, ["y_scale", "y_zero_point"]
    for i in range(count):
        shape = list(base)
        shape[axis] = int(rng.integers(1, 4))
        inputs.append(qinfo(f"X{i}", dt, shape))
        feeds[f"X{i}"] = rand_q(rng, dt, shape)
        inits += params(rng, f"x{i}", dt)
        names += [f"X{i}", f"x{i}_scale", f"x{i}_zero_point"]
    node = helper.make_node("QLinearConcat", names, ["Y"], domain=MS, axis=axis)
    return model_of([node], inputs, [qinfo("Y", dt, None)], inits), feeds


def gen_qgemm(rng, _op):
    a_dt = qdtype(rng)
    b_dt = TensorProto.INT8 if a_dt == TensorProto.INT8 or rng.random() < 0.5 else TensorProto.UINT8
    m_, k, n = [int(v) for v in rng.integers(1, 9, size=3)]
    trans_a, trans_b = int(rng.integers(0, 2)), int(rng.integers(0, 2))
    a_shape = [k, m_] if trans_a else [m_, k]
    b = rand_q(rng, b_dt, [n, k] if trans_b else [k, n])
    per_column = rng.random() < 0.5
    b_scale = rng.uniform(0.005, 0.05, size=n if per_column else ()).astype(np.float32)
    b_zp = (rand_q(rng, b_dt, [n] if per_column else []) // 4).astype(NP[b_dt])
    inits = params(rng, "a", a_dt) + [numpy_helper.from_array(b, "B"),
                                      numpy_helper.from_array(b_scale, "b_scale"),
                                      numpy_helper.from_array(b_zp, "b_zero_point")]
    names = ["A", "a_scale", "a_zero_point", "B", "b_scale", "b_zero_point"]
    if rng.random() < 0.6:
        inits.append(numpy_helper.from_array(
            rng.integers(-2000, 2000, size=n).astype(np.int32), "C"))
        names.append("C")
    else:
        names.append("")
    quantized = rng.random() < 0.6
    if quantized:
        inits += params(rng, "y", a_dt, float(rng.uniform(0.05, 0.3)))
        names += ["y_scale", "y_zero_point"]
    alpha = float(rng.choice([1.0, 1.0, 0.5]))
    node = helper.make_node("QGemm", names, ["Y"], domain=MS, transA=trans_a, transB=trans_b,
                            alpha=alpha)
    out = qinfo("Y", a_dt if quantized else TensorProto.FLOAT, None)
    m = model_of([node], [qinfo("A", a_dt, a_shape)], [out], inits)
    return m, {"A": rand_q(rng, a_dt, a_shape)}


def gen_dynamic_quantize_matmul(rng, _op):
    b_dt = qdtype(rng)
    m_, k, n = [int(v) for v in rng.integers(1, 9, size=3)]
    lead = [int(v) for v in rng.integers(1, 4, size=rng.integers(0, 2))]
    b = rand_q(rng, b_dt, [k, n])
    per_column = rng.random() < 0.5
    b_scale = rng.uniform(0.005, 0.05, size=n if per_column else ()).astype(np.float32)
    b_zp = (rand_q(rng, b_dt, [n] if per_column else []) // 4).astype(NP[b_dt])
    inits = [numpy_helper.from_array(b, "B"), numpy_helper.from_array(b_scale, "b_scale"),
             numpy_helper.from_array(b_zp, "b_zero_point")]
    names = ["A", "B", "b_scale", "b_zero_point"]
    if rng.random() < 0.5:
        inits.append(numpy_helper.from_array(rng.normal(size=n).astype(np.float32), "bias"))
        names.append("bias")
    node = helper.make_node("DynamicQuantizeMatMul", names, ["Y"], domain=MS)
    a_shape = lead + [m_, k]
    m = model_of([node], [qinfo("A", TensorProto.FLOAT, a_shape)],
                 [qinfo("Y", TensorProto.FLOAT, None)], inits)
    return m, {"A": rng.normal(size=a_shape).astype(np.float32)}


def gen_matmul_integer_to_float(rng, _op):
    # ONNX Runtime's CPU kernels take UINT8 A with either B, and INT8 A with INT8 B.
    a_dt = qdtype(rng)
    b_dt = TensorProto.INT8 if a_dt == TensorProto.INT8 else qdtype(rng)
    m_, k, n = [int(v) for v in rng.integers(1, 9, size=3)]
    b = rand_q(rng, b_dt, [k, n])
    per_column = rng.random() < 0.5
    b_scale = rng.uniform(0.005, 0.05, size=n if per_column else ()).astype(np.float32)
    b_zp = (rand_q(rng, b_dt, [n] if per_column else []) // 4).astype(NP[b_dt])
    a_scale, a_zp = params(rng, "a", a_dt)
    inits = [numpy_helper.from_array(b, "B"), numpy_helper.from_array(b_scale, "b_scale"),
             a_scale, a_zp, numpy_helper.from_array(b_zp, "b_zero_point")]
    names = ["A", "B", "a_scale", "b_scale", "a_zero_point", "b_zero_point"]
    if rng.random() < 0.5:
        inits.append(numpy_helper.from_array(rng.normal(size=n).astype(np.float32), "bias"))
        names.append("bias")
    node = helper.make_node("MatMulIntegerToFloat", names, ["Y"], domain=MS)
    m = model_of([node], [qinfo("A", a_dt, [m_, k])], [qinfo("Y", TensorProto.FLOAT, None)], inits)
    return m, {"A": rand_q(rng, a_dt, [m_, k])}


def gen_all_pairs(rng, op, broadcast):
    """`op` on every pair of 8-bit values: A [256, 1] and B [1, 256] when `broadcast`
    (A is then ONNX Runtime's per-span scalar), else two flat [1, 65536] vectors. The
    scales make many exact results land near a .5 tie: random for QLinearAdd (whose
    offset mixes three scales and zero points), and for QLinearMul products of round
    decimals whose ratio a_scale*b_scale/c_scale is a small fraction in exact arithmetic
    but not in float32."""
    dt = qdtype(rng)
    values = np.arange(*((0, 256) if dt == TensorProto.UINT8 else (-128, 128)))
    values = values.astype(NP[dt])
    if broadcast:
        a, b = values.reshape(256, 1), values.reshape(1, 256)
    else:
        a, b = np.repeat(values, 256).reshape(1, -1), np.tile(values, 256).reshape(1, -1)
    if op == "QLinearMul":
        a_scale = float(rng.choice([0.1, 0.3, 0.7, 0.03, 0.011, 0.013, 0.017]))
        b_scale = float(rng.choice([0.1, 0.3, 0.7, 0.03, 0.019, 0.023]))
        c_scale = a_scale * b_scale * float(rng.choice([2, 4, 8, 2 / 3, 2 / 5, 2 / 7, 100]))
        scales = [a_scale, b_scale, c_scale]
    else:
        scales = [float(rng.uniform(0.005, 0.1)) for _ in range(3)]
    inits = []
    for prefix, scale in zip("abc", scales):
        inits += params(rng, prefix, dt, scale)
    node = helper.make_node(op, ["A", "a_scale", "a_zero_point", "B", "b_scale", "b_zero_point",
                                 "c_scale", "c_zero_point"], ["C"], domain=MS)
    m = model_of([node], [qinfo("A", dt, list(a.shape)), qinfo("B", dt, list(b.shape))],
                 [qinfo("C", dt, None)], inits)
    return m, {"A": a, "B": b}


def gen_qdq_all_pairs(rng, op, dt, activation=None):
    """The QDQ form of `gen_all_pairs` (flat): float inputs that QuantizeLinear maps to
    every pair of 8-bit values, each through its own QuantizeLinear -> DequantizeLinear
    pair, `op` (Add or Mul), then QuantizeLinear -> DequantizeLinear. ONNX Runtime fuses
    it into QLinearAdd/QLinearMul, after turning int8 pairs into uint8 ones on x86-64.
    With `activation` "Relu" (or "Clip" from 0 to 1000), it follows `op`, and the
    output's zero point is the type's lowest value: ONNX Runtime then drops it and fuses
    the rest the same way (a ResNet's residual Add -> Relu as `qlower quantize` leaves
    it)."""
    lo, hi = (0, 255) if dt == TensorProto.UINT8 else (-128, 127)
    if op == "Mul":
        scales = [float(rng.choice([0.1, 0.3, 0.7, 0.03])), float(rng.choice([0.1, 0.3, 0.019]))]
        scales.append(scales[0] * scales[1] * float(rng.choice([2, 4, 2 / 3, 2 / 5])))
    elif activation:
        # s, s, 2s: ONNX Runtime's ratios are exactly 1/2, so every odd sum is an exact
        # .5 tie there, while the literal float sum lands either side of it.
        s = float(rng.choice([0.1, 0.3, 0.07]))
        scales = [s, s, 2 * s]
    else:
        scales = [float(rng.uniform(0.005, 0.1)) for _ in range(3)]
    zero_points = [int(rng.integers(lo + 30, hi - 30)) for _ in range(3)]
    if activation:
        zero_points[2] = lo
    inits = []
    for prefix, scale, zp in zip("abc", scales, zero_points):
        inits += [numpy_helper.from_array(np.array(scale, np.float32), f"{prefix}_scale"),
                  numpy_helper.from_array(np.array(zp, NP[dt]), f"{prefix}_zero_point")]
    n = helper.make_node
    nodes = []
    for x, p in (("A", "a"), ("B", "b")):
        nodes += [n("QuantizeLinear", [x, f"{p}_scale", f"{p}_zero_point"], [f"{x}_q"]),
                  n("DequantizeLinear", [f"{x}_q", f"{p}_scale", f"{p}_zero_point"], [f"{x}_dq"])]
    nodes.append(n(op, ["A_dq", "B_dq"], ["C_sum" if activation else "C_float"]))
    if activation == "Relu":
        nodes.append(n("Relu", ["C_sum"], ["C_float"]))
    elif activation == "Clip":
        inits += [numpy_helper.from_array(np.array(0.0, np.float32), "clip_min"),
                  numpy_helper.from_array(np.array(1000.0, np.float32), "clip_max")]
        nodes.append(n("Clip", ["C_sum", "clip_min", "clip_max"], ["C_float"]))
    nodes += [n("QuantizeLinear", ["C_float", "c_scale", "c_zero_point"], ["C_q"]),
              n("DequantizeLinear", ["C_q", "c_scale", "c_zero_point"], ["C"])]
    f = TensorProto.FLOAT
    m = model_of(nodes, [qinfo("A", f, [1, 65536]), qinfo("B", f, [1, 65536])],
                 [qinfo("C", f, [1, 65536])], inits)
    values = np.arange(lo, hi + 1)
    a = (np.repeat(values, 256) - zero_points[0]).astype(np.float32) * np.float32(scales[0])
    b = (np.tile(values, 256) - zero_points[1]).astype(np.float32) * np.float32(scales[1])
    return m, {"A": a.reshape(1, -1), "B": b.reshape(1, -1)}


def gen_pool_same_params(rng, op):
    """`gen_average_pool` or `gen_global_pool` with the output's scale and zero point
    equal to the input's, as quantizers write them for pools: many averages then end
    in exactly .5, where ONNX Runtime's rounding (after adding the zero point for
    QLinearAveragePool, on integer sums for QLinearGlobalAveragePool) shows."""
    model, feeds = (gen_average_pool if op == "QLinearAveragePool" else gen_global_pool)(rng, op)
    inits = {i.name: i for i in model.graph.initializer}
    for name in ("scale", "zero_point"):
        inits[f"y_{name}"].CopyFrom(numpy_helper.from_array(
            numpy_helper.to_array(inits[f"x_{name}"]), f"y_{name}"))
    return model, feeds


def gen_softmax_any(rng, _op):
    """QLinearSoftmax without `gen_unary`'s care: any logits, rows of one element, the
    y_scale 1/255 that QDQ models carry (ONNX Runtime multiplies by floor(1/y_scale),
    254) and zero points anywhere, where ONNX Runtime's overflows show."""
    dt = qdtype(rng)
    lo, hi = (0, 255) if dt == TensorProto.UINT8 else (-128, 127)
    shape = [int(d) for d in rng.integers(1, 6, size=rng.integers(1, 4))]
    x_scale = float(rng.choice([rng.uniform(0.002, 0.05), rng.uniform(0.05, 0.3)]))
    y_scale = float(rng.choice([1 / 256, 1 / 255, 1 / 512]))
    y_zero_point = int(rng.choice([lo, 0, int(rng.integers(lo, hi + 1))]))
    inits = params(rng, "x", dt, x_scale) + [
        numpy_helper.from_array(np.array(y_scale, np.float32), "y_scale"),
        numpy_helper.from_array(np.array(y_zero_point, NP[dt]), "y_zero_point")]
    axis = int(rng.integers(-len(shape), len(shape)))
    node = helper.make_node("QLinearSoftmax",
                            ["X", "x_scale", "x_zero_point", "y_scale", "y_zero_point"], ["Y"],
                            domain=MS, axis=axis, opset=13)
    m = model_of([node], [qinfo("X", dt, shape)], [qinfo("Y", dt, None)], inits)
    return m, {"X": rand_q(rng, dt, shape)}


OPS = {
    "QLinearAdd": gen_binary, "QLinearMul": gen_binary, "QLinearSigmoid": gen_unary,
    "QLinearLeakyRelu": gen_unary, "QLinearSoftmax": gen_unary,
    "QLinearGlobalAveragePool": gen_global_pool, "QLinearAveragePool": gen_average_pool,
    "QLinearConcat": gen_concat, "QGemm": gen_qgemm,
    "DynamicQuantizeMatMul": gen_dynamic_quantize_matmul,
    "MatMulIntegerToFloat": gen_matmul_integer_to_float,
}


def compare(name, got, want, share=0.001):
    """None when `got` agrees with `want` (see the module docstring), else why not.
    `share` is the fraction of integer elements that may be one step apart."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"{name}: got {got.dtype}{list(got.shape)}, want {want.dtype}{list(want.shape)}"
    if want.dtype.kind in "iu":
        diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
        off = int((diff > 0).sum())
        if diff.size and (diff.max() > 1 or off > share * diff.size):
            return f"{name}: {off} of {diff.size} differ, by up to {int(diff.max())}"
        return None
    bound = 1e-4 * np.abs(want) + 1e-5 * max(1.0, float(np.abs(want).max(initial=0)))
    bad = np.abs(got - want) > bound
    if bad.any():
        return f"{name}: {int(bad.sum())} elements differ, max {float(np.abs(got - want).max())}"
    return None


def to_quantized(value, params):
    """A DequantizeLinear output mapped back to its integers."""
    scale, zp = params
    zp = np.zeros((), np.uint8) if zp is None else zp
    info = np.iinfo(zp.dtype)
    q = np.round(value.astype(np.float64) / float(scale)) + int(zp)
    return np.clip(q, info.min, info.max).astype(zp.dtype)


def check(qlower, work, label, model, feeds, quantized_outputs=None, backend_roundtrip=False):
    """Runs `model` on both engines; None on agreement, else a message. With
    `backend_roundtrip`, the model is also printed with `--emit backend` and run from the
    .mlir, whose outputs must be the .onnx run's byte for byte."""
    case = os.path.join(work, label)
    os.makedirs(case, exist_ok=True)
    path = os.path.join(case, "model.onnx")
    onnx.save(model, path)
    want = ort_oracle.run(path, feeds)
    cmd = [qlower, "run", path, "--out-dir", os.path.join(case, "out")]
    for name, value in feeds.items():
        np.save(os.path.join(case, f"{name}.npy"), value)
        cmd += ["-i", f"{name}={os.path.join(case, name + '.npy')}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return f"qlower run failed: {proc.stderr.strip()}"
    for name, value in want.items():
        got = np.load(os.path.join(case, "out", f"{name}.npy"))
        if quantized_outputs and name in quantized_outputs:
            got = to_quantized(got, quantized_outputs[name])
            value = to_quantized(value, quantized_outputs[name])
        exact = label.startswith(("all_pairs", "exact"))
        why = compare(name, got, value, 0.0 if exact else 0.001)
        if why:
            return why
        if label.startswith("resnet18"):
            diff = np.abs(got.astype(np.int64) - value.astype(np.int64))
            print(f"{label}: {name} {value.dtype}{list(value.shape)}, "
                  f"{int((diff > 0).sum())} elements differ by 1, max difference {int(diff.max())}")
    if backend_roundtrip:
        return backend_roundtrip_error(qlower, case, path, cmd, want)
    return None


def backend_roundtrip_error(qlower, case, path, onnx_cmd, want):
    """None when `qlower run` of the `--emit backend` .mlir writes the same bytes as the
    .onnx run did, else what differs."""
    mlir = os.path.join(case, "model.backend.mlir")
    proc = subprocess.run([qlower, path, "--emit", "backend", "-o", mlir], capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0:
        return f"qlower --emit backend failed: {proc.stderr.strip()}"
    out = os.path.join(case, "out_mlir")
    cmd = [qlower, "run", mlir, "--out-dir", out] + onnx_cmd[onnx_cmd.index("--out-dir") + 2:]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return f"qlower run of the --emit backend .mlir failed: {proc.stderr.strip()}"
    for name in want:
        with open(os.path.join(case, "out", f"{name}.npy"), "rb") as a, open(os.path.join(out, f"{name}.npy"), "rb") as b:
            if a.read() != b.read():
                return f"output '{name}' of the --emit backend .mlir differs from the .onnx run"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-op", type=int, default=6)
    ap.add_argument("--resnet", action="store_true")
    args = ap.parse_args()
    # The quantizer's advice (pre-processing, QDQ on x64) is noise here.
    logging.getLogger().setLevel(logging.ERROR)
    rng = np.random.default_rng(args.seed)
    work = tempfile.mkdtemp(prefix="qoperator-")
    counts, failures = {}, []
    cases = [(f"{op}_{i}", op) for op in OPS for i in range(args.per_op)]
    for label, op in cases:
        model, feeds = OPS[op](rng, op)
        why = check(args.qlower, work, label, model, feeds)
        family = f"ops/{op}"
        ok, bad = counts.get(family, (0, 0))
        counts[family] = (ok + (why is None), bad + (why is not None))
        if why:
            failures.append(f"{label}: {why}")
    import qoperator_models
    for label, model, feeds in qoperator_models.quantized_models(rng, work, args.resnet):
        why = check(args.qlower, work, label, model, feeds,
                    qoperator_models.dequantize_params(model), backend_roundtrip=True)
        family = "quantized"
        ok, bad = counts.get(family, (0, 0))
        counts[family] = (ok + (why is None), bad + (why is not None))
        if why:
            failures.append(f"{label}: {why}")
    for op in ("QLinearAdd", "QLinearMul"):
        for broadcast in (True, False):
            label = f"all_pairs_{op}_{'broadcast' if broadcast else 'flat'}"
            model, feeds = gen_all_pairs(rng, op, broadcast)
            why = check(args.qlower, work, label, model, feeds)
            family = f"all pairs/{op}"
            ok, bad = counts.get(family, (0, 0))
            counts[family] = (ok + (why is None), bad + (why is not None))
            if why:
                failures.append(f"{label}: {why}")
    for op, activation in (("Add", None), ("Mul", None), ("Add", "Relu"), ("Add", "Clip")):
        for dt in (TensorProto.UINT8, TensorProto.INT8):
            kind = f"{op}_{activation}" if activation else op
            label = f"all_pairs_qdq_{kind}_{'uint8' if dt == TensorProto.UINT8 else 'int8'}"
            model, feeds = gen_qdq_all_pairs(rng, op, dt, activation)
            why = check(args.qlower, work, label, model, feeds,
                        qoperator_models.dequantize_params(model))
            family = f"all pairs/QDQ {kind}"
            ok, bad = counts.get(family, (0, 0))
            counts[family] = (ok + (why is None), bad + (why is not None))
            if why:
                failures.append(f"{label}: {why}")
    for op in ("QLinearAveragePool", "QLinearGlobalAveragePool", "QLinearSoftmax"):
        for i in range(args.per_op):
            label = f"exact_{op}_{i}"
            gen = gen_softmax_any if op == "QLinearSoftmax" else gen_pool_same_params
            model, feeds = gen(rng, op)
            why = check(args.qlower, work, label, model, feeds)
            family = f"exact/{op}"
            ok, bad = counts.get(family, (0, 0))
            counts[family] = (ok + (why is None), bad + (why is not None))
            if why:
                failures.append(f"{label}: {why}")
    for family, (ok, bad) in sorted(counts.items()):
        print(f"{family}: {ok} passed, {bad} failed")
    for f in failures:
        print(f"FAIL {f}")
    passed = sum(ok for ok, _ in counts.values())
    failed = sum(bad for _, bad in counts.values())
    print(f"{passed} passed, {failed} failed" + (f" (cases kept in {work})" if failed else ""))
    if not failed:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
