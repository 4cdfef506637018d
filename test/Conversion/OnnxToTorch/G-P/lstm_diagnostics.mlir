// Malformed LSTM ops are compile errors naming the node and the attribute or input.
// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'lstm_direction' (LSTM): attribute 'direction' is 'sideways', expected forward, reverse or bidirectional
func.func @direction(%x: !torch.vtensor<[5,2,3],f32>, %w: !torch.vtensor<[1,16,3],f32>, %r: !torch.vtensor<[1,16,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%x, %w, %r) {name = "onnx.LSTM", torch.onnx.direction = "sideways", torch.onnx.hidden_size = 4 : si64} : (!torch.vtensor<[5,2,3],f32>, !torch.vtensor<[1,16,3],f32>, !torch.vtensor<[1,16,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> loc("lstm_direction")
  return %0 : !torch.vtensor<[5,1,2,4],f32>
}

// -----

// CHECK: error: node 'lstm_hidden' (LSTM): attribute 'hidden_size' is 3 but R's hidden dimension is 4
func.func @hidden(%x: !torch.vtensor<[5,2,3],f32>, %w: !torch.vtensor<[1,16,3],f32>, %r: !torch.vtensor<[1,16,4],f32>) -> !torch.vtensor<[5,1,2,3],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%x, %w, %r) {name = "onnx.LSTM", torch.onnx.hidden_size = 3 : si64} : (!torch.vtensor<[5,2,3],f32>, !torch.vtensor<[1,16,3],f32>, !torch.vtensor<[1,16,4],f32>) -> !torch.vtensor<[5,1,2,3],f32> loc("lstm_hidden")
  return %0 : !torch.vtensor<[5,1,2,3],f32>
}

// -----

// CHECK: error: node 'lstm_acts' (LSTM): attribute 'activations' has 2 functions, expected 3 (3 per direction)
func.func @activations(%x: !torch.vtensor<[5,2,3],f32>, %w: !torch.vtensor<[1,16,3],f32>, %r: !torch.vtensor<[1,16,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%x, %w, %r) {name = "onnx.LSTM", torch.onnx.activations = ["Sigmoid", "Tanh"]} : (!torch.vtensor<[5,2,3],f32>, !torch.vtensor<[1,16,3],f32>, !torch.vtensor<[1,16,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> loc("lstm_acts")
  return %0 : !torch.vtensor<[5,1,2,4],f32>
}

// -----

// CHECK: error: node 'lstm_unknown_act' (LSTM): activation 'Swish' is not supported
func.func @unknown_activation(%x: !torch.vtensor<[5,2,3],f32>, %w: !torch.vtensor<[1,16,3],f32>, %r: !torch.vtensor<[1,16,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%x, %w, %r) {name = "onnx.LSTM", torch.onnx.activations = ["Sigmoid", "Swish", "Tanh"]} : (!torch.vtensor<[5,2,3],f32>, !torch.vtensor<[1,16,3],f32>, !torch.vtensor<[1,16,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> loc("lstm_unknown_act")
  return %0 : !torch.vtensor<[5,1,2,4],f32>
}

// -----

// CHECK: error: node 'lstm_clip' (LSTM): attribute 'clip' is -1, expected a positive threshold
func.func @clip(%x: !torch.vtensor<[5,2,3],f32>, %w: !torch.vtensor<[1,16,3],f32>, %r: !torch.vtensor<[1,16,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%x, %w, %r) {name = "onnx.LSTM", torch.onnx.clip = -1.000000e+00 : f32} : (!torch.vtensor<[5,2,3],f32>, !torch.vtensor<[1,16,3],f32>, !torch.vtensor<[1,16,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> loc("lstm_clip")
  return %0 : !torch.vtensor<[5,1,2,4],f32>
}

// -----

// CHECK: error: node 'lstm_f64' (LSTM): X is DOUBLE; only float32 recurrent layers are supported
func.func @double(%x: !torch.vtensor<[5,2,3],f64>, %w: !torch.vtensor<[1,16,3],f64>, %r: !torch.vtensor<[1,16,4],f64>) -> !torch.vtensor<[5,1,2,4],f64> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%x, %w, %r) {name = "onnx.LSTM"} : (!torch.vtensor<[5,2,3],f64>, !torch.vtensor<[1,16,3],f64>, !torch.vtensor<[1,16,4],f64>) -> !torch.vtensor<[5,1,2,4],f64> loc("lstm_f64")
  return %0 : !torch.vtensor<[5,1,2,4],f64>
}

// -----

// CHECK: error: node 'lstm_rank' (LSTM): X has rank 2, expected 3
func.func @rank(%x: !torch.vtensor<[5,3],f32>, %w: !torch.vtensor<[1,16,3],f32>, %r: !torch.vtensor<[1,16,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%x, %w, %r) {name = "onnx.LSTM"} : (!torch.vtensor<[5,3],f32>, !torch.vtensor<[1,16,3],f32>, !torch.vtensor<[1,16,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> loc("lstm_rank")
  return %0 : !torch.vtensor<[5,1,2,4],f32>
}

// -----

// CHECK: error: node 'lstm_w' (LSTM): W is !torch.vtensor<[1,12,3],f32>, expected shape [1, 16, 3]
func.func @weights(%x: !torch.vtensor<[5,2,3],f32>, %w: !torch.vtensor<[1,12,3],f32>, %r: !torch.vtensor<[1,16,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%x, %w, %r) {name = "onnx.LSTM"} : (!torch.vtensor<[5,2,3],f32>, !torch.vtensor<[1,12,3],f32>, !torch.vtensor<[1,16,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> loc("lstm_w")
  return %0 : !torch.vtensor<[5,1,2,4],f32>
}

// -----

// CHECK: error: node 'lstm_h0' (LSTM): initial_h is !torch.vtensor<[1,3,4],f32>, expected shape [1, 2, 4]
func.func @initial_h(%x: !torch.vtensor<[5,2,3],f32>, %w: !torch.vtensor<[1,16,3],f32>, %r: !torch.vtensor<[1,16,4],f32>, %h: !torch.vtensor<[1,3,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%x, %w, %r, %none, %none, %h) {name = "onnx.LSTM"} : (!torch.vtensor<[5,2,3],f32>, !torch.vtensor<[1,16,3],f32>, !torch.vtensor<[1,16,4],f32>, !torch.none, !torch.none, !torch.vtensor<[1,3,4],f32>) -> !torch.vtensor<[5,1,2,4],f32> loc("lstm_h0")
  return %0 : !torch.vtensor<[5,1,2,4],f32>
}
