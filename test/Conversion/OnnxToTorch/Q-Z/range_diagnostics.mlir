// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'range_zero' (Range): input 'delta' is 0, so the range never reaches 'limit'
func.func @zero_delta(%arg0: !torch.vtensor<[],si64>) -> !torch.vtensor<[?],si64> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<0> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %d = "torch.vtensor.literal"() {value = dense<0> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %0 = "torch.operator"(%s, %arg0, %d) {name = "onnx.Range"} : (!torch.vtensor<[],si64>, !torch.vtensor<[],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[?],si64> loc("range_zero")
  return %0 : !torch.vtensor<[?],si64>
}

// -----

// CHECK: error: node 'range_mixed' (Range): inputs 'start' (FLOAT) and 'limit' (INT64) must have one element type
func.func @mixed_types(%arg0: !torch.vtensor<[],f32>, %arg1: !torch.vtensor<[],si64>) -> !torch.vtensor<[?],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg0) {name = "onnx.Range"} : (!torch.vtensor<[],f32>, !torch.vtensor<[],si64>, !torch.vtensor<[],f32>) -> !torch.vtensor<[?],f32> loc("range_mixed")
  return %0 : !torch.vtensor<[?],f32>
}

// -----

// CHECK: error: node 'range_vector' (Range): input 'limit' must hold one element, but is !torch.vtensor<[2],si64>
func.func @vector_limit(%arg0: !torch.vtensor<[],si64>, %arg1: !torch.vtensor<[2],si64>) -> !torch.vtensor<[?],si64> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg0) {name = "onnx.Range"} : (!torch.vtensor<[],si64>, !torch.vtensor<[2],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[?],si64> loc("range_vector")
  return %0 : !torch.vtensor<[?],si64>
}

// -----

// CHECK: error: node 'range_u8' (Range): element type UINT8 is not one Range takes (FLOAT16, BFLOAT16, FLOAT, DOUBLE, INT16, INT32, INT64)
func.func @byte_range(%arg0: !torch.vtensor<[],ui8>) -> !torch.vtensor<[?],ui8> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0, %arg0, %arg0) {name = "onnx.Range"} : (!torch.vtensor<[],ui8>, !torch.vtensor<[],ui8>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[?],ui8> loc("range_u8")
  return %0 : !torch.vtensor<[?],ui8>
}
