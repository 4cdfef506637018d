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
