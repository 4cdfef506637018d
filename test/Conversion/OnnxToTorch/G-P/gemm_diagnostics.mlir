// Malformed Gemm ops are compile errors naming the node and the input.
// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'gemm_rank' (Gemm): A must be 2-D, but is !torch.vtensor<[2,3,4],f32>
func.func @rank(%a: !torch.vtensor<[2,3,4],f32>, %b: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[3,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%a, %b) {name = "onnx.Gemm"} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[3,5],f32> loc("gemm_rank")
  return %0 : !torch.vtensor<[3,5],f32>
}

// -----

// CHECK: error: node 'gemm_inner' (Gemm): A is !torch.vtensor<[3,4],f32> (transA = 0) and B is !torch.vtensor<[5,4],f32> (transB = 0): the contracted dimensions 4 and 5 differ
func.func @inner(%a: !torch.vtensor<[3,4],f32>, %b: !torch.vtensor<[5,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%a, %b) {name = "onnx.Gemm"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[5,4],f32>) -> !torch.vtensor<[3,4],f32> loc("gemm_inner")
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

// CHECK: error: node 'gemm_c' (Gemm): C is !torch.vtensor<[3],f32>, which does not broadcast onto [M, N] = [3, 5]
func.func @c_shape(%a: !torch.vtensor<[3,4],f32>, %b: !torch.vtensor<[4,5],f32>, %c: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%a, %b, %c) {name = "onnx.Gemm"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4,5],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3,5],f32> loc("gemm_c")
  return %0 : !torch.vtensor<[3,5],f32>
}

// -----

// CHECK: error: node 'gemm_legacy' (Gemm): C is !torch.vtensor<[5],f32>, but without 'broadcast' it must be [M, N] = [3, 5]
func.func @legacy(%a: !torch.vtensor<[3,4],f32>, %b: !torch.vtensor<[4,5],f32>, %c: !torch.vtensor<[5],f32>) -> !torch.vtensor<[3,5],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%a, %b, %c) {name = "onnx.Gemm"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4,5],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[3,5],f32> loc("gemm_legacy")
  return %0 : !torch.vtensor<[3,5],f32>
}

// -----

// CHECK: error: node 'gemm_int_alpha' (Gemm): attribute 'alpha' is 0.5, but A is !torch.vtensor<[3,4],si32>: integer Gemm needs whole numbers
func.func @int_alpha(%a: !torch.vtensor<[3,4],si32>, %b: !torch.vtensor<[4,5],si32>) -> !torch.vtensor<[3,5],si32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%a, %b) {name = "onnx.Gemm", torch.onnx.alpha = 5.000000e-01 : f32} : (!torch.vtensor<[3,4],si32>, !torch.vtensor<[4,5],si32>) -> !torch.vtensor<[3,5],si32> loc("gemm_int_alpha")
  return %0 : !torch.vtensor<[3,5],si32>
}
