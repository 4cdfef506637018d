// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'es_terms' (Einsum): attribute 'equation' is 'ij,jk->ik', with 2 operand terms, but the node has 1 inputs
func.func @einsum_term_count(%arg0: !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[2,2],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Einsum", torch.onnx.equation = "ij,jk->ik"} : (!torch.vtensor<[2,2],f32>) -> !torch.vtensor<[2,2],f32> loc("es_terms")
  return %0 : !torch.vtensor<[2,2],f32>
}

// -----

// CHECK: error: node 'es_eq' (Einsum): missing required attribute 'equation'
func.func @einsum_without_equation(%arg0: !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[2,2],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Einsum"} : (!torch.vtensor<[2,2],f32>) -> !torch.vtensor<[2,2],f32> loc("es_eq")
  return %0 : !torch.vtensor<[2,2],f32>
}

// -----

// CHECK: error: node 'es_types' (Einsum): input 0 is FLOAT but input 1 is DOUBLE
func.func @einsum_mixed_types(%arg0: !torch.vtensor<[2,2],f32>, %arg1: !torch.vtensor<[2,2],f64>) -> !torch.vtensor<[2,2],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Einsum", torch.onnx.equation = "ij,jk->ik"} : (!torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f64>) -> !torch.vtensor<[2,2],f32> loc("es_types")
  return %0 : !torch.vtensor<[2,2],f32>
}
