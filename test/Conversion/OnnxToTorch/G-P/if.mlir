// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// If lowers to torch.prim.If as torch-mlir lowers it: the condition through aten.item
// and aten.Bool.int, the import form's regions (else_branch, then_branch) moved into
// prim.If's (then, else), each torch.operator_terminator made a torch.prim.If.yield.
// The branches' ops are lowered where they now stand, reading the outside values
// (%arg1, %arg2) directly; a yield more precise than the If's result (the branches'
// join) meets it in tensor_static_info_cast.

// CHECK-LABEL: func.func @test_if(
// CHECK-SAME: %[[C:[a-z0-9]+]]: !torch.vtensor<[1],i1>, %[[A:[a-z0-9]+]]: !torch.vtensor<[2],f32>, %[[B:[a-z0-9]+]]: !torch.vtensor<[2],f32>)
// CHECK: %[[ITEM:.+]] = "torch.aten.item"(%[[C]]) : (!torch.vtensor<[1],i1>) -> !torch.int
// CHECK: %[[FLAG:.+]] = "torch.aten.Bool.int"(%[[ITEM]]) : (!torch.int) -> !torch.bool
// CHECK: %[[IF:.+]]:2 = "torch.prim.If"(%[[FLAG]]) ({
// CHECK: %[[ADD:.+]] = "torch.aten.add.Tensor"(%[[A]], %[[B]], %{{.+}})
// CHECK: %[[TZ:.+]] = "torch.tensor_static_info_cast"(%[[A]]) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[?],f32>
// CHECK: "torch.prim.If.yield"(%[[ADD]], %[[TZ]]) : (!torch.vtensor<[2],f32>, !torch.vtensor<[?],f32>) -> ()
// CHECK: }, {
// CHECK: %[[SUB:.+]] = "torch.aten.sub.Tensor"(%[[A]], %[[B]], %{{.+}})
// CHECK: "torch.prim.If.yield"(%[[SUB]], %[[E:.+]]) : (!torch.vtensor<[2],f32>, !torch.vtensor<[?],f32>) -> ()
// CHECK: }) : (!torch.bool) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[?],f32>)
// CHECK: return %[[IF]]#0, %[[IF]]#1
// CHECK-NOT: torch.operator
func.func @test_if(%arg0: !torch.vtensor<[1],i1>, %arg1: !torch.vtensor<[2],f32>, %arg2: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[?],f32>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64} {
  %0:2 = "torch.operator"(%arg0) ({
    %1 = "torch.operator"(%arg1, %arg2) {name = "onnx.Sub"} : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    %2 = "torch.operator"(%arg1, %arg2) {name = "onnx.Concat", torch.onnx.axis = 0 : si64} : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[4],f32>
    "torch.operator_terminator"(%1, %2) : (!torch.vtensor<[2],f32>, !torch.vtensor<[4],f32>) -> ()
  }, {
    %1 = "torch.operator"(%arg1, %arg2) {name = "onnx.Add"} : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    "torch.operator_terminator"(%1, %arg1) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> ()
  }) {name = "onnx.If"} : (!torch.vtensor<[1],i1>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[?],f32>)
  return %0#0, %0#1 : !torch.vtensor<[2],f32>, !torch.vtensor<[?],f32>
}
