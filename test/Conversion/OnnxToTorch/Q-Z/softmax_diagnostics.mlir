// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'sm_axis' (Softmax): attribute 'axis' is 3, outside the range of input's rank 3
func.func @axis_out_of_range(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Softmax", torch.onnx.axis = 3 : si64} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> loc("sm_axis")
  return %0 : !torch.vtensor<[3,4,5],f32>
}

// -----

// CHECK: error: node 'lsm_unranked' (LogSoftmax): input has unknown rank, so attribute 'axis' cannot be resolved
func.func @unranked(%arg0: !torch.vtensor<*,f32>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.LogSoftmax"} : (!torch.vtensor<*,f32>) -> !torch.vtensor<*,f32> loc("lsm_unranked")
  return %0 : !torch.vtensor<*,f32>
}
