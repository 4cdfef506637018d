// RUN: qlower-opt --split-input-file --convert-onnx-to-torch %s | FileCheck %s

// An LSTM is one qlower.lstm operator: the ONNX inputs in order (absent ones as none),
// then direction, hidden_size, layout, clip, input_forget, the activations joined by
// commas and their alphas and betas (defaults filled in, one per function). It always
// has Y, Y_h and Y_c.
// CHECK-LABEL: func.func @test_lstm_bidirectional_all_inputs(
func.func @test_lstm_bidirectional_all_inputs(%arg0: !torch.vtensor<[5,2,3],f32>, %arg1: !torch.vtensor<[2,16,3],f32>, %arg2: !torch.vtensor<[2,16,4],f32>, %arg3: !torch.vtensor<[2,32],f32>, %arg4: !torch.vtensor<[2,2,4],f32>, %arg5: !torch.vtensor<[2,2,4],f32>, %arg6: !torch.vtensor<[2,12],f32>) -> (!torch.vtensor<[5,2,2,4],f32>, !torch.vtensor<[2,2,4],f32>, !torch.vtensor<[2,2,4],f32>) attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0:3 = "torch.operator"(%arg0, %arg1, %arg2, %arg3, %none, %arg4, %arg5, %arg6) {name = "onnx.LSTM", torch.onnx.clip = 3.000000e+00 : f32, torch.onnx.direction = "bidirectional", torch.onnx.hidden_size = 4 : si64} : (!torch.vtensor<[5,2,3],f32>, !torch.vtensor<[2,16,3],f32>, !torch.vtensor<[2,16,4],f32>, !torch.vtensor<[2,32],f32>, !torch.none, !torch.vtensor<[2,2,4],f32>, !torch.vtensor<[2,2,4],f32>, !torch.vtensor<[2,12],f32>) -> (!torch.vtensor<[5,2,2,4],f32>, !torch.vtensor<[2,2,4],f32>, !torch.vtensor<[2,2,4],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[5,2,2,4],f32>, !torch.vtensor<[2,2,4],f32>, !torch.vtensor<[2,2,4],f32>
}
// CHECK: %[[NONE:.+]] = "torch.constant.none"
// CHECK: %[[DIR:.+]] = "torch.constant.str"() {value = "bidirectional"}
// CHECK: %[[H:.+]] = "torch.constant.int"() {value = 4 : i64}
// CHECK: %[[LAYOUT:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[CLIP:.+]] = "torch.constant.float"() {value = 3.000000e+00 : f64}
// CHECK: %[[FORGET:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[ACTS:.+]] = "torch.constant.str"() {value = "Sigmoid,Tanh,Tanh,Sigmoid,Tanh,Tanh"}
// CHECK: %[[ALPHAS:.+]] = "torch.prim.ListConstruct"({{.*}}) : (!torch.float, !torch.float, !torch.float, !torch.float, !torch.float, !torch.float) -> !torch.list<float>
// CHECK: %[[BETAS:.+]] = "torch.prim.ListConstruct"({{.*}}) -> !torch.list<float>
// CHECK: %[[Y:.+]]:3 = "torch.operator"(%arg0, %arg1, %arg2, %arg3, %{{[0-9]+}}, %arg4, %arg5, %arg6, %[[DIR]], %[[H]], %[[LAYOUT]], %[[CLIP]], %[[FORGET]], %[[ACTS]], %[[ALPHAS]], %[[BETAS]]) {name = "qlower.lstm"}
// CHECK-SAME: -> (!torch.vtensor<[5,2,2,4],f32>, !torch.vtensor<[2,2,4],f32>, !torch.vtensor<[2,2,4],f32>)
// CHECK: return %[[Y]]#0, %[[Y]]#1, %[[Y]]#2

// -----

// Batch first (layout 1), only Y_h used, hidden_size taken from R, other activations:
// each alpha and beta goes to the function that reads it, in order.
// CHECK-LABEL: func.func @test_lstm_batchwise_activations(
func.func @test_lstm_batchwise_activations(%arg0: !torch.vtensor<[3,7,2],f32>, %arg1: !torch.vtensor<[1,20,2],f32>, %arg2: !torch.vtensor<[1,20,5],f32>) -> !torch.vtensor<[3,1,5],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0:2 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.LSTM", torch.onnx.layout = 1 : si64, torch.onnx.activations = ["HardSigmoid", "LeakyRelu", "Tanh"], torch.onnx.activation_alpha = [2.500000e-01 : f32, 5.000000e-01 : f32], torch.onnx.activation_beta = [7.500000e-01 : f32]} : (!torch.vtensor<[3,7,2],f32>, !torch.vtensor<[1,20,2],f32>, !torch.vtensor<[1,20,5],f32>) -> (!torch.vtensor<[3,7,1,5],f32>, !torch.vtensor<[3,1,5],f32>)
  return %0#1 : !torch.vtensor<[3,1,5],f32>
}
// CHECK: "torch.constant.str"() {value = "forward"}
// CHECK: "torch.constant.int"() {value = 5 : i64}
// CHECK: "torch.constant.int"() {value = 1 : i64}
// CHECK: "torch.constant.str"() {value = "HardSigmoid,LeakyRelu,Tanh"}
// CHECK: %[[A0:.+]] = "torch.constant.float"() {value = 2.500000e-01 : f64}
// CHECK: %[[A1:.+]] = "torch.constant.float"() {value = 5.000000e-01 : f64}
// CHECK: %[[A2:.+]] = "torch.constant.float"() {value = 0.000000e+00 : f64}
// CHECK: "torch.prim.ListConstruct"(%[[A0]], %[[A1]], %[[A2]])
// CHECK: %[[B0:.+]] = "torch.constant.float"() {value = 7.500000e-01 : f64}
// CHECK: %[[Y:.+]]:3 = "torch.operator"({{.*}}) {name = "qlower.lstm"} : {{.*}} -> (!torch.vtensor<[3,7,1,5],f32>, !torch.vtensor<[3,1,5],f32>, !torch.vtensor<[3,1,5],f32>)
// CHECK: return %[[Y]]#1
