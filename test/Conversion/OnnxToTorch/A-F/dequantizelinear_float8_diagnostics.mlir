// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'dq_f8_zp' (DequantizeLinear): x_zero_point is FLOAT8E5M2 but x is FLOAT8E4M3FN
func.func @zero_point_type(%x: !torch.vtensor<[4],f8E4M3FN>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],f8E5M2>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.DequantizeLinear"} : (!torch.vtensor<[4],f8E4M3FN>, !torch.vtensor<[],f32>, !torch.vtensor<[],f8E5M2>) -> !torch.vtensor<[4],f32> loc("dq_f8_zp")
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// CHECK: error: node 'dq_f8_axis' (DequantizeLinear): x_scale has 3 elements, expected 4 (dimension 1 of x)
func.func @per_axis_length(%x: !torch.vtensor<[3,4],f8E5M2FNUZ>, %s: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s) {name = "onnx.DequantizeLinear"} : (!torch.vtensor<[3,4],f8E5M2FNUZ>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3,4],f32> loc("dq_f8_axis")
  return %0 : !torch.vtensor<[3,4],f32>
}
