// Resize forms qlower does not lower are compile errors saying what is unsupported.
// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'resize_cubic' (Resize): attribute 'exclude_outside' is 2, but must be 0 or 1
func.func @cubic(%arg0: !torch.vtensor<[1,3,4,4],f32>) -> !torch.vtensor<[1,3,8,8],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %s) {name = "onnx.Resize", torch.onnx.exclude_outside = 2 : si64, torch.onnx.mode = "cubic"} : (!torch.vtensor<[1,3,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,3,8,8],f32> loc("resize_cubic")
  return %0 : !torch.vtensor<[1,3,8,8],f32>
}

// -----

// CHECK: error: node 'resize_crop' (Resize): tf_crop_and_resize is supported with sizes only, not with scales
func.func @crop_and_resize(%arg0: !torch.vtensor<[1,3,4,4],f32>) -> !torch.vtensor<[1,3,8,8],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %roi = "torch.vtensor.literal"() {value = dense<[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.5, 0.5]> : tensor<8xf32>} : () -> !torch.vtensor<[8],f32>
  %0 = "torch.operator"(%arg0, %roi, %s) {name = "onnx.Resize", torch.onnx.mode = "linear", torch.onnx.coordinate_transformation_mode = "tf_crop_and_resize"} : (!torch.vtensor<[1,3,4,4],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,3,8,8],f32> loc("resize_crop")
  return %0 : !torch.vtensor<[1,3,8,8],f32>
}

// -----

// CHECK: error: node 'resize_channels' (Resize): scales[1] is 2: resizing dimension 1 is not supported, only the spatial dimensions (2 and up)
func.func @channel_scale(%arg0: !torch.vtensor<[1,3,4,4],f32>) -> !torch.vtensor<[1,6,8,8],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 2.0, 2.0, 2.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %s) {name = "onnx.Resize", torch.onnx.mode = "nearest"} : (!torch.vtensor<[1,3,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,6,8,8],f32> loc("resize_channels")
  return %0 : !torch.vtensor<[1,6,8,8],f32>
}

// -----

// CHECK: error: node 'resize_nn_align' (Resize): coordinate_transformation_mode 'tf_half_pixel_for_nn' is not supported in nearest mode
func.func @nearest_tf_half_pixel_for_nn(%arg0: !torch.vtensor<[1,3,4,4],f32>) -> !torch.vtensor<[1,3,8,8],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %s) {name = "onnx.Resize", torch.onnx.mode = "nearest", torch.onnx.coordinate_transformation_mode = "tf_half_pixel_for_nn"} : (!torch.vtensor<[1,3,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,3,8,8],f32> loc("resize_nn_align")
  return %0 : !torch.vtensor<[1,3,8,8],f32>
}

// -----

// CHECK: error: node 'resize_dynamic' (Resize): input 'scales' is computed at run time and its length is not known (!torch.vtensor<[?],f32>); a 1-D tensor of known length is needed
func.func @runtime_scales(%arg0: !torch.vtensor<[1,3,4,4],f32>, %arg1: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?,?,?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %arg1) {name = "onnx.Resize", torch.onnx.mode = "nearest"} : (!torch.vtensor<[1,3,4,4],f32>, !torch.none, !torch.vtensor<[?],f32>) -> !torch.vtensor<[?,?,?,?],f32> loc("resize_dynamic")
  return %0 : !torch.vtensor<[?,?,?,?],f32>
}

// -----

// CHECK: error: node 'resize_3d_linear' (Resize): linear Resize is supported for 3-D (N, C, L) and 4-D (N, C, H, W) data only; X has rank 5
func.func @trilinear(%arg0: !torch.vtensor<[1,1,2,2,2],f32>) -> !torch.vtensor<[1,1,4,4,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 2.0, 2.0, 2.0]> : tensor<5xf32>} : () -> !torch.vtensor<[5],f32>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %s) {name = "onnx.Resize", torch.onnx.mode = "linear"} : (!torch.vtensor<[1,1,2,2,2],f32>, !torch.none, !torch.vtensor<[5],f32>) -> !torch.vtensor<[1,1,4,4,4],f32> loc("resize_3d_linear")
  return %0 : !torch.vtensor<[1,1,4,4,4],f32>
}

