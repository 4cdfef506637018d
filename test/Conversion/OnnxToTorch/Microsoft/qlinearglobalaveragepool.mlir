// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// channels_last: the mean is over dimensions 1 and 2 (N, H, W, C).
// CHECK-LABEL: func.func @test_qlinearglobalaveragepool(
func.func @test_qlinearglobalaveragepool(%x: !torch.vtensor<[1,4,5,3],si8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],si8>) -> !torch.vtensor<[1,1,1,3],si8> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%x, %s, %z, %s, %z) {name = "com.microsoft.QLinearGlobalAveragePool", torch.onnx.channels_last = 1 : si64} : (!torch.vtensor<[1,4,5,3],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,1,1,3],si8>
  return %0 : !torch.vtensor<[1,1,1,3],si8>
}
// CHECK: %[[X:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, {{.*}} -> !torch.vtensor<[1,4,5,3],!torch.qint8>
// CHECK: %[[XF:.+]] = "torch.aten.dequantize.self"(%[[X]])
// CHECK: %[[D1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[D2:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[DIMS:.+]] = "torch.prim.ListConstruct"(%[[D1]], %[[D2]])
// CHECK: %[[Y:.+]] = "torch.aten.mean.dim"(%[[XF]], %[[DIMS]], {{.*}} -> !torch.vtensor<[1,1,1,3],f32>
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%[[Y]],
// CHECK: "torch.aten.int_repr"(%[[Q]]) : (!torch.vtensor<[1,1,1,3],!torch.qint8>) -> !torch.vtensor<[1,1,1,3],si8>
