// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// The defaults (alpha 0.2, beta 0.5) are not torch's hardsigmoid, so the formula
// max(0, min(1, alpha * x + beta)) is spelled out.
// CHECK-LABEL: func.func @test_hardsigmoid_default(
func.func @test_hardsigmoid_default(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.HardSigmoid"} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[ALPHA:.+]] = "torch.constant.float"() {value = 2.000000e-01 : f64}
// CHECK: %[[AX:.+]] = "torch.aten.mul.Scalar"(%arg0, %[[ALPHA]]) : (!torch.vtensor<[3,4,5],f32>, !torch.float) -> !torch.vtensor<[3,4,5],f32>
// CHECK: %[[ONE:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[BETA:.+]] = "torch.constant.float"() {value = 5.000000e-01 : f64}
// CHECK: %[[SUM:.+]] = "torch.aten.add.Scalar"(%[[AX]], %[[BETA]], %[[ONE]]) : (!torch.vtensor<[3,4,5],f32>, !torch.float, !torch.int) -> !torch.vtensor<[3,4,5],f32>
// CHECK: %[[LO:.+]] = "torch.constant.float"() {value = 0.000000e+00 : f64}
// CHECK: %[[HI:.+]] = "torch.constant.float"() {value = 1.000000e+00 : f64}
// CHECK: %[[Y:.+]] = "torch.aten.clamp"(%[[SUM]], %[[LO]], %[[HI]]) : (!torch.vtensor<[3,4,5],f32>, !torch.float, !torch.float) -> !torch.vtensor<[3,4,5],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_hardsigmoid(
func.func @test_hardsigmoid(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 22 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.HardSigmoid", torch.onnx.alpha = 5.000000e-01 : f32, torch.onnx.beta = 6.000000e-01 : f32} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[ALPHA:.+]] = "torch.constant.float"() {value = 5.000000e-01 : f64}
// CHECK: "torch.aten.mul.Scalar"(%arg0, %[[ALPHA]])
// CHECK: %[[BETA:.+]] = "torch.constant.float"() {value = 0.60000002384185791 : f64}
// CHECK: "torch.aten.add.Scalar"(%{{.+}}, %[[BETA]], %{{.+}})
// CHECK: "torch.aten.clamp"

// alpha = 1/6 and beta = 0.5 are exactly torch's hardsigmoid.
// CHECK-LABEL: func.func @test_hardsigmoid_torch(
func.func @test_hardsigmoid_torch(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.HardSigmoid", torch.onnx.alpha = 0.166666672 : f32} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK-NOT: torch.aten.clamp
// CHECK: %[[Y:.+]] = "torch.aten.hardsigmoid"(%arg0) : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
// CHECK: return %[[Y]]
