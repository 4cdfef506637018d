// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'ln_axis' (LayerNormalization): attribute 'axis' is 3, outside the range of X's rank 3
func.func @axis_out_of_range(%arg0: !torch.vtensor<[2,5,8],f32>, %arg1: !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,5,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.LayerNormalization", torch.onnx.axis = 3 : si64} : (!torch.vtensor<[2,5,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,5,8],f32> loc("ln_axis")
  return %0 : !torch.vtensor<[2,5,8],f32>
}

// -----

// CHECK: error: node 'ln_scale' (LayerNormalization): input Scale is !torch.vtensor<[5],f32>, which does not broadcast to the normalized shape [8]
func.func @scale_does_not_fit(%arg0: !torch.vtensor<[2,5,8],f32>, %arg1: !torch.vtensor<[5],f32>) -> !torch.vtensor<[2,5,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.LayerNormalization"} : (!torch.vtensor<[2,5,8],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[2,5,8],f32> loc("ln_scale")
  return %0 : !torch.vtensor<[2,5,8],f32>
}

// -----

// CHECK: error: node 'ln_bias' (LayerNormalization): input B is !torch.vtensor<[2,8],f32>, which does not broadcast to the normalized shape [8]
func.func @bias_has_too_many_dims(%arg0: !torch.vtensor<[2,5,8],f32>, %arg1: !torch.vtensor<[8],f32>, %arg2: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,5,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.LayerNormalization"} : (!torch.vtensor<[2,5,8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,5,8],f32> loc("ln_bias")
  return %0 : !torch.vtensor<[2,5,8],f32>
}

// -----

// CHECK: error: node 'ln_unranked' (LayerNormalization): input X has unknown rank, so attribute 'axis' cannot be resolved
func.func @unranked(%arg0: !torch.vtensor<*,f32>, %arg1: !torch.vtensor<[8],f32>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.LayerNormalization"} : (!torch.vtensor<*,f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<*,f32> loc("ln_unranked")
  return %0 : !torch.vtensor<*,f32>
}
