// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'cos_int' (Cos): input 'input' is !torch.vtensor<[3],si64>, expected a float tensor
func.func @cos_int(%arg0: !torch.vtensor<[3],si64>) -> !torch.vtensor<[3],si64> attributes {torch.onnx_meta.opset_version = 7 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Cos"} : (!torch.vtensor<[3],si64>) -> !torch.vtensor<[3],si64> loc("cos_int")
  return %0 : !torch.vtensor<[3],si64>
}

// -----

// CHECK: error: node 'isnan_int' (IsNaN): input 'X' is !torch.vtensor<[3],si32>, expected a float tensor
func.func @isnan_int(%arg0: !torch.vtensor<[3],si32>) -> !torch.vtensor<[3],i1> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.IsNaN"} : (!torch.vtensor<[3],si32>) -> !torch.vtensor<[3],i1> loc("isnan_int")
  return %0 : !torch.vtensor<[3],i1>
}
