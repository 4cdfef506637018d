// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_einsum_attention(
// Attention scores: a batched matmul written as a contraction.
func.func @test_einsum_attention(%arg0: !torch.vtensor<[2,4,5,8],f32>, %arg1: !torch.vtensor<[2,4,?,8],f32>) -> !torch.vtensor<[2,4,5,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Einsum", torch.onnx.equation = "bhqd,bhkd->bhqk"} : (!torch.vtensor<[2,4,5,8],f32>, !torch.vtensor<[2,4,?,8],f32>) -> !torch.vtensor<[2,4,5,?],f32>
  return %0 : !torch.vtensor<[2,4,5,?],f32>
}
// CHECK: %[[V0:.+]] = "torch.prim.ListConstruct"(%arg0, %arg1) : (!torch.vtensor<[2,4,5,8],f32>, !torch.vtensor<[2,4,?,8],f32>) -> !torch.list<vtensor>
// CHECK: %[[V1:.+]] = "torch.constant.str"() {value = "bhqd,bhkd->bhqk"} : () -> !torch.str
// CHECK: %[[V2:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V3:.+]] = "torch.aten.einsum"(%[[V1]], %[[V0]], %[[V2]]) : (!torch.str, !torch.list<vtensor>, !torch.none) -> !torch.vtensor<[2,4,5,?],f32>
// CHECK: return %[[V3]] : !torch.vtensor<[2,4,5,?],f32>
