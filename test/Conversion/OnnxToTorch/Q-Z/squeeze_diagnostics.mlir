// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'squeeze_not_one' (Squeeze): input 'axes' names axis 1, but that dimension of data has size 3, not 1
func.func @not_one(%arg0: !torch.vtensor<[1,3,4],f32>) -> !torch.vtensor<[1,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %a = "torch.vtensor.literal"() {value = dense<[1]> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0 = "torch.operator"(%arg0, %a) {name = "onnx.Squeeze"} : (!torch.vtensor<[1,3,4],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[1,4],f32> loc("squeeze_not_one")
  return %0 : !torch.vtensor<[1,4],f32>
}

// -----

// CHECK: error: node 'squeeze_dynamic' (Squeeze): input 'axes' is known only at run time and has 2 entries; only one such axis is supported
func.func @runtime_axes(%arg0: !torch.vtensor<[1,3,1],f32>, %arg1: !torch.vtensor<[2],si64>) -> !torch.vtensor<[?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Squeeze"} : (!torch.vtensor<[1,3,1],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?],f32> loc("squeeze_dynamic")
  return %0 : !torch.vtensor<[?],f32>
}
