// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Each function is torch's op of the same name, typed as the ONNX result.

// CHECK-LABEL: func.func @test_cos(
func.func @test_cos(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 7 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cos"} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.cos"(%arg0) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_sin(
func.func @test_sin(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 7 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Sin"} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.sin"(%arg0) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_tan(
func.func @test_tan(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 7 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Tan"} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.tan"(%arg0) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_acos(
func.func @test_acos(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 7 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Acos"} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.acos"(%arg0) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_asin(
func.func @test_asin(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 7 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Asin"} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.asin"(%arg0) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_atan(
func.func @test_atan(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 7 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Atan"} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.atan"(%arg0) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_sinh(
func.func @test_sinh(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Sinh"} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.sinh"(%arg0) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_cosh(
func.func @test_cosh(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cosh"} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.cosh"(%arg0) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_asinh(
func.func @test_asinh(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Asinh"} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.asinh"(%arg0) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_acosh(
func.func @test_acosh(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Acosh"} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.acosh"(%arg0) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_atanh(
func.func @test_atanh(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Atanh"} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.atanh"(%arg0) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// A half-precision input with a dynamic dimension keeps its type.
// CHECK-LABEL: func.func @test_cos_f16(
func.func @test_cos_f16(%arg0: !torch.vtensor<[?],f16>) -> !torch.vtensor<[?],f16> attributes {torch.onnx_meta.opset_version = 7 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cos"} : (!torch.vtensor<[?],f16>) -> !torch.vtensor<[?],f16>
  return %0 : !torch.vtensor<[?],f16>
}
// CHECK: "torch.aten.cos"(%arg0) : (!torch.vtensor<[?],f16>) -> !torch.vtensor<[?],f16>

// CHECK-LABEL: func.func @test_isnan(
func.func @test_isnan(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.IsNaN"} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1>
  return %0 : !torch.vtensor<[3],i1>
}
// CHECK: %[[Y:.+]] = "torch.aten.isnan"(%arg0) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1>
// CHECK: return %[[Y]]

// IsInf detects both signs by default; one flag off picks isposinf or isneginf.
// CHECK-LABEL: func.func @test_isinf(
func.func @test_isinf(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.IsInf"} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1>
  return %0 : !torch.vtensor<[3],i1>
}
// CHECK: "torch.aten.isinf"(%arg0) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1>

// CHECK-LABEL: func.func @test_isinf_positive(
func.func @test_isinf_positive(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.IsInf", torch.onnx.detect_negative = 0 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1>
  return %0 : !torch.vtensor<[3],i1>
}
// CHECK: "torch.aten.isposinf"(%arg0) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1>

// CHECK-LABEL: func.func @test_isinf_negative(
func.func @test_isinf_negative(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.IsInf", torch.onnx.detect_positive = 0 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1>
  return %0 : !torch.vtensor<[3],i1>
}
// CHECK: "torch.aten.isneginf"(%arg0) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1>

// With both off nothing is detected: all false.
// CHECK-LABEL: func.func @test_isinf_neither(
func.func @test_isinf_neither(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.IsInf", torch.onnx.detect_negative = 0 : si64, torch.onnx.detect_positive = 0 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1>
  return %0 : !torch.vtensor<[3],i1>
}
// CHECK: %[[NONE:.+]] = "torch.constant.none"()
// CHECK: %[[BOOL:.+]] = "torch.constant.int"() {value = 11 : i64}
// CHECK: "torch.aten.zeros_like"(%arg0, %[[BOOL]], %[[NONE]], %[[NONE]], %[[NONE]], %[[NONE]]) : (!torch.vtensor<[3],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[3],i1>
