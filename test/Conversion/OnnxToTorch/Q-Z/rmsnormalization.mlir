// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s
// ONNX RMSNormalization (opset 23), the computation of SimplifiedLayerNormalization:
// x / sqrt(mean(x·x over the axes from `axis` on) + epsilon) · scale.

// CHECK-LABEL: func.func @test_rmsnorm(
// CHECK: %[[SQ:.+]] = "torch.aten.mul.Tensor"(%arg0, %arg0)
// CHECK: %[[MS:.+]] = "torch.aten.mean.dim"(%[[SQ]], {{.+}} -> !torch.vtensor<[2,1,1],f32>
// CHECK: "torch.constant.float"() {value = 0.10000000149011612 : f64}
// CHECK: %[[V:.+]] = "torch.aten.add.Scalar"(%[[MS]],
// CHECK: %[[R:.+]] = "torch.aten.sqrt"(%[[V]])
// CHECK: %[[N:.+]] = "torch.aten.div.Tensor"(%arg0, %[[R]])
// CHECK: %[[Y:.+]] = "torch.aten.mul.Tensor"(%[[N]], %arg1)
// CHECK: return %[[Y]] : !torch.vtensor<[2,5,8],f32>
func.func @test_rmsnorm(%x: !torch.vtensor<[2,5,8],f32>, %scale: !torch.vtensor<[5,8],f32>) -> !torch.vtensor<[2,5,8],f32> attributes {torch.onnx_meta.opset_version = 23 : si64} {
  %0 = "torch.operator"(%x, %scale) {name = "onnx.RMSNormalization", torch.onnx.axis = 1 : si64, torch.onnx.epsilon = 1.000000e-01 : f32} : (!torch.vtensor<[2,5,8],f32>, !torch.vtensor<[5,8],f32>) -> !torch.vtensor<[2,5,8],f32>
  return %0 : !torch.vtensor<[2,5,8],f32>
}
