// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_erf(
func.func @test_erf(%arg0: !torch.vtensor<[1,3,32,32],f32>) -> !torch.vtensor<[1,3,32,32],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Erf"} : (!torch.vtensor<[1,3,32,32],f32>) -> !torch.vtensor<[1,3,32,32],f32>
  return %0 : !torch.vtensor<[1,3,32,32],f32>
}
// CHECK: %[[V0:.+]] = "torch.aten.erf"(%arg0) : (!torch.vtensor<[1,3,32,32],f32>) -> !torch.vtensor<[1,3,32,32],f32>
// CHECK: return %[[V0]] : !torch.vtensor<[1,3,32,32],f32>

// CHECK-LABEL: func.func @test_unary(
func.func @test_unary(%arg0: !torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Sqrt"} : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
  %1 = "torch.operator"(%0) {name = "onnx.Reciprocal"} : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
  %2 = "torch.operator"(%1) {name = "onnx.Exp"} : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
  %3 = "torch.operator"(%2) {name = "onnx.Log"} : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
  %4 = "torch.operator"(%3) {name = "onnx.Neg"} : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
  %5 = "torch.operator"(%4) {name = "onnx.Abs"} : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
  %6 = "torch.operator"(%5) {name = "onnx.Sign"} : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
  %7 = "torch.operator"(%6) {name = "onnx.Floor"} : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
  %8 = "torch.operator"(%7) {name = "onnx.Ceil"} : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
  %9 = "torch.operator"(%8) {name = "onnx.Round"} : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
  return %9 : !torch.vtensor<[3,?],f32>
}
// CHECK: %[[V0:.+]] = "torch.aten.sqrt"(%arg0) : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
// CHECK: %[[V1:.+]] = "torch.aten.reciprocal"(%[[V0]]) : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
// CHECK: %[[V2:.+]] = "torch.aten.exp"(%[[V1]]) : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
// CHECK: %[[V3:.+]] = "torch.aten.log"(%[[V2]]) : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
// CHECK: %[[V4:.+]] = "torch.aten.neg"(%[[V3]]) : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
// CHECK: %[[V5:.+]] = "torch.aten.abs"(%[[V4]]) : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
// CHECK: %[[V6:.+]] = "torch.aten.sign"(%[[V5]]) : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
// CHECK: %[[V7:.+]] = "torch.aten.floor"(%[[V6]]) : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
// CHECK: %[[V8:.+]] = "torch.aten.ceil"(%[[V7]]) : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
// CHECK: %[[V9:.+]] = "torch.aten.round"(%[[V8]]) : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
// CHECK: return %[[V9]] : !torch.vtensor<[3,?],f32>

// CHECK-LABEL: func.func @test_gelu_tanh(
func.func @test_gelu_tanh(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 20 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Gelu", torch.onnx.approximate = "tanh"} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
// CHECK: %[[V0:.+]] = "torch.constant.str"() {value = "tanh"} : () -> !torch.str
// CHECK: %[[V1:.+]] = "torch.aten.gelu"(%arg0, %[[V0]]) : (!torch.vtensor<[3],f32>, !torch.str) -> !torch.vtensor<[3],f32>
// CHECK: return %[[V1]] : !torch.vtensor<[3],f32>

// CHECK-LABEL: func.func @test_gelu_default(
func.func @test_gelu_default(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 20 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Gelu"} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
// CHECK: %[[V0:.+]] = "torch.constant.str"() {value = "none"} : () -> !torch.str
// CHECK: %[[V1:.+]] = "torch.aten.gelu"(%arg0, %[[V0]]) : (!torch.vtensor<[3],f32>, !torch.str) -> !torch.vtensor<[3],f32>
// CHECK: return %[[V1]] : !torch.vtensor<[3],f32>

// CHECK-LABEL: func.func @test_pow(
func.func @test_pow(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[4],si64>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 15 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Pow"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[V0:.+]] = "torch.aten.pow.Tensor_Tensor"(%arg0, %arg1) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[V0]] : !torch.vtensor<[3,4],f32>

// CHECK-LABEL: func.func @test_mod(
func.func @test_mod(%arg0: !torch.vtensor<[6],si32>, %arg1: !torch.vtensor<[6],si32>) -> (!torch.vtensor<[6],si32>, !torch.vtensor<[6],si32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Mod"} : (!torch.vtensor<[6],si32>, !torch.vtensor<[6],si32>) -> !torch.vtensor<[6],si32>
  %1 = "torch.operator"(%arg0, %arg1) {name = "onnx.Mod", torch.onnx.fmod = 1 : si64} : (!torch.vtensor<[6],si32>, !torch.vtensor<[6],si32>) -> !torch.vtensor<[6],si32>
  return %0, %1 : !torch.vtensor<[6],si32>, !torch.vtensor<[6],si32>
}
// CHECK: %[[V0:.+]] = "torch.aten.remainder.Tensor"(%arg0, %arg1) : (!torch.vtensor<[6],si32>, !torch.vtensor<[6],si32>) -> !torch.vtensor<[6],si32>
// CHECK: %[[V1:.+]] = "torch.aten.fmod.Tensor"(%arg0, %arg1) : (!torch.vtensor<[6],si32>, !torch.vtensor<[6],si32>) -> !torch.vtensor<[6],si32>
// CHECK: return %[[V0]], %[[V1]] : !torch.vtensor<[6],si32>, !torch.vtensor<[6],si32>
