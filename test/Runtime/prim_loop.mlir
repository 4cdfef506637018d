// The CPU backend runs a `torch.prim.Loop` (runtime/loop_step.rs): its body is a
// sub-plan run once per iteration, carrying `acc` from one iteration to the next and
// reading `x` (an input) and `two` (a constant) from outside. The body's condition
// stops it after 3 of the 4 allowed trips: acc = 2·acc + x[i] for i = 0, 1, 2, so with
// x = [[1,2,3],[4,5,6],[7,8,9],[100,100,100]] the result is [19, 26, 33] (all exact).
// A trip count of 0 runs no iteration and returns the initial value.
// RUN: rm -rf %t.out %t.zero %t.short
// RUN: qlower run %s -i x=%S/Inputs/prim_loop_x.npy --out-dir %t.out
// RUN: cmp %t.out/acc.npy %S/Inputs/prim_loop_acc.npy
// RUN: sed 's/value = 4 : i64/value = 0 : i64/' %s > %t.zero.mlir
// RUN: qlower run %t.zero.mlir -i x=%S/Inputs/prim_loop_x.npy --out-dir %t.zero
// RUN: cmp %t.zero/acc.npy %S/Inputs/prim_loop_zeros.npy
// A body that yields fewer values than the loop carries is refused, naming the loop.
// RUN: sed 's/Loop.condition"(%go, %n) : (!torch.bool, !torch.vtensor<\[3\],f32>)/Loop.condition"(%go) : (!torch.bool)/' %s > %t.short.mlir
// RUN: not qlower run %t.short.mlir -i x=%S/Inputs/prim_loop_x.npy --out-dir %t.short 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: error: torch.prim.Loop: the body yields 0 values for 1 loop-carried values
// RUN: test ! -e %t.short
module {
  func.func @main(%x: !torch.vtensor<[4,3],f32> {onnx.name = "x"}) -> (!torch.vtensor<[3],f32> {onnx.name = "acc"}) {
    %zero = "torch.vtensor.literal"() {value = dense<0.0> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
    %two = "torch.vtensor.literal"() {value = dense<2.0> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
    %trips = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
    %true = "torch.constant.bool"() {value = true} : () -> !torch.bool
    %stop = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
    %c0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
    %c1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %acc = "torch.prim.Loop"(%trips, %true, %zero) ({
    ^bb0(%i: !torch.int, %a: !torch.vtensor<[3],f32>):
      %row = "torch.aten.select.int"(%x, %c0, %i) : (!torch.vtensor<[4,3],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3],f32>
      %d = "torch.aten.mul.Tensor"(%a, %two) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
      %n = "torch.aten.add.Tensor"(%d, %row, %c1) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.int) -> !torch.vtensor<[3],f32>
      %next = "torch.aten.add.int"(%i, %c1) : (!torch.int, !torch.int) -> !torch.int
      %go = "torch.aten.lt.int"(%next, %stop) : (!torch.int, !torch.int) -> !torch.bool
      "torch.prim.Loop.condition"(%go, %n) : (!torch.bool, !torch.vtensor<[3],f32>) -> ()
    }) : (!torch.int, !torch.bool, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
    return %acc : !torch.vtensor<[3],f32>
  }
}
