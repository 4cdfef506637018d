#!/usr/bin/env python3
"""A ResNet-50 classifier with an NHWC input, shaped as tf2onnx exports Keras's, for the
real-model test.

    make_resnet50.py OUT.onnx [--layout nchw|tf2onnx]

No PyPI package we know ships a ResNet-50 whose Pad takes a computed `pads`, which is
what TensorFlow exports give (issue 16: "input 'pads' must be a constant known at compile
time"), so this builds one with onnx.helper and fixed random weights (seed 0):
- input `input_1` float32 [1, 224, 224, 3] (NHWC), transposed to NCHW in the graph;
- the stem's padding computed from the input's shape as TensorFlow's "SAME" rule does
  and tf2onnx writes it: Shape -> Gather (H, W) -> Div/Mul/Sub (total padding
  (ceil(x / 2) - 1) * 2 + 7 - x, then begin = total / 2 and end = total - begin) ->
  Concat -> Cast -> Pad, then the 7x7 stride-2 convolution without padding of its own;
- BatchNormalization after every convolution (not folded), ReLU, 3x3 stride-2 MaxPool;
- bottleneck blocks 3-4-6-3 (1x1, 3x3, 1x1 with 4x expansion, the stride on the 3x3,
  a 1x1 projection on the first block of each stage), widths 64-128-256-512;
- GlobalAveragePool, Flatten, Gemm to 1000 logits: output `logits` float32 [1, 1000].

`--layout tf2onnx` keeps the whole network NHWC, as tf2onnx writes it when its transpose
optimizer leaves the layout alone: a Transpose into NCHW before every Conv and MaxPool
and back after it, each batch norm as a Mul and an Add of per-channel constants along the
last axis, the stem's Pad on the NHWC axes, and a ReduceMean over H and W for the
global pool.

He-initialised convolutions keep activations of unit size through the ReLUs; each
block's last BatchNormalization has a small scale (0.2 to 0.4, as trained residual
networks learn) so 16 residual additions do not grow them by orders of magnitude, and
quantization sees realistic ranges.
"""

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

STAGES = [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]   # (width, blocks, stride)
EXPANSION, CLASSES = 4, 1000
OPSET = 13


