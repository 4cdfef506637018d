#!/usr/bin/env python3
"""Writes a ResNet-18-shaped float ONNX model with random weights.

    make_resnet18.py OUT.onnx [--size 224] [--seed 0]

The layer structure is torchvision's ResNet-18 (7x7/2 stem, 3x3/2 max pool, four stages
of two basic blocks with 64, 128, 256, 512 channels, 1x1/2 projection shortcuts, global
average pool, 1000-way Gemm), with batch normalization folded into the convolutions'
biases. `qoperator.py --resnet` quantizes it to QOperator format with ONNX Runtime and
compares qlower with ONNX Runtime on it. A test generator, not part of the product.
"""

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Builder:
    def __init__(self, rng):
        self.rng = rng
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, kind):
        self.count += 1
        return f"{kind}{self.count}"

    def conv(self, x, c_in, c_out, k, stride, relu):
        n = self.name("conv")
        # He-style initialization keeps activations in a sane range through 18 layers.
        w = self.rng.normal(0, np.sqrt(2.0 / (c_in * k * k)), (c_out, c_in, k, k))
        b = self.rng.normal(0, 0.05, c_out)
        self.inits += [numpy_helper.from_array(w.astype(np.float32), f"{n}.w"),
                       numpy_helper.from_array(b.astype(np.float32), f"{n}.b")]
        p = k // 2
        self.nodes.append(helper.make_node("Conv", [x, f"{n}.w", f"{n}.b"], [n],
                                           kernel_shape=[k, k], strides=[stride, stride],
                                           pads=[p, p, p, p], name=n))
        return self.relu(n) if relu else n

    def relu(self, x):
        n = self.name("relu")
        self.nodes.append(helper.make_node("Relu", [x], [n], name=n))
        return n

    def add(self, a, b):
        n = self.name("add")
        self.nodes.append(helper.make_node("Add", [a, b], [n], name=n))
        return n

    def block(self, x, c_in, c_out, stride):
        y = self.conv(x, c_in, c_out, 3, stride, True)
        y = self.conv(y, c_out, c_out, 3, 1, False)
        shortcut = x if stride == 1 and c_in == c_out else self.conv(x, c_in, c_out, 1, stride, False)
        return self.relu(self.add(y, shortcut))


def resnet18(size=224, seed=0, classes=1000):
    b = Builder(np.random.default_rng(seed))
    x = b.conv("input", 3, 64, 7, 2, True)
    pool = b.name("maxpool")
    b.nodes.append(helper.make_node("MaxPool", [x], [pool], kernel_shape=[3, 3], strides=[2, 2],
                                    pads=[1, 1, 1, 1], name=pool))
    x, c = pool, 64
    for c_out, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
        x = b.block(x, c, c_out, stride)
        x = b.block(x, c_out, c_out, 1)
        c = c_out
    gap = b.name("gap")
    b.nodes.append(helper.make_node("GlobalAveragePool", [x], [gap], name=gap))
    flat = b.name("flatten")
    b.nodes.append(helper.make_node("Flatten", [gap], [flat], axis=1, name=flat))
    w = b.rng.normal(0, 0.05, (classes, 512)).astype(np.float32)
    bias = b.rng.normal(0, 0.05, classes).astype(np.float32)
    b.inits += [numpy_helper.from_array(w, "fc.w"), numpy_helper.from_array(bias, "fc.b")]
    b.nodes.append(helper.make_node("Gemm", [flat, "fc.w", "fc.b"], ["logits"], transB=1,
                                    name="fc"))
    graph = helper.make_graph(
        b.nodes, "resnet18",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, classes])], b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    onnx.save(resnet18(args.size, args.seed), args.out)
