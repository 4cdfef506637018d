#!/usr/bin/env python3
"""A small sentence-embedding encoder of the BERT/MiniLM class, exported as Hugging Face's
exporter writes one, for the test of dynamic batch and sequence lengths.

    make_bert.py OUT.onnx [--int8-weights]

No package ships a BERT small enough to test with, so this builds one with onnx.helper
and fixed random weights (seed 0): 2 layers, hidden 64, 4 heads, FFN 128, vocabulary
1000, 128 positions, 2 token types. Inputs `input_ids`, `attention_mask` and
`token_type_ids`, int64 [batch, sequence] (both symbolic); outputs:
- `last_hidden_state` [batch, sequence, 64];
- `sentence_embedding` [batch, 64]: the mean over the tokens the mask keeps;
- `last_token` [batch, 64]: the state of each sequence's last kept token, picked with
  GatherND at (b, sum(mask_b) − 1), as last-token pooling is exported.
The graph has what exported encoders have: embeddings summed and layer-normed, the
padding mask turned into an additive bias (Unsqueeze, Cast, Sub, Mul), per layer
Q/K/V MatMul + Add → Reshape → Transpose, scaled scores plus the mask, Softmax, the
context back to [batch, sequence, hidden], output projection, residual and
LayerNormalization, an erf GELU FFN. `--int8-weights` stores every projection weight as
int8 with a per-column scale behind Cast and Mul, as some packages ship their encoders.
"""

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper

from qlower_tools.real_models.make_t5 import Builder

LAYERS, HIDDEN, HEADS, FF, VOCAB, POSITIONS, TYPES = 2, 64, 4, 128, 1000, 128, 2
HEAD = HIDDEN // HEADS
EPS = 1e-12


