// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'bn_train' (BatchNormalization): training_mode = 1 is not supported: only inference is
func.func @training(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 15 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg1, %arg1, %arg1) {name = "onnx.BatchNormalization", torch.onnx.training_mode = 1 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f32> loc("bn_train")
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// CHECK: error: node 'bn_stats' (BatchNormalization): output 1 (a training statistic) is used, but only inference is supported
func.func @statistic_used(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>) attributes {torch.onnx_meta.opset_version = 9 : si64} {
  %0:3 = "torch.operator"(%arg0, %arg1, %arg1, %arg1, %arg1) {name = "onnx.BatchNormalization"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) loc("bn_stats")
  return %0#0, %0#1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>
}

// -----

// CHECK: error: node 'bn_spatial' (BatchNormalization): attribute 'spatial' = 0 (statistics per activation) is not supported
func.func @per_activation(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 7 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg1, %arg1, %arg1) {name = "onnx.BatchNormalization", torch.onnx.spatial = 0 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f32> loc("bn_spatial")
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// CHECK: error: node 'bn_channels' (BatchNormalization): input_var has 4 elements but X has 3 channels
func.func @channels(%arg0: !torch.vtensor<[2,3,8],f32>, %arg1: !torch.vtensor<[3],f32>, %arg2: !torch.vtensor<[4],f32>) -> !torch.vtensor<[2,3,8],f32> attributes {torch.onnx_meta.opset_version = 15 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg1, %arg1, %arg2) {name = "onnx.BatchNormalization"} : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[2,3,8],f32> loc("bn_channels")
  return %0 : !torch.vtensor<[2,3,8],f32>
}
