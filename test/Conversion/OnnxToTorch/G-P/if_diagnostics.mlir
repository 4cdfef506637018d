// RUN: not qlower-opt --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// A branch that yields another element type than the If's result is refused, naming
// the node and the branch.

// CHECK: error: node 'mixed' (If): then_branch: the branch yields !torch.vtensor<[2],si64> for result 0, which is !torch.vtensor<[2],f32>
func.func @test_if_mixed(%arg0: !torch.vtensor<[],i1>, %arg1: !torch.vtensor<[2],f32>, %arg2: !torch.vtensor<[2],si64>) -> !torch.vtensor<[2],f32> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0) ({
    "torch.operator_terminator"(%arg1) : (!torch.vtensor<[2],f32>) -> ()
  }, {
    "torch.operator_terminator"(%arg2) : (!torch.vtensor<[2],si64>) -> ()
  }) {name = "onnx.If"} : (!torch.vtensor<[],i1>) -> !torch.vtensor<[2],f32> loc("mixed")
  return %0 : !torch.vtensor<[2],f32>
}
