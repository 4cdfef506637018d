// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'perm_short' (Transpose): attribute 'perm' has 2 entries but data has rank 3
func.func @short(%arg0: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[3,2,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Transpose", torch.onnx.perm = [1 : si64, 0 : si64]} : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[3,2,4],f32> loc("perm_short")
  return %0 : !torch.vtensor<[3,2,4],f32>
}

// -----

// CHECK: error: node 'perm_repeat' (Transpose): attribute 'perm' names axis 1 more than once
func.func @repeat(%arg0: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[3,3,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Transpose", torch.onnx.perm = [1 : si64, 1 : si64, 2 : si64]} : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[3,3,4],f32> loc("perm_repeat")
  return %0 : !torch.vtensor<[3,3,4],f32>
}
