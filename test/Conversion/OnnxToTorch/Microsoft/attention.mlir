// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s
// ONNX Runtime's attention contrib ops as the torch ops they are made of.
// tools/differential/attention.py checks their values against ONNX Runtime.

// GroupQueryAttention with rotary embedding over a cache, the sequence and past
// lengths known only at run time: the angles are gathered from the caches at
// seqlens_k + 1 - S + s, the new keys follow the past ones, the query heads are
// grouped over the key/value heads so one broadcasting matmul serves every group,
// and keys after a query's position get no weight.
// CHECK-LABEL: func.func @test_gqa(
// CHECK: "torch.aten.index_select"(%arg7, {{.+}} -> !torch.vtensor<[?,8],f32>
// CHECK: "torch.aten.index_select"(%arg8, {{.+}} -> !torch.vtensor<[?,8],f32>
// CHECK: %[[K:.+]] = "torch.aten.cat"({{.+}} -> !torch.vtensor<[1,2,?,16],f32>
// CHECK: %[[V:.+]] = "torch.aten.cat"({{.+}} -> !torch.vtensor<[1,2,?,16],f32>
// CHECK: "torch.runtime.assert"
// CHECK: %[[ALLOWED:.+]] = "torch.aten.le.Tensor"({{.+}} -> !torch.vtensor<[1,?,?],i1>
// CHECK: %[[S:.+]] = "torch.aten.matmul"({{.+}} : (!torch.vtensor<[1,2,2,?,16],f32>, !torch.vtensor<[1,2,1,16,?],f32>) -> !torch.vtensor<[1,2,2,?,?],f32>
// CHECK: %[[SS:.+]] = "torch.aten.mul.Scalar"(%[[S]],
// CHECK: %[[M:.+]] = "torch.aten.where.ScalarOther"({{.+}}, %[[SS]],
// CHECK: %[[P:.+]] = "torch.aten.softmax.int"(%[[M]],
// CHECK: "torch.aten.matmul"(%[[P]], {{.+}} -> !torch.vtensor<[1,2,2,?,16],f32>
// CHECK: return {{.+}} : !torch.vtensor<[1,?,64],f32>, !torch.vtensor<[1,2,?,16],f32>, !torch.vtensor<[1,2,?,16],f32>
func.func @test_gqa(%q: !torch.vtensor<[1,?,64],f32>, %k: !torch.vtensor<[1,?,32],f32>, %v: !torch.vtensor<[1,?,32],f32>, %pk: !torch.vtensor<[1,2,?,16],f32>, %pv: !torch.vtensor<[1,2,?,16],f32>, %sl: !torch.vtensor<[1],si32>, %tl: !torch.vtensor<[1],si32>, %cos: !torch.vtensor<[32,8],f32>, %sin: !torch.vtensor<[32,8],f32>) -> (!torch.vtensor<[1,?,64],f32>, !torch.vtensor<[1,2,?,16],f32>, !torch.vtensor<[1,2,?,16],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0:3 = "torch.operator"(%q, %k, %v, %pk, %pv, %sl, %tl, %cos, %sin) {name = "com.microsoft.GroupQueryAttention", torch.onnx.num_heads = 4 : si64, torch.onnx.kv_num_heads = 2 : si64, torch.onnx.do_rotary = 1 : si64} : (!torch.vtensor<[1,?,64],f32>, !torch.vtensor<[1,?,32],f32>, !torch.vtensor<[1,?,32],f32>, !torch.vtensor<[1,2,?,16],f32>, !torch.vtensor<[1,2,?,16],f32>, !torch.vtensor<[1],si32>, !torch.vtensor<[1],si32>, !torch.vtensor<[32,8],f32>, !torch.vtensor<[32,8],f32>) -> (!torch.vtensor<[1,?,64],f32>, !torch.vtensor<[1,2,?,16],f32>, !torch.vtensor<[1,2,?,16],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[1,?,64],f32>, !torch.vtensor<[1,2,?,16],f32>, !torch.vtensor<[1,2,?,16],f32>
}

// MultiHeadAttention, unidirectional with a key padding mask: masked keys get
// mask_filter_value added (as ONNX Runtime does), not removed.
// CHECK-LABEL: func.func @test_mha(
// CHECK: "torch.aten.ne.Scalar"(%arg3,
// CHECK: "torch.aten.logical_and"
// CHECK: %[[NOT:.+]] = "torch.aten.logical_not"
// CHECK: "torch.constant.float"() {value = -1.000000e+04 : f64}
// CHECK: "torch.aten.matmul"({{.+}} -> !torch.vtensor<[2,4,1,5,5],f32>
// CHECK: "torch.aten.add.Tensor"
// CHECK: "torch.aten.softmax.int"
func.func @test_mha(%q: !torch.vtensor<[2,5,32],f32>, %k: !torch.vtensor<[2,5,32],f32>, %v: !torch.vtensor<[2,5,32],f32>, %mask: !torch.vtensor<[2,5],si32>) -> !torch.vtensor<[2,5,32],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%q, %k, %v, %none, %mask) {name = "com.microsoft.MultiHeadAttention", torch.onnx.num_heads = 4 : si64, torch.onnx.unidirectional = 1 : si64} : (!torch.vtensor<[2,5,32],f32>, !torch.vtensor<[2,5,32],f32>, !torch.vtensor<[2,5,32],f32>, !torch.none, !torch.vtensor<[2,5],si32>) -> !torch.vtensor<[2,5,32],f32>
  return %0 : !torch.vtensor<[2,5,32],f32>
}

