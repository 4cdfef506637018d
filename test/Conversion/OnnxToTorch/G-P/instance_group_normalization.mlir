// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// InstanceNormalization is torch's instance_norm with the input's own statistics.
// CHECK-LABEL: func.func @test_instancenorm(
func.func @test_instancenorm(%arg0: !torch.vtensor<[2,3,4,5],f32>, %arg1: !torch.vtensor<[3],f32>, %arg2: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3,4,5],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.InstanceNormalization", torch.onnx.epsilon = 0.00999999977 : f32} : (!torch.vtensor<[2,3,4,5],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3,4,5],f32>
  return %0 : !torch.vtensor<[2,3,4,5],f32>
}
// CHECK: %[[NONE:.+]] = "torch.constant.none"()
// CHECK: %[[STATS:.+]] = "torch.constant.bool"() {value = true}
// CHECK: %[[MOMENTUM:.+]] = "torch.constant.float"() {value = 1.000000e-01 : f64}
// CHECK: %[[EPS:.+]] = "torch.constant.float"() {value = 0.0099999997764825821 : f64}
// CHECK: %[[CUDNN:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[Y:.+]] = "torch.aten.instance_norm"(%arg0, %arg1, %arg2, %[[NONE]], %[[NONE]], %[[STATS]], %[[MOMENTUM]], %[[EPS]], %[[CUDNN]]) : (!torch.vtensor<[2,3,4,5],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.none, !torch.none, !torch.bool, !torch.float, !torch.float, !torch.bool) -> !torch.vtensor<[2,3,4,5],f32>
// CHECK: return %[[Y]]

// Opset 21: scale and bias per channel, as torch's group_norm takes them.
// CHECK-LABEL: func.func @test_group_norm_per_channel(
func.func @test_group_norm_per_channel(%arg0: !torch.vtensor<[3,4,2,2],f32>, %arg1: !torch.vtensor<[4],f32>, %arg2: !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4,2,2],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.GroupNormalization", torch.onnx.num_groups = 2 : si64} : (!torch.vtensor<[3,4,2,2],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4,2,2],f32>
  return %0 : !torch.vtensor<[3,4,2,2],f32>
}
// CHECK: %[[GROUPS:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[EPS:.+]] = "torch.constant.float"() {value = 1.000000e-05 : f64}
// CHECK: %[[CUDNN:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[Y:.+]] = "torch.aten.group_norm"(%arg0, %[[GROUPS]], %arg1, %arg2, %[[EPS]], %[[CUDNN]]) : (!torch.vtensor<[3,4,2,2],f32>, !torch.int, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.float, !torch.bool) -> !torch.vtensor<[3,4,2,2],f32>
// CHECK: return %[[Y]]

// Opset 18: scale and bias per group, each repeated over its group's channels.
// CHECK-LABEL: func.func @test_group_norm_per_group(
func.func @test_group_norm_per_group(%arg0: !torch.vtensor<[3,6,2],f32>, %arg1: !torch.vtensor<[2],f32>, %arg2: !torch.vtensor<[2],f32>) -> !torch.vtensor<[3,6,2],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.GroupNormalization", torch.onnx.num_groups = 2 : si64, torch.onnx.epsilon = 0.00999999977 : f32} : (!torch.vtensor<[3,6,2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[3,6,2],f32>
  return %0 : !torch.vtensor<[3,6,2],f32>
}
// CHECK: %[[SCOL:.+]] = "torch.aten.unsqueeze"(%arg1, %{{.+}}) : (!torch.vtensor<[2],f32>, !torch.int) -> !torch.vtensor<[2,1],f32>
// CHECK: %[[SREP:.+]] = "torch.aten.expand"(%[[SCOL]], %{{.+}}, %{{.+}}) : (!torch.vtensor<[2,1],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,3],f32>
// CHECK: %[[SCALE:.+]] = "torch.aten.reshape"(%[[SREP]], %{{.+}}) : (!torch.vtensor<[2,3],f32>, !torch.list<int>) -> !torch.vtensor<[6],f32>
// CHECK: %[[BCOL:.+]] = "torch.aten.unsqueeze"(%arg2, %{{.+}})
// CHECK: %[[BREP:.+]] = "torch.aten.expand"(%[[BCOL]], %{{.+}}, %{{.+}})
// CHECK: %[[BIAS:.+]] = "torch.aten.reshape"(%[[BREP]], %{{.+}}) : (!torch.vtensor<[2,3],f32>, !torch.list<int>) -> !torch.vtensor<[6],f32>
// CHECK: "torch.aten.group_norm"(%arg0, %{{.+}}, %[[SCALE]], %[[BIAS]], %{{.+}}, %{{.+}}) : (!torch.vtensor<[3,6,2],f32>, !torch.int, !torch.vtensor<[6],f32>, !torch.vtensor<[6],f32>, !torch.float, !torch.bool) -> !torch.vtensor<[3,6,2],f32>

