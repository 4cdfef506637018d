// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_globalmaxpool(
func.func @test_globalmaxpool(%arg0: !torch.vtensor<[1,3,5,5],f32>) -> !torch.vtensor<[1,3,1,1],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.GlobalMaxPool"} : (!torch.vtensor<[1,3,5,5],f32>) -> !torch.vtensor<[1,3,1,1],f32>
  return %0 : !torch.vtensor<[1,3,1,1],f32>
}
// CHECK: %[[K0:.+]] = "torch.constant.int"() {value = 5 : i64}
// CHECK: %[[K1:.+]] = "torch.constant.int"() {value = 5 : i64}
// CHECK: %[[KERNEL:.+]] = "torch.prim.ListConstruct"(%[[K0]], %[[K1]])
// CHECK: %[[STRIDES:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[CEIL:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[DILATIONS:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[Y:.+]] = "torch.aten.max_pool2d"(%arg0, %[[KERNEL]], %[[STRIDES]], %[[PADS]], %[[DILATIONS]], %[[CEIL]]) : (!torch.vtensor<[1,3,5,5],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,3,1,1],f32>
// CHECK: return %[[Y]]
// CHECK-NOT: torch.operator
