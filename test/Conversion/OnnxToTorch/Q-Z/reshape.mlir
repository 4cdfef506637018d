// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// A static result gives the sizes directly, as torch-mlir does: 0 copies the input's
// dimension and -1 is inferred.
// CHECK-LABEL: func.func @test_reshape_zero_and_negative_one(
func.func @test_reshape_zero_and_negative_one(%arg0: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,12],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[0, -1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %s) {name = "onnx.Reshape"} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[2,12],f32>
  return %0 : !torch.vtensor<[2,12],f32>
}
// CHECK: %[[D0:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[D1:.+]] = "torch.constant.int"() {value = 12 : i64}
// CHECK: %[[SHAPE:.+]] = "torch.prim.ListConstruct"(%[[D0]], %[[D1]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[Y:.+]] = "torch.aten.reshape"(%arg0, %[[SHAPE]]) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,12],f32>
// CHECK: return %[[Y]]

// A dynamic batch: 0 copies the input's dimension with size.int, -1 stays for torch.
// CHECK-LABEL: func.func @test_reshape_dynamic_batch(
func.func @test_reshape_dynamic_batch(%arg0: !torch.vtensor<[?,3,4],f32>) -> !torch.vtensor<[?,12],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[0, -1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %s) {name = "onnx.Reshape"} : (!torch.vtensor<[?,3,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,12],f32>
  return %0 : !torch.vtensor<[?,12],f32>
}
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[BATCH:.+]] = "torch.aten.size.int"(%arg0, %[[DIM]]) : (!torch.vtensor<[?,3,4],f32>, !torch.int) -> !torch.int
// CHECK: %[[REST:.+]] = "torch.constant.int"() {value = -1 : i64}
// CHECK: %[[SHAPE:.+]] = "torch.prim.ListConstruct"(%[[BATCH]], %[[REST]])
// CHECK: "torch.aten.reshape"(%arg0, %[[SHAPE]]) : (!torch.vtensor<[?,3,4],f32>, !torch.list<int>) -> !torch.vtensor<[?,12],f32>

// With allowzero=1 a 0 is a literal size.
// CHECK-LABEL: func.func @test_reshape_allowzero(
func.func @test_reshape_allowzero(%arg0: !torch.vtensor<[0,?],f32>) -> !torch.vtensor<[?,0],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[3, 0]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %s) {name = "onnx.Reshape", torch.onnx.allowzero = 1 : si64} : (!torch.vtensor<[0,?],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,0],f32>
  return %0 : !torch.vtensor<[?,0],f32>
}
// CHECK: %[[A:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[B:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[SHAPE:.+]] = "torch.prim.ListConstruct"(%[[A]], %[[B]])
// CHECK: "torch.aten.reshape"(%arg0, %[[SHAPE]])

// A shape known only at run time is read entry by entry; entries below the input's
// rank become s + (s == 0) * size(data, i).
// CHECK-LABEL: func.func @test_reshape_runtime_shape(
func.func @test_reshape_runtime_shape(%arg0: !torch.vtensor<[?,8],f32>, %arg1: !torch.vtensor<[3],si64>) -> !torch.vtensor<[?,?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Reshape"} : (!torch.vtensor<[?,8],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[?,?,?],f32>
  return %0 : !torch.vtensor<[?,?,?],f32>
}
// CHECK: %[[ZERO:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[I0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[E0:.+]] = "torch.aten.select.int"(%arg1, %[[ZERO]], %[[I0]]) : (!torch.vtensor<[3],si64>, !torch.int, !torch.int) -> !torch.vtensor<[],si64>
// CHECK: %[[S0:.+]] = "torch.aten.item"(%[[E0]]) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[IS0:.+]] = "torch.aten.eq.int"(%[[S0]], %[[ZERO]]) : (!torch.int, !torch.int) -> !torch.bool
// CHECK: %[[F0:.+]] = "torch.aten.Int.bool"(%[[IS0]]) : (!torch.bool) -> !torch.int
// CHECK: %[[N0:.+]] = "torch.aten.size.int"(%arg0, %{{.+}})
// CHECK: %[[C0:.+]] = "torch.aten.mul.int"(%[[F0]], %[[N0]])
// CHECK: %[[R0:.+]] = "torch.aten.add.int"(%[[S0]], %[[C0]])
// CHECK: "torch.aten.add.int"
// CHECK: %[[I2:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[E2:.+]] = "torch.aten.select.int"(%arg1, %[[ZERO]], %[[I2]])
// CHECK: %[[R2:.+]] = "torch.aten.item"(%[[E2]])
// CHECK-NEXT: %[[SHAPE:.+]] = "torch.prim.ListConstruct"(%[[R0]], %{{.+}}, %[[R2]]) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: "torch.aten.reshape"(%arg0, %[[SHAPE]]) : (!torch.vtensor<[?,8],f32>, !torch.list<int>) -> !torch.vtensor<[?,?,?],f32>

