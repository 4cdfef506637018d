// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Cast is torch.aten.to.dtype with torch's ScalarType code of `to`.
// CHECK-LABEL: func.func @test_cast_to_float(
func.func @test_cast_to_float(%arg0: !torch.vtensor<[3,4],si64>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = 1 : si64} : (!torch.vtensor<[3,4],si64>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
// CHECK: %[[FALSE:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[NONE:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[Y:.+]] = "torch.aten.to.dtype"(%arg0, %[[DTYPE]], %[[FALSE]], %[[FALSE]], %[[NONE]]) : (!torch.vtensor<[3,4],si64>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_cast_to_uint8(
func.func @test_cast_to_uint8(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],ui8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = 2 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],ui8>
  return %0 : !torch.vtensor<[3,4],ui8>
}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[FALSE:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[NONE:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[Y:.+]] = "torch.aten.to.dtype"(%arg0, %[[DTYPE]], %[[FALSE]], %[[FALSE]], %[[NONE]]) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3,4],ui8>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_cast_to_int8(
func.func @test_cast_to_int8(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],si8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = 3 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],si8>
  return %0 : !torch.vtensor<[3,4],si8>
}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[FALSE:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[NONE:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[Y:.+]] = "torch.aten.to.dtype"(%arg0, %[[DTYPE]], %[[FALSE]], %[[FALSE]], %[[NONE]]) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3,4],si8>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_cast_to_int16(
func.func @test_cast_to_int16(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],si16> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = 5 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],si16>
  return %0 : !torch.vtensor<[3,4],si16>
}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
// CHECK: %[[FALSE:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[NONE:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[Y:.+]] = "torch.aten.to.dtype"(%arg0, %[[DTYPE]], %[[FALSE]], %[[FALSE]], %[[NONE]]) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3,4],si16>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_cast_to_int32(
func.func @test_cast_to_int32(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],si32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = 6 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],si32>
  return %0 : !torch.vtensor<[3,4],si32>
}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
// CHECK: %[[FALSE:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[NONE:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[Y:.+]] = "torch.aten.to.dtype"(%arg0, %[[DTYPE]], %[[FALSE]], %[[FALSE]], %[[NONE]]) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3,4],si32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_cast_to_int64(
func.func @test_cast_to_int64(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],si64> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = 7 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],si64>
  return %0 : !torch.vtensor<[3,4],si64>
}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
// CHECK: %[[FALSE:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[NONE:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[Y:.+]] = "torch.aten.to.dtype"(%arg0, %[[DTYPE]], %[[FALSE]], %[[FALSE]], %[[NONE]]) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3,4],si64>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_cast_to_bool(
func.func @test_cast_to_bool(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],i1> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = 9 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],i1>
  return %0 : !torch.vtensor<[3,4],i1>
}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 11 : i64} : () -> !torch.int
// CHECK: %[[FALSE:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[NONE:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[Y:.+]] = "torch.aten.to.dtype"(%arg0, %[[DTYPE]], %[[FALSE]], %[[FALSE]], %[[NONE]]) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3,4],i1>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_cast_to_float16(
func.func @test_cast_to_float16(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f16> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = 10 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f16>
  return %0 : !torch.vtensor<[3,4],f16>
}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 5 : i64} : () -> !torch.int
// CHECK: %[[FALSE:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[NONE:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[Y:.+]] = "torch.aten.to.dtype"(%arg0, %[[DTYPE]], %[[FALSE]], %[[FALSE]], %[[NONE]]) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3,4],f16>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_cast_to_double(
func.func @test_cast_to_double(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f64> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = 11 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f64>
  return %0 : !torch.vtensor<[3,4],f64>
}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 7 : i64} : () -> !torch.int
// CHECK: %[[FALSE:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[NONE:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[Y:.+]] = "torch.aten.to.dtype"(%arg0, %[[DTYPE]], %[[FALSE]], %[[FALSE]], %[[NONE]]) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3,4],f64>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_cast_to_bfloat16(
func.func @test_cast_to_bfloat16(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],bf16> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = 16 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],bf16>
  return %0 : !torch.vtensor<[3,4],bf16>
}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 15 : i64} : () -> !torch.int
// CHECK: %[[FALSE:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[NONE:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[Y:.+]] = "torch.aten.to.dtype"(%arg0, %[[DTYPE]], %[[FALSE]], %[[FALSE]], %[[NONE]]) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3,4],bf16>
// CHECK: return %[[Y]]
// Opset 1 names the type with a string.
// CHECK-LABEL: func.func @test_cast_opset1_named(
func.func @test_cast_opset1_named(%arg0: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],si32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.to = "INT32"} : (!torch.vtensor<[?],f32>) -> !torch.vtensor<[?],si32>
  return %0 : !torch.vtensor<[?],si32>
}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: "torch.aten.to.dtype"(%arg0, %[[DTYPE]], %{{.+}}, %{{.+}}, %{{.+}}) : (!torch.vtensor<[?],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?],si32>

// `saturate` only concerns float8 targets.
// CHECK-LABEL: func.func @test_cast_saturate_ignored(
func.func @test_cast_saturate_ignored(%arg0: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],ui8> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cast", torch.onnx.saturate = 0 : si64, torch.onnx.to = 2 : si64} : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],ui8>
  return %0 : !torch.vtensor<[2],ui8>
}
// CHECK: "torch.aten.to.dtype"(%arg0, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (!torch.vtensor<[2],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2],ui8>
