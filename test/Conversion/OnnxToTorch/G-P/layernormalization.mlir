// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_layer_norm(
func.func @test_layer_norm(%arg0: !torch.vtensor<[2,5,8],f32>, %arg1: !torch.vtensor<[8],f32>, %arg2: !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,5,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.LayerNormalization", torch.onnx.axis = -1 : si64, torch.onnx.epsilon = 9.99999974E-6 : f32} : (!torch.vtensor<[2,5,8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,5,8],f32>
  return %0 : !torch.vtensor<[2,5,8],f32>
}
// CHECK: %[[V0:.+]] = "torch.constant.int"() {value = 8 : i64} : () -> !torch.int
// CHECK: %[[V1:.+]] = "torch.prim.ListConstruct"(%[[V0]]) : (!torch.int) -> !torch.list<int>
// CHECK: %[[V2:.+]] = "torch.constant.float"() {value = 9.9999997473787516E-6 : f64} : () -> !torch.float
// CHECK: %[[V3:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[V4:.+]] = "torch.aten.layer_norm"(%arg0, %[[V1]], %arg1, %arg2, %[[V2]], %[[V3]]) : (!torch.vtensor<[2,5,8],f32>, !torch.list<int>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.float, !torch.bool) -> !torch.vtensor<[2,5,8],f32>
// CHECK: return %[[V4]] : !torch.vtensor<[2,5,8],f32>

// CHECK-LABEL: func.func @test_layer_norm_stats(
// All three outputs, normalizing from axis 1, no bias, and a size known at run time.
func.func @test_layer_norm_stats(%arg0: !torch.vtensor<[2,?,8],f32>, %arg1: !torch.vtensor<[?,8],f32>) -> (!torch.vtensor<[2,?,8],f32>, !torch.vtensor<[2,1,1],f32>, !torch.vtensor<[2,1,1],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0:3 = "torch.operator"(%arg0, %arg1, %none) {name = "onnx.LayerNormalization", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,?,8],f32>, !torch.vtensor<[?,8],f32>, !torch.none) -> (!torch.vtensor<[2,?,8],f32>, !torch.vtensor<[2,1,1],f32>, !torch.vtensor<[2,1,1],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,?,8],f32>, !torch.vtensor<[2,1,1],f32>, !torch.vtensor<[2,1,1],f32>
}
// CHECK: %[[V0:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V1:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V2:.+]] = "torch.aten.size.int"(%arg0, %[[V1]]) : (!torch.vtensor<[2,?,8],f32>, !torch.int) -> !torch.int
// CHECK: %[[V3:.+]] = "torch.constant.int"() {value = 8 : i64} : () -> !torch.int
// CHECK: %[[V4:.+]] = "torch.prim.ListConstruct"(%[[V2]], %[[V3]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[V5:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V6:.+]] = "torch.constant.float"() {value = 1.000000e-05 : f64} : () -> !torch.float
// CHECK: %[[V7:.+]]:3 = "torch.aten.native_layer_norm"(%arg0, %[[V4]], %arg1, %[[V5]], %[[V6]]) : (!torch.vtensor<[2,?,8],f32>, !torch.list<int>, !torch.vtensor<[?,8],f32>, !torch.none, !torch.float) -> (!torch.vtensor<[2,?,8],f32>, !torch.vtensor<[2,1,1],f32>, !torch.vtensor<[2,1,1],f32>)
// CHECK: return %[[V7]]#0, %[[V7]]#1, %[[V7]]#2 : !torch.vtensor<[2,?,8],f32>, !torch.vtensor<[2,1,1],f32>, !torch.vtensor<[2,1,1],f32>
