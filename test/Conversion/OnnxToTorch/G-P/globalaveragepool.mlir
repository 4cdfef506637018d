// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// The window is the whole spatial extent.
// CHECK-LABEL: func.func @test_globalaveragepool(
func.func @test_globalaveragepool(%arg0: !torch.vtensor<[1,3,5,5],f32>) -> !torch.vtensor<[1,3,1,1],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.GlobalAveragePool"} : (!torch.vtensor<[1,3,5,5],f32>) -> !torch.vtensor<[1,3,1,1],f32>
  return %0 : !torch.vtensor<[1,3,1,1],f32>
}
// CHECK: %[[K0:.+]] = "torch.constant.int"() {value = 5 : i64}
// CHECK: %[[K1:.+]] = "torch.constant.int"() {value = 5 : i64}
// CHECK: %[[KERNEL:.+]] = "torch.prim.ListConstruct"(%[[K0]], %[[K1]])
// CHECK: %[[S0:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[S1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[STRIDES:.+]] = "torch.prim.ListConstruct"(%[[S0]], %[[S1]])
// CHECK: %[[P0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[P1:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%[[P0]], %[[P1]])
// CHECK: %[[FALSE:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[NONE:.+]] = "torch.constant.none"()
// CHECK: %[[Y:.+]] = "torch.aten.avg_pool2d"(%arg0, %[[KERNEL]], %[[STRIDES]], %[[PADS]], %[[FALSE]], %[[FALSE]], %[[NONE]]) : (!torch.vtensor<[1,3,5,5],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,3,1,1],f32>
// CHECK: return %[[Y]]

// A dynamic size is read at run time.
// CHECK-LABEL: func.func @test_globalaveragepool_dynamic(
func.func @test_globalaveragepool_dynamic(%arg0: !torch.vtensor<[?,64,?,7],f32>) -> !torch.vtensor<[?,64,1,1],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.GlobalAveragePool"} : (!torch.vtensor<[?,64,?,7],f32>) -> !torch.vtensor<[?,64,1,1],f32>
  return %0 : !torch.vtensor<[?,64,1,1],f32>
}
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[H:.+]] = "torch.aten.size.int"(%arg0, %[[DIM]]) : (!torch.vtensor<[?,64,?,7],f32>, !torch.int) -> !torch.int
// CHECK: %[[W:.+]] = "torch.constant.int"() {value = 7 : i64}
// CHECK: %[[KERNEL:.+]] = "torch.prim.ListConstruct"(%[[H]], %[[W]])
// CHECK: "torch.aten.avg_pool2d"(%arg0, %[[KERNEL]], {{.*}} -> !torch.vtensor<[?,64,1,1],f32>

// CHECK-LABEL: func.func @test_globalaveragepool_1d(
func.func @test_globalaveragepool_1d(%arg0: !torch.vtensor<[2,4,10],f32>) -> !torch.vtensor<[2,4,1],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.GlobalAveragePool"} : (!torch.vtensor<[2,4,10],f32>) -> !torch.vtensor<[2,4,1],f32>
  return %0 : !torch.vtensor<[2,4,1],f32>
}
// CHECK: %[[K:.+]] = "torch.constant.int"() {value = 10 : i64}
// CHECK: %[[KERNEL:.+]] = "torch.prim.ListConstruct"(%[[K]]) : (!torch.int) -> !torch.list<int>
// CHECK: "torch.aten.avg_pool1d"(%arg0, %[[KERNEL]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (!torch.vtensor<[2,4,10],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool) -> !torch.vtensor<[2,4,1],f32>

// CHECK-LABEL: func.func @test_globalaveragepool_3d(
func.func @test_globalaveragepool_3d(%arg0: !torch.vtensor<[1,2,3,4,5],f32>) -> !torch.vtensor<[1,2,1,1,1],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.GlobalAveragePool"} : (!torch.vtensor<[1,2,3,4,5],f32>) -> !torch.vtensor<[1,2,1,1,1],f32>
  return %0 : !torch.vtensor<[1,2,1,1,1],f32>
}
// CHECK: %[[K0:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[K1:.+]] = "torch.constant.int"() {value = 4 : i64}
// CHECK: %[[K2:.+]] = "torch.constant.int"() {value = 5 : i64}
// CHECK: %[[KERNEL:.+]] = "torch.prim.ListConstruct"(%[[K0]], %[[K1]], %[[K2]])
// CHECK: "torch.aten.avg_pool3d"(%arg0, %[[KERNEL]], {{.*}} -> !torch.vtensor<[1,2,1,1,1],f32>
// CHECK-NOT: torch.operator