// Opset 18 with one channel per group: the per-group operands are already per channel.
// CHECK-LABEL: func.func @test_group_norm_per_group_as_channels(
func.func @test_group_norm_per_group_as_channels(%arg0: !torch.vtensor<[?,4,?],f32>, %arg1: !torch.vtensor<[4],f32>, %arg2: !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,4,?],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.GroupNormalization", torch.onnx.num_groups = 4 : si64} : (!torch.vtensor<[?,4,?],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,4,?],f32>
  return %0 : !torch.vtensor<[?,4,?],f32>
}
// CHECK-NOT: torch.aten.expand
// CHECK: "torch.aten.group_norm"(%arg0, %{{.+}}, %arg1, %arg2, %{{.+}}, %{{.+}})

// Opset 18 with a channel count known only at run time: each group's value is repeated
// size(X, 1) // num_groups times, and the per-channel operands are [?].
// CHECK-LABEL: func.func @test_group_norm_per_group_run_time_channels(
func.func @test_group_norm_per_group_run_time_channels(%arg0: !torch.vtensor<[1,?,2],f32>, %arg1: !torch.vtensor<[2],f32>, %arg2: !torch.vtensor<[2],f32>) -> !torch.vtensor<[1,?,2],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.GroupNormalization", torch.onnx.num_groups = 2 : si64} : (!torch.vtensor<[1,?,2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[1,?,2],f32>
  return %0 : !torch.vtensor<[1,?,2],f32>
}
// CHECK: %[[SCOL:.+]] = "torch.aten.unsqueeze"(%arg1, %{{.+}}) : (!torch.vtensor<[2],f32>, !torch.int) -> !torch.vtensor<[2,1],f32>
// CHECK: %[[C:.+]] = "torch.aten.size.int"(%arg0, %{{.+}}) : (!torch.vtensor<[1,?,2],f32>, !torch.int) -> !torch.int
// CHECK: %[[PER:.+]] = "torch.aten.floordiv.int"(%[[C]], %{{.+}})
// CHECK: %[[SHAPE:.+]] = "torch.prim.ListConstruct"(%{{.+}}, %[[PER]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[SREP:.+]] = "torch.aten.expand"(%[[SCOL]], %[[SHAPE]], %{{.+}}) : (!torch.vtensor<[2,1],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,?],f32>
// CHECK: %[[SCALE:.+]] = "torch.aten.reshape"(%[[SREP]], %{{.+}}) : (!torch.vtensor<[2,?],f32>, !torch.list<int>) -> !torch.vtensor<[?],f32>
// CHECK: %[[BIAS:.+]] = "torch.aten.reshape"(%{{.+}}, %{{.+}}) : (!torch.vtensor<[2,?],f32>, !torch.list<int>) -> !torch.vtensor<[?],f32>
// CHECK: "torch.aten.group_norm"(%arg0, %{{.+}}, %[[SCALE]], %[[BIAS]], %{{.+}}, %{{.+}}) : (!torch.vtensor<[1,?,2],f32>, !torch.int, !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>, !torch.float, !torch.bool) -> !torch.vtensor<[1,?,2],f32>
