// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// LRN: the squares, viewed as (N, 1, C, H, W) and zero-padded on the channel axis by
// floor((size-1)/2) before and ceil((size-1)/2) after, averaged over `size` channels;
// then x / (bias + alpha * mean)^beta.
// CHECK-LABEL: func.func @test_lrn(
func.func @test_lrn(%arg0: !torch.vtensor<[5,5,5,5],f32>) -> !torch.vtensor<[5,5,5,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.LRN", torch.onnx.size = 3 : si64, torch.onnx.alpha = 2.000000e-04 : f32} : (!torch.vtensor<[5,5,5,5],f32>) -> !torch.vtensor<[5,5,5,5],f32>
  return %0 : !torch.vtensor<[5,5,5,5],f32>
}
// CHECK: %[[SQ:.+]] = "torch.aten.mul.Tensor"(%arg0, %arg0)
// CHECK: %[[LIFTED:.+]] = "torch.aten.unsqueeze"(%[[SQ]], %{{.+}}) : (!torch.vtensor<[5,5,5,5],f32>, !torch.int) -> !torch.vtensor<[5,1,5,5,5],f32>
// CHECK: %[[PADDED:.+]] = "torch.aten.constant_pad_nd"(%[[LIFTED]], %{{.+}}, %{{.+}}) : (!torch.vtensor<[5,1,5,5,5],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[5,1,7,5,5],f32>
// CHECK: %[[MEAN:.+]] = "torch.aten.avg_pool3d"(%[[PADDED]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (!torch.vtensor<[5,1,7,5,5],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[5,1,5,5,5],f32>
// CHECK: %[[WINDOW:.+]] = "torch.aten.squeeze.dim"(%[[MEAN]], %{{.+}}) : (!torch.vtensor<[5,1,5,5,5],f32>, !torch.int) -> !torch.vtensor<[5,5,5,5],f32>
// CHECK: %[[ALPHA:.+]] = "torch.constant.float"() {value = 1.9999999494757503E-4 : f64}
// CHECK: %[[SCALED:.+]] = "torch.aten.mul.Scalar"(%[[WINDOW]], %[[ALPHA]])
// CHECK: %[[BIAS:.+]] = "torch.constant.float"() {value = 1.000000e+00 : f64}
// CHECK: %[[SHIFTED:.+]] = "torch.aten.add.Scalar"(%[[SCALED]], %[[BIAS]], %{{.+}})
// CHECK: %[[BETA:.+]] = "torch.constant.float"() {value = 7.500000e-01 : f64}
// CHECK: %[[DEN:.+]] = "torch.aten.pow.Tensor_Scalar"(%[[SHIFTED]], %[[BETA]])
// CHECK: %[[Y:.+]] = "torch.aten.div.Tensor"(%arg0, %[[DEN]]) : (!torch.vtensor<[5,5,5,5],f32>, !torch.vtensor<[5,5,5,5],f32>) -> !torch.vtensor<[5,5,5,5],f32>
// CHECK: return %[[Y]]

// An even size pads one more channel after than before; rank 3 pools in 2-D.
// CHECK-LABEL: func.func @test_lrn_even_rank3(
func.func @test_lrn_even_rank3(%arg0: !torch.vtensor<[1,6,?],f32>) -> !torch.vtensor<[1,6,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.LRN", torch.onnx.size = 4 : si64} : (!torch.vtensor<[1,6,?],f32>) -> !torch.vtensor<[1,6,?],f32>
  return %0 : !torch.vtensor<[1,6,?],f32>
}
// CHECK: %[[Z0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[Z1:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[BEFORE:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[AFTER:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%[[Z0]], %[[Z1]], %[[BEFORE]], %[[AFTER]])
// CHECK: "torch.aten.constant_pad_nd"(%{{.+}}, %[[PADS]], %{{.+}}) : (!torch.vtensor<[1,1,6,?],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,1,9,?],f32>
// CHECK: "torch.aten.avg_pool2d"

// MeanVarianceNormalization: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9) over axes
// [0, 2, 3] by default.
// CHECK-LABEL: func.func @test_mvn(
func.func @test_mvn(%arg0: !torch.vtensor<[3,3,3,1],f32>) -> !torch.vtensor<[3,3,3,1],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MeanVarianceNormalization"} : (!torch.vtensor<[3,3,3,1],f32>) -> !torch.vtensor<[3,3,3,1],f32>
  return %0 : !torch.vtensor<[3,3,3,1],f32>
}
// CHECK: %[[A0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[A2:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[A3:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[AXES:.+]] = "torch.prim.ListConstruct"(%[[A0]], %[[A2]], %[[A3]])
// CHECK: %[[MEAN:.+]] = "torch.aten.mean.dim"(%arg0, %[[AXES]], %{{.+}}, %{{.+}}) : (!torch.vtensor<[3,3,3,1],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[1,3,1,1],f32>
// CHECK: %[[MEAN2:.+]] = "torch.aten.mul.Tensor"(%[[MEAN]], %[[MEAN]])
// CHECK: %[[SQ:.+]] = "torch.aten.mul.Tensor"(%arg0, %arg0)
// CHECK: %[[SQMEAN:.+]] = "torch.aten.mean.dim"(%[[SQ]], %{{.+}}, %{{.+}}, %{{.+}})
// CHECK: %[[VAR:.+]] = "torch.aten.sub.Tensor"(%[[SQMEAN]], %[[MEAN2]], %{{.+}})
// CHECK: %[[STD:.+]] = "torch.aten.sqrt"(%[[VAR]])
// CHECK: %[[EPS:.+]] = "torch.constant.float"() {value = 1.000000e-09 : f64}
// CHECK: %[[DEN:.+]] = "torch.aten.add.Scalar"(%[[STD]], %[[EPS]], %{{.+}})
// CHECK: %[[CENTERED:.+]] = "torch.aten.sub.Tensor"(%arg0, %[[MEAN]], %{{.+}}) : (!torch.vtensor<[3,3,3,1],f32>, !torch.vtensor<[1,3,1,1],f32>, !torch.int) -> !torch.vtensor<[3,3,3,1],f32>
// CHECK: %[[Y:.+]] = "torch.aten.div.Tensor"(%[[CENTERED]], %[[DEN]]) : (!torch.vtensor<[3,3,3,1],f32>, !torch.vtensor<[1,3,1,1],f32>) -> !torch.vtensor<[3,3,3,1],f32>
// CHECK: return %[[Y]]

// Negative axes count from the back.
// CHECK-LABEL: func.func @test_mvn_last_axis(
func.func @test_mvn_last_axis(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MeanVarianceNormalization", torch.onnx.axes = [-1]} : (!torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}
// CHECK: %[[A:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[AXES:.+]] = "torch.prim.ListConstruct"(%[[A]])
// CHECK: "torch.aten.mean.dim"(%arg0, %[[AXES]], %{{.+}}, %{{.+}}) : (!torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[2,1],f32>
