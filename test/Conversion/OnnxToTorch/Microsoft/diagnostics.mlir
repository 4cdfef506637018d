// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'sm' (QLinearSoftmax): missing required attribute 'opset'
func.func @softmax_without_opset(%x: !torch.vtensor<[2,3],ui8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3],ui8> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%x, %s, %z, %s, %z) {name = "com.microsoft.QLinearSoftmax"} : (!torch.vtensor<[2,3],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3],ui8> loc("sm")
  return %0 : !torch.vtensor<[2,3],ui8>
}

// -----

// CHECK: error: node 'sm12' (QLinearSoftmax): attribute 'axis' is 0 with opset 12: normalizing over several dimensions (Softmax before opset 13) is not supported, only over the last
func.func @softmax_coerced(%x: !torch.vtensor<[2,3],ui8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3],ui8> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%x, %s, %z, %s, %z) {name = "com.microsoft.QLinearSoftmax", torch.onnx.axis = 0 : si64, torch.onnx.opset = 12 : si64} : (!torch.vtensor<[2,3],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3],ui8> loc("sm12")
  return %0 : !torch.vtensor<[2,3],ui8>
}

// -----

// CHECK: error: node 'cat' (QLinearConcat): has 4 inputs; it takes Y_scale, Y_zero_point and then (X, X_scale, X_zero_point) for each input
func.func @concat_inputs(%x: !torch.vtensor<[2,3],ui8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3],ui8> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%s, %z, %x, %s) {name = "com.microsoft.QLinearConcat", torch.onnx.axis = 0 : si64} : (!torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[2,3],ui8>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,3],ui8> loc("cat")
  return %0 : !torch.vtensor<[2,3],ui8>
}

// -----

// CHECK: error: node 'add' (QLinearAdd): B_zero_point is INT8 but B is UINT8
func.func @add_zero_point_type(%a: !torch.vtensor<[2],ui8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>, %zi: !torch.vtensor<[],si8>) -> !torch.vtensor<[2],ui8> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%a, %s, %z, %a, %s, %zi, %s, %z) {name = "com.microsoft.QLinearAdd"} : (!torch.vtensor<[2],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[2],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[2],ui8> loc("add")
  return %0 : !torch.vtensor<[2],ui8>
}

// -----

// CHECK: error: node 'gemm' (QGemm): y_zero_point is given without y_scale
func.func @qgemm_zero_point_alone(%a: !torch.vtensor<[2,4],ui8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>, %b: !torch.vtensor<[4,3],ui8>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%a, %s, %z, %b, %s, %z, %none, %none, %z) {name = "com.microsoft.QGemm"} : (!torch.vtensor<[2,4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[4,3],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.none, !torch.none, !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3],f32> loc("gemm")
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// CHECK: error: node 'dqmm' (DynamicQuantizeMatMul): A must be FLOAT, but is !torch.vtensor<[2,4],ui8>
func.func @dynamic_quantize_matmul_of_integers(%a: !torch.vtensor<[2,4],ui8>, %b: !torch.vtensor<[4,3],ui8>, %s: !torch.vtensor<[],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%a, %b, %s) {name = "com.microsoft.DynamicQuantizeMatMul"} : (!torch.vtensor<[2,4],ui8>, !torch.vtensor<[4,3],ui8>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,3],f32> loc("dqmm")
  return %0 : !torch.vtensor<[2,3],f32>
}
