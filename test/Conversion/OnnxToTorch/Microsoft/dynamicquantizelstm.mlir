// RUN: qlower-opt --split-input-file --convert-onnx-to-torch %s | FileCheck %s

// DynamicQuantizeLSTM: the int8 weights ([D, I, 4H] and [D, H, 4H]) become quantized
// tensors, per direction (axis 0) here; X is quantized to uint8 in the IR as
// DynamicQuantizeLinear does (range widened to 0, scale (max - min) / 255); the
// qlower.lstm operator reads the quantized X and weights, and quantizes H at each step.
// CHECK-LABEL: func.func @test_dynamicquantizelstm_bidirectional(
func.func @test_dynamicquantizelstm_bidirectional(%x: !torch.vtensor<[?,1,3],f32>, %w: !torch.vtensor<[2,3,16],si8>, %r: !torch.vtensor<[2,4,16],si8>, %b: !torch.vtensor<[2,32],f32>, %ws: !torch.vtensor<[2],f32>, %wz: !torch.vtensor<[2],si8>, %rs: !torch.vtensor<[2],f32>, %rz: !torch.vtensor<[2],si8>) -> (!torch.vtensor<[?,2,1,4],f32>, !torch.vtensor<[2,1,4],f32>) attributes {torch.onnx_meta.opset_version = 13 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0:2 = "torch.operator"(%x, %w, %r, %b, %none, %none, %none, %none, %ws, %wz, %rs, %rz) {name = "com.microsoft.DynamicQuantizeLSTM", torch.onnx.direction = "bidirectional", torch.onnx.hidden_size = 4 : si64} : (!torch.vtensor<[?,1,3],f32>, !torch.vtensor<[2,3,16],si8>, !torch.vtensor<[2,4,16],si8>, !torch.vtensor<[2,32],f32>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>) -> (!torch.vtensor<[?,2,1,4],f32>, !torch.vtensor<[2,1,4],f32>)
  return %0#0, %0#1 : !torch.vtensor<[?,2,1,4],f32>, !torch.vtensor<[2,1,4],f32>
}
// CHECK: %[[W:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%arg1, %arg4, %arg5, %{{.+}}) : {{.*}} -> !torch.vtensor<[2,3,16],!torch.qint8>
// CHECK: %[[R:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%arg2, %arg6, %arg7, %{{.+}}) : {{.*}} -> !torch.vtensor<[2,4,16],!torch.qint8>
// CHECK: "torch.aten.min"(%arg0)
// CHECK: "torch.aten.max"(%arg0)
// CHECK: %[[QX:.+]] = "torch.aten.quantize_per_tensor"(%arg0, {{.*}} -> !torch.vtensor<[?,1,3],!torch.quint8>
// CHECK: %[[IX:.+]] = "torch.aten.int_repr"(%[[QX]])
// CHECK: %[[X:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%[[IX]], {{.*}} -> !torch.vtensor<[?,1,3],!torch.quint8>
// CHECK: "torch.constant.str"() {value = "bidirectional"}
// CHECK: %[[Y:.+]]:3 = "torch.operator"(%[[X]], %[[W]], %[[R]], %arg3, {{.*}}) {name = "qlower.lstm"}
// CHECK-SAME: -> (!torch.vtensor<[?,2,1,4],f32>, !torch.vtensor<[2,1,4],f32>, !torch.vtensor<[2,1,4],f32>)
// CHECK: return %[[Y]]#0, %[[Y]]#1

// -----

// Scalar parameters with one direction: per-tensor quantized weights.
// CHECK-LABEL: func.func @test_dynamicquantizelstm_per_tensor(
func.func @test_dynamicquantizelstm_per_tensor(%x: !torch.vtensor<[4,1,3],f32>, %w: !torch.vtensor<[1,3,16],ui8>, %r: !torch.vtensor<[1,4,16],ui8>, %ws: !torch.vtensor<[],f32>, %wz: !torch.vtensor<[],ui8>, %rs: !torch.vtensor<[],f32>, %rz: !torch.vtensor<[],ui8>) -> !torch.vtensor<[4,1,1,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%x, %w, %r, %none, %none, %none, %none, %none, %ws, %wz, %rs, %rz) {name = "com.microsoft.DynamicQuantizeLSTM", torch.onnx.hidden_size = 4 : si64} : (!torch.vtensor<[4,1,3],f32>, !torch.vtensor<[1,3,16],ui8>, !torch.vtensor<[1,4,16],ui8>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[4,1,1,4],f32>
  return %0 : !torch.vtensor<[4,1,1,4],f32>
}
// CHECK: "torch.aten._make_per_tensor_quantized_tensor"(%arg1, {{.*}} -> !torch.vtensor<[1,3,16],!torch.quint8>
// CHECK: "torch.aten._make_per_tensor_quantized_tensor"(%arg2, {{.*}} -> !torch.vtensor<[1,4,16],!torch.quint8>
// CHECK: %[[Y:.+]]:3 = "torch.operator"({{.*}}) {name = "qlower.lstm"}
// CHECK: return %[[Y]]#0
