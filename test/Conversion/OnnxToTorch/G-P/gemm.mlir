// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Without C, Gemm is a matrix product.
// CHECK-LABEL: func.func @test_gemm_default_no_bias(
func.func @test_gemm_default_no_bias(%arg0: !torch.vtensor<[2,10],f32>, %arg1: !torch.vtensor<[10,3],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Gemm"} : (!torch.vtensor<[2,10],f32>, !torch.vtensor<[10,3],f32>) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.mm"(%arg0, %arg1) : (!torch.vtensor<[2,10],f32>, !torch.vtensor<[10,3],f32>) -> !torch.vtensor<[2,3],f32>
// CHECK-NEXT: return %[[Y]]

// The usual fully connected layer: transB = 1 and a bias of length N.
// CHECK-LABEL: func.func @test_gemm_transb_bias(
func.func @test_gemm_transb_bias(%arg0: !torch.vtensor<[1,512],f32>, %arg1: !torch.vtensor<[1000,512],f32>, %arg2: !torch.vtensor<[1000],f32>) -> !torch.vtensor<[1,1000],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.Gemm", torch.onnx.alpha = 1.000000e+00 : f32, torch.onnx.beta = 1.000000e+00 : f32, torch.onnx.transB = 1 : si64} : (!torch.vtensor<[1,512],f32>, !torch.vtensor<[1000,512],f32>, !torch.vtensor<[1000],f32>) -> !torch.vtensor<[1,1000],f32>
  return %0 : !torch.vtensor<[1,1000],f32>
}
// CHECK: %[[ZERO:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[ONE:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[BT:.+]] = "torch.aten.transpose.int"(%arg1, %[[ZERO]], %[[ONE]]) : (!torch.vtensor<[1000,512],f32>, !torch.int, !torch.int) -> !torch.vtensor<[512,1000],f32>
// CHECK: %[[MM:.+]] = "torch.aten.mm"(%arg0, %[[BT]]) : (!torch.vtensor<[1,512],f32>, !torch.vtensor<[512,1000],f32>) -> !torch.vtensor<[1,1000],f32>
// CHECK: %[[BETA:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.add.Tensor"(%[[MM]], %arg2, %[[BETA]]) : (!torch.vtensor<[1,1000],f32>, !torch.vtensor<[1000],f32>, !torch.int) -> !torch.vtensor<[1,1000],f32>
// CHECK-NEXT: return %[[Y]]

// alpha scales the product; beta is add.Tensor's alpha, which scales C.
// CHECK-LABEL: func.func @test_gemm_all_attributes(
func.func @test_gemm_all_attributes(%arg0: !torch.vtensor<[4,3],f32>, %arg1: !torch.vtensor<[5,4],f32>, %arg2: !torch.vtensor<[1,5],f32>) -> !torch.vtensor<[3,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.Gemm", torch.onnx.alpha = 2.500000e-01 : f32, torch.onnx.beta = 3.500000e-01 : f32, torch.onnx.transA = 1 : si64, torch.onnx.transB = 1 : si64} : (!torch.vtensor<[4,3],f32>, !torch.vtensor<[5,4],f32>, !torch.vtensor<[1,5],f32>) -> !torch.vtensor<[3,5],f32>
  return %0 : !torch.vtensor<[3,5],f32>
}
// CHECK: %[[AT:.+]] = "torch.aten.transpose.int"(%arg0, %{{.+}}, %{{.+}}) : (!torch.vtensor<[4,3],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3,4],f32>
// CHECK: %[[BT:.+]] = "torch.aten.transpose.int"(%arg1, %{{.+}}, %{{.+}}) : (!torch.vtensor<[5,4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[4,5],f32>
// CHECK: %[[MM:.+]] = "torch.aten.mm"(%[[AT]], %[[BT]]) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[3,5],f32>
// CHECK: %[[ALPHA:.+]] = "torch.constant.float"() {value = 2.500000e-01 : f64}
// CHECK: %[[SCALED:.+]] = "torch.aten.mul.Scalar"(%[[MM]], %[[ALPHA]]) : (!torch.vtensor<[3,5],f32>, !torch.float) -> !torch.vtensor<[3,5],f32>
// CHECK: %[[BETA:.+]] = "torch.constant.float"() {value = 0.34999999403953552 : f64}
// CHECK: %[[Y:.+]] = "torch.aten.add.Tensor"(%[[SCALED]], %arg2, %[[BETA]]) : (!torch.vtensor<[3,5],f32>, !torch.vtensor<[1,5],f32>, !torch.float) -> !torch.vtensor<[3,5],f32>
// CHECK-NEXT: return %[[Y]]

