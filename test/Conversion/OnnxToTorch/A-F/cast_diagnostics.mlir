// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// Float8 is supported now (cast_float8.mlir); an output that disagrees with 'to' is not.
// CHECK: error: node 'cast_f8' (Cast): output is FLOAT but attribute 'to' says FLOAT8E4M3FN
func.func @to_float8(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = 17 : si64} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> loc("cast_f8")
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// CHECK: error: node 'cast_i2' (Cast): attribute 'to': data type INT2 (26) is not supported
func.func @to_int2(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],si8> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = 26 : si64} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],si8> loc("cast_i2")
  return %0 : !torch.vtensor<[4],si8>
}

// -----

// CHECK: error: node 'cast_str' (Cast): attribute 'to': data type STRING (8) is not supported
func.func @to_string(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = 8 : si64} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> loc("cast_str")
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// CHECK: error: node 'cast_mismatch' (Cast): output is INT32 but attribute 'to' says INT64
func.func @result_mismatch(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],si32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = 7 : si64} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],si32> loc("cast_mismatch")
  return %0 : !torch.vtensor<[4],si32>
}

// -----

// CHECK: error: node 'cast_name' (Cast): attribute 'to' is "REAL", not an ONNX data type
func.func @bad_name(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = "REAL"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> loc("cast_name")
  return %0 : !torch.vtensor<[4],f32>
}
