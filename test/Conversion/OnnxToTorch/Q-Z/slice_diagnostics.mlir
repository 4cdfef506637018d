// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'slice_dynamic' (Slice): input 'starts' is computed at run time and its length is not known (!torch.vtensor<[?],si64>); a 1-D tensor of known length is needed
func.func @runtime_axes(%arg0: !torch.vtensor<[4,6],f32>, %arg1: !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %e = "torch.vtensor.literal"() {value = dense<3> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0 = "torch.operator"(%arg0, %arg1, %e) {name = "onnx.Slice"} : (!torch.vtensor<[4,6],f32>, !torch.vtensor<[?],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,?],f32> loc("slice_dynamic")
  return %0 : !torch.vtensor<[?,?],f32>
}

// -----

// CHECK: error: node 'slice_dynamic_negative' (Slice): steps holds -1; with starts or ends known only at run time, steps must be positive
func.func @runtime_starts_negative_step(%arg0: !torch.vtensor<[4,6],f32>, %arg1: !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,6],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %e = "torch.vtensor.literal"() {value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %a = "torch.vtensor.literal"() {value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %s = "torch.vtensor.literal"() {value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0 = "torch.operator"(%arg0, %arg1, %e, %a, %s) {name = "onnx.Slice"} : (!torch.vtensor<[4,6],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,6],f32> loc("slice_dynamic_negative")
  return %0 : !torch.vtensor<[?,6],f32>
}

// -----

// CHECK: error: node 'slice_zero_step' (Slice): steps[0] is 0
func.func @zero_step(%arg0: !torch.vtensor<[4,6],f32>) -> !torch.vtensor<[?,6],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %e = "torch.vtensor.literal"() {value = dense<3> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %a = "torch.vtensor.literal"() {value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %st = "torch.vtensor.literal"() {value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0 = "torch.operator"(%arg0, %s, %e, %a, %st) {name = "onnx.Slice"} : (!torch.vtensor<[4,6],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,6],f32> loc("slice_zero_step")
  return %0 : !torch.vtensor<[?,6],f32>
}
