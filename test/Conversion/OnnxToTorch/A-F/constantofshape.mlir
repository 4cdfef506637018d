// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// A known result: aten.full with its sizes and the value attribute's type.
// CHECK-LABEL: func.func @test_constantofshape_static(
func.func @test_constantofshape_static() -> !torch.vtensor<[2,3],si32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[2, 3]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%s) {name = "onnx.ConstantOfShape", torch.onnx.value = dense<7> : tensor<1xsi32>} : (!torch.vtensor<[2],si64>) -> !torch.vtensor<[2,3],si32>
  return %0 : !torch.vtensor<[2,3],si32>
}
// CHECK: %[[D0:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[D1:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[SIZES:.+]] = "torch.prim.ListConstruct"(%[[D0]], %[[D1]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[FILL:.+]] = "torch.constant.int"() {value = 7 : i64}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[NONE:.+]] = "torch.constant.none"
// CHECK: %[[Y:.+]] = "torch.aten.full"(%[[SIZES]], %[[FILL]], %[[DTYPE]], %[[NONE]], %[[NONE]], %[[NONE]]) : (!torch.list<int>, !torch.int, !torch.int, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[2,3],si32>
// CHECK: return %[[Y]]

// A shape known only at run time: each entry read with select.int and item; without
// a value attribute the fill is a float 0.
// CHECK-LABEL: func.func @test_constantofshape_run_time(
func.func @test_constantofshape_run_time(%arg0: !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ConstantOfShape"} : (!torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?],f32>
  return %0 : !torch.vtensor<[?,?],f32>
}
// CHECK: %[[ZERO:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[I0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[E0:.+]] = "torch.aten.select.int"(%arg0, %[[ZERO]], %[[I0]]) : (!torch.vtensor<[2],si64>, !torch.int, !torch.int) -> !torch.vtensor<[],si64>
// CHECK: %[[S0:.+]] = "torch.aten.item"(%[[E0]]) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[I1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[E1:.+]] = "torch.aten.select.int"(%arg0, %[[ZERO]], %[[I1]])
// CHECK: %[[S1:.+]] = "torch.aten.item"(%[[E1]])
// CHECK: %[[SIZES:.+]] = "torch.prim.ListConstruct"(%[[S0]], %[[S1]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[FILL:.+]] = "torch.constant.float"() {value = 0.000000e+00 : f64}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 6 : i64}
// CHECK: "torch.aten.full"(%[[SIZES]], %[[FILL]], %[[DTYPE]], {{.*}}) : (!torch.list<int>, !torch.float, !torch.int, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[?,?],f32>

// A shape known only at run time whose result sizes are known in part: the known size
// is a constant in the list, as in Reshape, so torch-mlir infers the same type.
// CHECK-LABEL: func.func @test_constantofshape_run_time_partly_known(
func.func @test_constantofshape_run_time_partly_known(%arg0: !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,6],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ConstantOfShape"} : (!torch.vtensor<[2],si64>) -> !torch.vtensor<[?,6],f32>
  return %0 : !torch.vtensor<[?,6],f32>
}
// CHECK: %[[E0:.+]] = "torch.aten.select.int"(%arg0, %{{.+}}, %{{.+}})
// CHECK: %[[S0:.+]] = "torch.aten.item"(%[[E0]])
// CHECK: %[[D1:.+]] = "torch.constant.int"() {value = 6 : i64}
// CHECK-NEXT: %[[SIZES:.+]] = "torch.prim.ListConstruct"(%[[S0]], %[[D1]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: "torch.aten.full"(%[[SIZES]], {{.*}}) : (!torch.list<int>, !torch.float, !torch.int, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[?,6],f32>
