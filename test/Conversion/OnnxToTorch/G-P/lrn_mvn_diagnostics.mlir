// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'lrn_size' (LRN): missing required attribute 'size'
func.func @lrn_without_size(%arg0: !torch.vtensor<[1,3,4,4],f32>) -> !torch.vtensor<[1,3,4,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.LRN"} : (!torch.vtensor<[1,3,4,4],f32>) -> !torch.vtensor<[1,3,4,4],f32> loc("lrn_size")
  return %0 : !torch.vtensor<[1,3,4,4],f32>
}

// -----

// CHECK: error: node 'lrn_rank' (LRN): input X is !torch.vtensor<[1,3,2,2,2],f32>: LRN is lowered for ranks 2 to 4 (N, C and up to 2 more)
func.func @lrn_rank_5(%arg0: !torch.vtensor<[1,3,2,2,2],f32>) -> !torch.vtensor<[1,3,2,2,2],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.LRN", torch.onnx.size = 3 : si64} : (!torch.vtensor<[1,3,2,2,2],f32>) -> !torch.vtensor<[1,3,2,2,2],f32> loc("lrn_rank")
  return %0 : !torch.vtensor<[1,3,2,2,2],f32>
}

// -----

// CHECK: error: node 'lrn_zero' (LRN): attribute 'size' is 0, expected at least 1
func.func @lrn_size_zero(%arg0: !torch.vtensor<[1,3,4,4],f32>) -> !torch.vtensor<[1,3,4,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.LRN", torch.onnx.size = 0 : si64} : (!torch.vtensor<[1,3,4,4],f32>) -> !torch.vtensor<[1,3,4,4],f32> loc("lrn_zero")
  return %0 : !torch.vtensor<[1,3,4,4],f32>
}

// -----

// CHECK: error: node 'mvn_axis' (MeanVarianceNormalization): attribute 'axes' holds 3, outside the range of X's rank 2
func.func @mvn_axis_out_of_range(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MeanVarianceNormalization", torch.onnx.axes = [0, 3]} : (!torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> loc("mvn_axis")
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// CHECK: error: node 'mvn_twice' (MeanVarianceNormalization): attribute 'axes' names axis 1 twice
func.func @mvn_axis_twice(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MeanVarianceNormalization", torch.onnx.axes = [1, -1]} : (!torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> loc("mvn_twice")
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// CHECK: error: node 'mvn_unranked' (MeanVarianceNormalization): input X has unknown rank
func.func @mvn_unranked(%arg0: !torch.vtensor<*,f32>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MeanVarianceNormalization"} : (!torch.vtensor<*,f32>) -> !torch.vtensor<*,f32> loc("mvn_unranked")
  return %0 : !torch.vtensor<*,f32>
}
