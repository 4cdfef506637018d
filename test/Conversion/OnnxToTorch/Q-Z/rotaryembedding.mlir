// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s
// ONNX RotaryEmbedding (opset 23) through the rotation com.microsoft RotaryEmbedding
// uses. tools/differential/onnx_attention.py checks its values against ONNX Runtime.

// [B, N, S, H] with position_ids: the cos and sin rows gathered per token, broadcast
// over the heads ([B, 1, S, H/2]), the two halves rotated and concatenated.
// CHECK-LABEL: func.func @test_rotary_4d(
// CHECK: "torch.aten.index_select"(%arg1, {{.+}} -> !torch.vtensor<[6,4],f32>
// CHECK: "torch.aten.index_select"(%arg2, {{.+}} -> !torch.vtensor<[6,4],f32>
// CHECK: "torch.aten.unsqueeze"({{.+}} -> !torch.vtensor<[2,1,3,4],f32>
// CHECK: "torch.aten.slice.Tensor"(%arg0, {{.+}} -> !torch.vtensor<[2,4,3,4],f32>
// CHECK: "torch.aten.cat"({{.+}} -> !torch.vtensor<[2,4,3,8],f32>
func.func @test_rotary_4d(%x: !torch.vtensor<[2,4,3,8],f32>, %cos: !torch.vtensor<[50,4],f32>, %sin: !torch.vtensor<[50,4],f32>, %pos: !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,4,3,8],f32> attributes {torch.onnx_meta.opset_version = 23 : si64} {
  %0 = "torch.operator"(%x, %cos, %sin, %pos) {name = "onnx.RotaryEmbedding"} : (!torch.vtensor<[2,4,3,8],f32>, !torch.vtensor<[50,4],f32>, !torch.vtensor<[50,4],f32>, !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,4,3,8],f32>
  return %0 : !torch.vtensor<[2,4,3,8],f32>
}

// [B, S, hidden] split into num_heads, no position_ids (the caches are already
// [B, S, rotary_dim / 2]), interleaved pairs, and only the first 4 features of each
// head rotated: the rest is concatenated back unchanged.
// CHECK-LABEL: func.func @test_rotary_3d_partial(
// CHECK-NOT: "torch.aten.index_select"
// CHECK: "torch.aten.reshape"(%arg0, {{.+}} -> !torch.vtensor<[2,3,4,8],f32>
// CHECK: "torch.aten.select.int"
// CHECK: "torch.aten.stack"
// CHECK: "torch.aten.reshape"({{.+}} -> !torch.vtensor<[2,3,4,4],f32>
// CHECK: %[[REST:.+]] = "torch.aten.slice.Tensor"({{.+}} -> !torch.vtensor<[2,3,4,4],f32>
// CHECK: "torch.prim.ListConstruct"({{.+}}, %[[REST]])
// CHECK: "torch.aten.cat"({{.+}} -> !torch.vtensor<[2,3,4,8],f32>
// CHECK: "torch.aten.reshape"({{.+}} -> !torch.vtensor<[2,3,32],f32>
func.func @test_rotary_3d_partial(%x: !torch.vtensor<[2,3,32],f32>, %cos: !torch.vtensor<[2,3,2],f32>, %sin: !torch.vtensor<[2,3,2],f32>) -> !torch.vtensor<[2,3,32],f32> attributes {torch.onnx_meta.opset_version = 23 : si64} {
  %0 = "torch.operator"(%x, %cos, %sin) {name = "onnx.RotaryEmbedding", torch.onnx.num_heads = 4 : si64, torch.onnx.interleaved = 1 : si64, torch.onnx.rotary_embedding_dim = 4 : si64} : (!torch.vtensor<[2,3,32],f32>, !torch.vtensor<[2,3,2],f32>, !torch.vtensor<[2,3,2],f32>) -> !torch.vtensor<[2,3,32],f32>
  return %0 : !torch.vtensor<[2,3,32],f32>
}
