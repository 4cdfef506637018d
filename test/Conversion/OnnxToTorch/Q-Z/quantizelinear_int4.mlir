// RUN: qlower-opt --split-input-file --convert-onnx-to-torch %s | FileCheck %s

// INT4 (opset 21): torch has no 4-bit quantized type, so QuantizeLinear is the
// arithmetic ONNX defines, saturated to [-8, 7] and converted through si32 to si4
// (torch.int4's dtype code, 40).
// CHECK-LABEL: func.func @test_quantizelinear_int4(
func.func @test_quantizelinear_int4(%x: !torch.vtensor<[6],f32>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],si4>) -> !torch.vtensor<[6],si4> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear"} : (!torch.vtensor<[6],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],si4>) -> !torch.vtensor<[6],si4>
  return %0 : !torch.vtensor<[6],si4>
}
// CHECK-NOT: quantize_per_tensor
// CHECK: %[[Z:.+]] = "torch.aten.to.dtype"({{.+}} : (!torch.vtensor<[],si4>, {{.+}} -> !torch.vtensor<[],f32>
// CHECK: %[[D:.+]] = "torch.aten.div.Tensor"(%arg0, {{.+}}) : (!torch.vtensor<[6],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[6],f32>
// CHECK: %[[R:.+]] = "torch.aten.round"(%[[D]])
// CHECK: %[[A:.+]] = "torch.aten.add.Tensor"(%[[R]], %[[Z]],
// CHECK: %[[LO:.+]] = "torch.constant.float"() {value = -8.000000e+00 : f64}
// CHECK: %[[HI:.+]] = "torch.constant.float"() {value = 7.000000e+00 : f64}
// CHECK: %[[C:.+]] = "torch.aten.clamp"(%[[A]], %[[LO]], %[[HI]])
// CHECK: %[[W:.+]] = "torch.aten.to.dtype"(%[[C]], {{.+}} -> !torch.vtensor<[6],si32>
// CHECK: %[[INT4:.+]] = "torch.constant.int"() {value = 40 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.to.dtype"(%[[W]], %[[INT4]], {{.+}} -> !torch.vtensor<[6],si4>
// CHECK: return %[[Y]]

// -----

// UINT4 per axis: each channel's scale and zero point broadcast along the axis, the
// result saturated to [0, 15] and converted to ui4 (torch.uint4's code, 33).
// CHECK-LABEL: func.func @test_quantizelinear_uint4_per_axis(
func.func @test_quantizelinear_uint4_per_axis(%x: !torch.vtensor<[2,3],f32>, %s: !torch.vtensor<[3],f32>, %z: !torch.vtensor<[3],ui4>) -> !torch.vtensor<[2,3],ui4> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],ui4>) -> !torch.vtensor<[2,3],ui4>
  return %0 : !torch.vtensor<[2,3],ui4>
}
// CHECK: "torch.aten.reshape"(%arg1, {{.+}} -> !torch.vtensor<[1,3],f32>
// CHECK: "torch.aten.reshape"(%arg2, {{.+}} -> !torch.vtensor<[1,3],ui4>
// CHECK: %[[HI:.+]] = "torch.constant.float"() {value = 1.500000e+01 : f64}
// CHECK: "torch.aten.clamp"({{.+}}, %[[HI]])
// CHECK: %[[UINT4:.+]] = "torch.constant.int"() {value = 33 : i64}
// CHECK: "torch.aten.to.dtype"({{.+}}, %[[UINT4]], {{.+}} -> !torch.vtensor<[2,3],ui4>

// -----

// Blocked INT4 (block_size 2 along axis 1 of [2,4]): one row per block, each row a
// channel of the per-axis arithmetic, then back to x's shape, still si4.
// CHECK-LABEL: func.func @test_quantizelinear_int4_blocked(
func.func @test_quantizelinear_int4_blocked(%x: !torch.vtensor<[2,4],f32>, %s: !torch.vtensor<[2,2],f32>, %z: !torch.vtensor<[2,2],si4>) -> !torch.vtensor<[2,4],si4> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear", torch.onnx.axis = 1 : si64, torch.onnx.block_size = 2 : si64} : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],si4>) -> !torch.vtensor<[2,4],si4>
  return %0 : !torch.vtensor<[2,4],si4>
}
// CHECK: "torch.aten.reshape"(%arg2, {{.+}} -> !torch.vtensor<[4],si4>
// CHECK: "torch.aten.reshape"(%arg0, {{.+}} -> !torch.vtensor<[4,2],f32>
// CHECK: "torch.aten.clamp"
// CHECK: "torch.aten.to.dtype"({{.+}} -> !torch.vtensor<[4,2],si4>
// CHECK: %[[Y:.+]] = "torch.aten.reshape"({{.+}} -> !torch.vtensor<[2,4],si4>
// CHECK: return %[[Y]]
