// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'dq_zp' (DequantizeLinear): x_zero_point is UINT4 but x is INT4
func.func @zero_point_dtype(%x: !torch.vtensor<[4],si4>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui4>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.DequantizeLinear"} : (!torch.vtensor<[4],si4>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui4>) -> !torch.vtensor<[4],f32> loc("dq_zp")
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// CHECK: error: node 'dq_blocked_zp' (DequantizeLinear): x_zero_point is INT8 but x is UINT4
func.func @blocked_zero_point_dtype(%x: !torch.vtensor<[2,4],ui4>, %s: !torch.vtensor<[2,2],f32>, %z: !torch.vtensor<[2,2],si8>) -> !torch.vtensor<[2,4],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.DequantizeLinear", torch.onnx.axis = 1 : si64, torch.onnx.block_size = 2 : si64} : (!torch.vtensor<[2,4],ui4>, !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],si8>) -> !torch.vtensor<[2,4],f32> loc("dq_blocked_zp")
  return %0 : !torch.vtensor<[2,4],f32>
}

// -----

// CHECK: error: node 'dq_axis_len' (DequantizeLinear): x_scale has 2 elements, expected 3 (dimension 1 of x)
func.func @per_axis_length(%x: !torch.vtensor<[2,3],ui4>, %s: !torch.vtensor<[2],f32>, %z: !torch.vtensor<[2],ui4>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.DequantizeLinear", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,3],ui4>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],ui4>) -> !torch.vtensor<[2,3],f32> loc("dq_axis_len")
  return %0 : !torch.vtensor<[2,3],f32>
}
