// Malformed DynamicQuantizeLSTM ops are compile errors naming the node and the input.
// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'dq_float_w' (DynamicQuantizeLSTM): W is FLOAT, expected int8 or uint8
func.func @float_weights(%x: !torch.vtensor<[4,1,3],f32>, %w: !torch.vtensor<[1,3,16],f32>, %r: !torch.vtensor<[1,4,16],si8>, %s: !torch.vtensor<[1],f32>, %z: !torch.vtensor<[1],si8>) -> !torch.vtensor<[4,1,1,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%x, %w, %r, %none, %none, %none, %none, %none, %s, %z, %s, %z) {name = "com.microsoft.DynamicQuantizeLSTM", torch.onnx.hidden_size = 4 : si64} : (!torch.vtensor<[4,1,3],f32>, !torch.vtensor<[1,3,16],f32>, !torch.vtensor<[1,4,16],si8>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none, !torch.vtensor<[1],f32>, !torch.vtensor<[1],si8>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],si8>) -> !torch.vtensor<[4,1,1,4],f32> loc("dq_float_w")
  return %0 : !torch.vtensor<[4,1,1,4],f32>
}

// -----

// CHECK: error: node 'dq_per_column' (DynamicQuantizeLSTM): W_scale has type !torch.vtensor<[1,16],f32>; only one scale per direction ([1]) is supported
func.func @per_column(%x: !torch.vtensor<[4,1,3],f32>, %w: !torch.vtensor<[1,3,16],si8>, %r: !torch.vtensor<[1,4,16],si8>, %s: !torch.vtensor<[1,16],f32>, %z: !torch.vtensor<[1,16],si8>, %rs: !torch.vtensor<[1],f32>, %rz: !torch.vtensor<[1],si8>) -> !torch.vtensor<[4,1,1,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%x, %w, %r, %none, %none, %none, %none, %none, %s, %z, %rs, %rz) {name = "com.microsoft.DynamicQuantizeLSTM", torch.onnx.hidden_size = 4 : si64} : (!torch.vtensor<[4,1,3],f32>, !torch.vtensor<[1,3,16],si8>, !torch.vtensor<[1,4,16],si8>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none, !torch.vtensor<[1,16],f32>, !torch.vtensor<[1,16],si8>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],si8>) -> !torch.vtensor<[4,1,1,4],f32> loc("dq_per_column")
  return %0 : !torch.vtensor<[4,1,1,4],f32>
}

// -----

// R in ONNX's [D, 4H, H] layout, not ONNX Runtime's [D, H, 4H].
// CHECK: error: node 'dq_layout' (DynamicQuantizeLSTM): attribute 'hidden_size' is 4 but R's hidden dimension is 16
func.func @onnx_layout(%x: !torch.vtensor<[4,1,3],f32>, %w: !torch.vtensor<[1,3,16],si8>, %r: !torch.vtensor<[1,16,4],si8>, %s: !torch.vtensor<[1],f32>, %z: !torch.vtensor<[1],si8>) -> !torch.vtensor<[4,1,1,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%x, %w, %r, %none, %none, %none, %none, %none, %s, %z, %s, %z) {name = "com.microsoft.DynamicQuantizeLSTM", torch.onnx.hidden_size = 4 : si64} : (!torch.vtensor<[4,1,3],f32>, !torch.vtensor<[1,3,16],si8>, !torch.vtensor<[1,16,4],si8>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none, !torch.vtensor<[1],f32>, !torch.vtensor<[1],si8>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],si8>) -> !torch.vtensor<[4,1,1,4],f32> loc("dq_layout")
  return %0 : !torch.vtensor<[4,1,1,4],f32>
}

// -----

// CHECK: error: node 'dq_zp' (DynamicQuantizeLSTM): W_zero_point is !torch.vtensor<[1],ui8> but W is INT8
func.func @zero_point_type(%x: !torch.vtensor<[4,1,3],f32>, %w: !torch.vtensor<[1,3,16],si8>, %r: !torch.vtensor<[1,4,16],si8>, %s: !torch.vtensor<[1],f32>, %z: !torch.vtensor<[1],ui8>, %zr: !torch.vtensor<[1],si8>) -> !torch.vtensor<[4,1,1,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%x, %w, %r, %none, %none, %none, %none, %none, %s, %z, %s, %zr) {name = "com.microsoft.DynamicQuantizeLSTM", torch.onnx.hidden_size = 4 : si64} : (!torch.vtensor<[4,1,3],f32>, !torch.vtensor<[1,3,16],si8>, !torch.vtensor<[1,4,16],si8>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none, !torch.vtensor<[1],f32>, !torch.vtensor<[1],ui8>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],si8>) -> !torch.vtensor<[4,1,1,4],f32> loc("dq_zp")
  return %0 : !torch.vtensor<[4,1,1,4],f32>
}
