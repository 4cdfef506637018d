// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_sub(
func.func @test_sub(%arg0: !torch.vtensor<[3,4,5],f32>, %arg1: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Sub"} : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[ONE:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[Y:.+]] = "torch.aten.sub.Tensor"(%arg0, %arg1, %[[ONE]]) : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[3,4,5],f32>, !torch.int) -> !torch.vtensor<[3,4,5],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_sub_bcast(
func.func @test_sub_bcast(%arg0: !torch.vtensor<[3,4,5],si32>, %arg1: !torch.vtensor<[4,1],si32>) -> !torch.vtensor<[3,4,5],si32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Sub"} : (!torch.vtensor<[3,4,5],si32>, !torch.vtensor<[4,1],si32>) -> !torch.vtensor<[3,4,5],si32>
  return %0 : !torch.vtensor<[3,4,5],si32>
}
// CHECK: "torch.aten.sub.Tensor"(%arg0, %arg1, %{{.+}}) : (!torch.vtensor<[3,4,5],si32>, !torch.vtensor<[4,1],si32>, !torch.int) -> !torch.vtensor<[3,4,5],si32>

// CHECK-LABEL: func.func @test_sub_legacy_axis(
func.func @test_sub_legacy_axis(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Sub", torch.onnx.axis = 1 : si64, torch.onnx.broadcast = 1 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}
// CHECK: %[[B:.+]] = "torch.aten.unsqueeze"(%arg1, %{{.+}}) : (!torch.vtensor<[3],f32>, !torch.int) -> !torch.vtensor<[3,1],f32>
// CHECK: "torch.aten.sub.Tensor"(%arg0, %[[B]], %{{.+}}) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3,1],f32>, !torch.int) -> !torch.vtensor<[2,3,4],f32>
