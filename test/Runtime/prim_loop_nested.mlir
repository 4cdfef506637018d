// A `torch.prim.Loop` nested in another: the inner body reads the function's input
// `x` from two levels out and `row`, computed by the outer body, from one level out;
// both become operands of the loop steps that need them (runtime/loop_step.rs).
// acc = Σ_{i<2} Σ_{j<3} (x[i] + x[j]) = 3·(x0+x1) + 2·(x0+x1+x2) = [39, 51, 63] for
// x = [[1,2,3],[4,5,6],[7,8,9],[100,100,100]] (all exact).
// RUN: rm -rf %t.out
// RUN: qlower run %s -i x=%S/Inputs/prim_loop_x.npy --out-dir %t.out
// RUN: cmp %t.out/acc.npy %S/Inputs/prim_loop_nested_acc.npy
module {
  func.func @main(%x: !torch.vtensor<[4,3],f32> {onnx.name = "x"}) -> (!torch.vtensor<[3],f32> {onnx.name = "acc"}) {
    %zero = "torch.vtensor.literal"() {value = dense<0.0> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
    %true = "torch.constant.bool"() {value = true} : () -> !torch.bool
    %c0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
    %c1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %c2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
    %c3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
    %acc = "torch.prim.Loop"(%c2, %true, %zero) ({
    ^bb0(%i: !torch.int, %a: !torch.vtensor<[3],f32>):
      %row = "torch.aten.select.int"(%x, %c0, %i) : (!torch.vtensor<[4,3],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3],f32>
      %in = "torch.prim.Loop"(%c3, %true, %a) ({
      ^bb0(%j: !torch.int, %b: !torch.vtensor<[3],f32>):
        %other = "torch.aten.select.int"(%x, %c0, %j) : (!torch.vtensor<[4,3],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3],f32>
        %s = "torch.aten.add.Tensor"(%row, %other, %c1) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.int) -> !torch.vtensor<[3],f32>
        %n = "torch.aten.add.Tensor"(%b, %s, %c1) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.int) -> !torch.vtensor<[3],f32>
        "torch.prim.Loop.condition"(%true, %n) : (!torch.bool, !torch.vtensor<[3],f32>) -> ()
      }) : (!torch.int, !torch.bool, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
      "torch.prim.Loop.condition"(%true, %in) : (!torch.bool, !torch.vtensor<[3],f32>) -> ()
    }) : (!torch.int, !torch.bool, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
    return %acc : !torch.vtensor<[3],f32>
  }
}
