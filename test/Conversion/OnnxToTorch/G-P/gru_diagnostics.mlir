// Malformed GRU ops are compile errors naming the node and the attribute or input.
// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'gru_acts' (GRU): attribute 'activations' has 3 functions, expected 4 (2 per direction)
func.func @activations(%x: !torch.vtensor<[5,2,3],f32>, %w: !torch.vtensor<[2,12,3],f32>, %r: !torch.vtensor<[2,12,4],f32>) -> !torch.vtensor<[5,2,2,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%x, %w, %r) {name = "onnx.GRU", torch.onnx.direction = "bidirectional", torch.onnx.activations = ["Sigmoid", "Tanh", "Sigmoid"]} : (!torch.vtensor<[5,2,3],f32>, !torch.vtensor<[2,12,3],f32>, !torch.vtensor<[2,12,4],f32>) -> !torch.vtensor<[5,2,2,4],f32> loc("gru_acts")
  return %0 : !torch.vtensor<[5,2,2,4],f32>
}

// -----

// CHECK: error: node 'gru_layout' (GRU): attribute 'layout' is 2, expected 0 or 1
func.func @layout(%x: !torch.vtensor<[5,2,3],f32>, %w: !torch.vtensor<[1,12,3],f32>, %r: !torch.vtensor<[1,12,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%x, %w, %r) {name = "onnx.GRU", torch.onnx.layout = 2 : si64} : (!torch.vtensor<[5,2,3],f32>, !torch.vtensor<[1,12,3],f32>, !torch.vtensor<[1,12,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> loc("gru_layout")
  return %0 : !torch.vtensor<[5,1,2,4],f32>
}

// -----

// CHECK: error: node 'gru_b' (GRU): B is !torch.vtensor<[1,16],f32>, expected shape [1, 24]
func.func @bias(%x: !torch.vtensor<[5,2,3],f32>, %w: !torch.vtensor<[1,12,3],f32>, %r: !torch.vtensor<[1,12,4],f32>, %b: !torch.vtensor<[1,16],f32>) -> !torch.vtensor<[5,1,2,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%x, %w, %r, %b) {name = "onnx.GRU"} : (!torch.vtensor<[5,2,3],f32>, !torch.vtensor<[1,12,3],f32>, !torch.vtensor<[1,12,4],f32>, !torch.vtensor<[1,16],f32>) -> !torch.vtensor<[5,1,2,4],f32> loc("gru_b")
  return %0 : !torch.vtensor<[5,1,2,4],f32>
}

// -----

// CHECK: error: node 'gru_no_hidden' (GRU): attribute 'hidden_size' is missing and R's shape is unknown
func.func @no_hidden(%x: !torch.vtensor<[5,2,3],f32>, %w: !torch.vtensor<[1,12,3],f32>, %r: !torch.vtensor<[1,12,?],f32>) -> !torch.vtensor<[5,1,2,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%x, %w, %r) {name = "onnx.GRU"} : (!torch.vtensor<[5,2,3],f32>, !torch.vtensor<[1,12,3],f32>, !torch.vtensor<[1,12,?],f32>) -> !torch.vtensor<[5,1,2,4],f32> loc("gru_no_hidden")
  return %0 : !torch.vtensor<[5,1,2,4],f32>
}
