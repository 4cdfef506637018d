// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_convinteger(
func.func @test_convinteger(%x: !torch.vtensor<[1,1,3,3],ui8>, %w: !torch.vtensor<[1,1,2,2],ui8>, %xz: !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,1,4,4],si32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %0 = "torch.operator"(%x, %w, %xz) {name = "onnx.ConvInteger", torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[1,1,3,3],ui8>, !torch.vtensor<[1,1,2,2],ui8>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,1,4,4],si32>
  return %0 : !torch.vtensor<[1,1,4,4],si32>
}
// CHECK: %[[X32:.+]] = "torch.aten.to.dtype"(%arg0, {{.*}} -> !torch.vtensor<[1,1,3,3],si32>
// CHECK: %[[XZ32:.+]] = "torch.aten.to.dtype"(%arg2, {{.*}} -> !torch.vtensor<[],si32>
// CHECK: %[[XC:.+]] = "torch.aten.sub.Tensor"(%[[X32]], %[[XZ32]], %{{.+}})
// The weights are centred by an explicit quantization at scale 1, which folding keeps:
// their 8-bit tensor stays in the IR for fuse-for-cpu.
// CHECK: %[[WQ:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg1, %{{.+}}, %{{.+}}) : {{.*}} -> !torch.vtensor<[1,1,2,2],!torch.quint8>
// CHECK: %[[WDQ:.+]] = "torch.aten.dequantize.self"(%[[WQ]]) : {{.*}} -> !torch.vtensor<[1,1,2,2],f32>
// CHECK: %[[W32:.+]] = "torch.aten.to.dtype"(%[[WDQ]], {{.*}} -> !torch.vtensor<[1,1,2,2],si32>
// CHECK: "torch.aten.convolution"(%[[XC]], %[[W32]], %{{.+}}, {{.*}} -> !torch.vtensor<[1,1,4,4],si32>

// A per-channel weight zero point: the weights are a per-channel quantized tensor along
// the output channels (axis 0) at scale 1.
// CHECK-LABEL: func.func @test_convinteger_per_channel(
func.func @test_convinteger_per_channel(%x: !torch.vtensor<[1,1,3,3],ui8>, %w: !torch.vtensor<[2,1,2,2],si8>, %xz: !torch.vtensor<[],ui8>, %wz: !torch.vtensor<[2],si8>) -> !torch.vtensor<[1,2,2,2],si32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %0 = "torch.operator"(%x, %w, %xz, %wz) {name = "onnx.ConvInteger"} : (!torch.vtensor<[1,1,3,3],ui8>, !torch.vtensor<[2,1,2,2],si8>, !torch.vtensor<[],ui8>, !torch.vtensor<[2],si8>) -> !torch.vtensor<[1,2,2,2],si32>
  return %0 : !torch.vtensor<[1,2,2,2],si32>
}
// CHECK: %[[ONES:.+]] = "torch.vtensor.literal"() {value = dense<1.000000e+00> : tensor<2xf32>}
// CHECK: %[[AXIS:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[WQ:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%arg1, %[[ONES]], %arg3, %[[AXIS]]) : {{.*}} -> !torch.vtensor<[2,1,2,2],!torch.qint8>
// CHECK: %[[WDQ:.+]] = "torch.aten.dequantize.self"(%[[WQ]])
// CHECK: %[[W32:.+]] = "torch.aten.to.dtype"(%[[WDQ]], {{.*}} -> !torch.vtensor<[2,1,2,2],si32>
// CHECK: "torch.aten.convolution"(%{{.+}}, %[[W32]], {{.*}} -> !torch.vtensor<[1,2,2,2],si32>
