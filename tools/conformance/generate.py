#!/usr/bin/env python3
"""Writes ONNX's backend node test cases for the op families qlower lowers.

    generate.py OUTDIR

For every selected case of `onnx.backend.test.case.node.collect_testcases(None)`:

    OUTDIR/<case>/model.onnx
    OUTDIR/<case>/test_data_set_<k>/input_<j>.pb    TensorProto named after graph input j
    OUTDIR/<case>/test_data_set_<k>/output_<j>.pb   TensorProto named after graph output j

and OUTDIR/cases.json, written last (so a complete OUTDIR has one):

    {"onnx_version": "...", "families": [...], "cases": [
        {"name": ..., "family": ..., "rtol": ..., "atol": ..., "inputs": [names], "outputs": [names],
         "data_sets": K, "ops": [op types]}, ...],
     "not_written": [{"name": ..., "family": ..., "reason": ...}, ...]}

Cases whose data are not plain tensors (sequences, optionals) are listed under
`not_written`: `qlower run` binds tensors only. This script is a test oracle; the product
never runs it.
"""

import json
import os
import sys
import warnings

# The op families, as patterns on the case name after `test_`: `x*` is a prefix; a bare
# `x` is the op itself and its variants (`x`, `x_...`). A single-node case whose op type
# belongs to a family is selected too (test_basic_conv_*, test_edge_pad, ...).
FAMILIES = [
    "qlinearconv", "qlinearmatmul*", "quantizelinear*", "dequantizelinear*",
    "dynamicquantizelinear*", "matmulinteger", "convinteger*", "conv*", "convtranspose*",
    "gemm*", "matmul*", "relu", "leakyrelu", "add*", "sub*", "mul*", "div*", "clip*",
    "sigmoid*", "hardsigmoid*", "hardswish*", "tanh*", "softmax*", "maxpool*",
    "averagepool*", "globalaveragepool*", "flatten*", "reshape*", "transpose*", "concat*",
    "split*", "slice*", "squeeze*", "unsqueeze*", "cast*", "identity*", "constant*",
    "shape*", "gather*", "batchnorm*", "pad*", "resize*", "expand*", "range*", "tile*",
    "lstm*", "gru*",
    # The transformer op set (issue 15).
    "layer_normalization*", "gelu*", "erf*", "sqrt*", "pow*", "reciprocal*", "exp",
    "log", "neg", "abs*", "sign*", "floor*", "ceil*", "round*", "mod*",
    "reduce_sum*", "reduce_mean*", "reduce_max*", "reduce_min*", "reduce_prod*",
    "reduce_l1*", "reduce_l2*", "reduce_sum_square*",
    "where*", "equal*", "less*", "greater*", "not*", "and*", "or*", "xor*",
    "min*", "max", "sum*", "argmax*", "argmin*", "top_k*", "cumsum*", "tril*", "triu*",
    "gather_elements*", "scatternd*", "einsum*",
    # Layout and detection ops (issue 16).
    "depthtospace*", "spacetodepth*", "nonzero*", "nonmaxsuppression*",
    # Activations, trigonometry and normalizations (issue 16).
    "mish*", "softplus*", "softsign*", "elu", "selu*", "celu*", "thresholdedrelu*",
    "prelu*", "cos*", "sin*", "tan*", "acos*", "asin*", "atan*", "isnan*", "isinf*",
    "instancenorm*", "group_normalization*", "dropout*", "size", "lrn*", "mvn*",
    "reduce_log_sum*", "shrink*", "swish*", "lpnormalization*",
    # ONNX's own attention ops (issue 32).
    "attention*", "rotary_embedding*", "rms_normalization*",
    # Control flow: If (test_if_seq and test_if_opt return a sequence and an optional).
    "if",
]

# Lower-cased op types of the families, for single-node cases named otherwise.
FAMILY_OPS = {f.rstrip("*") for f in FAMILIES} | {"batchnormalization", "layernormalization"}


