// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'nh' (Attention): 3-D inputs need a positive q_num_heads, but it is 0
func.func @heads_missing(%q: !torch.vtensor<[1,2,16],f32>) -> !torch.vtensor<[1,2,16],f32> attributes {torch.onnx_meta.opset_version = 23 : si64} {
  %0 = "torch.operator"(%q, %q, %q) {name = "onnx.Attention"} : (!torch.vtensor<[1,2,16],f32>, !torch.vtensor<[1,2,16],f32>, !torch.vtensor<[1,2,16],f32>) -> !torch.vtensor<[1,2,16],f32> loc("nh")
  return %0 : !torch.vtensor<[1,2,16],f32>
}

// -----

// CHECK: error: node 'grp' (Attention): q_num_heads 3 is not a multiple of kv_num_heads 2
func.func @bad_group(%q: !torch.vtensor<[1,3,2,8],f32>, %k: !torch.vtensor<[1,2,2,8],f32>) -> !torch.vtensor<[1,3,2,8],f32> attributes {torch.onnx_meta.opset_version = 23 : si64} {
  %0 = "torch.operator"(%q, %k, %k) {name = "onnx.Attention"} : (!torch.vtensor<[1,3,2,8],f32>, !torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,2,8],f32>) -> !torch.vtensor<[1,3,2,8],f32> loc("grp")
  return %0 : !torch.vtensor<[1,3,2,8],f32>
}

// -----

// CHECK: error: node 'past' (Attention): past_key and past_value must be given together
func.func @half_past(%q: !torch.vtensor<[1,2,2,8],f32>) -> !torch.vtensor<[1,2,2,8],f32> attributes {torch.onnx_meta.opset_version = 23 : si64} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%q, %q, %q, %none, %q) {name = "onnx.Attention"} : (!torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,2,8],f32>, !torch.none, !torch.vtensor<[1,2,2,8],f32>) -> !torch.vtensor<[1,2,2,8],f32> loc("past")
  return %0 : !torch.vtensor<[1,2,2,8],f32>
}

// -----

// CHECK: error: node 'qk' (Attention): qk_matmul_output_mode 4 is not one of 0, 1, 2, 3
func.func @qk_mode(%q: !torch.vtensor<[1,2,2,8],f32>) -> !torch.vtensor<[1,2,2,2],f32> attributes {torch.onnx_meta.opset_version = 23 : si64} {
  %0:4 = "torch.operator"(%q, %q, %q) {name = "onnx.Attention", torch.onnx.qk_matmul_output_mode = 4 : si64} : (!torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,2,8],f32>) -> (!torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,2,2],f32>) loc("qk")
  return %0#3 : !torch.vtensor<[1,2,2,2],f32>
}
// -----

// CHECK: error: node 'long' (Attention): attn_mask covers 5 keys but there are only 4 (past plus new)
func.func @long_mask(%q: !torch.vtensor<[1,2,2,8],f32>, %k: !torch.vtensor<[1,2,4,8],f32>, %m: !torch.vtensor<[2,5],f32>) -> !torch.vtensor<[1,2,2,8],f32> attributes {torch.onnx_meta.opset_version = 23 : si64} {
  %0 = "torch.operator"(%q, %k, %k, %m) {name = "onnx.Attention"} : (!torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,4,8],f32>, !torch.vtensor<[1,2,4,8],f32>, !torch.vtensor<[2,5],f32>) -> !torch.vtensor<[1,2,2,8],f32> loc("long")
  return %0 : !torch.vtensor<[1,2,2,8],f32>
}
// -----

// CHECK: error: node 'win' (Attention): left_window_size must be -1 or non-negative, but is -2
func.func @window(%q: !torch.vtensor<[1,2,2,8],f32>) -> !torch.vtensor<[1,2,2,8],f32> attributes {torch.onnx_meta.opset_version = 25 : si64} {
  %0 = "torch.operator"(%q, %q, %q) {name = "onnx.Attention", torch.onnx.left_window_size = -2 : si64} : (!torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,2,8],f32>) -> !torch.vtensor<[1,2,2,8],f32> loc("win")
  return %0 : !torch.vtensor<[1,2,2,8],f32>
}
// -----

// CHECK: error: node 'ext' (Attention): nonpad_kv_seqlen cannot be combined with past_key and past_value
func.func @cache_twice(%q: !torch.vtensor<[1,2,2,8],f32>, %n: !torch.vtensor<[1],si64>) -> !torch.vtensor<[1,2,2,8],f32> attributes {torch.onnx_meta.opset_version = 24 : si64} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%q, %q, %q, %none, %q, %q, %n) {name = "onnx.Attention"} : (!torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,2,8],f32>, !torch.none, !torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[1,2,2,8],f32> loc("ext")
  return %0 : !torch.vtensor<[1,2,2,8],f32>
}
// -----

// CHECK: error: node 'len' (Attention): nonpad_kv_seqlen has rank 2; it must be [batch_size]
func.func @lengths_rank(%q: !torch.vtensor<[1,2,2,8],f32>, %n: !torch.vtensor<[1,1],si64>) -> !torch.vtensor<[1,2,2,8],f32> attributes {torch.onnx_meta.opset_version = 24 : si64} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%q, %q, %q, %none, %none, %none, %n) {name = "onnx.Attention"} : (!torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,2,8],f32>, !torch.vtensor<[1,2,2,8],f32>, !torch.none, !torch.none, !torch.none, !torch.vtensor<[1,1],si64>) -> !torch.vtensor<[1,2,2,8],f32> loc("len")
  return %0 : !torch.vtensor<[1,2,2,8],f32>
}
