// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'add_shapes' (Add): A is !torch.vtensor<[3,4],f32> and B is !torch.vtensor<[3],f32>: sizes 4 and 3 do not broadcast
func.func @shapes(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Add"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3,4],f32> loc("add_shapes")
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

// CHECK: error: node 'sub_types' (Sub): A is FLOAT but B is INT64
func.func @types(%arg0: !torch.vtensor<[3],f32>, %arg1: !torch.vtensor<[3],si64>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Sub"} : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[3],f32> loc("sub_types")
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// CHECK: error: node 'mul_axis' (Mul): attribute 'axis' is 2 but B has rank 2: B would extend past the rank 3 of A
func.func @legacy_axis(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[4,1],f32>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Mul", torch.onnx.axis = 2 : si64, torch.onnx.broadcast = 1 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[4,1],f32>) -> !torch.vtensor<[2,3,4],f32> loc("mul_axis")
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// CHECK: error: node 'add_nobcast' (Add): A is !torch.vtensor<[2,3],f32> and B is !torch.vtensor<[3],f32>: without 'broadcast' = 1 their shapes must be equal
func.func @legacy_no_broadcast(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Add"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f32> loc("add_nobcast")
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// CHECK: error: node 'div_unk' (Div): the element type is unknown, so float and integer division cannot be told apart
func.func @div_unknown_dtype(%arg0: !torch.vtensor<[3],unk>, %arg1: !torch.vtensor<[3],unk>) -> !torch.vtensor<[3],unk> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Div"} : (!torch.vtensor<[3],unk>, !torch.vtensor<[3],unk>) -> !torch.vtensor<[3],unk> loc("div_unk")
  return %0 : !torch.vtensor<[3],unk>
}