def family_of(case):
    """The family a case belongs to (the longest matching pattern), or None."""
    name = case.name[len("test_"):] if case.name.startswith("test_") else case.name
    best = None
    for family in FAMILIES:
        stem = family.rstrip("*")
        if family.endswith("*"):
            hit = name.startswith(stem)
        else:
            hit = name == stem or name.startswith(stem + "_")
        if hit and (best is None or len(stem) > len(best)):
            best = stem
    if best is None:
        nodes = case.model.graph.node
        if len(nodes) == 1 and nodes[0].op_type.lower() in FAMILY_OPS:
            best = nodes[0].op_type.lower()
    return best


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: generate.py OUTDIR", file=sys.stderr)
        return 2
    out = sys.argv[1]

    warnings.filterwarnings("ignore")
    import numpy as np
    import onnx
    from onnx import numpy_helper
    from onnx.backend.test.case.node import collect_testcases

    def is_tensor(value) -> bool:
        return isinstance(value, (np.ndarray, np.generic, onnx.TensorProto))

    def to_proto(value, name: str):
        # Types numpy lacks (bfloat16, float8, int4, ...) come as TensorProtos already.
        if isinstance(value, onnx.TensorProto):
            proto = onnx.TensorProto()
            proto.CopyFrom(value)
            proto.name = name
            return proto
        return numpy_helper.from_array(np.asarray(value), name)

    os.makedirs(out, exist_ok=True)
    cases = []
    not_written = []
    for case in collect_testcases(None):
        family = family_of(case)
        if family is None:
            continue
        graph = case.model.graph
        inputs = [i.name for i in graph.input]
        outputs = [o.name for o in graph.output]
        reason = None
        for k, (ins, outs) in enumerate(case.data_sets):
            if len(ins) != len(inputs) or len(outs) != len(outputs):
                reason = f"data set {k} has {len(ins)} inputs / {len(outs)} outputs, " \
                         f"the graph {len(inputs)} / {len(outputs)}"
            elif not all(is_tensor(a) for a in list(ins) + list(outs)):
                reason = f"data set {k} holds a sequence or optional, not tensors"
            if reason:
                break
        if reason:
            not_written.append({"name": case.name, "family": family, "reason": reason})
            continue

        case_dir = os.path.join(out, case.name)
        os.makedirs(case_dir, exist_ok=True)
        onnx.save(case.model, os.path.join(case_dir, "model.onnx"))
        for k, (ins, outs) in enumerate(case.data_sets):
            data_dir = os.path.join(case_dir, f"test_data_set_{k}")
            os.makedirs(data_dir, exist_ok=True)
            for kind, names, arrays in (("input", inputs, ins), ("output", outputs, outs)):
                for j, (name, arr) in enumerate(zip(names, arrays)):
                    proto = to_proto(arr, name)
                    with open(os.path.join(data_dir, f"{kind}_{j}.pb"), "wb") as f:
                        f.write(proto.SerializeToString())
        cases.append({
            "name": case.name,
            "family": family,
            "rtol": float(case.rtol),
            "atol": float(case.atol),
            "inputs": inputs,
            "outputs": outputs,
            "data_sets": len(case.data_sets),
            "ops": sorted({n.op_type for n in graph.node}),
        })

    cases.sort(key=lambda c: c["name"])
    not_written.sort(key=lambda c: c["name"])
    index = {
        "onnx_version": onnx.__version__,
        "families": FAMILIES,
        "cases": cases,
        "not_written": not_written,
    }
    tmp = os.path.join(out, "cases.json.tmp")
    with open(tmp, "w") as f:
        json.dump(index, f, indent=1)
    os.replace(tmp, os.path.join(out, "cases.json"))
    print(f"generate.py: wrote {len(cases)} cases to {out} "
          f"({len(not_written)} selected cases not written)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
