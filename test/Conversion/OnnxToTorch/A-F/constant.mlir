// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_constant_tensor(
func.func @test_constant_tensor() -> !torch.vtensor<[2,2],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"() {name = "onnx.Constant", torch.onnx.value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> !torch.vtensor<[2,2],f32>
  return %0 : !torch.vtensor<[2,2],f32>
}
// CHECK: %[[C:.+]] = "torch.vtensor.literal"() {value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>} : () -> !torch.vtensor<[2,2],f32>
// CHECK: return %[[C]]

// CHECK-LABEL: func.func @test_constant_int_tensor(
func.func @test_constant_int_tensor() -> !torch.vtensor<[3],si64> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"() {name = "onnx.Constant", torch.onnx.value = dense<[1, -2, 3]> : tensor<3xsi64>} : () -> !torch.vtensor<[3],si64>
  return %0 : !torch.vtensor<[3],si64>
}
// CHECK: %[[C:.+]] = "torch.vtensor.literal"() {value = dense<[1, -2, 3]> : tensor<3xsi64>} : () -> !torch.vtensor<[3],si64>
// CHECK: return %[[C]]

// CHECK-LABEL: func.func @test_constant_bool_scalar(
func.func @test_constant_bool_scalar() -> !torch.vtensor<[],i1> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"() {name = "onnx.Constant", torch.onnx.value = dense<true> : tensor<i1>} : () -> !torch.vtensor<[],i1>
  return %0 : !torch.vtensor<[],i1>
}
// CHECK: "torch.vtensor.literal"() {value = dense<true> : tensor<i1>} : () -> !torch.vtensor<[],i1>

// value_float and value_int are rank-0 tensors.
// CHECK-LABEL: func.func @test_constant_value_float(
func.func @test_constant_value_float() -> !torch.vtensor<[],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"() {name = "onnx.Constant", torch.onnx.value_float = 2.500000e+00 : f32} : () -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}
// CHECK: %[[C:.+]] = "torch.vtensor.literal"() {value = dense<2.500000e+00> : tensor<f32>} : () -> !torch.vtensor<[],f32>
// CHECK: return %[[C]]

// CHECK-LABEL: func.func @test_constant_value_int(
func.func @test_constant_value_int() -> !torch.vtensor<[],si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"() {name = "onnx.Constant", torch.onnx.value_int = -7 : si64} : () -> !torch.vtensor<[],si64>
  return %0 : !torch.vtensor<[],si64>
}
// CHECK: "torch.vtensor.literal"() {value = dense<-7> : tensor<si64>} : () -> !torch.vtensor<[],si64>

// value_floats and value_ints are 1-D tensors.
// CHECK-LABEL: func.func @test_constant_value_floats(
func.func @test_constant_value_floats() -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"() {name = "onnx.Constant", torch.onnx.value_floats = [1.000000e+00 : f32, 5.000000e-01 : f32, -2.000000e+00 : f32]} : () -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
// CHECK: "torch.vtensor.literal"() {value = dense<[1.000000e+00, 5.000000e-01, -2.000000e+00]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>

// CHECK-LABEL: func.func @test_constant_value_ints(
func.func @test_constant_value_ints() -> !torch.vtensor<[4],si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"() {name = "onnx.Constant", torch.onnx.value_ints = [1 : si64, 3 : si64, 224 : si64, -1 : si64]} : () -> !torch.vtensor<[4],si64>
  return %0 : !torch.vtensor<[4],si64>
}
// CHECK: "torch.vtensor.literal"() {value = dense<[1, 3, 224, -1]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
