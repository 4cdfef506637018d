// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CastLike takes the element type of its second input, whose values it never reads.
// CHECK-LABEL: func.func @test_castlike(
func.func @test_castlike(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[1],f64>) -> !torch.vtensor<[2,3],f64> attributes {torch.onnx_meta.opset_version = 15 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.CastLike"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[1],f64>) -> !torch.vtensor<[2,3],f64>
  return %0 : !torch.vtensor<[2,3],f64>
}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 7 : i64} : () -> !torch.int
// CHECK: %[[Y:.+]] = "torch.aten.to.dtype"(%arg0, %[[DTYPE]], %{{.+}}, %{{.+}}, %{{.+}}) : (!torch.vtensor<[2,3],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,3],f64>
// CHECK: return %[[Y]]
