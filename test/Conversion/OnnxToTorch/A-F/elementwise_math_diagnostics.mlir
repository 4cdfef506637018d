// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'mod_flag' (Mod): attribute 'fmod' is 2, expected 0 or 1
func.func @mod_bad_flag(%arg0: !torch.vtensor<[6],si32>, %arg1: !torch.vtensor<[6],si32>) -> !torch.vtensor<[6],si32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Mod", torch.onnx.fmod = 2 : si64} : (!torch.vtensor<[6],si32>, !torch.vtensor<[6],si32>) -> !torch.vtensor<[6],si32> loc("mod_flag")
  return %0 : !torch.vtensor<[6],si32>
}

// -----

// CHECK: error: node 'mod_types' (Mod): A is INT32 but B is INT64
func.func @mod_mixed_types(%arg0: !torch.vtensor<[6],si32>, %arg1: !torch.vtensor<[6],si64>) -> !torch.vtensor<[6],si32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Mod"} : (!torch.vtensor<[6],si32>, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6],si32> loc("mod_types")
  return %0 : !torch.vtensor<[6],si32>
}

// -----

// CHECK: error: node 'gelu_fast' (Gelu): attribute 'approximate' is 'fast', expected 'none' or 'tanh'
func.func @gelu_unknown_approximation(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 20 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Gelu", torch.onnx.approximate = "fast"} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> loc("gelu_fast")
  return %0 : !torch.vtensor<[3],f32>
}