// A shape known only at run time whose result sizes are known in part (shape inference
// found [?, 400, 6, 64] in the shape vector): the known sizes are constants in the
// list, so torch-mlir infers the same result type; only the batch is read.
// CHECK-LABEL: func.func @test_reshape_runtime_shape_partly_known(
func.func @test_reshape_runtime_shape_partly_known(%arg0: !torch.vtensor<[?,400,384],f32>, %arg1: !torch.vtensor<[4],si64>) -> !torch.vtensor<[?,400,6,64],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Reshape"} : (!torch.vtensor<[?,400,384],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[?,400,6,64],f32>
  return %0 : !torch.vtensor<[?,400,6,64],f32>
}
// CHECK: %[[ZERO:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[E0:.+]] = "torch.aten.select.int"(%arg1, %[[ZERO]], %{{.+}})
// CHECK: %[[S0:.+]] = "torch.aten.item"(%[[E0]])
// CHECK: %[[R0:.+]] = "torch.aten.add.int"(%[[S0]], %{{.+}})
// CHECK-NEXT: %[[D1:.+]] = "torch.constant.int"() {value = 400 : i64}
// CHECK-NEXT: %[[D2:.+]] = "torch.constant.int"() {value = 6 : i64}
// CHECK-NEXT: %[[D3:.+]] = "torch.constant.int"() {value = 64 : i64}
// CHECK-NEXT: %[[SHAPE:.+]] = "torch.prim.ListConstruct"(%[[R0]], %[[D1]], %[[D2]], %[[D3]]) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK-NEXT: "torch.aten.reshape"(%arg0, %[[SHAPE]]) : (!torch.vtensor<[?,400,384],f32>, !torch.list<int>) -> !torch.vtensor<[?,400,6,64],f32>

// Reshape-1 takes the shape as an attribute.
// CHECK-LABEL: func.func @test_reshape_v1_attribute(
func.func @test_reshape_v1_attribute(%arg0: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Reshape", torch.onnx.shape = [4 : si64, -1 : si64]} : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[?,?],f32>
  return %0 : !torch.vtensor<[?,?],f32>
}
// CHECK: %[[A:.+]] = "torch.constant.int"() {value = 4 : i64}
// CHECK: %[[B:.+]] = "torch.constant.int"() {value = -1 : i64}
// CHECK: %[[SHAPE:.+]] = "torch.prim.ListConstruct"(%[[A]], %[[B]])
// CHECK: "torch.aten.reshape"(%arg0, %[[SHAPE]]) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>) -> !torch.vtensor<[?,?],f32>

// A shape from a Constant node is read at compile time once the Constant is lowered,
// whichever of the two the conversion reaches first.
// CHECK-LABEL: func.func @test_reshape_shape_from_constant_node(
func.func @test_reshape_shape_from_constant_node(%arg0: !torch.vtensor<[?,3,4],f32>) -> !torch.vtensor<[?,12],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.operator"() {name = "onnx.Constant", torch.onnx.value = dense<[0, -1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %s) {name = "onnx.Reshape"} : (!torch.vtensor<[?,3,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,12],f32>
  return %0 : !torch.vtensor<[?,12],f32>
}
// CHECK-NOT: torch.aten.select.int
// CHECK: %[[BATCH:.+]] = "torch.aten.size.int"(%arg0, %{{.+}})
// CHECK: %[[REST:.+]] = "torch.constant.int"() {value = -1 : i64}
// CHECK: %[[SHAPE:.+]] = "torch.prim.ListConstruct"(%[[BATCH]], %[[REST]])
// CHECK: "torch.aten.reshape"(%arg0, %[[SHAPE]])
