// When several ops cannot be lowered, the error names every one, root causes first.
// An op that reads the result of an op left in import form (whose type may then be
// unknown) is named as doing so, never reported with a message blaming its own input.
// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// Two independent failures are both reported with their reasons; the Resize that reads
// the first one's result is named after them.
// CHECK: error: node 'crop_a' (Resize): tf_crop_and_resize is supported with sizes only, not with scales; node 'channels_b' (Resize): scales[1] is 2: resizing dimension 1 is not supported, only the spatial dimensions (2 and up) (then 1 op that reads results of ops left unlowered: node 'after_a' (Resize))
func.func @two_roots(%arg0: !torch.vtensor<[1,3,4,4],f32>) -> (!torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[1,6,8,8],f32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %c = "torch.vtensor.literal"() {value = dense<[1.0, 2.0, 2.0, 2.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %one = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 1.0, 1.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %n = "torch.constant.none"() : () -> !torch.none
  %roi = "torch.vtensor.literal"() {value = dense<[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.5, 0.5]> : tensor<8xf32>} : () -> !torch.vtensor<[8],f32>
  %0 = "torch.operator"(%arg0, %roi, %s) {name = "onnx.Resize", torch.onnx.mode = "linear", torch.onnx.coordinate_transformation_mode = "tf_crop_and_resize"} : (!torch.vtensor<[1,3,4,4],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,3,8,8],f32> loc("crop_a")
  %1 = "torch.operator"(%0, %roi, %one) {name = "onnx.Resize", torch.onnx.mode = "linear", torch.onnx.coordinate_transformation_mode = "tf_crop_and_resize"} : (!torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,3,8,8],f32> loc("after_a")
  %2 = "torch.operator"(%arg0, %n, %c) {name = "onnx.Resize", torch.onnx.mode = "nearest"} : (!torch.vtensor<[1,3,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,6,8,8],f32> loc("channels_b")
  return %1, %2 : !torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[1,6,8,8],f32>
}

// -----

// An op without a lowering whose result type is unknown: the op that reads it is not
// blamed for its input's type; the message names the op it reads.
// CHECK: error: node 'layer_norm' (LayerNormalization) reads the result of node 'unknown' (com.example.Mystery), which has no lowering
func.func @reads_leftover(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %g = "torch.vtensor.literal"() {value = dense<1.0> : tensor<8xf32>} : () -> !torch.vtensor<[8],f32>
  %0 = "torch.operator"(%arg0) {name = "com.example.Mystery"} : (!torch.vtensor<[2,8],f32>) -> !torch.vtensor loc("unknown")
  %1 = "torch.operator"(%0, %g) {name = "onnx.LayerNormalization"} : (!torch.vtensor, !torch.vtensor<[8],f32>) -> !torch.vtensor loc("layer_norm")
  return %1 : !torch.vtensor
}