// -----

// CHECK: error: node 'resize_aspect' (Resize): with keep_aspect_ratio_policy 'not_smaller' the resized dimensions of the result must be known at compile time (input 'sizes' and X's sizes constant)
func.func @aspect_unknown(%arg0: !torch.vtensor<[1,1,?,4],f32>, %arg1: !torch.vtensor<[2],si64>) -> !torch.vtensor<[1,1,?,?],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %n, %arg1) {name = "onnx.Resize", torch.onnx.mode = "nearest", torch.onnx.axes = [2 : si64, 3 : si64], torch.onnx.keep_aspect_ratio_policy = "not_smaller"} : (!torch.vtensor<[1,1,?,4],f32>, !torch.none, !torch.none, !torch.vtensor<[2],si64>) -> !torch.vtensor<[1,1,?,?],f32> loc("resize_aspect")
  return %0 : !torch.vtensor<[1,1,?,?],f32>
}

// -----

// CHECK: error: node 'resize_antialias' (Resize): attribute 'antialias' is 2, but must be 0 or 1
func.func @antialias(%arg0: !torch.vtensor<[1,1,4,4],f32>) -> !torch.vtensor<[1,1,2,2],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 0.5, 0.5]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %s) {name = "onnx.Resize", torch.onnx.mode = "linear", torch.onnx.antialias = 2 : si64} : (!torch.vtensor<[1,1,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,2,2],f32> loc("resize_antialias")
  return %0 : !torch.vtensor<[1,1,2,2],f32>
}

// -----

// CHECK: error: node 'resize_crop_channels' (Resize): input 'roi' crops dimension 1 to (0.5, 1.0): only the spatial dimensions (2 and up) may be cropped
func.func @crop_channels(%arg0: !torch.vtensor<[1,4,4,4],f32>) -> !torch.vtensor<[1,4,3,3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %n = "torch.constant.none"() : () -> !torch.none
  %roi = "torch.vtensor.literal"() {value = dense<[0.0, 0.5, 0.0, 0.0, 1.0, 1.0, 0.5, 0.5]> : tensor<8xf32>} : () -> !torch.vtensor<[8],f32>
  %sizes = "torch.vtensor.literal"() {value = dense<[1, 4, 3, 3]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
  %0 = "torch.operator"(%arg0, %roi, %n, %sizes) {name = "onnx.Resize", torch.onnx.mode = "linear", torch.onnx.coordinate_transformation_mode = "tf_crop_and_resize"} : (!torch.vtensor<[1,4,4,4],f32>, !torch.vtensor<[8],f32>, !torch.none, !torch.vtensor<[4],si64>) -> !torch.vtensor<[1,4,3,3],f32> loc("resize_crop_channels")
  return %0 : !torch.vtensor<[1,4,3,3],f32>
}

// -----

// CHECK: error: node 'resize_crop_roi' (Resize): input 'roi' must be a constant known at compile time
func.func @crop_roi_at_run_time(%arg0: !torch.vtensor<[1,1,4,4],f32>, %roi: !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,3,3],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %n = "torch.constant.none"() : () -> !torch.none
  %sizes = "torch.vtensor.literal"() {value = dense<[3, 3]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %roi, %n, %sizes) {name = "onnx.Resize", torch.onnx.mode = "linear", torch.onnx.axes = [2 : si64, 3 : si64], torch.onnx.coordinate_transformation_mode = "tf_crop_and_resize"} : (!torch.vtensor<[1,1,4,4],f32>, !torch.vtensor<[4],f32>, !torch.none, !torch.vtensor<[2],si64>) -> !torch.vtensor<[1,1,3,3],f32> loc("resize_crop_roi")
  return %0 : !torch.vtensor<[1,1,3,3],f32>
}
