// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// From opset 13 Softmax normalizes along `axis`, by default the last one.
// CHECK-LABEL: func.func @test_softmax_default_axis(
func.func @test_softmax_default_axis(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Softmax"} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[NONE:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
// CHECK: %[[Y:.+]] = "torch.aten.softmax.int"(%arg0, %[[DIM]], %[[NONE]]) : (!torch.vtensor<[3,4,5],f32>, !torch.int, !torch.none) -> !torch.vtensor<[3,4,5],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_softmax_axis_1(
func.func @test_softmax_axis_1(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Softmax", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: "torch.aten.softmax.int"(%arg0, %[[DIM]], %{{.+}}) : (!torch.vtensor<[3,4,5],f32>, !torch.int, !torch.none) -> !torch.vtensor<[3,4,5],f32>

// Before opset 13 the input is coerced to 2-D at `axis` (default 1): every dimension
// from the axis on is normalized together, so they are flattened into one and back.
// CHECK-LABEL: func.func @test_softmax_opset11_default_axis(
func.func @test_softmax_opset11_default_axis(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Softmax"} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[NONE:.+]] = "torch.constant.none"()
// CHECK: %[[D1:.+]] = "torch.constant.int"() {value = 4 : i64}
// CHECK: %[[D2:.+]] = "torch.constant.int"() {value = 5 : i64}
// CHECK: %[[SIZES:.+]] = "torch.prim.ListConstruct"(%[[D1]], %[[D2]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[START:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[END:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[FLAT:.+]] = "torch.aten.flatten.using_ints"(%arg0, %[[START]], %[[END]]) : (!torch.vtensor<[3,4,5],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3,20],f32>
// CHECK: %[[SM:.+]] = "torch.aten.softmax.int"(%[[FLAT]], %[[START]], %[[NONE]]) : (!torch.vtensor<[3,20],f32>, !torch.int, !torch.none) -> !torch.vtensor<[3,20],f32>
// CHECK: %[[Y:.+]] = "torch.aten.unflatten.int"(%[[SM]], %[[START]], %[[SIZES]]) : (!torch.vtensor<[3,20],f32>, !torch.int, !torch.list<int>) -> !torch.vtensor<[3,4,5],f32>
// CHECK: return %[[Y]]

// Dynamic sizes are read at run time for the unflatten.
// CHECK-LABEL: func.func @test_softmax_opset11_axis0_dynamic(
func.func @test_softmax_opset11_axis0_dynamic(%arg0: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Softmax", torch.onnx.axis = 0 : si64} : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  return %0 : !torch.vtensor<[?,4],f32>
}
// CHECK: %[[ZERO:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[N:.+]] = "torch.aten.size.int"(%arg0, %[[ZERO]]) : (!torch.vtensor<[?,4],f32>, !torch.int) -> !torch.int
// CHECK: %[[C:.+]] = "torch.constant.int"() {value = 4 : i64}
// CHECK: %[[SIZES:.+]] = "torch.prim.ListConstruct"(%[[N]], %[[C]])
// CHECK: %[[FLAT:.+]] = "torch.aten.flatten.using_ints"(%arg0, %{{.+}}, %{{.+}}) : (!torch.vtensor<[?,4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[?],f32>
// CHECK: %[[SM:.+]] = "torch.aten.softmax.int"(%[[FLAT]], %{{.+}}, %{{.+}}) : (!torch.vtensor<[?],f32>, !torch.int, !torch.none) -> !torch.vtensor<[?],f32>
// CHECK: "torch.aten.unflatten.int"(%[[SM]], %{{.+}}, %[[SIZES]]) : (!torch.vtensor<[?],f32>, !torch.int, !torch.list<int>) -> !torch.vtensor<[?,4],f32>

// At the last axis the coercion changes nothing.
// CHECK-LABEL: func.func @test_softmax_opset1_last_axis(
func.func @test_softmax_opset1_last_axis(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Softmax", torch.onnx.axis = -1 : si64} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK-NOT: torch.aten.flatten
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: "torch.aten.softmax.int"(%arg0, %[[DIM]], %{{.+}}) : (!torch.vtensor<[3,4,5],f32>, !torch.int, !torch.none) -> !torch.vtensor<[3,4,5],f32>

// The common 2-D case needs no flattening either.
// CHECK-LABEL: func.func @test_softmax_opset11_2d(
func.func @test_softmax_opset11_2d(%arg0: !torch.vtensor<[1,1000],f32>) -> !torch.vtensor<[1,1000],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Softmax"} : (!torch.vtensor<[1,1000],f32>) -> !torch.vtensor<[1,1000],f32>
  return %0 : !torch.vtensor<[1,1000],f32>
}
// CHECK-NOT: torch.aten.flatten
// CHECK: "torch.aten.softmax.int"(%arg0, %{{.+}}, %{{.+}}) : (!torch.vtensor<[1,1000],f32>, !torch.int, !torch.none) -> !torch.vtensor<[1,1000],f32>
