// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_div(
func.func @test_div(%arg0: !torch.vtensor<[3,4,5],f32>, %arg1: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Div"} : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.div.Tensor"(%arg0, %arg1) : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_div_bcast(
func.func @test_div_bcast(%arg0: !torch.vtensor<[3,4,5],f16>, %arg1: !torch.vtensor<[5],f16>) -> !torch.vtensor<[3,4,5],f16> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Div"} : (!torch.vtensor<[3,4,5],f16>, !torch.vtensor<[5],f16>) -> !torch.vtensor<[3,4,5],f16>
  return %0 : !torch.vtensor<[3,4,5],f16>
}
// CHECK: "torch.aten.div.Tensor"(%arg0, %arg1) : (!torch.vtensor<[3,4,5],f16>, !torch.vtensor<[5],f16>) -> !torch.vtensor<[3,4,5],f16>

// ONNX divides integers truncating toward zero (-7 / 2 = -3); torch's div.Tensor
// would divide exactly, so the rounding mode is spelled out.
// CHECK-LABEL: func.func @test_div_int32(
func.func @test_div_int32(%arg0: !torch.vtensor<[3,4],si32>, %arg1: !torch.vtensor<[3,4],si32>) -> !torch.vtensor<[3,4],si32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Div"} : (!torch.vtensor<[3,4],si32>, !torch.vtensor<[3,4],si32>) -> !torch.vtensor<[3,4],si32>
  return %0 : !torch.vtensor<[3,4],si32>
}
// CHECK: %[[MODE:.+]] = "torch.constant.str"() {value = "trunc"} : () -> !torch.str
// CHECK: %[[Y:.+]] = "torch.aten.div.Tensor_mode"(%arg0, %arg1, %[[MODE]]) : (!torch.vtensor<[3,4],si32>, !torch.vtensor<[3,4],si32>, !torch.str) -> !torch.vtensor<[3,4],si32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_div_uint8_bcast(
func.func @test_div_uint8_bcast(%arg0: !torch.vtensor<[3,4],ui8>, %arg1: !torch.vtensor<[],ui8>) -> !torch.vtensor<[3,4],ui8> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Div"} : (!torch.vtensor<[3,4],ui8>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[3,4],ui8>
  return %0 : !torch.vtensor<[3,4],ui8>
}
// CHECK: %[[MODE:.+]] = "torch.constant.str"() {value = "trunc"}
// CHECK: "torch.aten.div.Tensor_mode"(%arg0, %arg1, %[[MODE]]) : (!torch.vtensor<[3,4],ui8>, !torch.vtensor<[],ui8>, !torch.str) -> !torch.vtensor<[3,4],ui8>

// CHECK-LABEL: func.func @test_div_int64_legacy(
func.func @test_div_int64_legacy(%arg0: !torch.vtensor<[2,3],si64>, %arg1: !torch.vtensor<[2],si64>) -> !torch.vtensor<[2,3],si64> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Div", torch.onnx.axis = 0 : si64, torch.onnx.broadcast = 1 : si64} : (!torch.vtensor<[2,3],si64>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[2,3],si64>
  return %0 : !torch.vtensor<[2,3],si64>
}
// CHECK: %[[B:.+]] = "torch.aten.unsqueeze"(%arg1, %{{.+}}) : (!torch.vtensor<[2],si64>, !torch.int) -> !torch.vtensor<[2,1],si64>
// CHECK: %[[MODE:.+]] = "torch.constant.str"() {value = "trunc"}
// CHECK: "torch.aten.div.Tensor_mode"(%arg0, %[[B]], %[[MODE]]) : (!torch.vtensor<[2,3],si64>, !torch.vtensor<[2,1],si64>, !torch.str) -> !torch.vtensor<[2,3],si64>
