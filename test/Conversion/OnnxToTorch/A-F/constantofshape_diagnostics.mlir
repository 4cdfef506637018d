// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'fill_two' (ConstantOfShape): attribute 'value' must hold one element, but has 2
func.func @two_values(%arg0: !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ConstantOfShape", torch.onnx.value = dense<[1.0, 2.0]> : tensor<2xf32>} : (!torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?],f32> loc("fill_two")
  return %0 : !torch.vtensor<[?,?],f32>
}

// -----

// CHECK: error: node 'fill_len' (ConstantOfShape): input 'input' is computed at run time and its length is not known (!torch.vtensor<[?],si64>); a 1-D tensor of known length is needed
func.func @unknown_length(%arg0: !torch.vtensor<[?],si64>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ConstantOfShape"} : (!torch.vtensor<[?],si64>) -> !torch.vtensor<*,f32> loc("fill_len")
  return %0 : !torch.vtensor<*,f32>
}

// -----

// CHECK: error: node 'fill_float' (ConstantOfShape): input 'input' must be an integer tensor, but is !torch.vtensor<[2],f32>
func.func @float_shape(%arg0: !torch.vtensor<[2],f32>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ConstantOfShape"} : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[?,?],f32> loc("fill_float")
  return %0 : !torch.vtensor<[?,?],f32>
}
