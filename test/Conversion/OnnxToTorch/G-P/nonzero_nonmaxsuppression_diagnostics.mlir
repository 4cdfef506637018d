// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'nz_type' (NonZero): the result is !torch.vtensor<[2,?],si32>, but NonZero gives int64 indices
func.func @nonzero_type(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,?],si32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.NonZero"} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,?],si32> loc("nz_type")
  return %0 : !torch.vtensor<[2,?],si32>
}

// -----

// CHECK: error: node 'nms_center' (NonMaxSuppression): attribute 'center_point_box' is 2, but must be 0 or 1
func.func @center(%arg0: !torch.vtensor<[1,6,4],f32>, %arg1: !torch.vtensor<[1,1,6],f32>) -> !torch.vtensor<[?,3],si64> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.NonMaxSuppression", torch.onnx.center_point_box = 2 : si64} : (!torch.vtensor<[1,6,4],f32>, !torch.vtensor<[1,1,6],f32>) -> !torch.vtensor<[?,3],si64> loc("nms_center")
  return %0 : !torch.vtensor<[?,3],si64>
}

// -----

// CHECK: error: node 'nms_boxes' (NonMaxSuppression): input 'boxes' is !torch.vtensor<[1,6,4],si8>, but must be a float tensor
func.func @boxes(%arg0: !torch.vtensor<[1,6,4],si8>, %arg1: !torch.vtensor<[1,1,6],f32>) -> !torch.vtensor<[?,3],si64> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.NonMaxSuppression"} : (!torch.vtensor<[1,6,4],si8>, !torch.vtensor<[1,1,6],f32>) -> !torch.vtensor<[?,3],si64> loc("nms_boxes")
  return %0 : !torch.vtensor<[?,3],si64>
}

// -----

// CHECK: error: node 'nms_limit' (NonMaxSuppression): input 'max_output_boxes_per_class' is !torch.vtensor<[2],si64>, but must hold one value
func.func @limit(%arg0: !torch.vtensor<[1,6,4],f32>, %arg1: !torch.vtensor<[1,1,6],f32>, %arg2: !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,3],si64> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.NonMaxSuppression"} : (!torch.vtensor<[1,6,4],f32>, !torch.vtensor<[1,1,6],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,3],si64> loc("nms_limit")
  return %0 : !torch.vtensor<[?,3],si64>
}
