// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_convinteger(
func.func @test_convinteger(%x: !torch.vtensor<[1,1,3,3],ui8>, %w: !torch.vtensor<[1,1,2,2],ui8>, %xz: !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,1,4,4],si32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %0 = "torch.operator"(%x, %w, %xz) {name = "onnx.ConvInteger", torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[1,1,3,3],ui8>, !torch.vtensor<[1,1,2,2],ui8>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,1,4,4],si32>
  return %0 : !torch.vtensor<[1,1,4,4],si32>
}
// CHECK: %[[X32:.+]] = "torch.aten.to.dtype"(%arg0, {{.*}} -> !torch.vtensor<[1,1,3,3],si32>
// CHECK: %[[XZ32:.+]] = "torch.aten.to.dtype"(%arg2, {{.*}} -> !torch.vtensor<[],si32>
// CHECK: %[[XC:.+]] = "torch.aten.sub.Tensor"(%[[X32]], %[[XZ32]], %{{.+}})
// CHECK: %[[W32:.+]] = "torch.aten.to.dtype"(%arg1, {{.*}} -> !torch.vtensor<[1,1,2,2],si32>
// CHECK: "torch.aten.convolution"(%[[XC]], %[[W32]], %{{.+}}, {{.*}} -> !torch.vtensor<[1,1,4,4],si32>
