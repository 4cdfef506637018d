// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'dq_axis' (DequantizeLinear): axis 3 is out of range for x of rank 3
func.func @axis_out_of_range(%x: !torch.vtensor<[2,3,4],si8>, %s: !torch.vtensor<[3],f32>, %z: !torch.vtensor<[3],si8>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.DequantizeLinear", torch.onnx.axis = 3 : si64} : (!torch.vtensor<[2,3,4],si8>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si8>) -> !torch.vtensor<[2,3,4],f32> loc("dq_axis")
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// CHECK: error: node 'dq_zp' (DequantizeLinear): x_zero_point is UINT8 but x is INT8
func.func @zero_point_dtype(%x: !torch.vtensor<[4],si8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.DequantizeLinear"} : (!torch.vtensor<[4],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[4],f32> loc("dq_zp")
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// CHECK: error: node 'dq_scale' (DequantizeLinear): x_scale must be positive, but is 0
func.func @zero_scale(%x: !torch.vtensor<[4],ui8>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<0.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %0 = "torch.operator"(%x, %s) {name = "onnx.DequantizeLinear"} : (!torch.vtensor<[4],ui8>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f32> loc("dq_scale")
  return %0 : !torch.vtensor<[4],f32>
}
