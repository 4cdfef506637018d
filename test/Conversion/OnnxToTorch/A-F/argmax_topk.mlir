// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_argmax(
func.func @test_argmax(%arg0: !torch.vtensor<[2,3],f32>) -> (!torch.vtensor<[2,1],si64>, !torch.vtensor<[3],si64>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ArgMax", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,1],si64>
  %1 = "torch.operator"(%arg0) {name = "onnx.ArgMin", torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[3],si64>
  return %0, %1 : !torch.vtensor<[2,1],si64>, !torch.vtensor<[3],si64>
}
// CHECK: %[[V0:.+]] = "torch.constant.bool"() {value = true} : () -> !torch.bool
// CHECK: %[[V1:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V2:.+]] = "torch.aten.argmax"(%arg0, %[[V1]], %[[V0]]) : (!torch.vtensor<[2,3],f32>, !torch.int, !torch.bool) -> !torch.vtensor<[2,1],si64>
// CHECK: %[[V3:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[V4:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V5:.+]] = "torch.aten.argmin"(%arg0, %[[V4]], %[[V3]]) : (!torch.vtensor<[2,3],f32>, !torch.int, !torch.bool) -> !torch.vtensor<[3],si64>
// CHECK: return %[[V2]], %[[V5]] : !torch.vtensor<[2,1],si64>, !torch.vtensor<[3],si64>

// CHECK-LABEL: func.func @test_argmax_last_index(
// select_last_index: argmax of the flipped axis, mapped back as size - 1 - i.
func.func @test_argmax_last_index(%arg0: !torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2],si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ArgMax", torch.onnx.axis = -1 : si64, torch.onnx.keepdims = 0 : si64, torch.onnx.select_last_index = 1 : si64} : (!torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2],si64>
  return %0 : !torch.vtensor<[2],si64>
}
// CHECK: %[[V0:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[V1:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V2:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V3:.+]] = "torch.prim.ListConstruct"(%[[V2]]) : (!torch.int) -> !torch.list<int>
// CHECK: %[[V4:.+]] = "torch.aten.flip"(%arg0, %[[V3]]) : (!torch.vtensor<[2,?],f32>, !torch.list<int>) -> !torch.vtensor<[2,?],f32>
// CHECK: %[[V5:.+]] = "torch.aten.argmax"(%[[V4]], %[[V1]], %[[V0]]) : (!torch.vtensor<[2,?],f32>, !torch.int, !torch.bool) -> !torch.vtensor<[2],si64>
// CHECK: %[[V6:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V7:.+]] = "torch.aten.size.int"(%arg0, %[[V6]]) : (!torch.vtensor<[2,?],f32>, !torch.int) -> !torch.int
// CHECK: %[[V8:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V9:.+]] = "torch.aten.sub.int"(%[[V7]], %[[V8]]) : (!torch.int, !torch.int) -> !torch.int
// CHECK: %[[V10:.+]] = "torch.aten.rsub.Scalar"(%[[V5]], %[[V9]], %[[V8]]) : (!torch.vtensor<[2],si64>, !torch.int, !torch.int) -> !torch.vtensor<[2],si64>
// CHECK: return %[[V10]] : !torch.vtensor<[2],si64>

// CHECK-LABEL: func.func @test_top_k(
func.func @test_top_k(%arg0: !torch.vtensor<[3,4],f32>) -> (!torch.vtensor<[3,2],f32>, !torch.vtensor<[3,2],si64>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %k = "torch.vtensor.literal"() {value = dense<2> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0:2 = "torch.operator"(%arg0, %k) {name = "onnx.TopK", torch.onnx.largest = 0 : si64} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[1],si64>) -> (!torch.vtensor<[3,2],f32>, !torch.vtensor<[3,2],si64>)
  return %0#0, %0#1 : !torch.vtensor<[3,2],f32>, !torch.vtensor<[3,2],si64>
}
// CHECK: %[[V0:.+]] = "torch.vtensor.literal"() {value = dense<2> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
// CHECK: %[[V1:.+]] = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
// CHECK: %[[V2:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[V3:.+]] = "torch.constant.bool"() {value = true} : () -> !torch.bool
// CHECK: %[[V4:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V5:.+]]:2 = "torch.aten.topk"(%arg0, %[[V1]], %[[V4]], %[[V2]], %[[V3]]) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.int, !torch.bool, !torch.bool) -> (!torch.vtensor<[3,2],f32>, !torch.vtensor<[3,2],si64>)
// CHECK: return %[[V5]]#0, %[[V5]]#1 : !torch.vtensor<[3,2],f32>, !torch.vtensor<[3,2],si64>

// CHECK-LABEL: func.func @test_top_k_run_time_k(
// K known only at run time is read with item.
func.func @test_top_k_run_time_k(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[1],si64>) -> (!torch.vtensor<[3,?],f32>, !torch.vtensor<[3,?],si64>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0:2 = "torch.operator"(%arg0, %arg1) {name = "onnx.TopK", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[1],si64>) -> (!torch.vtensor<[3,?],f32>, !torch.vtensor<[3,?],si64>)
  return %0#0, %0#1 : !torch.vtensor<[3,?],f32>, !torch.vtensor<[3,?],si64>
}
// CHECK: %[[V0:.+]] = "torch.aten.item"(%arg1) : (!torch.vtensor<[1],si64>) -> !torch.int
// CHECK: %[[V1:.+]] = "torch.constant.bool"() {value = true} : () -> !torch.bool
// CHECK: %[[V2:.+]] = "torch.constant.bool"() {value = true} : () -> !torch.bool
// CHECK: %[[V3:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V4:.+]]:2 = "torch.aten.topk"(%arg0, %[[V0]], %[[V3]], %[[V1]], %[[V2]]) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.int, !torch.bool, !torch.bool) -> (!torch.vtensor<[3,?],f32>, !torch.vtensor<[3,?],si64>)
// CHECK: return %[[V4]]#0, %[[V4]]#1 : !torch.vtensor<[3,?],f32>, !torch.vtensor<[3,?],si64>
