"""An exact NumPy reference for the integer ONNX ops, independent of ONNX Runtime.

Sums are taken in int64, so they are exact for every input (an int32 accumulator of 8-bit
products cannot overflow below 2^16 products per output). The requantization of
QLinearConv and QLinearMatMul follows the ONNX spec with the arithmetic ONNX Runtime's CPU
kernels use, which qlower's kernels follow too: one float32 multiplier per output channel,
(x_scale * w_scale[c]) / y_scale, the accumulator converted to float32 and multiplied by it,
rounded half to even, plus the zero point, saturated. So an exact engine gives these bytes.

Used by the differential tests as a second oracle: a future ONNX Runtime change cannot hide
a qlower bug. Never used by qlower itself.
"""

import numpy as np


def conv_pads(attrs, spatial, kernel):
    """The begin and end pads of each spatial axis, from `pads` or `auto_pad`."""
    dims = len(spatial)
    strides = list(attrs.get("strides", [1] * dims))
    dil = list(attrs.get("dilations", [1] * dims))
    eff = [d * (k - 1) + 1 for d, k in zip(dil, kernel)]
    auto_pad = attrs.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        begin, end = [], []
        for i in range(dims):
            out = -(-spatial[i] // strides[i])
            total = max(0, (out - 1) * strides[i] + eff[i] - spatial[i])
            small, big = total // 2, total - total // 2
            begin.append(small if auto_pad == "SAME_UPPER" else big)
            end.append(big if auto_pad == "SAME_UPPER" else small)
        return begin + end
    if auto_pad == "VALID":
        return [0] * (2 * dims)
    return list(attrs.get("pads", [0] * (2 * dims)))


def conv_accumulate(x, x_zp, w, w_zp, attrs):
    """Sum over (x - x_zp) * (w - w_zp[m]) of a grouped N-D convolution, in int64:
    [N, M, *out]. `w_zp` is a scalar or one value per output channel."""
    x = x.astype(np.int64) - np.int64(x_zp)
    w = w.astype(np.int64)
    dims = w.ndim - 2
    w_zp = np.asarray(w_zp, np.int64)
    w = w - (w_zp.reshape([-1] + [1] * (dims + 1)) if w_zp.ndim else w_zp)
    group = attrs.get("group", 1)
    strides = list(attrs.get("strides", [1] * dims))
    dil = list(attrs.get("dilations", [1] * dims))
    kernel = list(w.shape[2:])
    eff = [d * (k - 1) + 1 for d, k in zip(dil, kernel)]
    pads = conv_pads(attrs, list(x.shape[2:]), kernel)
    # Padding with 0 after the zero point is subtracted: padding contributes nothing.
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[i + dims]) for i in range(dims)])
    n, c = x.shape[:2]
    m = w.shape[0]
    cg, mg = c // group, m // group
    windows = np.lib.stride_tricks.sliding_window_view(xp, eff, axis=tuple(range(2, 2 + dims)))
    taps = tuple(slice(None, None, s) for s in strides) + tuple(slice(None, None, d) for d in dil)
    windows = windows[(slice(None), slice(None)) + taps]  # N, C, *out, *kernel
    out_shape = list(windows.shape[2:2 + dims])
    acc = np.zeros([n, m] + out_shape, np.int64)
    for gi in range(group):
        win = np.moveaxis(windows[:, gi * cg:(gi + 1) * cg], 1, 1 + dims)  # N, *out, Cg, *kernel
        flat_win = win.reshape([n] + out_shape + [-1])
        flat_w = w[gi * mg:(gi + 1) * mg].reshape(mg, -1)
        part = np.einsum("...k,mk->...m", flat_win, flat_w)
        acc[:, gi * mg:(gi + 1) * mg] = np.moveaxis(part, -1, 1)
    return acc


def matmul_accumulate(a, a_zp, b, b_zp):
    """Sum over (a - a_zp) * (b - b_zp[n]) of a broadcast matmul, in int64. `b_zp` is a
    scalar or one value per column of b."""
    a = a.astype(np.int64) - np.int64(a_zp)
    b = b.astype(np.int64) - np.asarray(b_zp, np.int64)
    # np.matmul on int64 adds exactly (no BLAS).
    return np.matmul(a, b)


def requantize(acc, multiplier, y_zp, dtype, channel_axis):
    """ONNX Runtime's requantization: float32(acc) * float32 multiplier (per channel along
    `channel_axis` when it has several values), rounded half to even, + y_zp, saturated."""
    multiplier = np.asarray(multiplier, np.float32)
    if multiplier.ndim and multiplier.size > 1:
        shape = [1] * acc.ndim
        shape[channel_axis] = multiplier.size
        multiplier = multiplier.reshape(shape)
    product = acc.astype(np.float32) * multiplier
    y = np.round(product).astype(np.int64) + np.int64(y_zp)
    info = np.iinfo(dtype)
    return np.clip(y, info.min, info.max).astype(dtype)


def output_multiplier(in_scale, w_scale, y_scale):
    """(in_scale * w_scale) / y_scale in float32, in that order, as ONNX Runtime computes it."""
    in_scale = np.float32(in_scale)
    w_scale = np.asarray(w_scale, np.float32)
    return ((in_scale * w_scale).astype(np.float32) / np.float32(y_scale)).astype(np.float32)


def qlinearconv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, bias, attrs):
    acc = conv_accumulate(x, x_zp, w, w_zp, attrs)
    if bias is not None:
        acc = acc + np.asarray(bias, np.int64).reshape([1, -1] + [1] * (acc.ndim - 2))
    return requantize(acc, output_multiplier(x_scale, w_scale, y_scale), y_zp,
                      np.asarray(y_zp).dtype, channel_axis=1)


def qlinearmatmul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp):
    acc = matmul_accumulate(a, a_zp, b, b_zp)
    return requantize(acc, output_multiplier(a_scale, b_scale, y_scale), y_zp,
                      np.asarray(y_zp).dtype, channel_axis=-1)


def convinteger(x, x_zp, w, w_zp, attrs):
    return conv_accumulate(x, x_zp, w, w_zp, attrs).astype(np.int32)


def matmulinteger(a, a_zp, b, b_zp):
    return matmul_accumulate(a, a_zp, b, b_zp).astype(np.int32)


def evaluate(model, feeds):
    """The reference output of a one-node QLinearConv / QLinearMatMul / ConvInteger /
    MatMulInteger model (operands from `feeds` or the initializers), or None for any other
    model."""
    from onnx import helper, numpy_helper

    if len(model.graph.node) != 1:
        return None
    node = model.graph.node[0]
    values = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    values.update(feeds)
    args = [values[name] if name else None for name in node.input]
    args += [None] * (9 - len(args))
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    zero = np.zeros((), np.uint8)
    if node.op_type == "QLinearConv":
        return qlinearconv(*args[:8], args[8], attrs)
    if node.op_type == "QLinearMatMul":
        return qlinearmatmul(*args[:8])
    if node.op_type == "ConvInteger":
        x, w, x_zp, w_zp = args[:4]
        return convinteger(x, zero if x_zp is None else x_zp, w, zero if w_zp is None else w_zp, attrs)
    if node.op_type == "MatMulInteger":
        a, b, a_zp, b_zp = args[:4]
        return matmulinteger(a, zero if a_zp is None else a_zp, b, zero if b_zp is None else b_zp)
    return None
