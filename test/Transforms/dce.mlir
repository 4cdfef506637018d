// dce removes ops whose results are unused and which qlower's own list says are free
// of side effects, to a fixed point; other ops, and func.return, stay.
// RUN: qlower-opt --dce %s | FileCheck %s

// CHECK-LABEL: func.func @dead_chains
// CHECK-NEXT: %[[ONE:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK-NEXT: %[[Y:.+]] = "torch.aten.add.Tensor"(%arg0, %arg0, %[[ONE]])
// CHECK-NEXT: return %[[Y]]
func.func @dead_chains(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> {
  %lit = "torch.vtensor.literal"() {value = dense<1.0> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %two = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %list = "torch.prim.ListConstruct"(%two, %two) : (!torch.int, !torch.int) -> !torch.list<int>
  %dead = "torch.aten.mul.Tensor"(%arg0, %lit) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %dead2 = "torch.aten.relu"(%dead) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %q = "torch.aten.quantize_per_tensor"(%dead2, %one, %one, %one) : (!torch.vtensor<[3],f32>, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[3],!torch.quint8>
  %y = "torch.aten.add.Tensor"(%arg0, %arg0, %one) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.int) -> !torch.vtensor<[3],f32>
  %onnx = "torch.operator"(%arg0, %lit) {name = "onnx.Add"} : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %y : !torch.vtensor<[3],f32>
}

// Ops not on the list stay even when unused: unknown ops, unknown ONNX ops, in-place
// ops. Their operands stay with them.
// CHECK-LABEL: func.func @kept
// CHECK: %[[LIT:.+]] = "torch.vtensor.literal"()
// CHECK: "foo.side_effect"(%[[LIT]])
// CHECK: "torch.operator"(%[[LIT]]) {name = "onnx.Unknown"}
// CHECK: "torch.aten.add_.Tensor"(%arg0, %[[LIT]],
// CHECK: "torch.aten.print"(
// CHECK: return
func.func @kept(%arg0: !torch.vtensor<[3],f32>) {
  %lit = "torch.vtensor.literal"() {value = dense<1.0> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %a = "foo.side_effect"(%lit) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %b = "torch.operator"(%lit) {name = "onnx.Unknown"} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %c = "torch.aten.add_.Tensor"(%arg0, %lit, %one) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.int) -> !torch.vtensor<[3],f32>
  %s = "torch.constant.str"() {value = "hi"} : () -> !torch.str
  "torch.aten.print"(%s) : (!torch.str) -> ()
  return
}
