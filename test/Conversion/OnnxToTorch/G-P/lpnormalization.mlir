// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// LpNormalization divides by the L2 norm along the last axis by default; a zero norm
// divides by 1 instead (its elements are all zero).
// CHECK-LABEL: func.func @test_lpnormalization_default(
func.func @test_lpnormalization_default(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 22 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.LpNormalization"} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[P:.+]] = "torch.constant.float"() {value = 2.000000e+00 : f64}
// CHECK: %[[AXIS:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[AXES:.+]] = "torch.prim.ListConstruct"(%[[AXIS]])
// CHECK: %[[KEEP:.+]] = "torch.constant.bool"() {value = true}
// CHECK: %[[NONE:.+]] = "torch.constant.none"()
// CHECK: %[[NORM:.+]] = "torch.aten.linalg_vector_norm"(%arg0, %[[P]], %[[AXES]], %[[KEEP]], %[[NONE]]) : (!torch.vtensor<[3,4,5],f32>, !torch.float, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[3,4,1],f32>
// CHECK: %[[ZERO:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[IS_ZERO:.+]] = "torch.aten.eq.Scalar"(%[[NORM]], %[[ZERO]]) : (!torch.vtensor<[3,4,1],f32>, !torch.int) -> !torch.vtensor<[3,4,1],i1>
// CHECK: %[[ONE:.+]] = "torch.constant.float"() {value = 1.000000e+00 : f64}
// CHECK: %[[DIVISOR:.+]] = "torch.aten.where.ScalarSelf"(%[[IS_ZERO]], %[[ONE]], %[[NORM]]) : (!torch.vtensor<[3,4,1],i1>, !torch.float, !torch.vtensor<[3,4,1],f32>) -> !torch.vtensor<[3,4,1],f32>
// CHECK: %[[Y:.+]] = "torch.aten.div.Tensor"(%arg0, %[[DIVISOR]]) : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[3,4,1],f32>) -> !torch.vtensor<[3,4,5],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_lpnormalization_l1_axis0(
func.func @test_lpnormalization_l1_axis0(%arg0: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.LpNormalization", torch.onnx.axis = 0 : si64, torch.onnx.p = 1 : si64} : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  return %0 : !torch.vtensor<[?,4],f32>
}
// CHECK: %[[P:.+]] = "torch.constant.float"() {value = 1.000000e+00 : f64}
// CHECK: "torch.aten.linalg_vector_norm"(%arg0, %[[P]], %{{.+}}, %{{.+}}, %{{.+}}) : {{.+}} -> !torch.vtensor<[1,4],f32>
