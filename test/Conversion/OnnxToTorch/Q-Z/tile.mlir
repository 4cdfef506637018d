// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Constant repeats: aten.tile with a list of constants.
// CHECK-LABEL: func.func @test_tile_constant(
func.func @test_tile_constant(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[4,3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %r = "torch.vtensor.literal"() {value = dense<[2, 1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %r) {name = "onnx.Tile"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[4,3],f32>
  return %0 : !torch.vtensor<[4,3],f32>
}
// CHECK: %[[R0:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[R1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[LIST:.+]] = "torch.prim.ListConstruct"(%[[R0]], %[[R1]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[Y:.+]] = "torch.aten.tile"(%arg0, %[[LIST]]) : (!torch.vtensor<[2,3],f32>, !torch.list<int>) -> !torch.vtensor<[4,3],f32>
// CHECK: return %[[Y]]

// Repeats known only at run time, read with select.int and item.
// CHECK-LABEL: func.func @test_tile_run_time(
func.func @test_tile_run_time(%arg0: !torch.vtensor<[2,3],si8>, %arg1: !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?],si8> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Tile"} : (!torch.vtensor<[2,3],si8>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?],si8>
  return %0 : !torch.vtensor<[?,?],si8>
}
// CHECK: %[[S0:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[S1:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[LIST:.+]] = "torch.prim.ListConstruct"(%[[S0]], %[[S1]])
// CHECK: "torch.aten.tile"(%arg0, %[[LIST]]) : (!torch.vtensor<[2,3],si8>, !torch.list<int>) -> !torch.vtensor<[?,?],si8>
