// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'sum_axes' (ReduceSum): input 'axes' is !torch.vtensor<[?],si64>: a run-time 'axes' needs a 1-D shape of known length
func.func @axes_of_unknown_length(%arg0: !torch.vtensor<[3,2],f32>, %arg1: !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.ReduceSum"} : (!torch.vtensor<[3,2],f32>, !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,?],f32> loc("sum_axes")
  return %0 : !torch.vtensor<[?,?],f32>
}

// -----

// CHECK: error: node 'max_range' (ReduceMax): an entry of attribute 'axes' is 2, out of range for rank 2
func.func @axis_out_of_range(%arg0: !torch.vtensor<[3,2],f32>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ReduceMax", torch.onnx.axes = [2 : si64]} : (!torch.vtensor<[3,2],f32>) -> !torch.vtensor<*,f32> loc("max_range")
  return %0 : !torch.vtensor<*,f32>
}

// -----

// CHECK: error: node 'min_twice' (ReduceMin): attribute 'axes' names axis 1 more than once
func.func @axis_twice(%arg0: !torch.vtensor<[3,2],f32>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ReduceMin", torch.onnx.axes = [1 : si64, -1 : si64]} : (!torch.vtensor<[3,2],f32>) -> !torch.vtensor<*,f32> loc("min_twice")
  return %0 : !torch.vtensor<*,f32>
}

// -----

// CHECK: error: node 'mean_int' (ReduceMean): input 'data' is !torch.vtensor<[3,2],si32>: ReduceMean is lowered for float inputs only
func.func @mean_of_integers(%arg0: !torch.vtensor<[3,2],si32>) -> !torch.vtensor<[1,1],si32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ReduceMean"} : (!torch.vtensor<[3,2],si32>) -> !torch.vtensor<[1,1],si32> loc("mean_int")
  return %0 : !torch.vtensor<[1,1],si32>
}

// -----

// CHECK: error: node 'l2_unranked' (ReduceL2): input 'data' has unknown rank, so the reduced axes cannot be resolved
func.func @unranked(%arg0: !torch.vtensor<*,f32>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ReduceL2"} : (!torch.vtensor<*,f32>) -> !torch.vtensor<*,f32> loc("l2_unranked")
  return %0 : !torch.vtensor<*,f32>
}