// RotaryEmbedding of [B, S, hidden] with interleaved pairs: split into heads, the
// pairs selected, rotated and stacked back.
// CHECK-LABEL: func.func @test_rotary(
// CHECK: "torch.aten.reshape"(%arg0, {{.+}} -> !torch.vtensor<[2,5,4,8],f32>
// CHECK: "torch.aten.select.int"
// CHECK: "torch.aten.select.int"
// CHECK: "torch.aten.stack"
// CHECK: "torch.aten.reshape"({{.+}} -> !torch.vtensor<[2,5,32],f32>
func.func @test_rotary(%x: !torch.vtensor<[2,5,32],f32>, %pos: !torch.vtensor<[2,5],si64>, %cos: !torch.vtensor<[16,4],f32>, %sin: !torch.vtensor<[16,4],f32>) -> !torch.vtensor<[2,5,32],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%x, %pos, %cos, %sin) {name = "com.microsoft.RotaryEmbedding", torch.onnx.num_heads = 4 : si64, torch.onnx.interleaved = 1 : si64} : (!torch.vtensor<[2,5,32],f32>, !torch.vtensor<[2,5],si64>, !torch.vtensor<[16,4],f32>, !torch.vtensor<[16,4],f32>) -> !torch.vtensor<[2,5,32],f32>
  return %0 : !torch.vtensor<[2,5,32],f32>
}

// Attention (ONNX Runtime's transformer optimizer's BERT form): one projection, split
// into Q, K and V by qkv_hidden_sizes (equal thirds here), then the same attention.
// CHECK-LABEL: func.func @test_attention(
// CHECK: %[[QKV:.+]] = "torch.aten.matmul"(%arg0, %arg1) {{.+}} -> !torch.vtensor<[?,?,96],f32>
// CHECK: "torch.aten.add.Tensor"(%[[QKV]], %arg2,
// CHECK: "torch.aten.slice.Tensor"
// CHECK: "torch.aten.ne.Scalar"(%arg3,
// CHECK: "torch.aten.softmax.int"
// CHECK: return {{.+}} : !torch.vtensor<[?,?,32],f32>
func.func @test_attention(%x: !torch.vtensor<[?,?,32],f32>, %w: !torch.vtensor<[32,96],f32>, %b: !torch.vtensor<[96],f32>, %mask: !torch.vtensor<[?,?],si32>) -> !torch.vtensor<[?,?,32],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%x, %w, %b, %mask) {name = "com.microsoft.Attention", torch.onnx.num_heads = 4 : si64} : (!torch.vtensor<[?,?,32],f32>, !torch.vtensor<[32,96],f32>, !torch.vtensor<[96],f32>, !torch.vtensor<[?,?],si32>) -> !torch.vtensor<[?,?,32],f32>
  return %0 : !torch.vtensor<[?,?,32],f32>
}

// EmbedLayerNormalization: the three embeddings gathered and summed, then layer_norm;
// mask_index counts each batch's ones.
// CHECK-LABEL: func.func @test_embed_layer_norm(
// CHECK: "torch.aten.index_select"(%arg1,
// CHECK: "torch.aten.index_select"(%arg2,
// CHECK: "torch.aten.index_select"(%arg3,
// CHECK: "torch.aten.layer_norm"
// CHECK: "torch.aten.eq.Scalar"(%arg6,
// CHECK: "torch.aten.sum.dim_IntList"{{.+}} -> !torch.vtensor<[?],si32>
func.func @test_embed_layer_norm(%ids: !torch.vtensor<[?,?],si32>, %word: !torch.vtensor<[50,32],f32>, %pos: !torch.vtensor<[16,32],f32>, %seg: !torch.vtensor<[2,32],f32>, %gamma: !torch.vtensor<[32],f32>, %beta: !torch.vtensor<[32],f32>, %mask: !torch.vtensor<[?,?],si32>, %segids: !torch.vtensor<[?,?],si32>) -> (!torch.vtensor<[?,?,32],f32>, !torch.vtensor<[?],si32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0:2 = "torch.operator"(%ids, %segids, %word, %pos, %seg, %gamma, %beta, %mask) {name = "com.microsoft.EmbedLayerNormalization"} : (!torch.vtensor<[?,?],si32>, !torch.vtensor<[?,?],si32>, !torch.vtensor<[50,32],f32>, !torch.vtensor<[16,32],f32>, !torch.vtensor<[2,32],f32>, !torch.vtensor<[32],f32>, !torch.vtensor<[32],f32>, !torch.vtensor<[?,?],si32>) -> (!torch.vtensor<[?,?,32],f32>, !torch.vtensor<[?],si32>)
  return %0#0, %0#1 : !torch.vtensor<[?,?,32],f32>, !torch.vtensor<[?],si32>
}

// An unsupported form is refused by name, not lowered wrongly.
// RUN: not qlower-opt --convert-onnx-to-torch %S/Inputs/gqa_smooth_softmax_unsupported.mlir 2>&1 | FileCheck %s --check-prefix=SMOOTH
// SMOOTH: GroupQueryAttention
// SMOOTH-SAME: smooth_softmax and head_sink are not supported

// Key in heads with a value that is not: an error naming the ranks, not a crash.
// RUN: not qlower-opt --convert-onnx-to-torch %S/Inputs/mha_value_rank_unsupported.mlir 2>&1 | FileCheck %s --check-prefix=RANKS
// RANKS: MultiHeadAttention: query, key and value in heads must be [B, N, S, H], but have ranks 4, 4 and 3
