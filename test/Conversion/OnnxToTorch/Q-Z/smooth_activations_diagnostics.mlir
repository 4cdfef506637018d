// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'mish_int' (Mish): input X is !torch.vtensor<[3],si32>, expected a float tensor
func.func @mish_int(%arg0: !torch.vtensor<[3],si32>) -> !torch.vtensor<[3],si32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Mish"} : (!torch.vtensor<[3],si32>) -> !torch.vtensor<[3],si32> loc("mish_int")
  return %0 : !torch.vtensor<[3],si32>
}

// -----

// CHECK: error: node 'celu_zero' (Celu): attribute 'alpha' is 0, but Celu divides by it
func.func @celu_zero_alpha(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Celu", torch.onnx.alpha = 0.000000e+00 : f32} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> loc("celu_zero")
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// CHECK: error: node 'prelu_wide' (PRelu): input slope is !torch.vtensor<[3],f32>, which does not broadcast onto input X !torch.vtensor<[2,4],f32>
func.func @prelu_slope_does_not_broadcast(%arg0: !torch.vtensor<[2,4],f32>, %arg1: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,4],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.PRelu"} : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,4],f32> loc("prelu_wide")
  return %0 : !torch.vtensor<[2,4],f32>
}

// -----

// The slope may not grow X (broadcasting is unidirectional).
// CHECK: error: node 'prelu_grows' (PRelu): input slope is !torch.vtensor<[2,4],f32>, which does not broadcast onto input X !torch.vtensor<[4],f32>
func.func @prelu_slope_grows_x(%arg0: !torch.vtensor<[4],f32>, %arg1: !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.PRelu"} : (!torch.vtensor<[4],f32>, !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[4],f32> loc("prelu_grows")
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// CHECK: error: node 'prelu_types' (PRelu): input slope is FLOAT16 but input X is FLOAT
func.func @prelu_mixed_types(%arg0: !torch.vtensor<[4],f32>, %arg1: !torch.vtensor<[4],f16>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.PRelu"} : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f16>) -> !torch.vtensor<[4],f32> loc("prelu_types")
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// CHECK: error: node 'shrink_int' (Shrink): input input is !torch.vtensor<[3],si8>, expected a float tensor
func.func @shrink_int(%arg0: !torch.vtensor<[3],si8>) -> !torch.vtensor<[3],si8> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Shrink"} : (!torch.vtensor<[3],si8>) -> !torch.vtensor<[3],si8> loc("shrink_int")
  return %0 : !torch.vtensor<[3],si8>
}
