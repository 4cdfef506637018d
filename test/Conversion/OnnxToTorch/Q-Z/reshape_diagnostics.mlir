// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'reshape_count' (Reshape): data has 24 elements, which cannot be reshaped to [5, -1]
func.func @element_count(%arg0: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[5,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[5, -1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %s) {name = "onnx.Reshape"} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[5,?],f32> loc("reshape_count")
  return %0 : !torch.vtensor<[5,?],f32>
}

// -----

// CHECK: error: node 'reshape_two' (Reshape): shape [-1, -1] has more than one -1
func.func @two_inferred(%arg0: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<-1> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %s) {name = "onnx.Reshape"} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?],f32> loc("reshape_two")
  return %0 : !torch.vtensor<[?,?],f32>
}

// -----

// CHECK: error: node 'reshape_rank' (Reshape): shape is not a constant and its length is not known (!torch.vtensor<[?],si64>); the result rank cannot be determined
func.func @unknown_length(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[?],si64>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Reshape"} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[?],si64>) -> !torch.vtensor<*,f32> loc("reshape_rank")
  return %0 : !torch.vtensor<*,f32>
}