// alpha without C still scales the product.
// CHECK-LABEL: func.func @test_gemm_alpha_no_bias(
func.func @test_gemm_alpha_no_bias(%arg0: !torch.vtensor<[3,5],f32>, %arg1: !torch.vtensor<[5,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Gemm", torch.onnx.alpha = 5.000000e-01 : f32} : (!torch.vtensor<[3,5],f32>, !torch.vtensor<[5,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[MM:.+]] = "torch.aten.mm"(%arg0, %arg1)
// CHECK: %[[ALPHA:.+]] = "torch.constant.float"() {value = 5.000000e-01 : f64}
// CHECK: %[[Y:.+]] = "torch.aten.mul.Scalar"(%[[MM]], %[[ALPHA]]) : (!torch.vtensor<[3,4],f32>, !torch.float) -> !torch.vtensor<[3,4],f32>
// CHECK-NEXT: return %[[Y]]

// beta = 0 leaves C out, as the reference does.
// CHECK-LABEL: func.func @test_gemm_beta_zero(
func.func @test_gemm_beta_zero(%arg0: !torch.vtensor<[3,5],f32>, %arg1: !torch.vtensor<[5,4],f32>, %arg2: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.Gemm", torch.onnx.beta = 0.000000e+00 : f32} : (!torch.vtensor<[3,5],f32>, !torch.vtensor<[5,4],f32>, !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.mm"(%arg0, %arg1)
// CHECK-NEXT: return %[[Y]]

// Before opset 7, C broadcasts only when the broadcast attribute says so.
// CHECK-LABEL: func.func @test_gemm_legacy_broadcast(
func.func @test_gemm_legacy_broadcast(%arg0: !torch.vtensor<[3,5],f32>, %arg1: !torch.vtensor<[5,4],f32>, %arg2: !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.Gemm", torch.onnx.broadcast = 1 : si64} : (!torch.vtensor<[3,5],f32>, !torch.vtensor<[5,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[MM:.+]] = "torch.aten.mm"(%arg0, %arg1)
// CHECK: "torch.aten.add.Tensor"(%[[MM]], %arg2, %{{.+}}) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>, !torch.int) -> !torch.vtensor<[3,4],f32>

// Integer Gemm scales by integers.
// CHECK-LABEL: func.func @test_gemm_int32(
func.func @test_gemm_int32(%arg0: !torch.vtensor<[3,5],si32>, %arg1: !torch.vtensor<[5,4],si32>, %arg2: !torch.vtensor<[3,4],si32>) -> !torch.vtensor<[3,4],si32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.Gemm", torch.onnx.alpha = 2.000000e+00 : f32, torch.onnx.beta = 3.000000e+00 : f32} : (!torch.vtensor<[3,5],si32>, !torch.vtensor<[5,4],si32>, !torch.vtensor<[3,4],si32>) -> !torch.vtensor<[3,4],si32>
  return %0 : !torch.vtensor<[3,4],si32>
}
// CHECK: %[[MM:.+]] = "torch.aten.mm"(%arg0, %arg1)
// CHECK: %[[ALPHA:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[SCALED:.+]] = "torch.aten.mul.Scalar"(%[[MM]], %[[ALPHA]]) : (!torch.vtensor<[3,4],si32>, !torch.int) -> !torch.vtensor<[3,4],si32>
// CHECK: %[[BETA:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: "torch.aten.add.Tensor"(%[[SCALED]], %arg2, %[[BETA]]) : (!torch.vtensor<[3,4],si32>, !torch.vtensor<[3,4],si32>, !torch.int) -> !torch.vtensor<[3,4],si32>
// CHECK-NOT: torch.operator
