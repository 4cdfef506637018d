// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'q_result' (QuantizeLinear): y is INT4 but y_zero_point is UINT4
func.func @result_dtype(%x: !torch.vtensor<[4],f32>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui4>) -> !torch.vtensor<[4],si4> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear"} : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui4>) -> !torch.vtensor<[4],si4> loc("q_result")
  return %0 : !torch.vtensor<[4],si4>
}

// -----

// CHECK: error: node 'q_output_dtype' (QuantizeLinear): y_zero_point is UINT4 but output_dtype is INT4
func.func @output_dtype(%x: !torch.vtensor<[4],f32>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui4>) -> !torch.vtensor<[4],ui4> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear", torch.onnx.output_dtype = 22 : si64} : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui4>) -> !torch.vtensor<[4],ui4> loc("q_output_dtype")
  return %0 : !torch.vtensor<[4],ui4>
}

// -----

// CHECK: error: node 'q_x' (QuantizeLinear): x must be a float tensor, but is !torch.vtensor<[4],si4>
func.func @integer_x(%x: !torch.vtensor<[4],si4>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],si4>) -> !torch.vtensor<[4],si4> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear"} : (!torch.vtensor<[4],si4>, !torch.vtensor<[],f32>, !torch.vtensor<[],si4>) -> !torch.vtensor<[4],si4> loc("q_x")
  return %0 : !torch.vtensor<[4],si4>
}
