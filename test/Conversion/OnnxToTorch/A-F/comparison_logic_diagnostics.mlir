// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'eq_types' (Equal): A is FLOAT but B is INT64
func.func @equal_mixed_types(%arg0: !torch.vtensor<[3],f32>, %arg1: !torch.vtensor<[3],si64>) -> !torch.vtensor<[3],i1> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Equal"} : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[3],i1> loc("eq_types")
  return %0 : !torch.vtensor<[3],i1>
}

// -----

// CHECK: error: node 'where_cond' (Where): input 'condition' is !torch.vtensor<[3],f32>, expected BOOL
func.func @where_float_condition(%arg0: !torch.vtensor<[3],f32>, %arg1: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg1) {name = "onnx.Where"} : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> loc("where_cond")
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// CHECK: error: node 'where_shape' (Where): condition is !torch.vtensor<[4],i1> and the broadcast of X and Y is !torch.vtensor<[3],f32>: sizes 4 and 3 do not broadcast
func.func @where_shapes_clash(%arg0: !torch.vtensor<[4],i1>, %arg1: !torch.vtensor<[3],f32>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg1) {name = "onnx.Where"} : (!torch.vtensor<[4],i1>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<*,f32> loc("where_shape")
  return %0 : !torch.vtensor<*,f32>
}

// -----

// CHECK: error: node 'sum_types' (Sum): data_0 is FLOAT but data_1 is DOUBLE
func.func @sum_mixed_types(%arg0: !torch.vtensor<[3],f32>, %arg1: !torch.vtensor<[3],f64>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Sum"} : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f64>) -> !torch.vtensor<[3],f32> loc("sum_types")
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// CHECK: error: node 'max_shape' (Max): data_0 is !torch.vtensor<[2,3],f32> and data_1 is !torch.vtensor<[4],f32>: sizes 3 and 4 do not broadcast
func.func @max_shapes_clash(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[4],f32>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Max"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<*,f32> loc("max_shape")
  return %0 : !torch.vtensor<*,f32>
}
