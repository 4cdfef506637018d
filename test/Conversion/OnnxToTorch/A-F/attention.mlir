// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s
// ONNX Attention (opsets 23 to 25) through the grouped attention the com.microsoft ops share.
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

// qk_matmul_output_mode 2 with a bool mask covering 4 of 6 keys: the mask is padded
// with false to every key, the fourth output is the scaled scores with -inf where a key
// is removed (the softmax's own copy uses the lowest finite value), ungrouped to
// [B, Nq, S, T].
// CHECK-LABEL: func.func @test_attention_qk_output_masked(
// CHECK: %[[PAD:.+]] = "torch.aten.constant_pad_nd"(%arg3, {{.+}} -> !torch.vtensor<[3,6],i1>
// CHECK: %[[S:.+]] = "torch.aten.mul.Scalar"({{.+}} -> !torch.vtensor<[2,2,2,3,6],f32>
// CHECK: %[[NEG_INF:.+]] = "torch.constant.float"() {value = 0xFFF0000000000000 : f64}
// CHECK: %[[QK:.+]] = "torch.aten.where.ScalarOther"(%{{.+}}, %[[S]], %[[NEG_INF]])
// CHECK: "torch.aten.softmax.int"
// CHECK: %[[OUT:.+]] = "torch.aten.reshape"(%[[QK]], {{.+}} -> !torch.vtensor<[2,4,3,6],f32>
// CHECK: return %{{.+}}, %[[OUT]] :
func.func @test_attention_qk_output_masked(%q: !torch.vtensor<[2,4,3,8],f32>, %k: !torch.vtensor<[2,2,6,8],f32>, %v: !torch.vtensor<[2,2,6,8],f32>, %mask: !torch.vtensor<[3,4],i1>) -> (!torch.vtensor<[2,4,3,8],f32>, !torch.vtensor<[2,4,3,6],f32>) attributes {torch.onnx_meta.opset_version = 23 : si64} {
  %0:4 = "torch.operator"(%q, %k, %v, %mask) {name = "onnx.Attention", torch.onnx.qk_matmul_output_mode = 2 : si64} : (!torch.vtensor<[2,4,3,8],f32>, !torch.vtensor<[2,2,6,8],f32>, !torch.vtensor<[2,2,6,8],f32>, !torch.vtensor<[3,4],i1>) -> (!torch.vtensor<[2,4,3,8],f32>, !torch.none, !torch.none, !torch.vtensor<[2,4,3,6],f32>)
  return %0#0, %0#3 : !torch.vtensor<[2,4,3,8],f32>, !torch.vtensor<[2,4,3,6],f32>
}

// An external cache (nonpad_kv_seqlen, opset 24) with is_causal and a left window
// (opset 25): each batch's queries sit at nonpad − S + i; a key is kept when it is at
// or before that position, at most 2 before it, and not padding. Such rules can leave
// a query no key, so Y and the softmax scores (mode 3) are zeroed on those rows.
// CHECK-LABEL: func.func @test_attention_nonpad_window(
// CHECK: %[[VALID:.+]] = "torch.aten.reshape"(%arg3, {{.+}} -> !torch.vtensor<[2,1,1,1,1],si64>
// CHECK: %[[START:.+]] = "torch.aten.sub.Scalar"(%[[VALID]],
// CHECK: %[[POS:.+]] = "torch.aten.add.Tensor"(%[[START]], {{.+}} -> !torch.vtensor<[2,1,1,4,1],si64>
// CHECK: %[[CAUSAL:.+]] = "torch.aten.le.Tensor"(%[[KEYS:.+]], %[[POS]])
// CHECK: %[[DIST:.+]] = "torch.aten.sub.Tensor"(%[[POS]], %[[KEYS]],
// CHECK: %[[LEFT:.+]] = "torch.aten.le.Scalar"(%[[DIST]],
// CHECK: %[[WIN:.+]] = "torch.aten.logical_and"(%[[CAUSAL]], %[[LEFT]])
// CHECK: %[[PADDING:.+]] = "torch.aten.lt.Tensor"(%[[KEYS]], {{.+}} -> !torch.vtensor<[2,1,1,1,8],i1>
// CHECK: %[[ALLOWED:.+]] = "torch.aten.logical_and"(%[[WIN]], %[[PADDING]])
// CHECK: %[[ANY:.+]] = "torch.aten.amax"
// CHECK: "torch.aten.where.ScalarOther"(%[[ALLOWED]],
// CHECK: %[[W:.+]] = "torch.aten.softmax.int"
// CHECK: "torch.aten.mul.Tensor"({{.+}}, %[[ANY]])
// CHECK: %[[WZ:.+]] = "torch.aten.mul.Tensor"(%[[W]], %[[ANY]])
// CHECK: "torch.aten.reshape"(%[[WZ]], {{.+}} -> !torch.vtensor<[2,3,4,8],f32>
func.func @test_attention_nonpad_window(%q: !torch.vtensor<[2,3,4,8],f32>, %k: !torch.vtensor<[2,3,8,8],f32>, %v: !torch.vtensor<[2,3,8,8],f32>, %n: !torch.vtensor<[2],si64>) -> (!torch.vtensor<[2,3,4,8],f32>, !torch.vtensor<[2,3,4,8],f32>) attributes {torch.onnx_meta.opset_version = 25 : si64} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0:4 = "torch.operator"(%q, %k, %v, %none, %none, %none, %n) {name = "onnx.Attention", torch.onnx.is_causal = 1 : si64, torch.onnx.left_window_size = 2 : si64, torch.onnx.qk_matmul_output_mode = 3 : si64} : (!torch.vtensor<[2,3,4,8],f32>, !torch.vtensor<[2,3,8,8],f32>, !torch.vtensor<[2,3,8,8],f32>, !torch.none, !torch.none, !torch.none, !torch.vtensor<[2],si64>) -> (!torch.vtensor<[2,3,4,8],f32>, !torch.none, !torch.none, !torch.vtensor<[2,3,4,8],f32>)
  return %0#0, %0#3 : !torch.vtensor<[2,3,4,8],f32>, !torch.vtensor<[2,3,4,8],f32>
}
