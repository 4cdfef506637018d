// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'q_f8_type' (QuantizeLinear): y is FLOAT8E5M2 but y_zero_point is FLOAT8E4M3FN
func.func @zero_point_type(%x: !torch.vtensor<[4],f32>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],f8E4M3FN>) -> !torch.vtensor<[4],f8E5M2> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear"} : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f8E4M3FN>) -> !torch.vtensor<[4],f8E5M2> loc("q_f8_type")
  return %0 : !torch.vtensor<[4],f8E5M2>
}

// -----

// CHECK: error: node 'q_f8_scale' (QuantizeLinear): y_scale must be positive, but is -1
func.func @negative_scale(%x: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f8E4M3FN> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<-1.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %0 = "torch.operator"(%x, %s) {name = "onnx.QuantizeLinear", torch.onnx.output_dtype = 17 : si64} : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f8E4M3FN> loc("q_f8_scale")
  return %0 : !torch.vtensor<[4],f8E4M3FN>
}

// -----

// CHECK: error: node 'q_e8m0' (QuantizeLinear): output_dtype: data type FLOAT8E8M0 (24) is not supported
func.func @e8m0_refused(%x: !torch.vtensor<[4],f32>, %s: !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s) {name = "onnx.QuantizeLinear", torch.onnx.output_dtype = 24 : si64} : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f32> loc("q_e8m0")
  return %0 : !torch.vtensor<[4],f32>
}
