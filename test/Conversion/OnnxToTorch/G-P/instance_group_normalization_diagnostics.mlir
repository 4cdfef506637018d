// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'in_scale' (InstanceNormalization): input scale is !torch.vtensor<[4],f32>, expected 3 elements (one per channel)
func.func @instancenorm_scale_size(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[4],f32>, %arg2: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.InstanceNormalization"} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3,4],f32> loc("in_scale")
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// CHECK: error: node 'in_rank' (InstanceNormalization): input X is !torch.vtensor<[3],f32>, but needs a batch and a channel dimension
func.func @instancenorm_rank_1(%arg0: !torch.vtensor<[3],f32>, %arg1: !torch.vtensor<[3],f32>, %arg2: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.InstanceNormalization"} : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> loc("in_rank")
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// CHECK: error: node 'gn_groups' (GroupNormalization): attribute 'num_groups' is 3, which does not divide X's 4 channels
func.func @group_norm_groups_do_not_divide(%arg0: !torch.vtensor<[1,4,2],f32>, %arg1: !torch.vtensor<[4],f32>, %arg2: !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,4,2],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.GroupNormalization", torch.onnx.num_groups = 3 : si64} : (!torch.vtensor<[1,4,2],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,4,2],f32> loc("gn_groups")
  return %0 : !torch.vtensor<[1,4,2],f32>
}

// -----

// CHECK: error: node 'gn_missing' (GroupNormalization): missing required attribute 'num_groups'
func.func @group_norm_without_groups(%arg0: !torch.vtensor<[1,4,2],f32>, %arg1: !torch.vtensor<[4],f32>, %arg2: !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,4,2],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.GroupNormalization"} : (!torch.vtensor<[1,4,2],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,4,2],f32> loc("gn_missing")
  return %0 : !torch.vtensor<[1,4,2],f32>
}

// -----

// Opset 21 wants one scale per channel; a per-group scale is opset 18's form.
// CHECK: error: node 'gn21_scale' (GroupNormalization): input scale is !torch.vtensor<[2],f32>, expected 4 elements (one per channel)
func.func @group_norm_21_per_group_scale(%arg0: !torch.vtensor<[1,4,2],f32>, %arg1: !torch.vtensor<[2],f32>, %arg2: !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,4,2],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.GroupNormalization", torch.onnx.num_groups = 2 : si64} : (!torch.vtensor<[1,4,2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,4,2],f32> loc("gn21_scale")
  return %0 : !torch.vtensor<[1,4,2],f32>
}

// -----

// CHECK: error: node 'gn18_bias' (GroupNormalization): input bias is !torch.vtensor<[4],f32>, expected 2 elements (one per group)
func.func @group_norm_18_per_channel_bias(%arg0: !torch.vtensor<[1,4,2],f32>, %arg1: !torch.vtensor<[2],f32>, %arg2: !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,4,2],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.GroupNormalization", torch.onnx.num_groups = 2 : si64} : (!torch.vtensor<[1,4,2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,4,2],f32> loc("gn18_bias")
  return %0 : !torch.vtensor<[1,4,2],f32>
}
