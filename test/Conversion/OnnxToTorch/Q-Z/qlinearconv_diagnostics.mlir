// Malformed QLinearConv ops are compile errors naming the node and the input.
// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'conv_bad_wzp' (QLinearConv): w_zero_point has 3 elements but w_scale has 4
func.func @wzp_length(%x: !torch.vtensor<[1,3,8,8],ui8>, %w: !torch.vtensor<[4,3,3,3],si8>, %ws: !torch.vtensor<[4],f32>, %wz: !torch.vtensor<[3],si8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,4,6,6],ui8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s, %z, %w, %ws, %wz, %s, %z) {name = "onnx.QLinearConv"} : (!torch.vtensor<[1,3,8,8],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[4,3,3,3],si8>, !torch.vtensor<[4],f32>, !torch.vtensor<[3],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,4,6,6],ui8> loc("conv_bad_wzp")
  return %0 : !torch.vtensor<[1,4,6,6],ui8>
}

// -----

// CHECK: error: node 'conv_scale_len' (QLinearConv): w_scale has 3 elements, expected 4 (dimension 0 of w)
func.func @wscale_length(%x: !torch.vtensor<[1,3,8,8],ui8>, %w: !torch.vtensor<[4,3,3,3],si8>, %ws: !torch.vtensor<[3],f32>, %wz: !torch.vtensor<[3],si8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,4,6,6],ui8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s, %z, %w, %ws, %wz, %s, %z) {name = "onnx.QLinearConv"} : (!torch.vtensor<[1,3,8,8],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[4,3,3,3],si8>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,4,6,6],ui8> loc("conv_scale_len")
  return %0 : !torch.vtensor<[1,4,6,6],ui8>
}

// -----

// CHECK: error: node 'conv_zp_type' (QLinearConv): x_zero_point is INT8 but x is UINT8
func.func @zp_dtype(%x: !torch.vtensor<[1,3,8,8],ui8>, %w: !torch.vtensor<[4,3,3,3],si8>, %s: !torch.vtensor<[],f32>, %xz: !torch.vtensor<[],si8>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,4,6,6],ui8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s, %xz, %w, %s, %xz, %s, %z) {name = "onnx.QLinearConv"} : (!torch.vtensor<[1,3,8,8],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[4,3,3,3],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,4,6,6],ui8> loc("conv_zp_type")
  return %0 : !torch.vtensor<[1,4,6,6],ui8>
}

// -----

// CHECK: error: node 'conv_neg_scale' (QLinearConv): w_scale must be positive, but element 2 is -0.5
func.func @negative_scale(%x: !torch.vtensor<[1,3,8,8],ui8>, %w: !torch.vtensor<[3,3,3,3],si8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,3,6,6],ui8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %ws = "torch.vtensor.literal"() {value = dense<[1.0, 0.5, -0.5]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
  %wz = "torch.vtensor.literal"() {value = dense<0> : tensor<3xsi8>} : () -> !torch.vtensor<[3],si8>
  %0 = "torch.operator"(%x, %s, %z, %w, %ws, %wz, %s, %z) {name = "onnx.QLinearConv"} : (!torch.vtensor<[1,3,8,8],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[3,3,3,3],si8>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,3,6,6],ui8> loc("conv_neg_scale")
  return %0 : !torch.vtensor<[1,3,6,6],ui8>
}

// -----

// CHECK: error: node 'conv_missing' (QLinearConv): missing required input y_zero_point
func.func @missing_input(%x: !torch.vtensor<[1,3,8,8],ui8>, %w: !torch.vtensor<[4,3,3,3],si8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>, %wz: !torch.vtensor<[],si8>) -> !torch.vtensor<[1,4,6,6],ui8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s, %z, %w, %s, %wz, %s) {name = "onnx.QLinearConv"} : (!torch.vtensor<[1,3,8,8],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[4,3,3,3],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>) -> !torch.vtensor<[1,4,6,6],ui8> loc("conv_missing")
  return %0 : !torch.vtensor<[1,4,6,6],ui8>
}
