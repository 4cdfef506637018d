// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Exact int32 arithmetic: both operands widened, zero points subtracted, then matmul.
// CHECK-LABEL: func.func @test_matmulinteger(
func.func @test_matmulinteger(%a: !torch.vtensor<[4,3],ui8>, %b: !torch.vtensor<[3,2],ui8>, %az: !torch.vtensor<[],ui8>, %bz: !torch.vtensor<[2],ui8>) -> !torch.vtensor<[4,2],si32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %0 = "torch.operator"(%a, %b, %az, %bz) {name = "onnx.MatMulInteger"} : (!torch.vtensor<[4,3],ui8>, !torch.vtensor<[3,2],ui8>, !torch.vtensor<[],ui8>, !torch.vtensor<[2],ui8>) -> !torch.vtensor<[4,2],si32>
  return %0 : !torch.vtensor<[4,2],si32>
}
// CHECK: %[[BZR:.+]] = "torch.aten.reshape"(%arg3, %{{.+}}) : (!torch.vtensor<[2],ui8>, !torch.list<int>) -> !torch.vtensor<[2],ui8>
// CHECK: %[[A32:.+]] = "torch.aten.to.dtype"(%arg0, {{.*}} -> !torch.vtensor<[4,3],si32>
// CHECK: %[[AZ32:.+]] = "torch.aten.to.dtype"(%arg2, {{.*}} -> !torch.vtensor<[],si32>
// CHECK: %[[AC:.+]] = "torch.aten.sub.Tensor"(%[[A32]], %[[AZ32]], %{{.+}}) : {{.*}} -> !torch.vtensor<[4,3],si32>
// CHECK: %[[B32:.+]] = "torch.aten.to.dtype"(%arg1, {{.*}} -> !torch.vtensor<[3,2],si32>
// CHECK: %[[BZ32:.+]] = "torch.aten.to.dtype"(%[[BZR]], {{.*}} -> !torch.vtensor<[2],si32>
// CHECK: %[[BC:.+]] = "torch.aten.sub.Tensor"(%[[B32]], %[[BZ32]], %{{.+}})
// CHECK: "torch.aten.matmul"(%[[AC]], %[[BC]]) : (!torch.vtensor<[4,3],si32>, !torch.vtensor<[3,2],si32>) -> !torch.vtensor<[4,2],si32>
