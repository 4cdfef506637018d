// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_transpose_perm(
func.func @test_transpose_perm(%arg0: !torch.vtensor<[1,3,4,5],f32>) -> !torch.vtensor<[1,4,5,3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Transpose", torch.onnx.perm = [0 : si64, 2 : si64, 3 : si64, 1 : si64]} : (!torch.vtensor<[1,3,4,5],f32>) -> !torch.vtensor<[1,4,5,3],f32>
  return %0 : !torch.vtensor<[1,4,5,3],f32>
}
// CHECK: %[[P0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[P1:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[P2:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[P3:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[PERM:.+]] = "torch.prim.ListConstruct"(%[[P0]], %[[P1]], %[[P2]], %[[P3]]) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[Y:.+]] = "torch.aten.permute"(%arg0, %[[PERM]]) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
// CHECK: return %[[Y]]

// Without perm the dimensions are reversed.
// CHECK-LABEL: func.func @test_transpose_default(
func.func @test_transpose_default(%arg0: !torch.vtensor<[2,?,4],si8>) -> !torch.vtensor<[4,?,2],si8> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Transpose"} : (!torch.vtensor<[2,?,4],si8>) -> !torch.vtensor<[4,?,2],si8>
  return %0 : !torch.vtensor<[4,?,2],si8>
}
// CHECK: %[[P0:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[P1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[P2:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[PERM:.+]] = "torch.prim.ListConstruct"(%[[P0]], %[[P1]], %[[P2]])
// CHECK: "torch.aten.permute"(%arg0, %[[PERM]]) : (!torch.vtensor<[2,?,4],si8>, !torch.list<int>) -> !torch.vtensor<[4,?,2],si8>
