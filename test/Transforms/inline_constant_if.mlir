// RUN: qlower-opt --inline-constant-if %s | FileCheck %s
// RUN: qlower-opt --fold-constants --inline-constant-if --dce %s | FileCheck %s --check-prefix=FOLDED

// A prim.If whose condition is a torch.constant.bool becomes the ops of the branch it
// takes, in front of where it stood; its results are what that branch yields. An If
// on a run-time condition stays.

// CHECK-LABEL: func.func @taken_then(
// CHECK-NOT: torch.prim.If
// CHECK: %[[NEG:.+]] = "torch.aten.neg"(%arg0)
// CHECK-NEXT: %[[ADD:.+]] = "torch.aten.add.Tensor"(%[[NEG]], %arg0, %{{.+}})
// CHECK-NEXT: return %[[ADD]]
func.func @taken_then(%arg0: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %true = "torch.constant.bool"() {value = true} : () -> !torch.bool
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %0 = "torch.prim.If"(%true) ({
    %1 = "torch.aten.neg"(%arg0) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    "torch.prim.If.yield"(%1) : (!torch.vtensor<[2],f32>) -> ()
  }, {
    %1 = "torch.aten.relu"(%arg0) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    "torch.prim.If.yield"(%1) : (!torch.vtensor<[2],f32>) -> ()
  }) : (!torch.bool) -> !torch.vtensor<[2],f32>
  %2 = "torch.aten.add.Tensor"(%0, %arg0, %one) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.int) -> !torch.vtensor<[2],f32>
  return %2 : !torch.vtensor<[2],f32>
}

// CHECK-LABEL: func.func @taken_else_yields_outside_value(
// CHECK-NOT: torch.prim.If
// CHECK: return %arg0
func.func @taken_else_yields_outside_value(%arg0: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %0 = "torch.prim.If"(%false) ({
    %1 = "torch.aten.neg"(%arg0) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    "torch.prim.If.yield"(%1) : (!torch.vtensor<[2],f32>) -> ()
  }, {
    "torch.prim.If.yield"(%arg0) : (!torch.vtensor<[2],f32>) -> ()
  }) : (!torch.bool) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}

// CHECK-LABEL: func.func @run_time(
// CHECK: "torch.prim.If"(%arg1)
func.func @run_time(%arg0: !torch.vtensor<[2],f32>, %arg1: !torch.bool) -> !torch.vtensor<[2],f32> {
  %0 = "torch.prim.If"(%arg1) ({
    "torch.prim.If.yield"(%arg0) : (!torch.vtensor<[2],f32>) -> ()
  }, {
    %1 = "torch.aten.neg"(%arg0) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    "torch.prim.If.yield"(%1) : (!torch.vtensor<[2],f32>) -> ()
  }) : (!torch.bool) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}

// A condition read from a constant tensor folds (item, Bool.int) and then inlines.
// FOLDED-LABEL: func.func @folded_condition(
// FOLDED-NOT: torch.prim.If
// FOLDED: %[[NEG:.+]] = "torch.aten.neg"(%arg0)
// FOLDED-NEXT: return %[[NEG]]
func.func @folded_condition(%arg0: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %c = "torch.vtensor.literal"() {value = dense<false> : tensor<1xi1>} : () -> !torch.vtensor<[1],i1>
  %i = "torch.aten.item"(%c) : (!torch.vtensor<[1],i1>) -> !torch.int
  %b = "torch.aten.Bool.int"(%i) : (!torch.int) -> !torch.bool
  %0 = "torch.prim.If"(%b) ({
    "torch.prim.If.yield"(%arg0) : (!torch.vtensor<[2],f32>) -> ()
  }, {
    %1 = "torch.aten.neg"(%arg0) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    "torch.prim.If.yield"(%1) : (!torch.vtensor<[2],f32>) -> ()
  }) : (!torch.bool) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}
