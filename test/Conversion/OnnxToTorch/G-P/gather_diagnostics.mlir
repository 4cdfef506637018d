// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'gather_range' (Gather): indices holds -6, out of range for dimension 0 of data (size 5)
func.func @out_of_range(%arg0: !torch.vtensor<[5,4],f32>) -> !torch.vtensor<[2,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %i = "torch.vtensor.literal"() {value = dense<[1, -6]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %i) {name = "onnx.Gather"} : (!torch.vtensor<[5,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[2,4],f32> loc("gather_range")
  return %0 : !torch.vtensor<[2,4],f32>
}

// -----

// CHECK: error: node 'gather_axis' (Gather): attribute 'axis' is -3, out of range for rank 2
func.func @bad_axis(%arg0: !torch.vtensor<[5,4],f32>, %arg1: !torch.vtensor<[2],si64>) -> !torch.vtensor<[2,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Gather", torch.onnx.axis = -3 : si64} : (!torch.vtensor<[5,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[2,4],f32> loc("gather_axis")
  return %0 : !torch.vtensor<[2,4],f32>
}
