// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'cs_axis' (CumSum): input 'axis' is 2, out of range for rank 2
func.func @cumsum_axis_out_of_range(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %axis = "torch.vtensor.literal"() {value = dense<2> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %0 = "torch.operator"(%arg0, %axis) {name = "onnx.CumSum"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[2,3],f32> loc("cs_axis")
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// CHECK: error: node 'trilu_1d' (Trilu): input is !torch.vtensor<[4],f32>: Trilu needs at least 2 dimensions
func.func @trilu_of_a_vector(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Trilu"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> loc("trilu_1d")
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// CHECK: error: node 'ge_float' (GatherElements): input 'indices' is !torch.vtensor<[2,3],f32>, expected INT32 or INT64
func.func @gather_elements_float_indices(%arg0: !torch.vtensor<[3,3],f32>, %arg1: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.GatherElements"} : (!torch.vtensor<[3,3],f32>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> loc("ge_float")
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// CHECK: error: node 'snd_xor' (ScatterND): attribute 'reduction' is 'xor', not one of none, add, mul, max, min
func.func @scatter_nd_xor(%arg0: !torch.vtensor<[4],f32>, %arg1: !torch.vtensor<[2,1],si64>, %arg2: !torch.vtensor<[2],f32>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.ScatterND", torch.onnx.reduction = "xor"} : (!torch.vtensor<[4],f32>, !torch.vtensor<[2,1],si64>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[4],f32> loc("snd_xor")
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// CHECK: error: node 'snd_deep' (ScatterND): input 'indices' addresses 2 dimensions, but data has rank 1
func.func @scatter_nd_too_deep(%arg0: !torch.vtensor<[4],f32>, %arg1: !torch.vtensor<[1,2],si64>, %arg2: !torch.vtensor<[1],f32>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.ScatterND"} : (!torch.vtensor<[4],f32>, !torch.vtensor<[1,2],si64>, !torch.vtensor<[1],f32>) -> !torch.vtensor<[4],f32> loc("snd_deep")
  return %0 : !torch.vtensor<[4],f32>
}
