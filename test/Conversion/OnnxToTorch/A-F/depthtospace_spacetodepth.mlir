// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// DCR (the default): the channels split as [bs, bs, c'], and the blocks move behind
// height and width.
// CHECK-LABEL: func.func @test_depthtospace_dcr(
func.func @test_depthtospace_dcr(%arg0: !torch.vtensor<[1,8,2,3],f32>) -> !torch.vtensor<[1,2,4,6],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.DepthToSpace", torch.onnx.blocksize = 2 : si64} : (!torch.vtensor<[1,8,2,3],f32>) -> !torch.vtensor<[1,2,4,6],f32>
  return %0 : !torch.vtensor<[1,2,4,6],f32>
}
// CHECK: %[[SPLIT:.+]] = "torch.aten.reshape"(%arg0, %{{.+}}) : (!torch.vtensor<[1,8,2,3],f32>, !torch.list<int>) -> !torch.vtensor<[1,2,2,2,2,3],f32>
// CHECK: %[[P0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[P1:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[P2:.+]] = "torch.constant.int"() {value = 4 : i64}
// CHECK: %[[P3:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[P4:.+]] = "torch.constant.int"() {value = 5 : i64}
// CHECK: %[[P5:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[PERM:.+]] = "torch.prim.ListConstruct"(%[[P0]], %[[P1]], %[[P2]], %[[P3]], %[[P4]], %[[P5]])
// CHECK: %[[MOVED:.+]] = "torch.aten.permute"(%[[SPLIT]], %[[PERM]]) : (!torch.vtensor<[1,2,2,2,2,3],f32>, !torch.list<int>) -> !torch.vtensor<[1,2,2,2,3,2],f32>
// CHECK: %[[Y:.+]] = "torch.aten.reshape"(%[[MOVED]], %{{.+}}) : (!torch.vtensor<[1,2,2,2,3,2],f32>, !torch.list<int>) -> !torch.vtensor<[1,2,4,6],f32>
// CHECK: return %[[Y]]

// CRD: the channels split as [c', bs, bs].
// CHECK-LABEL: func.func @test_depthtospace_crd(
func.func @test_depthtospace_crd(%arg0: !torch.vtensor<[1,8,2,3],f32>) -> !torch.vtensor<[1,2,4,6],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.DepthToSpace", torch.onnx.blocksize = 2 : si64, torch.onnx.mode = "CRD"} : (!torch.vtensor<[1,8,2,3],f32>) -> !torch.vtensor<[1,2,4,6],f32>
  return %0 : !torch.vtensor<[1,2,4,6],f32>
}
// CHECK: "torch.aten.reshape"(%arg0, %{{.+}}) : (!torch.vtensor<[1,8,2,3],f32>, !torch.list<int>) -> !torch.vtensor<[1,2,2,2,2,3],f32>
// CHECK: "torch.aten.permute"({{.+}}) : (!torch.vtensor<[1,2,2,2,2,3],f32>, !torch.list<int>) -> !torch.vtensor<[1,2,2,2,3,2],f32>
// CHECK: "torch.aten.reshape"({{.+}}) : (!torch.vtensor<[1,2,2,2,3,2],f32>, !torch.list<int>) -> !torch.vtensor<[1,2,4,6],f32>

// Height and width known only at run time: read with size.int and scaled at run time.
// CHECK-LABEL: func.func @test_depthtospace_dynamic(
func.func @test_depthtospace_dynamic(%arg0: !torch.vtensor<[1,8,?,?],f32>) -> !torch.vtensor<[1,2,?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.DepthToSpace", torch.onnx.blocksize = 2 : si64} : (!torch.vtensor<[1,8,?,?],f32>) -> !torch.vtensor<[1,2,?,?],f32>
  return %0 : !torch.vtensor<[1,2,?,?],f32>
}
// CHECK: %[[H:.+]] = "torch.aten.size.int"(%arg0, %{{.+}}) : (!torch.vtensor<[1,8,?,?],f32>, !torch.int) -> !torch.int
// CHECK: %[[W:.+]] = "torch.aten.size.int"(%arg0, %{{.+}}) : (!torch.vtensor<[1,8,?,?],f32>, !torch.int) -> !torch.int
// CHECK: "torch.aten.reshape"(%arg0, %{{.+}}) : (!torch.vtensor<[1,8,?,?],f32>, !torch.list<int>) -> !torch.vtensor<[1,2,2,2,?,?],f32>
// CHECK: "torch.aten.mul.int"(%[[H]], %{{.+}}) : (!torch.int, !torch.int) -> !torch.int
// CHECK: "torch.aten.mul.int"(%[[W]], %{{.+}}) : (!torch.int, !torch.int) -> !torch.int
// CHECK: "torch.aten.reshape"({{.+}}) : (!torch.vtensor<[1,2,?,2,?,2],f32>, !torch.list<int>) -> !torch.vtensor<[1,2,?,?],f32>

// SpaceToDepth (DCR): height and width split into blocks that move in front of the
// channels.
// CHECK-LABEL: func.func @test_spacetodepth(
func.func @test_spacetodepth(%arg0: !torch.vtensor<[1,2,4,6],si8>) -> !torch.vtensor<[1,8,2,3],si8> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.SpaceToDepth", torch.onnx.blocksize = 2 : si64} : (!torch.vtensor<[1,2,4,6],si8>) -> !torch.vtensor<[1,8,2,3],si8>
  return %0 : !torch.vtensor<[1,8,2,3],si8>
}
// CHECK: "torch.aten.reshape"(%arg0, %{{.+}}) : (!torch.vtensor<[1,2,4,6],si8>, !torch.list<int>) -> !torch.vtensor<[1,2,2,2,3,2],si8>
// CHECK: "torch.aten.permute"({{.+}}) : (!torch.vtensor<[1,2,2,2,3,2],si8>, !torch.list<int>) -> !torch.vtensor<[1,2,2,2,2,3],si8>
// CHECK: "torch.aten.reshape"({{.+}}) : (!torch.vtensor<[1,2,2,2,2,3],si8>, !torch.list<int>) -> !torch.vtensor<[1,8,2,3],si8>

// SpaceToDepth-28 CRD: the blocks move behind the channels.
// CHECK-LABEL: func.func @test_spacetodepth_crd(
func.func @test_spacetodepth_crd(%arg0: !torch.vtensor<[1,2,4,6],f32>) -> !torch.vtensor<[1,8,2,3],f32> attributes {torch.onnx_meta.opset_version = 28 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.SpaceToDepth", torch.onnx.blocksize = 2 : si64, torch.onnx.mode = "CRD"} : (!torch.vtensor<[1,2,4,6],f32>) -> !torch.vtensor<[1,8,2,3],f32>
  return %0 : !torch.vtensor<[1,8,2,3],f32>
}
// CHECK: "torch.aten.permute"({{.+}}) : (!torch.vtensor<[1,2,2,2,3,2],f32>, !torch.list<int>) -> !torch.vtensor<[1,2,2,2,2,3],f32>
