// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'tile_negative' (Tile): input 'repeats' holds -1, but repeats must be 0 or more
func.func @negative(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[?,3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %r = "torch.vtensor.literal"() {value = dense<[-1, 1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %r) {name = "onnx.Tile"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,3],f32> loc("tile_negative")
  return %0 : !torch.vtensor<[?,3],f32>
}

// -----

// CHECK: error: node 'tile_count' (Tile): input 'repeats' has 3 entries, but input 'input' has rank 2
func.func @count(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[3],si64>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Tile"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[?,?],f32> loc("tile_count")
  return %0 : !torch.vtensor<[?,?],f32>
}
