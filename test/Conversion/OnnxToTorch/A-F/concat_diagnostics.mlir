// Concat inputs that cannot be joined are compile errors naming the input.
// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'cat_mismatch' (Concat): inputs[1] has size 5 in dimension 0 but inputs[0] has 2
func.func @mismatch(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[5,4],f32>) -> !torch.vtensor<[?,7],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Concat", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[5,4],f32>) -> !torch.vtensor<[?,7],f32> loc("cat_mismatch")
  return %0 : !torch.vtensor<[?,7],f32>
}

// -----

// CHECK: error: node 'cat_axis' (Concat): attribute 'axis' is 2, out of range for rank 2
func.func @axis(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,7],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Concat", torch.onnx.axis = 2 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,7],f32> loc("cat_axis")
  return %0 : !torch.vtensor<[2,7],f32>
}