class Builder:
    """Collects nodes and initializers; every name it makes is unique."""

    def name(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def const(self, value, hint="c"):
        name = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, op_type, inputs, hint=None, **attrs):
        out = self.name(hint or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def __init__(self, seed, nhwc=False):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0
        # tf2onnx's layout: activations NHWC, each Conv and MaxPool between Transposes.
        self.nhwc = nhwc

    def nchw_op(self, op_type, inputs, hint, **attrs):
        """`op_type`, which ONNX defines on NCHW, applied to the activation inputs[0]."""
        if not self.nhwc:
            return self.op(op_type, inputs, hint, **attrs)
        x = self.op("Transpose", [inputs[0]], f"{hint}_to_nchw", perm=[0, 3, 1, 2])
        y = self.op(op_type, [x] + inputs[1:], hint, **attrs)
        return self.op("Transpose", [y], f"{hint}_to_nhwc", perm=[0, 2, 3, 1])

    def conv_bn(self, x, cin, cout, k, stride, hint, relu=True, gamma=(0.8, 1.2), pad=True):
        w = self.rng.normal(0.0, np.sqrt(2.0 / (cin * k * k)), [cout, cin, k, k]).astype(np.float32)
        p = (k - 1) // 2 if pad else 0
        y = self.nchw_op("Conv", [x, self.const(w, f"{hint}_w")], f"{hint}_conv", kernel_shape=[k, k],
                         strides=[stride, stride], pads=[p, p, p, p])
        scale = self.rng.uniform(*gamma, cout).astype(np.float32)
        bias = self.rng.normal(0.0, 0.1, cout).astype(np.float32)
        mean = self.rng.normal(0.0, 0.1, cout).astype(np.float32)
        var = self.rng.uniform(0.8, 1.2, cout).astype(np.float32)
        if self.nhwc:
            # The inference batch norm as tf2onnx writes Keras's: y * a + b along channels.
            a = (scale / np.sqrt(var + 1.001e-5)).astype(np.float32)
            y = self.op("Mul", [y, self.const(a, f"{hint}_bn_scale")], f"{hint}_bn_mul")
            y = self.op("Add", [y, self.const((bias - mean * a).astype(np.float32), f"{hint}_bn_shift")],
                        f"{hint}_bn_add")
        else:
            y = self.op("BatchNormalization", [y, self.const(scale, f"{hint}_gamma"),
                                               self.const(bias, f"{hint}_beta"),
                                               self.const(mean, f"{hint}_mean"), self.const(var, f"{hint}_var")],
                        f"{hint}_bn", epsilon=1.001e-5)
        return self.op("Relu", [y], f"{hint}_relu") if relu else y


def same_pads(b, x, kernel, stride):
    """The `pads` of TensorFlow's "SAME" padding of a `kernel` x `kernel`, stride-`stride`
    convolution over x's H and W, computed in the graph from its shape."""
    spatial = [1, 2] if b.nhwc else [2, 3]
    hw = b.op("Gather", [b.op("Shape", [x], "input_shape"), b.const(np.array(spatial, np.int64))],
              "spatial_size", axis=0)
    # ceil(x / stride) = (x + stride - 1) / stride in integers.
    out = b.op("Div", [b.op("Add", [hw, b.const(np.int64(stride - 1))]), b.const(np.int64(stride))])
    needed = b.op("Add", [b.op("Mul", [b.op("Sub", [out, b.const(np.int64(1))]), b.const(np.int64(stride))]),
                          b.const(np.int64(kernel))])
    total = b.op("Max", [b.op("Sub", [needed, hw]), b.const(np.array([0, 0], np.int64))], "total_pad")
    begin = b.op("Div", [total, b.const(np.int64(2))], "pad_begin")
    end = b.op("Sub", [total, begin], "pad_end")
    zeros = b.const(np.array([0, 0], np.int64))
    zero = b.const(np.array([0], np.int64))
    if b.nhwc:
        parts = [zero, begin, zero, zero, end, zero]
    else:
        parts = [zeros, begin, zeros, end]
    pads = b.op("Concat", parts, "pads_i64", axis=0)
    # tf2onnx casts the paddings it computed to Pad's int64, whatever they were before.
    return b.op("Cast", [pads], "pads", to=TensorProto.INT64)


def bottleneck(b, x, cin, width, stride, hint):
    cout = width * EXPANSION
    y = b.conv_bn(x, cin, width, 1, 1, f"{hint}_a")
    y = b.conv_bn(y, width, width, 3, stride, f"{hint}_b")
    y = b.conv_bn(y, width, cout, 1, 1, f"{hint}_c", relu=False, gamma=(0.2, 0.4))
    shortcut = x
    if stride != 1 or cin != cout:
        shortcut = b.conv_bn(x, cin, cout, 1, stride, f"{hint}_proj", relu=False)
    return b.op("Relu", [b.op("Add", [y, shortcut])], f"{hint}_out")


def build(seed=0, layout="nchw"):
    b = Builder(seed, nhwc=layout == "tf2onnx")
    x = "input_1" if b.nhwc else b.op("Transpose", ["input_1"], "nchw", perm=[0, 3, 1, 2])
    x = b.op("Pad", [x, same_pads(b, x, 7, 2)], "stem_pad", mode="constant")
    x = b.conv_bn(x, 3, 64, 7, 2, "stem", pad=False)
    x = b.nchw_op("MaxPool", [x], "stem_pool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for s, (width, blocks, stride) in enumerate(STAGES):
        for i in range(blocks):
            x = bottleneck(b, x, cin, width, stride if i == 0 else 1, f"stage{s + 1}_block{i + 1}")
            cin = width * EXPANSION
    if b.nhwc:
        x = b.op("ReduceMean", [x], "features", axes=[1, 2], keepdims=0)
    else:
        x = b.op("Flatten", [b.op("GlobalAveragePool", [x], "avg_pool")], "features", axis=1)
    w = b.rng.normal(0.0, np.sqrt(1.0 / cin), [cin, CLASSES]).astype(np.float32)
    bias = b.rng.normal(0.0, 0.01, CLASSES).astype(np.float32)
    b.nodes.append(helper.make_node("Gemm", [x, b.const(w, "fc_w"), b.const(bias, "fc_b")], ["logits"],
                                    name="fc"))
    graph = helper.make_graph(
        b.nodes, "resnet50_nhwc",
        [helper.make_tensor_value_info("input_1", TensorProto.FLOAT, [1, 224, 224, 3])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, CLASSES])],
        b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="qlower tools/real_models/make_resnet50.py")
    model.ir_version = 7
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--layout", choices=["nchw", "tf2onnx"], default="nchw")
    args = parser.parse_args()
    onnx.save(build(layout=args.layout), args.out)


if __name__ == "__main__":
    main()
