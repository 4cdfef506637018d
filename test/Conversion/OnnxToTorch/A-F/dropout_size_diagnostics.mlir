// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'dropout_train' (Dropout): input 'training_mode' is true, but qlower runs inference only
func.func @dropout_training(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %ratio = "torch.vtensor.literal"() {value = dense<0.5> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %mode = "torch.vtensor.literal"() {value = dense<true> : tensor<i1>} : () -> !torch.vtensor<[],i1>
  %0 = "torch.operator"(%arg0, %ratio, %mode) {name = "onnx.Dropout"} : (!torch.vtensor<[3],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],i1>) -> !torch.vtensor<[3],f32> loc("dropout_train")
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// CHECK: error: node 'dropout_mode' (Dropout): input 'training_mode' must be a constant known at compile time
func.func @dropout_run_time_mode(%arg0: !torch.vtensor<[3],f32>, %arg1: !torch.vtensor<[],i1>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %none, %arg1) {name = "onnx.Dropout"} : (!torch.vtensor<[3],f32>, !torch.none, !torch.vtensor<[],i1>) -> !torch.vtensor<[3],f32> loc("dropout_mode")
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// CHECK: error: node 'size_type' (Size): output is INT32, but Size gives INT64
func.func @size_not_int64(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[],si32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Size"} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[],si32> loc("size_type")
  return %0 : !torch.vtensor<[],si32>
}
