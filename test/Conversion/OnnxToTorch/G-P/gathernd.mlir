// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// GatherND with batch_dims 1: data [2,3,4], indices [2,1,1] address dimension 1. Negative
// indices wrap, each tuple's position is Σ index·stride plus its batch's offset, and one
// index_select over data viewed as [6,4] picks the slices.
// CHECK-LABEL: func.func @test_gathernd_batch_dims(
func.func @test_gathernd_batch_dims(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[2,1,1],si64>) -> !torch.vtensor<[2,1,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.GatherND", torch.onnx.batch_dims = 1 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,1,1],si64>) -> !torch.vtensor<[2,1,4],f32>
  return %0 : !torch.vtensor<[2,1,4],f32>
}
// CHECK: %[[SIZES:.+]] = "torch.vtensor.literal"() {value = dense<3> : tensor<1xsi64>}
// CHECK: %[[NEG:.+]] = "torch.aten.lt.Scalar"(%arg1, {{.+}}) : {{.+}} -> !torch.vtensor<[2,1,1],i1>
// CHECK: %[[WRAP:.+]] = "torch.aten.add.Tensor"(%arg1, %[[SIZES]], {{.+}})
// CHECK: %[[IDX:.+]] = "torch.aten.where.self"(%[[NEG]], %[[WRAP]], %arg1)
// CHECK: %[[SCALED:.+]] = "torch.aten.mul.Tensor"(%[[IDX]], {{.+}})
// CHECK: %[[POS:.+]] = "torch.aten.sum.dim_IntList"(%[[SCALED]], {{.+}}) : {{.+}} -> !torch.vtensor<[2,1],si64>
// CHECK: %[[FLAT:.+]] = "torch.aten.reshape"(%[[POS]], {{.+}}) : {{.+}} -> !torch.vtensor<[2],si64>
// CHECK: %[[OFFSETS:.+]] = "torch.vtensor.literal"() {value = dense<[0, 3]> : tensor<2xsi64>}
// CHECK: %[[ALL:.+]] = "torch.aten.add.Tensor"(%[[FLAT]], %[[OFFSETS]], {{.+}})
// CHECK: %[[SRC:.+]] = "torch.aten.reshape"(%arg0, {{.+}}) : {{.+}} -> !torch.vtensor<[6,4],f32>
// CHECK: %[[PICK:.+]] = "torch.aten.index_select"(%[[SRC]], {{.+}}, %[[ALL]]) : {{.+}} -> !torch.vtensor<[2,4],f32>
// CHECK: %[[Y:.+]] = "torch.aten.reshape"(%[[PICK]], {{.+}}) : {{.+}} -> !torch.vtensor<[2,1,4],f32>
// CHECK: return %[[Y]]

// GatherND with sizes known only at run time (a padding mask's pooling in a BERT-class
// encoder): the same flat index_select, the wrap, strides and reshapes read with size.int.
// CHECK-LABEL: func.func @test_gathernd_dynamic(
func.func @test_gathernd_dynamic(%arg0: !torch.vtensor<[?,?,8],f32>, %arg1: !torch.vtensor<[?,2],si64>) -> !torch.vtensor<[?,8],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.GatherND"} : (!torch.vtensor<[?,?,8],f32>, !torch.vtensor<[?,2],si64>) -> !torch.vtensor<[?,8],f32>
  return %0 : !torch.vtensor<[?,8],f32>
}
// CHECK: %[[D0:.+]] = "torch.aten.size.int"(%arg0,
// CHECK: %[[D1:.+]] = "torch.aten.size.int"(%arg0,
// CHECK: "torch.aten.select.int"(%arg1,
// CHECK: "torch.aten.add.Scalar"({{.+}}, %[[D0]],
// CHECK: "torch.aten.where.self"
// CHECK: "torch.aten.mul.Scalar"({{.+}}, %[[D1]])
// CHECK: "torch.aten.index_select"({{.+}} -> !torch.vtensor<[?,8],f32>
// CHECK: %[[Y:.+]] = "torch.aten.reshape"({{.+}} -> !torch.vtensor<[?,8],f32>
// CHECK: return %[[Y]]