class Encoder:
    def __init__(self, int8_weights, seed=0):
        self.b = Builder(seed)
        self.int8 = int8_weights

    def weight(self, k, n, hint):
        b = self.b
        w = b.rng.normal(0.0, k ** -0.5, [k, n]).astype(np.float32)
        if not self.int8:
            return b.const(w, hint)
        scale = (np.abs(w).max(0) / 127).astype(np.float32)
        q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
        return b.op("Mul", [b.op("Cast", [b.const(q, f"{hint}_int8")], to=TensorProto.FLOAT),
                            b.const(scale, f"{hint}_scale")], hint)

    def linear(self, x, k, n, hint):
        b = self.b
        bias = b.const(b.rng.normal(0.0, 0.02, [n]).astype(np.float32), f"{hint}_bias")
        return b.op("Add", [b.op("MatMul", [x, self.weight(k, n, hint)]), bias], hint)

    def layer_norm(self, x, hint):
        b = self.b
        gamma = b.const(b.rng.uniform(0.8, 1.2, [HIDDEN]).astype(np.float32), f"{hint}_gamma")
        beta = b.const(b.rng.normal(0.0, 0.05, [HIDDEN]).astype(np.float32), f"{hint}_beta")
        return b.op("LayerNormalization", [x, gamma, beta], hint, axis=-1, epsilon=EPS)

    def heads(self, x):
        b = self.b
        shaped = b.op("Reshape", [x, b.const(np.array([0, 0, HEADS, HEAD], np.int64))])
        return b.op("Transpose", [shaped], perm=[0, 2, 1, 3])

    def attention(self, x, mask, i):
        b = self.b
        q = self.heads(self.linear(x, HIDDEN, HIDDEN, f"l{i}_query"))
        # The exporter writes K's two transposes ([0, 2, 1, 3], then the last two axes
        # swapped) as one.
        key = self.linear(x, HIDDEN, HIDDEN, f"l{i}_key")
        key = b.op("Reshape", [key, b.const(np.array([0, 0, HEADS, HEAD], np.int64))])
        k = b.op("Transpose", [key], perm=[0, 2, 3, 1])
        v = self.heads(self.linear(x, HIDDEN, HIDDEN, f"l{i}_value"))
        scores = b.op("Div", [b.op("MatMul", [q, k]), b.const(np.float32(np.sqrt(HEAD)))])
        probs = b.op("Softmax", [b.op("Add", [scores, mask])], f"l{i}_probs", axis=-1)
        context = b.op("Transpose", [b.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        context = b.op("Reshape", [context, b.const(np.array([0, 0, HIDDEN], np.int64))])
        out = self.linear(context, HIDDEN, HIDDEN, f"l{i}_attn_out")
        return self.layer_norm(b.op("Add", [out, x]), f"l{i}_attn_norm")

    def ffn(self, x, i):
        b = self.b
        h = self.linear(x, HIDDEN, FF, f"l{i}_intermediate")
        erf = b.op("Erf", [b.op("Div", [h, b.const(np.float32(np.sqrt(2.0)))])])
        gelu = b.op("Mul", [b.op("Mul", [h, b.op("Add", [erf, b.const(np.float32(1.0))])]),
                            b.const(np.float32(0.5))])
        out = self.linear(gelu, FF, HIDDEN, f"l{i}_output")
        return self.layer_norm(b.op("Add", [out, x]), f"l{i}_output_norm")

    def build(self):
        b = self.b
        seq = b.op("Gather", [b.op("Shape", ["input_ids"]), b.const(np.int64(1))], axis=0)
        positions = b.op("Unsqueeze", [b.op("Range", [b.const(np.int64(0)), seq, b.const(np.int64(1))]),
                                       b.const(np.array([0], np.int64))])
        words = b.op("Gather", [b.const(b.rng.normal(0, 1, [VOCAB, HIDDEN]).astype(np.float32), "word_embeddings"),
                                "input_ids"])
        places = b.op("Gather", [b.const(b.rng.normal(0, 0.5, [POSITIONS, HIDDEN]).astype(np.float32),
                                         "position_embeddings"), positions])
        types = b.op("Gather", [b.const(b.rng.normal(0, 0.5, [TYPES, HIDDEN]).astype(np.float32),
                                        "token_type_embeddings"), "token_type_ids"])
        x = self.layer_norm(b.op("Add", [b.op("Add", [words, places]), types]), "embeddings_norm")
        mask = b.op("Cast", [b.op("Unsqueeze", ["attention_mask", b.const(np.array([1, 2], np.int64))])],
                    to=TensorProto.FLOAT)
        mask = b.op("Mul", [b.op("Sub", [b.const(np.float32(1.0)), mask]), b.const(np.float32(-10000.0))],
                    "extended_mask")
        for i in range(LAYERS):
            x = self.ffn(self.attention(x, mask, i), i)
        b.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="last_hidden"))
        # Mean pooling over the kept tokens.
        keep = b.op("Cast", [b.op("Unsqueeze", ["attention_mask", b.const(np.array([-1], np.int64))])],
                    to=TensorProto.FLOAT)
        total = b.op("ReduceSum", [b.op("Mul", [x, keep]), b.const(np.array([1], np.int64))], keepdims=0)
        count = b.op("ReduceSum", [keep, b.const(np.array([1], np.int64))], keepdims=0)
        count = b.op("Max", [count, b.const(np.float32(1e-9))])
        b.nodes.append(helper.make_node("Div", [total, count], ["sentence_embedding"], name="mean_pool"))
        # Last-token pooling: GatherND at (b, kept − 1).
        kept = b.op("ReduceSum", ["attention_mask", b.const(np.array([1], np.int64))], keepdims=1)
        last = b.op("Sub", [kept, b.const(np.int64(1))])
        batch = b.op("Gather", [b.op("Shape", ["input_ids"]), b.const(np.int64(0))], axis=0)
        rows = b.op("Unsqueeze", [b.op("Range", [b.const(np.int64(0)), batch, b.const(np.int64(1))]),
                                  b.const(np.array([1], np.int64))])
        indices = b.op("Concat", [rows, last], axis=1)
        b.nodes.append(helper.make_node("GatherND", [x, indices], ["last_token"], name="last_token_pool"))

        dims = ["batch", "sequence"]
        inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims)
                  for n in ("input_ids", "attention_mask", "token_type_ids")]
        outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [HIDDEN]),
                   helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", HIDDEN]),
                   helper.make_tensor_value_info("last_token", TensorProto.FLOAT, ["batch", HIDDEN])]
        graph = helper.make_graph(b.nodes, "bert_encoder", inputs, outputs, b.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                                  producer_name="qlower tools/real_models/make_bert.py")
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=True)
        return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--int8-weights", action="store_true")
    args = ap.parse_args()
    onnx.save(Encoder(args.int8_weights).build(), args.out)


if __name__ == "__main__":
    main()
