// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'lse_int' (ReduceLogSumExp): input 'data' is !torch.vtensor<[3],si32>: ReduceLogSumExp is lowered for float inputs only
func.func @log_sum_exp_of_ints(%arg0: !torch.vtensor<[3],si32>) -> !torch.vtensor<[1],si32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ReduceLogSumExp"} : (!torch.vtensor<[3],si32>) -> !torch.vtensor<[1],si32> loc("lse_int")
  return %0 : !torch.vtensor<[1],si32>
}

// -----

// CHECK: error: node 'ls_axis' (ReduceLogSum): an entry of attribute 'axes' is 4, out of range for rank 1
func.func @log_sum_axis_out_of_range(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[1],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ReduceLogSum", torch.onnx.axes = [4]} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[1],f32> loc("ls_axis")
  return %0 : !torch.vtensor<[1],f32>
}
