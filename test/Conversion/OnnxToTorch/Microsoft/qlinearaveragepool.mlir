// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// channels_last: the input is permuted to N, C, H, W for the pool and back after it.
// CHECK-LABEL: func.func @test_qlinearaveragepool(
func.func @test_qlinearaveragepool(%x: !torch.vtensor<[1,4,6,3],si8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],si8>) -> !torch.vtensor<[1,2,3,3],si8> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%x, %s, %z, %s, %z) {name = "com.microsoft.QLinearAveragePool", torch.onnx.channels_last = 1 : si64, torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,4,6,3],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,2,3,3],si8>
  return %0 : !torch.vtensor<[1,2,3,3],si8>
}
// CHECK: %[[X:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, {{.*}} -> !torch.vtensor<[1,4,6,3],!torch.qint8>
// CHECK: %[[XF:.+]] = "torch.aten.dequantize.self"(%[[X]])
// CHECK: %[[NCHW:.+]] = "torch.aten.permute"(%[[XF]], {{.*}} -> !torch.vtensor<[1,3,4,6],f32>
// CHECK: %[[P:.+]] = "torch.aten.avg_pool2d"(%[[NCHW]], {{.*}} -> !torch.vtensor<[1,3,2,3],f32>
// CHECK: %[[Y:.+]] = "torch.aten.permute"(%[[P]], {{.*}} -> !torch.vtensor<[1,2,3,3],f32>
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%[[Y]],
// CHECK: "torch.aten.int_repr"(%[[Q]]) : (!torch.vtensor<[1,2,3,3],!torch.qint8>) -> !torch.vtensor<[1,2,3,3],si8>
