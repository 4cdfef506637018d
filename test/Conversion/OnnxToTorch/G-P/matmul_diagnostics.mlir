// Malformed MatMul ops are compile errors naming the node and the input.
// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'matmul_inner' (MatMul): A is !torch.vtensor<[2,3,4],f32> and B is !torch.vtensor<[5,6],f32>: the contracted dimensions 4 and 5 differ
func.func @matmul_inner(%a: !torch.vtensor<[2,3,4],f32>, %b: !torch.vtensor<[5,6],f32>) -> !torch.vtensor<[2,3,6],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%a, %b) {name = "onnx.MatMul"} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[5,6],f32>) -> !torch.vtensor<[2,3,6],f32> loc("matmul_inner")
  return %0 : !torch.vtensor<[2,3,6],f32>
}

// -----

// CHECK: error: node 'matmul_types' (MatMul): A is !torch.vtensor<[3,4],f32> and B is !torch.vtensor<[4,5],f16>: they must have the same element type
func.func @matmul_types(%a: !torch.vtensor<[3,4],f32>, %b: !torch.vtensor<[4,5],f16>) -> !torch.vtensor<[3,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%a, %b) {name = "onnx.MatMul"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4,5],f16>) -> !torch.vtensor<[3,5],f32> loc("matmul_types")
  return %0 : !torch.vtensor<[3,5],f32>
}

// -----

// CHECK: error: node 'matmul_scalar' (MatMul): B is a scalar, but matrix multiplication needs rank 1 or more
func.func @matmul_scalar(%a: !torch.vtensor<[3,4],f32>, %b: !torch.vtensor<[],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%a, %b) {name = "onnx.MatMul"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[3,4],f32> loc("matmul_scalar")
  return %0 : !torch.vtensor<[3,4],f32>
}
