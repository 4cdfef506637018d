// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// A constant shape and a known result: broadcast_to with the result's sizes.
// CHECK-LABEL: func.func @test_expand_constant(
func.func @test_expand_constant(%arg0: !torch.vtensor<[3,1],f32>) -> !torch.vtensor<[2,3,6],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[2, 1, 6]> : tensor<3xsi64>} : () -> !torch.vtensor<[3],si64>
  %0 = "torch.operator"(%arg0, %s) {name = "onnx.Expand"} : (!torch.vtensor<[3,1],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[2,3,6],f32>
  return %0 : !torch.vtensor<[2,3,6],f32>
}
// CHECK: %[[D0:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[D1:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[D2:.+]] = "torch.constant.int"() {value = 6 : i64}
// CHECK: %[[SIZES:.+]] = "torch.prim.ListConstruct"(%[[D0]], %[[D1]], %[[D2]]) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[Y:.+]] = "torch.aten.broadcast_to"(%arg0, %[[SIZES]]) : (!torch.vtensor<[3,1],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,6],f32>
// CHECK: return %[[Y]]

// A shape known only at run time: where the input has the dimension too, a 1 in the
// shape keeps the input's size (ONNX broadcasts both ways): s + (s == 1) * (size - 1).
// CHECK-LABEL: func.func @test_expand_run_time(
func.func @test_expand_run_time(%arg0: !torch.vtensor<[?,1],f32>, %arg1: !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Expand"} : (!torch.vtensor<[?,1],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?],f32>
  return %0 : !torch.vtensor<[?,?],f32>
}
// CHECK: %[[S0:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[S1:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[ONE:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[IS1:.+]] = "torch.aten.eq.int"(%[[S0]], %[[ONE]]) : (!torch.int, !torch.int) -> !torch.bool
// CHECK: %[[FLAG:.+]] = "torch.aten.Int.bool"(%[[IS1]])
// CHECK: %[[SIZE:.+]] = "torch.aten.size.int"(%arg0, {{.*}}) : (!torch.vtensor<[?,1],f32>, !torch.int) -> !torch.int
// CHECK: %[[GROW:.+]] = "torch.aten.sub.int"(%[[SIZE]], %[[ONE]])
// CHECK: %[[EXTRA:.+]] = "torch.aten.mul.int"(%[[FLAG]], %[[GROW]])
// CHECK: %[[D0:.+]] = "torch.aten.add.int"(%[[S0]], %[[EXTRA]])
// The input's known 1 takes the shape's entry as it is.
// CHECK-NEXT: %[[SIZES:.+]] = "torch.prim.ListConstruct"(%[[D0]], %[[S1]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: "torch.aten.broadcast_to"(%arg0, %[[SIZES]]) : (!torch.vtensor<[?,1],f32>, !torch.list<int>) -> !torch.vtensor<[?,?],f32>
