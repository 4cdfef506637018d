// RUN: qlower-opt --split-input-file --convert-onnx-to-torch %s | FileCheck %s

// A GRU is one qlower.gru operator: X, W, R, B, sequence_lens, initial_h (absent ones
// as none), then direction, hidden_size, layout, clip, linear_before_reset, the
// activations and their alphas and betas. It always has Y and Y_h.
// CHECK-LABEL: func.func @test_gru_defaults(
func.func @test_gru_defaults(%arg0: !torch.vtensor<[1,3,2],f32>, %arg1: !torch.vtensor<[1,15,2],f32>, %arg2: !torch.vtensor<[1,15,5],f32>) -> !torch.vtensor<[1,3,5],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0:2 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.GRU", torch.onnx.hidden_size = 5 : si64} : (!torch.vtensor<[1,3,2],f32>, !torch.vtensor<[1,15,2],f32>, !torch.vtensor<[1,15,5],f32>) -> (!torch.vtensor<[1,1,3,5],f32>, !torch.vtensor<[1,3,5],f32>)
  return %0#1 : !torch.vtensor<[1,3,5],f32>
}
// CHECK: %[[B:.+]] = "torch.constant.none"
// CHECK: %[[SEQ:.+]] = "torch.constant.none"
// CHECK: %[[H0:.+]] = "torch.constant.none"
// CHECK: %[[DIR:.+]] = "torch.constant.str"() {value = "forward"}
// CHECK: %[[H:.+]] = "torch.constant.int"() {value = 5 : i64}
// CHECK: %[[LAYOUT:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[CLIP:.+]] = "torch.constant.none"
// CHECK: %[[LBR:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[ACTS:.+]] = "torch.constant.str"() {value = "Sigmoid,Tanh"}
// CHECK: %[[Y:.+]]:2 = "torch.operator"(%arg0, %arg1, %arg2, %[[B]], %[[SEQ]], %[[H0]], %[[DIR]], %[[H]], %[[LAYOUT]], %[[CLIP]], %[[LBR]], %[[ACTS]], %{{.+}}, %{{.+}}) {name = "qlower.gru"}
// CHECK-SAME: -> (!torch.vtensor<[1,1,3,5],f32>, !torch.vtensor<[1,3,5],f32>)
// CHECK: return %[[Y]]#1

// -----

// Reverse, batch first, with sequence lengths, linear_before_reset and clip; Y left out
// by the node (its result is none) is still computed by the op, typed from X.
// CHECK-LABEL: func.func @test_gru_reverse_batchwise(
func.func @test_gru_reverse_batchwise(%arg0: !torch.vtensor<[2,5,3],f32>, %arg1: !torch.vtensor<[1,12,3],f32>, %arg2: !torch.vtensor<[1,12,4],f32>, %arg3: !torch.vtensor<[2],si32>) -> !torch.vtensor<[2,1,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0:2 = "torch.operator"(%arg0, %arg1, %arg2, %none, %arg3) {name = "onnx.GRU", torch.onnx.direction = "reverse", torch.onnx.clip = 2.000000e+00 : f32, torch.onnx.hidden_size = 4 : si64, torch.onnx.layout = 1 : si64, torch.onnx.linear_before_reset = 1 : si64} : (!torch.vtensor<[2,5,3],f32>, !torch.vtensor<[1,12,3],f32>, !torch.vtensor<[1,12,4],f32>, !torch.none, !torch.vtensor<[2],si32>) -> (!torch.none, !torch.vtensor<[2,1,4],f32>)
  return %0#1 : !torch.vtensor<[2,1,4],f32>
}
// CHECK: "torch.constant.str"() {value = "reverse"}
// CHECK: "torch.constant.float"() {value = 2.000000e+00 : f64}
// CHECK: %[[Y:.+]]:2 = "torch.operator"(%arg0, %arg1, %arg2, %{{.+}}, %arg3, {{.*}}) {name = "qlower.gru"}
// CHECK-SAME: -> (!torch.vtensor<[2,5,1,4],f32>, !torch.vtensor<[2,1,4],f32>)
// CHECK: return %[[Y]]#1
