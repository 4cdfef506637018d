// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'am_axis' (ArgMax): attribute 'axis' is 2, out of range for rank 2
func.func @argmax_axis_out_of_range(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<*,si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ArgMax", torch.onnx.axis = 2 : si64} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<*,si64> loc("am_axis")
  return %0 : !torch.vtensor<*,si64>
}

// -----

// CHECK: error: node 'topk_k' (TopK): input K is !torch.vtensor<[2],si64>, expected a tensor of one element
func.func @top_k_two_ks(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[2],si64>) -> (!torch.vtensor<*,f32>, !torch.vtensor<*,si64>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0:2 = "torch.operator"(%arg0, %arg1) {name = "onnx.TopK"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[2],si64>) -> (!torch.vtensor<*,f32>, !torch.vtensor<*,si64>) loc("topk_k")
  return %0#0, %0#1 : !torch.vtensor<*,f32>, !torch.vtensor<*,si64>
}

// -----

// CHECK: error: node 'topk_rank' (TopK): input X has unknown rank, so attribute 'axis' cannot be resolved
func.func @top_k_unranked(%arg0: !torch.vtensor<*,f32>, %arg1: !torch.vtensor<[1],si64>) -> (!torch.vtensor<*,f32>, !torch.vtensor<*,si64>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0:2 = "torch.operator"(%arg0, %arg1) {name = "onnx.TopK"} : (!torch.vtensor<*,f32>, !torch.vtensor<[1],si64>) -> (!torch.vtensor<*,f32>, !torch.vtensor<*,si64>) loc("topk_rank")
  return %0#0, %0#1 : !torch.vtensor<*,f32>, !torch.vtensor<*,si64>
}
