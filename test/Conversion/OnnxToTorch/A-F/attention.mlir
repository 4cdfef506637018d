// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s
// ONNX Attention (opset 23) through the grouped attention the com.microsoft ops share.
// tools/differential/onnx_attention.py checks its values against ONNX Runtime.

// 3-D inputs split into 4 query heads over 2 key/value heads, a past of run-time
// length followed by the new keys, a bool mask and is_causal: the causal frontier sits
// at the query's position plus the past length, the mask and the frontier are and-ed,
// queries left with no key get zeros, and Y is merged back to [B, S, Nq·Hv].
// CHECK-LABEL: func.func @test_attention_3d_gqa_past(
// CHECK: %[[K:.+]] = "torch.aten.cat"({{.+}} -> !torch.vtensor<[2,2,?,8],f32>
// CHECK: %[[V:.+]] = "torch.aten.cat"({{.+}} -> !torch.vtensor<[2,2,?,8],f32>
// CHECK: "torch.aten.add.Scalar"
// CHECK: "torch.aten.le.Tensor"
// CHECK: "torch.aten.logical_and"
// CHECK: "torch.aten.amax"
// CHECK: "torch.aten.matmul"({{.+}} : (!torch.vtensor<[2,2,2,3,8],f32>, !torch.vtensor<[2,2,1,8,?],f32>) -> !torch.vtensor<[2,2,2,3,?],f32>
// CHECK: "torch.aten.where.ScalarOther"
// CHECK: "torch.aten.softmax.int"
// CHECK: "torch.aten.mul.Tensor"
// CHECK: "torch.aten.permute"
// CHECK: return {{.+}} : !torch.vtensor<[2,3,32],f32>, !torch.vtensor<[2,2,?,8],f32>, !torch.vtensor<[2,2,?,8],f32>
func.func @test_attention_3d_gqa_past(%q: !torch.vtensor<[2,3,32],f32>, %k: !torch.vtensor<[2,3,16],f32>, %v: !torch.vtensor<[2,3,16],f32>, %mask: !torch.vtensor<[3,?],i1>, %pk: !torch.vtensor<[2,2,?,8],f32>, %pv: !torch.vtensor<[2,2,?,8],f32>) -> (!torch.vtensor<[2,3,32],f32>, !torch.vtensor<[2,2,?,8],f32>, !torch.vtensor<[2,2,?,8],f32>) attributes {torch.onnx_meta.opset_version = 23 : si64} {
  %0:3 = "torch.operator"(%q, %k, %v, %mask, %pk, %pv) {name = "onnx.Attention", torch.onnx.q_num_heads = 4 : si64, torch.onnx.kv_num_heads = 2 : si64, torch.onnx.is_causal = 1 : si64} : (!torch.vtensor<[2,3,32],f32>, !torch.vtensor<[2,3,16],f32>, !torch.vtensor<[2,3,16],f32>, !torch.vtensor<[3,?],i1>, !torch.vtensor<[2,2,?,8],f32>, !torch.vtensor<[2,2,?,8],f32>) -> (!torch.vtensor<[2,3,32],f32>, !torch.vtensor<[2,2,?,8],f32>, !torch.vtensor<[2,2,?,8],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,3,32],f32>, !torch.vtensor<[2,2,?,8],f32>, !torch.vtensor<[2,2,?,8],f32>
}

// 4-D inputs with a float mask per head, an explicit scale and a softcap: the scores
// are scaled, capped with tanh, then the mask is added (grouped as [B, Nkv, G, S, T]);
// Y keeps the heads, [B, Nq, S, Hv].
// CHECK-LABEL: func.func @test_attention_4d_float_mask_softcap(
// CHECK: %[[MASK:.+]] = "torch.aten.reshape"(%arg3, {{.+}} -> !torch.vtensor<[2,3,1,4,6],f32>
// CHECK: %[[S:.+]] = "torch.aten.matmul"({{.+}} -> !torch.vtensor<[2,3,1,4,6],f32>
// CHECK: "torch.constant.float"() {value = 1.250000e-01 : f64}
// CHECK: %[[SS:.+]] = "torch.aten.mul.Scalar"(%[[S]],
// CHECK: "torch.aten.div.Scalar"(%[[SS]],
// CHECK: %[[T:.+]] = "torch.aten.tanh"
// CHECK: %[[C:.+]] = "torch.aten.mul.Scalar"(%[[T]],
// CHECK: %[[A:.+]] = "torch.aten.add.Tensor"(%[[C]], %[[MASK]],
// CHECK: "torch.aten.softmax.int"(%[[A]],
// CHECK-NOT: "torch.aten.permute"
// CHECK: return {{.+}} : !torch.vtensor<[2,3,4,10],f32>
func.func @test_attention_4d_float_mask_softcap(%q: !torch.vtensor<[2,3,4,8],f32>, %k: !torch.vtensor<[2,3,6,8],f32>, %v: !torch.vtensor<[2,3,6,10],f32>, %mask: !torch.vtensor<[2,3,4,6],f32>) -> !torch.vtensor<[2,3,4,10],f32> attributes {torch.onnx_meta.opset_version = 23 : si64} {
  %0 = "torch.operator"(%q, %k, %v, %mask) {name = "onnx.Attention", torch.onnx.scale = 1.250000e-01 : f32, torch.onnx.softcap = 2.000000e+00 : f32} : (!torch.vtensor<[2,3,4,8],f32>, !torch.vtensor<[2,3,6,8],f32>, !torch.vtensor<[2,3,6,10],f32>, !torch.vtensor<[2,3,4,6],f32>) -> !torch.vtensor<[2,3,4,10],f32>
  return %0 : !torch.vtensor<[2,3,4,10],f32>
}
