// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'split_sum' (Split): split sizes [2, 2] add up to 4, but the axis has size 5
func.func @sizes_sum(%arg0: !torch.vtensor<[5],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<2> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0:2 = "torch.operator"(%arg0, %s) {name = "onnx.Split"} : (!torch.vtensor<[5],f32>, !torch.vtensor<[2],si64>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) loc("split_sum")
  return %0#0, %0#1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
}

// -----

// CHECK: error: node 'split_uneven' (Split): an axis of size 5 cannot be split evenly into 2 parts
func.func @uneven(%arg0: !torch.vtensor<[5],f32>) -> (!torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0:2 = "torch.operator"(%arg0) {name = "onnx.Split"} : (!torch.vtensor<[5],f32>) -> (!torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>) loc("split_uneven")
  return %0#0, %0#1 : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>
}

// -----

// CHECK: error: node 'split_count' (Split): attribute 'num_outputs' is 3 but the op has 2 outputs
func.func @num_outputs(%arg0: !torch.vtensor<[6],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0:2 = "torch.operator"(%arg0) {name = "onnx.Split", torch.onnx.num_outputs = 3 : si64} : (!torch.vtensor<[6],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) loc("split_count")
  return %0#0, %0#1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}
