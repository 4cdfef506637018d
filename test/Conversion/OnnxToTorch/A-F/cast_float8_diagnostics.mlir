// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// FLOAT8E8M0 (a scale format, not one of the four float8 formats) is refused by name.
// CHECK: error: node 'cast_e8m0' (Cast): attribute 'to': data type FLOAT8E8M0 (24) is not supported
func.func @e8m0(%x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 24 : si64} {
  %0 = "torch.operator"(%x) {name = "onnx.Cast", torch.onnx.to = 24 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> loc("cast_e8m0")
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// CHECK: error: node 'cast_f8_out' (Cast): output is FLOAT8E5M2 but attribute 'to' says FLOAT8E4M3FN
func.func @result_type(%x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f8E5M2> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x) {name = "onnx.Cast", torch.onnx.to = 17 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f8E5M2> loc("cast_f8_out")
  return %0 : !torch.vtensor<[3],f8E5M2>
}
