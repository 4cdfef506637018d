// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// A is quantized to UINT8 as DynamicQuantizeLinear does (range widened to 0, scale
// (max - min) / 255), then both operands are dequantized, multiplied and the bias added.
// CHECK-LABEL: func.func @test_dynamicquantizematmul(
func.func @test_dynamicquantizematmul(%a: !torch.vtensor<[2,4],f32>, %b: !torch.vtensor<[4,3],si8>, %bs: !torch.vtensor<[3],f32>, %bz: !torch.vtensor<[3],si8>, %bias: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%a, %b, %bs, %bz, %bias) {name = "com.microsoft.DynamicQuantizeMatMul"} : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[4,3],si8>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si8>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
// CHECK: %[[MIN:.+]] = "torch.aten.min"(%arg0)
// CHECK: %[[MAX:.+]] = "torch.aten.max"(%arg0)
// CHECK: %[[QA:.+]] = "torch.aten.quantize_per_tensor"(%arg0, {{.*}} -> !torch.vtensor<[2,4],!torch.quint8>
// CHECK: %[[IA:.+]] = "torch.aten.int_repr"(%[[QA]])
// CHECK: %[[A:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%[[IA]],
// CHECK: %[[AF:.+]] = "torch.aten.dequantize.self"(%[[A]])
// CHECK: %[[B:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%arg1, %arg2, %arg3, {{.*}} -> !torch.vtensor<[4,3],!torch.qint8>
// CHECK: %[[BF:.+]] = "torch.aten.dequantize.self"(%[[B]])
// CHECK: %[[P:.+]] = "torch.aten.matmul"(%[[AF]], %[[BF]]) : {{.*}} -> !torch.vtensor<[2,3],f32>
// CHECK: %[[Y:.+]] = "torch.aten.add.Tensor"(%[[P]], %arg4,
// CHECK-NEXT: return %[[Y]]
