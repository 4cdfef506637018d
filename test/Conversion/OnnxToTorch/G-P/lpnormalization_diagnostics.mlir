// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'lp_p3' (LpNormalization): attribute 'p' is 3, expected 1 or 2
func.func @lp_p3(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 22 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.LpNormalization", torch.onnx.p = 3 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> loc("lp_p3")
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

// CHECK: error: node 'lp_axis' (LpNormalization): attribute 'axis' is 2, outside the range of the input's rank 2
func.func @lp_axis(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 22 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.LpNormalization", torch.onnx.axis = 2 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> loc("lp_axis")
  return %0 : !torch.vtensor<[3,4],f32>
}
