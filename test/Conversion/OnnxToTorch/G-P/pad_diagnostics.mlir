// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'pad_reflect' (Pad): reflect padding of 3 and 0 does not fit dimension 1 of size 3
func.func @reflect_too_wide(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,6],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %p = "torch.vtensor.literal"() {value = dense<[0, 3, 0, 0]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
  %0 = "torch.operator"(%arg0, %p) {name = "onnx.Pad", torch.onnx.mode = "reflect"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[2,6],f32> loc("pad_reflect")
  return %0 : !torch.vtensor<[2,6],f32>
}

// -----

// CHECK: error: node 'pad_dynamic' (Pad): input 'pads' is computed at run time and its length is not known (!torch.vtensor<[?],si64>); a 1-D tensor of known length is needed
func.func @runtime_pads(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Pad", torch.onnx.mode = "reflect"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,?],f32> loc("pad_dynamic")
  return %0 : !torch.vtensor<[?,?],f32>
}

// -----

// CHECK: error: node 'pad_wrap' (Pad): attribute 'mode' is 'wrap'; expected constant, reflect, edge
func.func @wrap_before_19(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,5],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %p = "torch.vtensor.literal"() {value = dense<[0, 1, 0, 1]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
  %0 = "torch.operator"(%arg0, %p) {name = "onnx.Pad", torch.onnx.mode = "wrap"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[2,5],f32> loc("pad_wrap")
  return %0 : !torch.vtensor<[2,5],f32>
}

// -----

// CHECK: error: node 'pad_count' (Pad): pads has 2 entries, expected 4 (two per padded axis)
func.func @pads_length(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %p = "torch.vtensor.literal"() {value = dense<[1, 1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %p) {name = "onnx.Pad"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[2,5],f32> loc("pad_count")
  return %0 : !torch.vtensor<[2,5],f32>
}
